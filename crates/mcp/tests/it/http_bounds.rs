//! `serve_http` under its bounds, over real TCP on 127.0.0.1 with hand-written HTTP/1.1: a
//! connection over the limit is answered 503; a connection that sends no headers, or stays
//! idle after an answer, is closed at the header-read timeout; `initialize` sessions are
//! bounded in all and per peer address (503), and a closed session frees its place; without a
//! token only loopback `Origin`s are answered.

use crate::common;

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use common::write_tree;
use skillful_discovery::FileSkillsSource;
use skillful_mcp::{HttpLimits, SkillsMcpServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// Long enough never to end a test by itself: each test waits for the event it expects.
const PATIENCE: Duration = Duration::from_secs(20);

async fn serve(limits: HttpLimits) -> (SocketAddr, tempfile::TempDir) {
    let root = tempfile::tempdir().unwrap();
    write_tree(
        root.path(),
        &[(
            "alpha/SKILL.md",
            b"---\nname: alpha\ndescription: A.\n---\nA.\n",
        )],
    );
    let files = FileSkillsSource::builder()
        .root(root.path())
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = SkillsMcpServer::new(files).with_http_limits(limits);
    tokio::spawn(server.serve_http(listener));
    (addr, root)
}

/// A connection to `addr` from the loopback address `from` (any of 127.0.0.0/8).
async fn connect_from(addr: SocketAddr, from: [u8; 4]) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(IpAddr::from(from), 0)).unwrap();
    socket.connect(addr).await.unwrap()
}

/// Sends `request` and reads the answer's head: its status and headers (lower-case names).
async fn exchange(stream: &mut TcpStream, request: &str) -> (u16, Vec<(String, String)>) {
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    let mut byte = [0];
    tokio::time::timeout(PATIENCE, async {
        while !head.ends_with(b"\r\n\r\n") {
            let read = stream.read(&mut byte).await.unwrap();
            assert_eq!(
                read,
                1,
                "closed before an answer: {:?}",
                String::from_utf8_lossy(&head)
            );
            head.push(byte[0]);
        }
    })
    .await
    .expect("an answer");
    let head = String::from_utf8(head).unwrap();
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|line| line.split_once(": "))
        .map(|(name, value)| (name.to_ascii_lowercase(), value.to_owned()))
        .collect();
    (status, headers)
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(found, _)| found == name)
        .map(|(_, value)| value.as_str())
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bounds","version":"1"}}}"#;

fn post(body: &str, extra: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\n{extra}connection: close\r\n\r\n{body}",
        body.len()
    )
}

/// `initialize` from `from`: the status, and the session's id when one was made.
async fn initialize(addr: SocketAddr, from: [u8; 4]) -> (u16, Option<String>) {
    let mut stream = connect_from(addr, from).await;
    let (status, headers) = exchange(&mut stream, &post(INITIALIZE, "")).await;
    (
        status,
        header(&headers, "mcp-session-id").map(str::to_owned),
    )
}

/// Waits until the server closes `stream` (a read of nothing, or a reset).
async fn closed(stream: &mut TcpStream) {
    let mut buffer = [0; 1024];
    tokio::time::timeout(PATIENCE, async {
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await
    .expect("the server closes the connection");
}

#[tokio::test]
async fn a_connection_over_the_limit_is_answered_503() {
    let limits = HttpLimits {
        max_connections: 2,
        header_read_timeout: PATIENCE * 2,
        ..HttpLimits::default()
    };
    let (addr, _root) = serve(limits).await;
    // Two connections that have not sent their headers hold both places.
    let mut first = TcpStream::connect(addr).await.unwrap();
    let held = TcpStream::connect(addr).await.unwrap();
    // The server has taken them both once it answers on one of them.
    let (status, _) = exchange(
        &mut first,
        "GET /elsewhere HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n",
    )
    .await;
    assert_eq!(status, 404);

    let mut over = TcpStream::connect(addr).await.unwrap();
    let (status, headers) = exchange(
        &mut over,
        "GET /elsewhere HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n",
    )
    .await;
    assert_eq!(status, 503);
    assert_eq!(header(&headers, "retry-after"), Some("1"));
    closed(&mut over).await;

    // A place given back is taken again.
    drop((first, held));
    let mut status = 503;
    while status == 503 {
        let mut again = TcpStream::connect(addr).await.unwrap();
        status = exchange(
            &mut again,
            "GET /elsewhere HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n",
        )
        .await
        .0;
    }
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_silent_half_open_or_idle_connection_is_closed_at_the_header_read_timeout() {
    let limits = HttpLimits {
        header_read_timeout: Duration::from_millis(300),
        ..HttpLimits::default()
    };
    let (addr, _root) = serve(limits).await;

    let mut silent = TcpStream::connect(addr).await.unwrap();
    closed(&mut silent).await;

    let mut half = TcpStream::connect(addr).await.unwrap();
    half.write_all(b"GET /mcp HTTP/1.1\r\nhost: 127.")
        .await
        .unwrap();
    closed(&mut half).await;

    // Kept alive after an answer, then idle.
    let mut idle = TcpStream::connect(addr).await.unwrap();
    let (status, _) = exchange(
        &mut idle,
        "GET /elsewhere HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n",
    )
    .await;
    assert_eq!(status, 404);
    closed(&mut idle).await;
}

#[tokio::test]
async fn sessions_are_bounded_in_all_and_per_peer_and_a_closed_one_frees_its_place() {
    let limits = HttpLimits {
        max_sessions: 3,
        max_sessions_per_peer: 2,
        ..HttpLimits::default()
    };
    let (addr, _root) = serve(limits).await;
    let (a, b, c) = ([127, 0, 0, 1], [127, 0, 0, 2], [127, 0, 0, 3]);

    let (status, first) = initialize(addr, a).await;
    assert_eq!(status, 200);
    let first = first.expect("a session id");
    assert_eq!(initialize(addr, a).await.0, 200);
    // A third for the same peer is over its share.
    assert_eq!(initialize(addr, a).await, (503, None));
    if cfg!(target_os = "linux") {
        // Another loopback address of the same local user is the same peer.
        assert_eq!(initialize(addr, b).await, (503, None));
        end_session(addr, a, &first).await;
        assert_eq!(initialize(addr, b).await.0, 200);
        return;
    }
    // Another peer gets the last place; then nobody gets one.
    assert_eq!(initialize(addr, b).await.0, 200);
    assert_eq!(initialize(addr, c).await, (503, None));

    // Ending a session frees its place.
    end_session(addr, a, &first).await;
    assert_eq!(initialize(addr, c).await.0, 200);
}

/// Ends the session `id` (`DELETE` from `from`).
async fn end_session(addr: SocketAddr, from: [u8; 4], id: &str) {
    let mut stream = connect_from(addr, from).await;
    let delete = format!(
        "DELETE /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nmcp-session-id: {id}\r\nconnection: close\r\n\r\n"
    );
    let (status, _) = exchange(&mut stream, &delete).await;
    assert!((200..300).contains(&status), "{status}");
}

#[tokio::test]
async fn a_body_sent_slowly_is_answered_408_at_the_request_deadline() {
    let limits = HttpLimits {
        request_deadline: Duration::from_millis(300),
        ..HttpLimits::default()
    };
    let (addr, _root) = serve(limits).await;
    let mut slow = TcpStream::connect(addr).await.unwrap();
    // The headers promise a body that never comes.
    let (status, _) = exchange(
        &mut slow,
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: 1000\r\n\r\n{\"jsonrpc\"",
    )
    .await;
    assert_eq!(status, 408);
}

#[tokio::test]
async fn without_a_token_only_loopback_origins_are_answered() {
    let (addr, _root) = serve(HttpLimits::default()).await;
    for (origin, expected) in [
        ("http://evil.example", 403),
        ("https://localhost.evil.example", 403),
        ("http://localhost:5173", 200),
        ("http://127.0.0.1:8000", 200),
    ] {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let request = post(INITIALIZE, &format!("origin: {origin}\r\n"));
        let (status, _) = exchange(&mut stream, &request).await;
        assert_eq!(status, expected, "{origin}");
    }
}
