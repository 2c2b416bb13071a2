//! What a chat client is asked and what it answers.

use crate::message::{ApprovalRequest, Message};
use crate::tool::SharedTool;

/// One request to a chat model.
#[derive(Debug, Clone, Default)]
pub struct ChatRequest {
    /// The conversation so far, oldest first.
    pub messages: Vec<Message>,
    /// The tools the model may call.
    pub tools: Vec<SharedTool>,
    /// Settings for this request.
    pub options: ChatOptions,
}

impl ChatRequest {
    /// A request with `messages` and no tools.
    pub fn new(messages: Vec<Message>) -> Self {
        Self {
            messages,
            ..Self::default()
        }
    }

    /// The same request offering `tools`.
    pub fn with_tools(mut self, tools: Vec<SharedTool>) -> Self {
        self.tools = tools;
        self
    }

    /// The same request with `options`.
    pub fn with_options(mut self, options: ChatOptions) -> Self {
        self.options = options;
        self
    }
}

/// Settings of one request; unset fields take the client's defaults.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ChatOptions {
    /// The model, overriding the client's.
    pub model: Option<String>,
    /// Whether and which tool the model must call.
    pub tool_choice: Option<ToolChoice>,
    /// Sampling temperature.
    pub temperature: Option<f32>,
    /// The most tokens to generate.
    pub max_tokens: Option<u32>,
    /// A sampling seed, for servers that make sampling repeatable with one (llama.cpp, vLLM,
    /// OpenAI on a best-effort basis).
    pub seed: Option<u64>,
    /// Names the conversation, so that decorators keep per-conversation state apart.
    pub conversation_id: Option<String>,
    /// The shape the reply must take (structured outputs): the server constrains its sampling
    /// to a JSON Schema, where it can.
    pub response_format: Option<ResponseFormat>,
}

/// A reply constrained to a JSON Schema: sent as `response_format` with `type: json_schema`
/// (OpenAI, llama.cpp's server, LM Studio, vLLM and Ollama since 0.5 take this shape on
/// `/v1/chat/completions`). A server that cannot constrain replies may ignore it or refuse the
/// request ([`OpenAiClient`](crate::OpenAiClient) then resends without it and remembers): the
/// reply is only text, to be checked against the schema by whoever asked.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ResponseFormat {
    /// The schema's name (letters, digits, `_` and `-`; OpenAI requires one).
    pub name: String,
    /// The JSON Schema the reply must fit.
    pub schema: serde_json::Value,
}

impl ResponseFormat {
    /// A reply fitting `schema`, named `name`.
    pub fn json_schema(name: impl Into<String>, schema: serde_json::Value) -> Self {
        Self {
            name: name.into(),
            schema,
        }
    }
}

/// Whether and which tool the model must call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// No tool calls.
    None,
    /// At least one tool call.
    Required,
    /// This tool.
    Function(String),
}

/// Tokens a model call used, as the server reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Tokens of the prompt.
    pub prompt_tokens: u64,
    /// Tokens generated.
    pub completion_tokens: u64,
}

impl Usage {
    /// Adds another call's usage.
    pub fn add(&mut self, other: Usage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
    }
}

/// What a chat client answers: the new messages, oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatResponse {
    /// The messages this call produced (the model's, and tool results when a decorator ran tools).
    pub messages: Vec<Message>,
    /// The model that answered, as the server names it.
    pub model: Option<String>,
    /// Why the model stopped (`stop`, `tool_calls`, `length`), as the server says.
    pub finish_reason: Option<String>,
    /// Tokens used, when the server reports them (summed over every model call).
    pub usage: Option<Usage>,
    /// Set by a tool loop that ended the conversation itself (a loop guard: a repeated call, a
    /// repeated failure, the round limit) instead of the model answering: why. The last message
    /// says it too. `None` from a server.
    pub stopped: Option<String>,
}

impl ChatResponse {
    /// The text of the last assistant message; empty when there is none.
    pub fn text(&self) -> String {
        Message::last_assistant_text(&self.messages)
    }

    /// The calls waiting for approval.
    pub fn approval_requests(&self) -> Vec<ApprovalRequest> {
        self.messages
            .iter()
            .flat_map(Message::approval_requests)
            .cloned()
            .collect()
    }
}
