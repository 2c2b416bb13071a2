//! The OpenAI chat-completions wire format: requests written strictly, responses read
//! forgivingly (arguments as a string or an object, missing ids, `content: ""`, unknown fields).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::message::{Content, FunctionCall, Message, Role};
use crate::request::{ChatRequest, ChatResponse, ToolChoice, Usage};

/// The JSON body of a `/chat/completions` request.
pub(crate) fn request_body(request: &ChatRequest, default_model: Option<&str>) -> Value {
    let mut body = Map::new();
    if let Some(model) = request.options.model.as_deref().or(default_model) {
        body.insert("model".into(), model.into());
    }
    let messages: Vec<Value> = request.messages.iter().flat_map(wire_messages).collect();
    body.insert("messages".into(), messages.into());
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "function": {
                        "name": tool.name(),
                        "description": tool.description(),
                        "parameters": tool.parameters(),
                    }
                })
            })
            .collect();
        body.insert("tools".into(), tools.into());
    }
    if let Some(choice) = &request.options.tool_choice {
        let choice = match choice {
            ToolChoice::Auto => json!("auto"),
            ToolChoice::None => json!("none"),
            ToolChoice::Required => json!("required"),
            ToolChoice::Function(name) => json!({"type": "function", "function": {"name": name}}),
        };
        body.insert("tool_choice".into(), choice);
    }
    if let Some(temperature) = request.options.temperature {
        body.insert("temperature".into(), temperature.into());
    }
    if let Some(max_tokens) = request.options.max_tokens {
        body.insert("max_tokens".into(), max_tokens.into());
    }
    if let Some(seed) = request.options.seed {
        body.insert("seed".into(), seed.into());
    }
    if let Some(format) = &request.options.response_format {
        body.insert(
            "response_format".into(),
            json!({
                "type": "json_schema",
                "json_schema": {"name": format.name, "strict": true, "schema": format.schema},
            }),
        );
    }
    body.insert("stream".into(), false.into());
    Value::Object(body)
}

/// One message on the wire: texts joined into a plain string (strict templates count only a
/// string), an approval request sent as the tool call it holds, approval answers left out (they
/// are for the client, not the model), one `tool` message per result.
fn wire_messages(message: &Message) -> Vec<Value> {
    let text = message.joined_text();
    match message.role {
        Role::System | Role::User if text.is_empty() => Vec::new(),
        Role::System => vec![json!({"role": "system", "content": text})],
        Role::User => vec![json!({"role": "user", "content": text})],
        Role::Assistant => {
            let calls: Vec<Value> = message.function_calls().map(wire_call).collect();
            if text.is_empty() && calls.is_empty() {
                return Vec::new();
            }
            let mut wire = json!({"role": "assistant", "content": text});
            if !calls.is_empty() {
                wire["tool_calls"] = calls.into();
            }
            vec![wire]
        }
        Role::Tool => message
            .contents
            .iter()
            .filter_map(|content| match content {
                Content::FunctionResult(result) => Some(json!({
                    "role": "tool",
                    "tool_call_id": result.call_id,
                    "content": result.result,
                })),
                _ => None,
            })
            .collect(),
    }
}

/// Arguments go as JSON text. Text that is not JSON (a call cut off by the token limit) goes as
/// a JSON string: engines parse the arguments of past calls and reject the request otherwise.
fn wire_call(call: &FunctionCall) -> Value {
    let arguments = match &call.arguments {
        Value::String(raw) if serde_json::from_str::<Value>(raw).is_ok() => raw.clone(),
        other => other.to_string(),
    };
    json!({
        "id": call.call_id,
        "type": "function",
        "function": {"name": call.name, "arguments": arguments}
    })
}

#[derive(Deserialize)]
struct Completion {
    model: Option<String>,
    #[serde(default)]
    choices: Vec<Choice>,
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct Choice {
    message: WireMessage,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct WireMessage {
    content: Option<Value>,
    tool_calls: Option<Vec<WireToolCall>>,
}

#[derive(Deserialize)]
struct WireToolCall {
    id: Option<String>,
    function: WireFunction,
}

#[derive(Deserialize)]
struct WireFunction {
    name: String,
    arguments: Option<Value>,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
}

/// Reads a completion; the error says what is missing.
pub(crate) fn parse_response(body: &[u8]) -> Result<ChatResponse, String> {
    let completion: Completion = serde_json::from_slice(body).map_err(|error| error.to_string())?;
    let choice = completion
        .choices
        .into_iter()
        .next()
        .ok_or_else(|| "it has no choices".to_owned())?;
    let mut contents = Vec::new();
    let text = choice.message.content.map(content_text).unwrap_or_default();
    if !text.is_empty() {
        contents.push(Content::Text { text });
    }
    for call in choice.message.tool_calls.unwrap_or_default() {
        contents.push(Content::FunctionCall(FunctionCall {
            call_id: call
                .id
                .filter(|id| !id.is_empty())
                .unwrap_or_else(generated_call_id),
            name: call.function.name,
            arguments: arguments(call.function.arguments),
        }));
    }
    Ok(ChatResponse {
        messages: vec![Message::new(Role::Assistant, contents)],
        model: completion.model,
        finish_reason: choice.finish_reason,
        usage: completion.usage.map(|usage| Usage {
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
        }),
        stopped: None,
    })
}

/// `content` as a string, or as an array of `{"type": "text", "text": ...}` parts.
fn content_text(content: Value) -> String {
    match content {
        Value::String(text) => text,
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

/// Arguments sent as a JSON string are parsed; a string that is not JSON is kept as it is, for
/// the tool to report; none at all is `{}`.
fn arguments(raw: Option<Value>) -> Value {
    match raw {
        None | Some(Value::Null) => json!({}),
        Some(Value::String(text)) if text.trim().is_empty() => json!({}),
        Some(Value::String(text)) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
        Some(other) => other,
    }
}

/// An id for a call the server sent without one, unique in this process.
fn generated_call_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.subsec_nanos())
        .unwrap_or_default();
    format!("call_{:x}{nanos:08x}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// The server's message in an error body: `error.message`, `error` as a string, `message`,
/// `detail`, or else the body itself (cut at 500 characters).
pub(crate) fn error_message(body: &[u8]) -> String {
    let found = serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|value| {
            [
                value.pointer("/error/message"),
                value.get("error"),
                value.get("message"),
                value.get("detail"),
            ]
            .into_iter()
            .flatten()
            .find_map(|field| field.as_str().map(str::to_owned))
        });
    found.unwrap_or_else(|| {
        let text = String::from_utf8_lossy(body);
        let text = text.trim();
        match text.char_indices().nth(500) {
            Some((cut, _)) => format!("{}…", &text[..cut]),
            None => text.to_owned(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::FunctionResult;

    #[test]
    fn results_and_texts_take_their_wire_shapes() {
        let messages = [
            Message::new(Role::User, vec![]),
            Message::new(
                Role::Tool,
                vec![Content::FunctionResult(FunctionResult {
                    call_id: "a".into(),
                    result: "ok".into(),
                    is_error: false,
                })],
            ),
        ];
        let wire: Vec<Value> = messages.iter().flat_map(wire_messages).collect();
        assert_eq!(
            wire,
            [json!({"role": "tool", "tool_call_id": "a", "content": "ok"})]
        );
    }

    #[test]
    fn arguments_go_back_as_json_even_when_the_model_cut_them_off() {
        let call = |arguments: Value| FunctionCall {
            call_id: "a".into(),
            name: "f".into(),
            arguments,
        };
        let sent = |arguments| wire_call(&call(arguments))["function"]["arguments"].clone();
        assert_eq!(sent(json!({"x": 1})), json!("{\"x\":1}"));
        assert_eq!(sent(json!("{\"x\": 1}")), json!("{\"x\": 1}"));
        assert_eq!(sent(json!("{\"x\": \"m")), json!("\"{\\\"x\\\": \\\"m\""));
    }

    #[test]
    fn error_messages_are_found_where_servers_put_them() {
        assert_eq!(error_message(br#"{"error":{"message":"m1"}}"#), "m1");
        assert_eq!(error_message(br#"{"error":"m2"}"#), "m2");
        assert_eq!(error_message(br#"{"detail":"m3"}"#), "m3");
        assert_eq!(error_message(b" plain \n"), "plain");
    }

    #[test]
    fn arguments_are_read_in_every_shape() {
        assert_eq!(arguments(None), json!({}));
        assert_eq!(arguments(Some(json!(""))), json!({}));
        assert_eq!(arguments(Some(json!("{\"a\":\n 1}"))), json!({"a": 1}));
        assert_eq!(arguments(Some(json!({"a": 1}))), json!({"a": 1}));
        assert_eq!(arguments(Some(json!("not json"))), json!("not json"));
    }
}
