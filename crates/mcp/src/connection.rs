//! The client side of one MCP server: where it is, connecting lazily, reading resources, and
//! reconnecting after a transport failure.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use rmcp::model::{ReadResourceRequestParams, ResourceContents};
use rmcp::service::{
    ClientCacheConfig, ClientInitializeError, Peer, RoleClient, RunningService, ServiceError,
    ServiceExt,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, StreamableHttpClientTransportConfig,
};
use skillful_core::ResourceContent;

use crate::BearerToken;
use crate::error::McpSkillsError;
use crate::final_form::FinalFormError;

/// Where an MCP server is: a command to run (spoken to over its stdin and stdout), or a
/// streamable HTTP URL.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum McpEndpoint {
    /// A child process speaking MCP over stdio.
    Stdio {
        /// The program to run.
        program: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// A streamable HTTP endpoint, such as `http://127.0.0.1:8000/mcp`.
    Http {
        /// The URL.
        url: String,
        /// The token sent with every request as `Authorization: Bearer <token>`, for a server
        /// that requires one.
        bearer_token: Option<BearerToken>,
    },
}

impl McpEndpoint {
    /// A server run as `program args...`.
    pub fn stdio<I>(program: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        McpEndpoint::Stdio {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
        }
    }

    /// A server run from one command line: words separated by whitespace, `'...'` and `"..."`
    /// group words with spaces (no other shell syntax).
    ///
    /// # Errors
    /// [`McpSkillsError::Command`] for an empty line or an unclosed quote.
    ///
    /// # Example
    /// ```
    /// use skillful_mcp::McpEndpoint;
    ///
    /// let endpoint = McpEndpoint::command_line(r#"python3 "my server.py" --quiet"#).unwrap();
    /// assert_eq!(endpoint, McpEndpoint::stdio("python3", ["my server.py", "--quiet"]));
    /// ```
    pub fn command_line(line: &str) -> Result<Self, McpSkillsError> {
        let error = |message: &str| McpSkillsError::Command {
            command: line.to_owned(),
            message: message.to_owned(),
        };
        let mut words = Vec::new();
        let mut word: Option<String> = None;
        let mut quote = None;
        for c in line.chars() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), c) => word.get_or_insert_with(String::new).push(c),
                (None, '\'' | '"') => {
                    quote = Some(c);
                    word.get_or_insert_with(String::new);
                }
                (None, c) if c.is_whitespace() => words.extend(word.take()),
                (None, c) => word.get_or_insert_with(String::new).push(c),
            }
        }
        if quote.is_some() {
            return Err(error("a quote is not closed"));
        }
        words.extend(word);
        let mut words = words.into_iter();
        let program = words
            .next()
            .ok_or_else(|| error("it is empty; give the program to run and its arguments"))?;
        Ok(McpEndpoint::stdio(program, words))
    }

    /// A server at a streamable HTTP URL.
    pub fn http(url: impl Into<String>) -> Self {
        McpEndpoint::Http {
            url: url.into(),
            bearer_token: None,
        }
    }

    /// A server at a streamable HTTP URL that requires a bearer token (such as `skills serve
    /// --http ADDR --auth-token-env VAR`): `token` is sent with every request. Sent over plain
    /// `http://` to another host, anyone on the way can read it; a warning says so when it is.
    ///
    /// # Example
    /// ```
    /// use skillful_mcp::{BearerToken, McpEndpoint};
    ///
    /// let token = BearerToken::new("correct-horse-battery-staple").unwrap();
    /// let endpoint = McpEndpoint::http_with_bearer_token("http://127.0.0.1:8000/mcp", token);
    /// assert!(!format!("{endpoint:?} {endpoint}").contains("horse"));
    /// ```
    pub fn http_with_bearer_token(url: impl Into<String>, token: BearerToken) -> Self {
        McpEndpoint::Http {
            url: url.into(),
            bearer_token: Some(token),
        }
    }
}

impl fmt::Display for McpEndpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            McpEndpoint::Stdio { program, args } => {
                write!(f, "`{program}")?;
                for arg in args {
                    write!(f, " {arg}")?;
                }
                f.write_str("`")
            }
            McpEndpoint::Http { url, .. } => f.write_str(url),
        }
    }
}

type Service = RunningService<RoleClient, ()>;

/// A live client, and the stdio server's process when it is one. Dropped, the service goes first
/// (closing the server's standard input), then the process, which is stopped with everything it
/// started ([`skillful_process::Running`]).
struct Client {
    service: Service,
    /// Kept only to be dropped with the client.
    _process: Option<skillful_process::Running>,
}

impl Client {
    fn peer(&self) -> &Peer<RoleClient> {
        self.service.peer()
    }
}

/// One server, connected on first use; after a transport failure the connection is dropped
/// and the next request connects afresh.
pub(crate) struct Connection {
    server: String,
    endpoint: Option<McpEndpoint>,
    timeout: Duration,
    /// The host variables a stdio server inherits besides the scripts' allow-list.
    allowed_env: Vec<String>,
    /// The live client and how many connections came before it.
    slot: tokio::sync::Mutex<Slot>,
}

/// The live client, if any.
struct Slot {
    /// How many connections were made before this one.
    generation: u64,
    client: Option<Arc<Client>>,
    /// Whether the client's response cache was turned off.
    configured: bool,
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("server", &self.server)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// What a resource held, with the MIME type the server gave.
#[derive(Debug)]
pub(crate) struct Fetched {
    pub(crate) content: ResourceContent,
    pub(crate) mime_type: Option<String>,
}

impl Connection {
    /// A connection made when first needed.
    pub(crate) fn lazy(endpoint: McpEndpoint, timeout: Duration) -> Self {
        Self {
            server: endpoint.to_string(),
            endpoint: Some(endpoint),
            timeout,
            allowed_env: Vec::new(),
            slot: tokio::sync::Mutex::new(Slot {
                generation: 0,
                client: None,
                configured: false,
            }),
        }
    }

    /// A connection over a client the caller set up; it is not remade after a failure.
    pub(crate) fn established(client: Service, server: String, timeout: Duration) -> Self {
        Self {
            server,
            endpoint: None,
            timeout,
            allowed_env: Vec::new(),
            slot: tokio::sync::Mutex::new(Slot {
                generation: 0,
                client: Some(Arc::new(Client {
                    service: client,
                    _process: None,
                })),
                configured: false,
            }),
        }
    }

    /// Lets a stdio server inherit the host's variable `name` too.
    pub(crate) fn allow_env(&mut self, name: String) {
        self.allowed_env.push(name);
    }

    /// The server's command line or URL, for messages.
    pub(crate) fn server(&self) -> &str {
        &self.server
    }

    async fn peer(&self) -> Result<(u64, Peer<RoleClient>), McpSkillsError> {
        let mut slot = self.slot.lock().await;
        let peer = match &slot.client {
            Some(client) => client.peer().clone(),
            None => {
                let Some(endpoint) = &self.endpoint else {
                    return Err(McpSkillsError::Connect {
                        server: self.server.clone(),
                        message: "the connection was closed and cannot be remade".into(),
                    });
                };
                let client =
                    tokio::time::timeout(self.timeout, connect(endpoint, &self.allowed_env))
                        .await
                        .map_err(|_| McpSkillsError::Connect {
                            server: self.server.clone(),
                            message: format!(
                                "no answer to the handshake within {:?}",
                                self.timeout
                            ),
                        })?
                        .map_err(|message| McpSkillsError::Connect {
                            server: self.server.clone(),
                            message,
                        })?;
                slot.generation += 1;
                slot.configured = false;
                let peer = client.peer().clone();
                slot.client = Some(Arc::new(client));
                peer
            }
        };
        if !slot.configured {
            // Every read is verified against the entry the skill was loaded from, so a cached
            // answer would only hide a changed file (and keep failing verification after the
            // entry is refreshed): rmcp's response cache stays off.
            peer.set_response_cache_config(ClientCacheConfig::disabled())
                .await;
            slot.configured = true;
        }
        Ok((slot.generation, peer))
    }

    /// Forgets connection number `generation` (when it is still the live one), so that the next
    /// request connects afresh.
    async fn reset(&self, generation: u64) {
        if self.endpoint.is_none() {
            return;
        }
        let mut slot = self.slot.lock().await;
        if slot.generation == generation {
            slot.client = None;
        }
    }

    /// Runs `call` (requests of the Skills extension) on the live connection, connecting first
    /// when there is none, within the timeout. A transport failure or a timeout drops the
    /// connection, so that the next call connects afresh.
    ///
    /// # Errors
    /// [`McpSkillsError::Connect`], [`McpSkillsError::Transport`] on a timeout, or what `call`
    /// returned as [`McpSkillsError::Protocol`].
    pub(crate) async fn request<T, F, Fut>(
        &self,
        target: &str,
        call: F,
    ) -> Result<T, McpSkillsError>
    where
        F: FnOnce(Peer<RoleClient>) -> Fut,
        Fut: Future<Output = Result<T, FinalFormError>>,
    {
        let (generation, peer) = self.peer().await?;
        match tokio::time::timeout(self.timeout, call(peer)).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => {
                if matches!(error, FinalFormError::Transport { .. }) {
                    self.reset(generation).await;
                }
                Err(McpSkillsError::Protocol(error))
            }
            Err(_) => {
                self.reset(generation).await;
                Err(McpSkillsError::Transport {
                    server: self.server.clone(),
                    uri: target.to_owned(),
                    message: format!("no answer within {:?}", self.timeout),
                })
            }
        }
    }

    /// Reads the resource at `uri`: its text (several text parts joined by newlines) or the
    /// bytes of its first blob.
    ///
    /// # Errors
    /// [`McpSkillsError::Server`] when the server answers with an error, `Content` when it
    /// answers with nothing usable, `Connect`/`Transport` when the connection fails.
    pub(crate) async fn read(&self, uri: &str) -> Result<Fetched, McpSkillsError> {
        let (generation, peer) = self.peer().await?;
        let request = peer.read_resource(ReadResourceRequestParams::new(uri));
        let transport = |message: String| McpSkillsError::Transport {
            server: self.server.clone(),
            uri: uri.to_owned(),
            message,
        };
        let result = match tokio::time::timeout(self.timeout, request).await {
            Ok(Ok(result)) => result,
            Ok(Err(ServiceError::McpError(error))) => {
                return Err(McpSkillsError::Server {
                    server: self.server.clone(),
                    uri: uri.to_owned(),
                    code: error.code.0,
                    message: error.message.into_owned(),
                });
            }
            Ok(Err(error)) => {
                self.reset(generation).await;
                return Err(transport(root_cause(&error)));
            }
            Err(_) => {
                self.reset(generation).await;
                return Err(transport(format!("no answer within {:?}", self.timeout)));
            }
        };
        let content_error = |message: String| McpSkillsError::Content {
            server: self.server.clone(),
            uri: uri.to_owned(),
            message,
        };
        let mut texts = Vec::new();
        let mut mime = None;
        for part in result.contents {
            match part {
                ResourceContents::TextResourceContents {
                    text, mime_type, ..
                } => {
                    mime = mime.or(mime_type);
                    texts.push(text);
                }
                ResourceContents::BlobResourceContents {
                    blob, mime_type, ..
                } if texts.is_empty() => {
                    let bytes = base64::engine::general_purpose::STANDARD
                        .decode(blob.trim())
                        .map_err(|error| {
                            content_error(format!("the blob is not base64: {error}"))
                        })?;
                    return Ok(Fetched {
                        content: ResourceContent::Binary {
                            bytes,
                            mime_type: mime_type.clone(),
                        },
                        mime_type,
                    });
                }
                _ => {}
            }
        }
        if texts.is_empty() {
            return Err(content_error("the server sent no content".into()));
        }
        Ok(Fetched {
            content: ResourceContent::Text(texts.join("\n")),
            mime_type: mime,
        })
    }
}

/// The most lines of a stdio server's standard error shown, per connection.
const MAX_STDERR_LINES: usize = 1000;

/// The most bytes of one line of a stdio server's standard error shown (the rest of a longer
/// line is shown as the next lines).
const MAX_STDERR_LINE_BYTES: u64 = 2000;

/// Shows what the stdio server `program` writes on its standard error through the host's log
/// (`tracing` warnings, whose fields the host's formatter escapes), never the terminal itself:
/// at most [`MAX_STDERR_LINES`] lines of [`MAX_STDERR_LINE_BYTES`]; the rest is read and
/// dropped, so that the server never blocks on a full pipe.
fn relay_stderr(program: String, stderr: tokio::process::ChildStderr) {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt};
    tokio::spawn(async move {
        let mut reader = tokio::io::BufReader::new(stderr);
        let mut line = Vec::new();
        let mut shown = 0;
        loop {
            line.clear();
            match (&mut reader)
                .take(MAX_STDERR_LINE_BYTES)
                .read_until(b'\n', &mut line)
                .await
            {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if shown < MAX_STDERR_LINES {
                let text = String::from_utf8_lossy(&line);
                tracing::warn!(server = %program, stderr = %text.trim_end(), "MCP server");
                shown += 1;
                if shown == MAX_STDERR_LINES {
                    tracing::warn!(
                        server = %program,
                        "MCP server: its further standard error is not shown"
                    );
                }
            }
        }
    });
}

/// Connects to `endpoint`; a stdio server is started as every child of the host is
/// ([`skillful_process::ChildCommand`]: the allow-listed environment,
/// [`skillful_process::allowed_environment`], plus the host's variables named in `allowed_env`;
/// a process group and, on Linux, a reaper of its own; stopped with its whole tree when the
/// client is dropped), its standard error shown through the host's log ([`relay_stderr`]).
async fn connect(endpoint: &McpEndpoint, allowed_env: &[String]) -> Result<Client, String> {
    match endpoint {
        McpEndpoint::Stdio { program, args } => {
            let environment = skillful_process::allowed_environment(allowed_env.iter().cloned());
            let mut command = skillful_process::ChildCommand::new(program, &environment);
            command
                .command_mut()
                .args(args)
                .stdin(std::process::Stdio::piped());
            let mut process = command
                .spawn()
                .map_err(|error| format!("cannot start `{program}`: {error}"))?;
            if let Some(stderr) = process.child_mut().stderr.take() {
                relay_stderr(program.clone(), stderr);
            }
            let (Some(stdout), Some(stdin)) = (
                process.child_mut().stdout.take(),
                process.child_mut().stdin.take(),
            ) else {
                return Err(format!("cannot start `{program}`: its pipes are missing"));
            };
            let service = ().serve((stdout, stdin)).await.map_err(handshake_error)?;
            Ok(Client {
                service,
                _process: Some(process),
            })
        }
        McpEndpoint::Http { url, bearer_token } => {
            let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
            if let Some(token) = bearer_token {
                if exposes_token(url) {
                    tracing::warn!(
                        server = %url,
                        "the bearer token is sent without TLS to another host: anyone on the way can read it; use https://"
                    );
                }
                config = config.auth_header(token.secret());
            }
            let transport = StreamableHttpClientTransport::with_client(http_client()?, config);
            let service = ().serve(transport).await.map_err(|error| {
                match (refused_authorization(&error), bearer_token) {
                    (true, Some(_)) => {
                        "the server refused the bearer token sent (HTTP 401); check that it is this server's token".to_owned()
                    }
                    (true, None) => {
                        "the server requires a bearer token and none was sent (HTTP 401)".to_owned()
                    }
                    (false, _) => handshake_error(error),
                }
            })?;
            Ok(Client {
                service,
                _process: None,
            })
        }
    }
}

/// Whether a token sent to `url` travels in clear text beyond this host: plain `http://` to a
/// host that is not a loopback address (`localhost` counts as one).
fn exposes_token(url: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(url) else {
        return false;
    };
    if url.scheme() != "http" {
        return false;
    }
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    !loopback
}

/// Whether the handshake failed because the server asked for authorization (HTTP 401).
fn refused_authorization(error: &ClientInitializeError) -> bool {
    let ClientInitializeError::TransportError { error, .. } = error else {
        return false;
    };
    let first: &(dyn std::error::Error + 'static) = &*error.error;
    std::iter::successors(Some(first), |cause| cause.source())
        .any(|cause| cause.is::<AuthRequiredError>())
}

/// Why the handshake failed, in a few words.
fn handshake_error(error: ClientInitializeError) -> String {
    match error {
        ClientInitializeError::TransportError { error, .. } => root_cause(&*error.error),
        other => root_cause(&other),
    }
}

/// The innermost cause of `error` (`Connection refused (os error 111)`), not the chain of
/// wrappers around it.
fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = error;
    while let Some(source) = cause.source() {
        cause = source;
    }
    cause.to_string()
}

/// The workspace's HTTP client (see `skillful-http`).
fn http_client() -> Result<reqwest::Client, String> {
    skillful_http::client_builder()
        .map_err(|error| error.to_string())?
        .build()
        .map_err(|error| format!("cannot set up the HTTP client: {error}"))
}
