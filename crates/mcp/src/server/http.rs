//! The bounds of the HTTP server: connections served at once (one more is answered 503), a
//! header-read timeout (which is also how long an idle kept-alive connection is kept), a
//! deadline for each request (a body sent slowly holds nothing past it), and `initialize`
//! sessions kept at once, in all and per peer: the local user who owns the client's socket (on
//! Linux, for a loopback client: its other loopback addresses are the same user), else the
//! peer's address.

use std::cell::Cell;
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::Stream;
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    EventStore, ServerSseMessage, SessionId, SessionManager,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The bounds of [`SkillsMcpServer::serve_http`](crate::SkillsMcpServer::serve_http) and of its
/// [`router`](crate::SkillsMcpServer::router) (the session bounds), set with
/// [`SkillsMcpServer::with_http_limits`](crate::SkillsMcpServer::with_http_limits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    /// Connections served at once; one more is answered `503 Service Unavailable` and closed.
    pub max_connections: usize,
    /// `initialize` sessions (protocol 2025-11-25 and older) kept at once; one more
    /// `initialize` is answered 503 until a session ends. 2026-07-28 requests keep none.
    pub max_sessions: usize,
    /// Sessions kept at once for one peer (the local user owning a loopback client's socket on
    /// Linux, else the IP address), so that one client cannot take them all.
    pub max_sessions_per_peer: usize,
    /// How long a session may go without a request before it is closed.
    pub session_idle: Duration,
    /// How long a connection may take to send a request's headers; also how long an idle
    /// kept-alive connection waits for its next request before it is closed.
    pub header_read_timeout: Duration,
    /// How long a request may take from its headers to its answer (its body included); past
    /// it the answer is `408 Request Timeout`. A stream's events after its answer begins are
    /// not bound by it.
    pub request_deadline: Duration,
}

impl Default for HttpLimits {
    /// 128 connections, 64 sessions (16 per peer) closed after 2 minutes idle, headers within
    /// 5 seconds, a request answered within 30.
    fn default() -> Self {
        Self {
            max_connections: 128,
            max_sessions: 64,
            max_sessions_per_peer: 16,
            session_idle: Duration::from_secs(120),
            header_read_timeout: Duration::from_secs(5),
            request_deadline: Duration::from_secs(30),
        }
    }
}

/// How many connections over the limit are answered 503 at once; beyond that they are closed
/// unanswered.
const REFUSALS_AT_ONCE: usize = 32;

/// How long a refused connection is read from after its 503 (so that closing it does not reset
/// the answer away).
const REFUSAL_DRAIN: Duration = Duration::from_secs(1);

const UNAVAILABLE: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: 55\r\n\r\nthe server is at its limit of connections; retry later\n";

tokio::task_local! {
    /// The peer of the request being handled, and whether a session was refused to it.
    static ADMISSION: Admission;
}

struct Admission {
    peer: Peer,
    refused: Cell<bool>,
}

/// Who a connection's sessions count against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Peer {
    /// The local user owning the client's socket.
    User(u32),
    /// The client's address, where its user cannot be known.
    Address(IpAddr),
}

impl Peer {
    /// The peer of a connection from `client` to `server`.
    fn of(client: SocketAddr, server: Option<SocketAddr>) -> Self {
        if client.ip().is_loopback()
            && let Some(server) = server
            && let Some(uid) = socket_owner(client, server)
        {
            return Self::User(uid);
        }
        Self::Address(client.ip())
    }
}

/// Elsewhere than on Linux a socket's owner is not known here.
#[cfg(not(target_os = "linux"))]
fn socket_owner(_client: SocketAddr, _server: SocketAddr) -> Option<u32> {
    None
}

/// The user owning the TCP socket at `client` connected to `server`, from `/proc/net/tcp` (or
/// `tcp6`).
#[cfg(target_os = "linux")]
fn socket_owner(client: SocketAddr, server: SocketAddr) -> Option<u32> {
    let sockets = if client.is_ipv4() {
        procfs::net::tcp()
    } else {
        procfs::net::tcp6()
    }
    .ok()?;
    sockets
        .into_iter()
        .find(|socket| socket.local_address == client && socket.remote_address == server)
        .map(|socket| socket.uid)
}

/// Serves `router` on `listener` under `limits`, until the process ends.
pub(super) async fn serve(listener: TcpListener, router: axum::Router, limits: HttpLimits) {
    let connections = Arc::new(Semaphore::new(limits.max_connections));
    let refusals = Arc::new(Semaphore::new(REFUSALS_AT_ONCE));
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of descriptors or a connection reset before it was accepted: the listener
                // itself is fine; wait a little rather than spin.
                tracing::warn!("accepting an MCP connection failed: {error}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // Each answer is written as it is ready: without TCP_NODELAY, the last segment of a
        // response waits for the client's delayed acknowledgement (tens of milliseconds).
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!("cannot set TCP_NODELAY on a connection: {error}");
        }
        match Arc::clone(&connections).try_acquire_owned() {
            Ok(permit) => {
                tokio::spawn(connection(stream, peer, router.clone(), limits, permit));
            }
            Err(_) => {
                if let Ok(permit) = Arc::clone(&refusals).try_acquire_owned() {
                    tokio::spawn(refuse(stream, permit));
                }
            }
        }
    }
}

async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    router: axum::Router,
    limits: HttpLimits,
    _permit: OwnedSemaphorePermit,
) {
    let owner = Peer::of(peer, stream.local_addr().ok());
    let service = hyper::service::service_fn(move |request| {
        let mut router = router.clone();
        let admission = Admission {
            peer: owner,
            refused: Cell::new(false),
        };
        ADMISSION.scope(admission, async move {
            let answered = tokio::time::timeout(
                limits.request_deadline,
                tower_service::Service::call(&mut router, request),
            )
            .await;
            let Ok(response) = answered else {
                return Ok(request_timeout());
            };
            if ADMISSION.with(|admission| admission.refused.get()) {
                return Ok(sessions_full());
            }
            response
        })
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    if let Err(error) = builder
        .serve_connection(TokioIo::new(stream), service)
        .await
    {
        tracing::debug!("an MCP connection from {peer} ended: {error}");
    }
}

fn sessions_full() -> axum::response::Response {
    use axum::response::IntoResponse;
    (
        axum::http::StatusCode::SERVICE_UNAVAILABLE,
        [(axum::http::header::RETRY_AFTER, "5")],
        "the server keeps as many sessions as it may (in all, or for this address); end one (DELETE with its Mcp-Session-Id) or retry later\n",
    )
        .into_response()
}

fn request_timeout() -> axum::response::Response {
    use axum::response::IntoResponse;
    (
        axum::http::StatusCode::REQUEST_TIMEOUT,
        [(axum::http::header::CONNECTION, "close")],
        "the request was not received and answered within the server's deadline\n",
    )
        .into_response()
}

/// Answers a connection over the limit 503 and closes it.
async fn refuse(mut stream: TcpStream, _permit: OwnedSemaphorePermit) {
    if stream.write_all(UNAVAILABLE).await.is_err() || stream.shutdown().await.is_err() {
        return;
    }
    let mut sink = [0; 4096];
    let _ = tokio::time::timeout(REFUSAL_DRAIN, async {
        while matches!(stream.read(&mut sink).await, Ok(read) if read > 0) {}
    })
    .await;
}

/// Why a session was not created or used.
#[derive(Debug, thiserror::Error)]
pub(super) enum SessionsError {
    /// At the limit of sessions, in all or for the peer.
    #[error("the server keeps as many sessions as it may")]
    Full,
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

#[derive(Debug, Default)]
struct Counts {
    peers: HashMap<SessionId, Option<Peer>>,
    /// Sessions kept and being created.
    total: usize,
    per_peer: HashMap<Peer, usize>,
}

impl Counts {
    fn release(&mut self, peer: Option<Peer>) {
        self.total = self.total.saturating_sub(1);
        if let Some(peer) = peer
            && let Some(count) = self.per_peer.get_mut(&peer)
        {
            *count -= 1;
            if *count == 0 {
                self.per_peer.remove(&peer);
            }
        }
    }
}

/// rmcp's in-memory sessions, at most `max` of them (`per_peer` for one [`Peer`]).
#[derive(Debug)]
pub(super) struct BoundedSessions {
    inner: LocalSessionManager,
    max: usize,
    per_peer: usize,
    counts: Mutex<Counts>,
}

impl BoundedSessions {
    pub(super) fn new(limits: &HttpLimits) -> Self {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(limits.session_idle);
        Self {
            inner,
            max: limits.max_sessions,
            per_peer: limits.max_sessions_per_peer,
            counts: Mutex::default(),
        }
    }

    fn counts(&self) -> std::sync::MutexGuard<'_, Counts> {
        // The counts are updated whole under the lock: a panic cannot leave them half-done.
        self.counts.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl SessionManager for BoundedSessions {
    type Error = SessionsError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let peer = ADMISSION.try_with(|admission| admission.peer).ok();
        {
            let mut counts = self.counts();
            let peer_full = peer.is_some_and(|peer| {
                counts.per_peer.get(&peer).copied().unwrap_or(0) >= self.per_peer
            });
            if counts.total >= self.max || peer_full {
                let _ = ADMISSION.try_with(|admission| admission.refused.set(true));
                return Err(SessionsError::Full);
            }
            counts.total += 1;
            if let Some(peer) = peer {
                *counts.per_peer.entry(peer).or_default() += 1;
            }
        }
        match self.inner.create_session().await {
            Ok((id, transport)) => {
                self.counts().peers.insert(id.clone(), peer);
                Ok((id, transport))
            }
            Err(error) => {
                self.counts().release(peer);
                Err(error.into())
            }
        }
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        // Called on DELETE and again when the session's worker ends: counted down once.
        {
            let mut counts = self.counts();
            if let Some(peer) = counts.peers.remove(id) {
                counts.release(peer);
            }
        }
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.inner.event_store()
    }
}
