//! A real OpenAI-compatible chat server on `127.0.0.1`, for the workspace's tests only (a
//! dev-dependency; never linked into a library or the binary).
//!
//! Each test scripts the replies, in order, or answers each request by a function of it (a
//! deterministic stand-in model, [`TestServer::respond`]). The server is as strict as a local engine: it answers
//! HTTP 400 `No user query found in messages.` to a request without a user message whose content
//! is a plain non-empty string (what Qwen-family chat templates demand), HTTP 400 when a
//! `tool` message does not answer a preceding `tool_call_id` or a tool call goes unanswered, and
//! HTTP 500 when the arguments of a past tool call are not JSON text (as llama.cpp). It records
//! every request it receives, rejected ones included.
//!
//! With the `otlp` feature, [`otlp::OtlpReceiver`] receives OpenTelemetry traces (OTLP over
//! HTTP or gRPC) and decodes them.
//!
//! # Example
//! ```
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! use skillful_test_server::{Reply, TestServer};
//!
//! let server = TestServer::start().await;
//! server.push(Reply::text("Hello."));
//! assert!(server.url().starts_with("http://127.0.0.1:"));
//! assert!(server.requests().is_empty());
//! # });
//! ```

#![forbid(unsafe_code)]

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

#[cfg(feature = "otlp")]
pub mod otlp;

/// What strict chat templates say to a request with no user query.
pub const NO_USER_QUERY: &str = "No user query found in messages.";

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    /// HTTP 200 with this completion body.
    Completion(Value),
    /// An error status with an OpenAI-style error body, and optionally `Retry-After`.
    Error {
        /// The HTTP status.
        status: u16,
        /// The error's message.
        message: String,
        /// The `Retry-After` header's value.
        retry_after: Option<String>,
    },
}

impl Reply {
    /// The model answers with text.
    pub fn text(text: &str) -> Self {
        Self::Completion(completion(
            json!({"role": "assistant", "content": text}),
            "stop",
        ))
    }

    /// The model calls tools: `(id, name, arguments)`, the arguments sent as a JSON string as
    /// OpenAI does.
    pub fn tool_calls(calls: &[(&str, &str, Value)]) -> Self {
        let calls: Vec<Value> = calls
            .iter()
            .map(|(id, name, arguments)| {
                json!({
                    "id": id,
                    "type": "function",
                    "function": {"name": name, "arguments": arguments.to_string()}
                })
            })
            .collect();
        Self::Completion(completion(
            json!({"role": "assistant", "content": null, "tool_calls": calls}),
            "tool_calls",
        ))
    }

    /// The model calls one tool.
    pub fn tool_call(id: &str, name: &str, arguments: Value) -> Self {
        Self::tool_calls(&[(id, name, arguments)])
    }

    /// The model calls `load_skill` for `skill`.
    pub fn load_skill(id: &str, skill: &str) -> Self {
        Self::tool_call(id, "load_skill", json!({"skillName": skill}))
    }

    /// The model calls `read_skill_resource` for `resource` of `skill`.
    pub fn read_skill_resource(id: &str, skill: &str, resource: &str) -> Self {
        let arguments = json!({"skillName": skill, "resourceName": resource});
        Self::tool_call(id, "read_skill_resource", arguments)
    }

    /// The model calls `run_skill_script` for `script` of `skill`, with no arguments.
    pub fn run_skill_script(id: &str, skill: &str, script: &str) -> Self {
        let arguments = json!({"skillName": skill, "scriptName": script});
        Self::tool_call(id, "run_skill_script", arguments)
    }

    /// An error status with `message`.
    pub fn error(status: u16, message: &str) -> Self {
        Self::Error {
            status,
            message: message.to_owned(),
            retry_after: None,
        }
    }

    /// HTTP 429 asking to retry after `seconds`.
    pub fn rate_limited(seconds: u64) -> Self {
        Self::Error {
            status: 429,
            message: "rate limited".to_owned(),
            retry_after: Some(seconds.to_string()),
        }
    }
}

/// A completion body around one assistant `message`, with every field OpenAI's schema requires
/// (clients such as async-openai refuse a body without `created`), usage and llama.cpp's
/// `timings`.
pub fn completion(message: Value, finish_reason: &str) -> Value {
    json!({
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        "timings": {"prompt_ms": 1.0, "predicted_ms": 1.0}
    })
}

/// One request the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The JSON body (`null` when it was not JSON).
    pub body: Value,
    /// The `Authorization` header, if sent.
    pub authorization: Option<String>,
    /// The status the server answered.
    pub status: u16,
}

impl Recorded {
    /// The request's messages.
    pub fn messages(&self) -> &[Value] {
        self.body["messages"].as_array().map_or(&[], Vec::as_slice)
    }

    /// The `content` of every message of `role`, as text.
    pub fn contents(&self, role: &str) -> Vec<String> {
        self.messages()
            .iter()
            .filter(|message| message["role"] == role)
            .map(|message| message["content"].as_str().unwrap_or_default().to_owned())
            .collect()
    }
}

/// A stand-in model: the reply to a request, from the request's JSON body.
type Responder = Arc<dyn Fn(&Value) -> Reply + Send + Sync>;

#[derive(Default)]
struct Script {
    replies: VecDeque<Reply>,
    responder: Option<Responder>,
    fallback: Option<Reply>,
    requests: Vec<Recorded>,
}

impl std::fmt::Debug for Script {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Script")
            .field("replies", &self.replies)
            .field("responder", &self.responder.is_some())
            .field("fallback", &self.fallback)
            .field("requests", &self.requests)
            .finish()
    }
}

/// The running server; it stops when dropped.
#[derive(Debug)]
pub struct TestServer {
    url: String,
    script: Arc<Mutex<Script>>,
    task: tokio::task::JoinHandle<()>,
}

impl TestServer {
    /// Starts a server on `127.0.0.1` on a free port.
    ///
    /// # Panics
    /// When no port can be bound (the test cannot run).
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        Self::serve(listener)
    }

    /// Starts a server on `127.0.0.1:port` (a fixed port, such as a default endpoint's);
    /// `None` when the port cannot be bound (something else holds it).
    pub async fn start_at(port: u16) -> Option<Self> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .ok()?;
        Some(Self::serve(listener))
    }

    fn serve(listener: tokio::net::TcpListener) -> Self {
        let address = listener.local_addr().expect("a bound address");
        let script = Arc::new(Mutex::new(Script::default()));
        let router = Router::new()
            .route("/v1/chat/completions", post(chat))
            .route("/v1/models", get(models))
            // Local engines take long conversations whole; so does this server.
            .layer(axum::extract::DefaultBodyLimit::disable())
            .with_state(Arc::clone(&script));
        let task = tokio::spawn(async move {
            axum::serve(listener, router).await.expect("serve");
        });
        Self {
            url: format!("http://{address}/v1"),
            script,
            task,
        }
    }

    /// The base URL, e.g. `http://127.0.0.1:40123/v1`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Queues the next reply.
    pub fn push(&self, reply: Reply) {
        self.lock().replies.push_back(reply);
    }

    /// Answers every request the queue does not by `responder`, a function of the request's
    /// JSON body: a deterministic stand-in model (it sees the tools offered and the messages).
    pub fn respond(&self, responder: impl Fn(&Value) -> Reply + Send + Sync + 'static) {
        self.lock().responder = Some(Arc::new(responder));
    }

    /// The reply given whenever the queue is empty and no responder is set (a model that repeats
    /// itself).
    pub fn repeat(&self, reply: Reply) {
        self.lock().fallback = Some(reply);
    }

    /// Every request received so far, rejected ones included.
    pub fn requests(&self) -> Vec<Recorded> {
        self.lock().requests.clone()
    }

    /// Whether the server accepted every request received so far (HTTP 200): the client sent
    /// nothing invalid on the wire.
    pub fn all_answered(&self) -> bool {
        self.requests().iter().all(|request| request.status == 200)
    }

    /// The requests the server accepted and answered with HTTP 200.
    pub fn answered(&self) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|request| request.status == 200)
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Script> {
        self.script
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The OpenAI list of models: the one model this server stands in for.
async fn models() -> Response {
    axum::Json(serde_json::json!({
        "object": "list",
        "data": [{"id": MODEL, "object": "model", "owned_by": "skillful-test-server"}],
    }))
    .into_response()
}

/// The id `GET /v1/models` lists.
pub const MODEL: &str = "test-model";

async fn chat(
    State(script): State<Arc<Mutex<Script>>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let authorization = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let mut script = script.lock().unwrap_or_else(|poison| poison.into_inner());
    let reply = match check(&body) {
        Err((status, message)) => Reply::error(status, &message),
        Ok(()) => match script
            .replies
            .pop_front()
            .or_else(|| script.responder.as_ref().map(|respond| respond(&body)))
            .or_else(|| script.fallback.clone())
        {
            Some(reply) => reply,
            None => Reply::error(500, "test server: no scripted reply left"),
        },
    };
    let (status, response_body, retry_after) = match reply {
        Reply::Completion(body) => (200, body, None),
        Reply::Error {
            status,
            message,
            retry_after,
        } => (
            status,
            json!({"error": {"code": status, "message": message, "type": "invalid_request_error"}}),
            retry_after,
        ),
    };
    script.requests.push(Recorded {
        body,
        authorization,
        status,
    });
    let mut response = (
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        axum::Json(response_body),
    )
        .into_response();
    if let Some(value) = retry_after.and_then(|value| HeaderValue::from_str(&value).ok()) {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

/// What a strict engine checks before generating: the status and message of a rejection.
fn check(body: &Value) -> Result<(), (u16, String)> {
    let messages = body["messages"]
        .as_array()
        .ok_or((400, "'messages' must be an array".to_owned()))?;
    let has_query = messages.iter().any(|message| {
        message["role"] == "user"
            && message["content"]
                .as_str()
                .is_some_and(|text| !text.trim().is_empty())
    });
    if !has_query {
        return Err((400, NO_USER_QUERY.to_owned()));
    }
    let mut open: HashSet<String> = HashSet::new();
    for message in messages {
        let role = message["role"].as_str().unwrap_or_default();
        if role == "tool" {
            let id = message["tool_call_id"].as_str().unwrap_or_default();
            if !open.remove(id) {
                return Err((
                    400,
                    format!(
                        "tool message with tool_call_id '{id}' does not answer a preceding tool call"
                    ),
                ));
            }
            continue;
        }
        if !open.is_empty() {
            return Err((
                400,
                format!(
                    "tool calls {open:?} must be answered by tool messages before the next {role} message"
                ),
            ));
        }
        for call in message["tool_calls"].as_array().into_iter().flatten() {
            // As llama.cpp, which parses the arguments of past calls for the chat template.
            let arguments = call["function"]["arguments"].as_str().unwrap_or_default();
            if let Err(error) = serde_json::from_str::<Value>(arguments) {
                return Err((
                    500,
                    format!("Failed to parse tool call arguments as JSON: {error}"),
                ));
            }
            open.insert(call["id"].as_str().unwrap_or_default().to_owned());
        }
    }
    if !open.is_empty() {
        return Err((400, format!("tool calls {open:?} are never answered")));
    }
    Ok(())
}
