//! Hostile servers and risky endpoints: bodies without end, credentials in URLs, keys over plain
//! HTTP, `Retry-After` values that do not fit a `Duration`.

use std::time::Duration;

use skillful_chat::{ChatClient, ChatError, ChatRequest, Message, OpenAiClient, redact_url};
use skillful_test_server::{Reply, TestServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

fn hi() -> ChatRequest {
    ChatRequest::new(vec![Message::user("hi")])
}

/// How a raw server answers, after reading the request.
enum Body {
    /// A chunked body of `total` bytes of JSON that never closes.
    Endless { total: usize },
    /// A `Content-Length` far beyond any cap, then a few bytes and the connection held open.
    Announced { length: u64 },
}

/// A server on 127.0.0.1 that answers one request with `body`; the task returns how many body
/// bytes it managed to write before the client went away (or it was done).
async fn raw_server(body: Body) -> (String, tokio::task::JoinHandle<usize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        read_request(&mut stream).await;
        match body {
            Body::Endless { total } => {
                let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\
                            transfer-encoding: chunked\r\n\r\n";
                if stream.write_all(head.as_bytes()).await.is_err() {
                    return 0;
                }
                let mut chunk = b"{\"choices\": [".to_vec();
                chunk.resize(64 * 1024, b' ');
                let mut sent = 0;
                while sent < total {
                    let mut frame = format!("{:x}\r\n", chunk.len()).into_bytes();
                    frame.extend_from_slice(&chunk);
                    frame.extend_from_slice(b"\r\n");
                    if stream.write_all(&frame).await.is_err() {
                        break;
                    }
                    sent += chunk.len();
                    chunk.fill(b' ');
                }
                sent
            }
            Body::Announced { length } => {
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {length}\r\n\r\n{{\"choices\": ["
                );
                let _ = stream.write_all(head.as_bytes()).await;
                // Hold the connection until the client gives up on it.
                let mut rest = [0u8; 1];
                let _ = stream.read(&mut rest).await;
                0
            }
        }
    });
    (url, task)
}

/// Reads one HTTP request: the head, then `content-length` bytes of body.
async fn read_request(stream: &mut tokio::net::TcpStream) {
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    let head_end = loop {
        let n = stream.read(&mut buffer).await.unwrap();
        assert!(n > 0, "the client closed before sending a request");
        received.extend_from_slice(&buffer[..n]);
        if let Some(at) = received.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&received[..head_end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .map_or(0, |value| value.trim().parse().unwrap());
    while received.len() < head_end + length {
        let n = stream.read(&mut buffer).await.unwrap();
        assert!(n > 0, "the client closed mid-request");
        received.extend_from_slice(&buffer[..n]);
    }
}

#[tokio::test]
async fn a_body_past_the_default_cap_is_a_typed_error_not_a_buffer() {
    // 48 MiB of a completion that never ends: past the default 32 MiB.
    let (url, server) = raw_server(Body::Endless {
        total: 48 * 1024 * 1024,
    })
    .await;
    let client = OpenAiClient::builder(&url).build().unwrap();
    let error = client.get_response(hi()).await.unwrap_err();
    assert!(
        matches!(&error, ChatError::ResponseTooLarge { limit, .. } if *limit == 32 * 1024 * 1024),
        "{error:?}"
    );
    assert!(error.to_string().contains("32 MiB"), "{error}");
    drop(client);
    server.await.unwrap();
}

#[tokio::test]
async fn an_endless_body_is_cut_off_at_the_configured_cap() {
    let (url, server) = raw_server(Body::Endless {
        total: 1024 * 1024 * 1024,
    })
    .await;
    let client = OpenAiClient::builder(&url)
        .max_response_bytes(256 * 1024)
        .build()
        .unwrap();
    let error = client.get_response(hi()).await.unwrap_err();
    assert!(
        matches!(&error, ChatError::ResponseTooLarge { limit: 262_144, .. }),
        "{error:?}"
    );
    drop(client);
    let sent = server.await.unwrap();
    assert!(
        sent < 64 * 1024 * 1024,
        "the client stopped reading at the cap, the server could not send the whole GiB \
         (it sent {sent} bytes)"
    );
}

#[tokio::test]
async fn an_announced_length_past_the_cap_is_refused_before_reading() {
    let (url, server) = raw_server(Body::Announced {
        length: 100 * 1024 * 1024 * 1024,
    })
    .await;
    let client = OpenAiClient::builder(&url)
        .max_response_bytes(1024 * 1024)
        .build()
        .unwrap();
    let error = client.get_response(hi()).await.unwrap_err();
    assert!(
        matches!(
            &error,
            ChatError::ResponseTooLarge {
                limit: 1_048_576,
                ..
            }
        ),
        "{error:?}"
    );
    drop(client);
    server.await.unwrap();
}

#[tokio::test]
async fn an_error_body_is_capped_too() {
    let server = TestServer::start().await;
    server.push(Reply::error(400, &"x".repeat(300 * 1024)));
    let client = OpenAiClient::builder(server.url())
        .max_response_bytes(64 * 1024)
        .build()
        .unwrap();
    let error = client.get_response(hi()).await.unwrap_err();
    assert!(
        matches!(&error, ChatError::ResponseTooLarge { .. }),
        "{error:?}"
    );
}

/// A port on 127.0.0.1 where nothing listens.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[tokio::test]
async fn credentials_in_the_endpoint_appear_in_no_error_and_no_debug_output() {
    let port = closed_port();
    let base = format!("http://alice:hunter2@127.0.0.1:{port}/v1?api-key=sekrit#frag");
    let builder = OpenAiClient::builder(&base);
    let shown_builder = format!("{builder:?}");
    let client = builder.build().unwrap();
    let error = client.get_response(hi()).await.unwrap_err();
    assert!(matches!(error, ChatError::Connect { .. }), "{error:?}");
    for shown in [
        error.to_string(),
        format!("{error:?}"),
        format!("{client:?}"),
        shown_builder,
        client.url().to_owned(),
    ] {
        for secret in ["alice", "hunter2", "sekrit", "api-key", "frag"] {
            assert!(!shown.contains(secret), "{secret} shown in {shown}");
        }
        assert!(shown.contains(&format!("127.0.0.1:{port}/v1")), "{shown}");
    }
    assert_eq!(
        client.url(),
        format!("http://127.0.0.1:{port}/v1/chat/completions")
    );
}

#[tokio::test]
async fn the_query_string_is_still_sent_and_the_path_goes_before_it() {
    let server = TestServer::start().await;
    server.push(Reply::error(401, "bad key"));
    let base = format!("{}?api-version=2024-10-21", server.url());
    let client = OpenAiClient::builder(&base).max_retries(0).build().unwrap();
    let error = client.get_response(hi()).await.unwrap_err();
    // The test server only answers `/v1/chat/completions`: the status proves the path was right.
    assert_eq!(error.status(), Some(401), "{error}");
    assert!(!error.to_string().contains("api-version"), "{error}");
}

#[test]
fn redacting_strips_userinfo_query_and_fragment() {
    for (url, shown) in [
        (
            "https://u:p@api.example.com/v1?key=k#f",
            "https://api.example.com/v1",
        ),
        ("http://127.0.0.1:1234/v1", "http://127.0.0.1:1234/v1"),
        ("http://token@[::1]:8080/", "http://[::1]:8080/"),
        ("user:pass@host:1/v1", "host:1/v1"),
        ("http://us/er:p@ss@host/v1?x", "http://host/v1"),
        ("not a url?secret", "not a url"),
    ] {
        assert_eq!(redact_url(url), shown, "{url}");
    }
}

#[test]
fn an_api_key_is_never_sent_over_plain_http_to_another_host() {
    for base in [
        "http://192.0.2.10:8080/v1",
        "http://api.example.com/v1",
        "http://localhost.example.com/v1",
        "http://[2001:db8::1]/v1",
    ] {
        let error = OpenAiClient::builder(base)
            .api_key("sk-secret")
            .build()
            .unwrap_err();
        assert!(
            matches!(&error, ChatError::InsecureCredentials { .. }),
            "{base}: {error:?}"
        );
        let text = error.to_string();
        assert!(
            text.contains("https://") && text.contains("loopback"),
            "{text}"
        );
        assert!(!text.contains("sk-secret"), "{text}");
        // Without a key there is nothing to leak.
        assert!(OpenAiClient::builder(base).build().is_ok(), "{base}");
    }
    // Userinfo is a credential too.
    assert!(matches!(
        OpenAiClient::builder("http://u:p@192.0.2.10/v1").build(),
        Err(ChatError::InsecureCredentials { .. })
    ));
    for base in [
        "https://api.example.com/v1",
        "http://127.0.0.1:1234/v1",
        "http://127.8.9.10/v1",
        "http://localhost:1234/v1",
        "http://[::1]:1234/v1",
    ] {
        let built = OpenAiClient::builder(base).api_key("sk-secret").build();
        assert!(built.is_ok(), "{base}: {built:?}");
    }
}

#[test]
fn an_endpoint_that_is_no_http_url_is_refused_when_building() {
    for base in ["ftp://127.0.0.1/v1", "127.0.0.1:1234", "http://"] {
        let error = OpenAiClient::builder(base).build().unwrap_err();
        assert!(
            matches!(&error, ChatError::InvalidUrl { .. }),
            "{base}: {error:?}"
        );
    }
}

#[tokio::test]
async fn retry_after_values_that_fit_no_duration_never_panic() {
    for value in [
        "1e300",
        "-5",
        "NaN",
        "inf",
        "99999999999999999999999999",
        "-0",
    ] {
        let server = TestServer::start().await;
        server.push(Reply::Error {
            status: 503,
            message: "busy".to_owned(),
            retry_after: Some(value.to_owned()),
        });
        server.push(Reply::text("ok"));
        let client = OpenAiClient::builder(server.url())
            .retry_backoff(Duration::from_millis(1))
            .max_retry_delay(Duration::from_millis(20))
            .build()
            .unwrap();
        let response = client.get_response(hi()).await;
        assert_eq!(response.unwrap().text(), "ok", "Retry-After: {value}");
    }
}
