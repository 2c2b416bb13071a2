//! `OpenAiClient` against a real HTTP server on 127.0.0.1 that behaves like a strict local engine.

use std::any::Any;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use skillful_chat::{
    ApprovalRequest, ApprovalResponse, ChatClient, ChatError, ChatOptions, ChatRequest,
    ChatResponse, Content, FunctionCall, FunctionResult, Message, OpenAiClient, Role, Tool,
    ToolChoice,
};
use skillful_test_server::{NO_USER_QUERY, Reply, TestServer, completion};

fn client(server: &TestServer) -> OpenAiClient {
    OpenAiClient::builder(server.url())
        .model("test-model")
        .retry_backoff(Duration::from_millis(10))
        .build()
        .unwrap()
}

#[derive(Debug)]
struct Echo(Value);

#[async_trait]
impl Tool for Echo {
    fn name(&self) -> &str {
        "echo"
    }
    fn description(&self) -> &str {
        "Echoes its arguments."
    }
    fn parameters(&self) -> &Value {
        &self.0
    }
    async fn invoke(&self, arguments: Value) -> Result<String, String> {
        Ok(arguments.to_string())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Sends the smallest request a server accepts: one user message, `hi`.
async fn hi(client: &OpenAiClient) -> Result<ChatResponse, ChatError> {
    client
        .get_response(ChatRequest::new(vec![Message::user("hi")]))
        .await
}

fn call(id: &str) -> FunctionCall {
    FunctionCall {
        call_id: id.into(),
        name: "echo".into(),
        arguments: json!({"x": 1}),
    }
}

fn result(id: &str) -> Message {
    Message::new(
        Role::Tool,
        vec![Content::FunctionResult(FunctionResult {
            call_id: id.into(),
            result: "done".into(),
            is_error: false,
        })],
    )
}

#[tokio::test]
async fn sends_messages_tools_and_options_and_reads_the_answer() {
    let server = TestServer::start().await;
    server.push(Reply::text("Blue."));
    let schema = json!({"type": "object", "properties": {"x": {"type": "integer"}}});
    let mut options = ChatOptions::default();
    options.tool_choice = Some(ToolChoice::Function("echo".into()));
    options.temperature = Some(0.0);
    options.max_tokens = Some(64);
    options.seed = Some(7);
    let request = ChatRequest::new(vec![Message::system("Be brief."), Message::user("Sky?")])
        .with_tools(vec![Arc::new(Echo(schema.clone()))])
        .with_options(options);

    let response = client(&server).get_response(request).await.unwrap();

    assert_eq!(response.text(), "Blue.");
    assert_eq!(response.model.as_deref(), Some("test-model"));
    assert_eq!(response.finish_reason.as_deref(), Some("stop"));
    assert_eq!(response.usage.unwrap().completion_tokens, 5);
    let sent = &server.requests()[0].body;
    assert_eq!(sent["model"], "test-model");
    assert_eq!(
        sent["messages"],
        json!([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Sky?"}])
    );
    assert_eq!(
        sent["tools"],
        json!([{"type": "function", "function": {"name": "echo", "description": "Echoes its arguments.", "parameters": schema}}])
    );
    assert_eq!(
        sent["tool_choice"],
        json!({"type": "function", "function": {"name": "echo"}})
    );
    assert_eq!(sent["max_tokens"], 64);
    assert_eq!(sent["seed"], 7);
}

#[tokio::test]
async fn reads_tool_calls_in_every_shape_real_servers_send() {
    let server = TestServer::start().await;
    server.push(Reply::Completion(completion(
        json!({
            "role": "assistant",
            "content": "",
            "reasoning_content": "The user wants a conversion.",
            "tool_calls": [
                {"id": "a1", "type": "function", "function": {"name": "echo", "arguments": "{\n  \"x\": 1\n}"}},
                {"type": "function", "function": {"name": "echo", "arguments": {"x": 2}}},
                {"id": "", "function": {"name": "echo"}}
            ]
        }),
        "tool_calls",
    )));
    let response = client(&server)
        .get_response(ChatRequest::new(vec![Message::user("go")]))
        .await
        .unwrap();

    let message = &response.messages[0];
    assert_eq!(message.role, Role::Assistant);
    assert_eq!(message.joined_text(), "", "content \"\" is no text");
    let calls: Vec<&FunctionCall> = message.function_calls().collect();
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[0].call_id, "a1");
    assert_eq!(calls[0].arguments, json!({"x": 1}));
    assert_eq!(calls[1].arguments, json!({"x": 2}));
    assert_eq!(calls[2].arguments, json!({}));
    assert!(!calls[1].call_id.is_empty() && !calls[2].call_id.is_empty());
    assert_ne!(
        calls[1].call_id, calls[2].call_id,
        "generated ids are unique"
    );
}

#[tokio::test]
async fn writes_calls_results_and_approvals_as_a_strict_server_expects() {
    let server = TestServer::start().await;
    server.push(Reply::text("ok"));
    let messages = vec![
        Message::user("go"),
        Message::new(
            Role::Assistant,
            vec![
                Content::FunctionCall(call("c1")),
                Content::ApprovalRequest(ApprovalRequest { call: call("c2") }),
            ],
        ),
        result("c1"),
        Message::new(
            Role::User,
            vec![Content::ApprovalResponse(ApprovalResponse::approve("c2"))],
        ),
        result("c2"),
    ];
    client(&server)
        .get_response(ChatRequest::new(messages))
        .await
        .unwrap();

    let sent = server.requests()[0].messages().to_vec();
    assert_eq!(sent.len(), 4, "the approval answer is not sent: {sent:?}");
    assert_eq!(sent[1]["tool_calls"][1]["id"], "c2");
    assert_eq!(
        sent[1]["tool_calls"][0]["function"]["arguments"],
        "{\"x\":1}"
    );
    assert_eq!(
        sent[2],
        json!({"role": "tool", "tool_call_id": "c1", "content": "done"})
    );
    assert_eq!(sent[3]["tool_call_id"], "c2");
}

#[tokio::test]
async fn server_errors_carry_status_and_message() {
    let server = TestServer::start().await;
    let error = client(&server)
        .get_response(ChatRequest::new(vec![Message::system("no user here")]))
        .await
        .unwrap_err();
    assert_eq!(error.status(), Some(400));
    assert!(
        matches!(&error, ChatError::Status { message, .. } if message == NO_USER_QUERY),
        "{error}"
    );
    assert!(error.to_string().contains(server.url()));
}

#[tokio::test]
async fn retries_429_after_the_delay_the_server_asks() {
    let server = TestServer::start().await;
    server.push(Reply::rate_limited(1));
    server.push(Reply::text("finally"));
    // Without Retry-After the client would wait an hour: the answer proves it waited as asked.
    let client = OpenAiClient::builder(server.url())
        .retry_backoff(Duration::from_secs(3600))
        .max_retry_delay(Duration::from_secs(3600))
        .build()
        .unwrap();
    let response = tokio::time::timeout(Duration::from_secs(60), hi(&client))
        .await
        .expect("Retry-After: 1 was honoured")
        .unwrap();
    assert_eq!(response.text(), "finally");
    let statuses: Vec<u16> = server.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [429, 200]);
}

#[tokio::test]
async fn gives_up_after_the_configured_retries_of_5xx() {
    let server = TestServer::start().await;
    server.repeat(Reply::error(503, "loading model"));
    let client = OpenAiClient::builder(server.url())
        .max_retries(2)
        .retry_backoff(Duration::from_millis(1))
        .build()
        .unwrap();
    let error = hi(&client).await.unwrap_err();
    assert!(
        matches!(&error, ChatError::Status { status: 503, message, .. } if message == "loading model")
    );
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn connection_refused_names_the_url() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let base = format!("http://{address}/v1");
    let client = OpenAiClient::builder(&base).build().unwrap();
    let error = hi(&client).await.unwrap_err();
    assert!(
        matches!(&error, ChatError::Connect { url, .. } if *url == format!("{base}/chat/completions")),
        "{error:?}"
    );
}

#[tokio::test]
async fn sends_the_api_key_and_never_shows_it() {
    let server = TestServer::start().await;
    server.push(Reply::text("ok"));
    let client = OpenAiClient::builder(server.url())
        .api_key("sk-secret-123")
        .build()
        .unwrap();
    hi(&client).await.unwrap();
    assert_eq!(
        server.requests()[0].authorization.as_deref(),
        Some("Bearer sk-secret-123")
    );
    assert!(!format!("{client:?}").contains("sk-secret-123"));
}

#[tokio::test]
async fn a_body_that_is_not_a_completion_is_a_typed_error() {
    let server = TestServer::start().await;
    server.push(Reply::Completion(json!({"choices": []})));
    let error = hi(&client(&server)).await.unwrap_err();
    assert!(
        matches!(error, ChatError::InvalidResponse { .. }),
        "{error}"
    );
}

/// A completion recorded from llama.cpp's server (xllamacpp 2026.10.11549, Qwen2.5-Coder-0.5B,
/// `max_tokens` 48): `content: ""`, ids without `call_`, arguments with spaces, the second call
/// cut off by the token limit, `timings` and `prompt_tokens_details`.
#[tokio::test]
async fn reads_a_completion_recorded_from_llama_cpp() {
    let server = TestServer::start().await;
    server.push(Reply::Completion(json!({
        "choices": [{"finish_reason": "length", "index": 0, "message": {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"type": "function", "function": {"name": "load_skill", "arguments": "{\"skillName\": \"unit-converter\"}"}, "id": "D71S5K5F4MxfpxDzUfDr5kqVq9D6R4Wu"},
                {"type": "function", "function": {"name": "read_skill_resource", "arguments": "{\"skillName\": \"unit-converter\", \"resourceName\": \"m"}, "id": "4fuTyTJMX70DLG7ITBafnaUPn9yKQx0P"}
            ]
        }}],
        "created": 1795999530,
        "model": "/work/main/target/llm/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        "system_fingerprint": "b0-unknown",
        "object": "chat.completion",
        "usage": {"completion_tokens": 48, "prompt_tokens": 886, "total_tokens": 934, "prompt_tokens_details": {"cached_tokens": 885}},
        "id": "chatcmpl-bSDApfnYJjISkrSlfSCAs47RaWP9d9FO",
        "timings": {"cache_n": 885, "prompt_n": 1, "prompt_ms": 1713.426, "predicted_n": 48, "predicted_ms": 15926.778}
    })));
    let response = client(&server)
        .get_response(ChatRequest::new(vec![Message::user("go")]))
        .await
        .unwrap();

    assert_eq!(response.finish_reason.as_deref(), Some("length"));
    assert_eq!(response.usage.unwrap().prompt_tokens, 886);
    let message = &response.messages[0];
    assert_eq!(message.joined_text(), "");
    let calls: Vec<&FunctionCall> = message.function_calls().collect();
    assert_eq!(calls[0].call_id, "D71S5K5F4MxfpxDzUfDr5kqVq9D6R4Wu");
    assert_eq!(calls[0].arguments, json!({"skillName": "unit-converter"}));
    assert_eq!(
        calls[1].arguments,
        json!("{\"skillName\": \"unit-converter\", \"resourceName\": \"m"),
        "cut-off arguments are kept as text, for the tool to report"
    );

    // Sent back, the cut-off arguments are JSON text (a string), which the engine parses.
    server.push(Reply::text("ok"));
    let mut follow_up = vec![Message::user("go"), message.clone()];
    follow_up.extend(calls.iter().map(|call| result(&call.call_id)));
    client(&server)
        .get_response(ChatRequest::new(follow_up))
        .await
        .unwrap();
    let sent = server.requests()[1].messages()[1]["tool_calls"][1]["function"]["arguments"].clone();
    assert_eq!(
        sent,
        json!(r#""{\"skillName\": \"unit-converter\", \"resourceName\": \"m""#)
    );
}

/// llama.cpp answers a template's `raise_exception` with HTTP 400 (older builds: 500) and a
/// longer message around the template's own.
#[tokio::test]
async fn a_template_rejecting_the_request_is_a_typed_error_as_400_or_500() {
    let engine_message = format!(
        "Unable to generate parser for this template. Automatic parser generation failed: \n\
         ------------\nWhile executing CallExpression at line 28, column 24 in source:\n...\n\
         Error: Jinja Exception: {NO_USER_QUERY}"
    );
    for status in [400, 500] {
        let server = TestServer::start().await;
        server.repeat(Reply::error(status, &engine_message));
        let error = client(&server)
            .get_response(ChatRequest::new(vec![Message::user("go")]))
            .await
            .unwrap_err();
        assert_eq!(error.status(), Some(status));
        assert!(
            matches!(&error, ChatError::Status { message, .. } if message.ends_with(NO_USER_QUERY)),
            "{error}"
        );
    }
}

#[tokio::test]
async fn a_call_without_an_answer_in_time_is_a_timeout_naming_the_url_and_the_limit() {
    // Accepts connections and never answers.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let silent = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    let client = OpenAiClient::builder(&base)
        .timeout(Duration::from_secs(1))
        .build()
        .unwrap();
    let error = hi(&client).await.unwrap_err();
    assert_eq!(
        error,
        ChatError::Timeout {
            url: format!("{base}/chat/completions"),
            timeout: Duration::from_secs(1),
        }
    );
    assert_eq!(
        error.to_string(),
        format!("no answer from {base}/chat/completions within 1 s")
    );
    silent.abort();
}

#[tokio::test]
async fn the_servers_models_are_listed_and_a_missing_server_is_a_connect_error() {
    let server = TestServer::start().await;
    let models = client(&server).models().await.unwrap();
    assert_eq!(models, [skillful_test_server::MODEL]);

    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let nobody = OpenAiClient::builder(format!("http://127.0.0.1:{port}/v1"))
        .build()
        .unwrap();
    let error = nobody.models().await.unwrap_err();
    assert!(matches!(error, ChatError::Connect { .. }), "{error}");
    assert!(error.to_string().contains("/v1/models"), "{error}");
}
