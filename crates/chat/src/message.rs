//! The message model: who said what, in a form every chat client and decorator shares.

use serde::{Deserialize, Serialize};

/// Who a message is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions for the model.
    System,
    /// The person (or program) the model works for.
    User,
    /// The model.
    Assistant,
    /// Results of tool calls.
    Tool,
}

/// One piece of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// The model asks for a tool to be called.
    FunctionCall(FunctionCall),
    /// What a tool call gave.
    FunctionResult(FunctionResult),
    /// A call that waits for a person's approval before it may run.
    ApprovalRequest(ApprovalRequest),
    /// A person's answer to an [`ApprovalRequest`].
    ApprovalResponse(ApprovalResponse),
}

/// A tool call the model asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// The call's id; its result names it.
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, as JSON (an object for well-behaved models).
    pub arguments: serde_json::Value,
}

/// What one tool call gave, as text for the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionResult {
    /// The id of the call this answers.
    pub call_id: String,
    /// The text the model is shown.
    pub result: String,
    /// Whether the call failed (or was not run).
    #[serde(default)]
    pub is_error: bool,
}

/// A tool call held back until a person approves it. Its id is the call's id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalRequest {
    /// The call waiting for approval.
    pub call: FunctionCall,
}

/// A person's answer to an [`ApprovalRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalResponse {
    /// The id of the call (and of its request).
    pub call_id: String,
    /// Whether the call may run.
    pub approved: bool,
    /// What else an approval covers from now on in this conversation.
    #[serde(default)]
    pub remember: Remember,
    /// Why, if said; a rejection's reason is shown to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl ApprovalResponse {
    /// Approves the call `call_id` once.
    pub fn approve(call_id: impl Into<String>) -> Self {
        Self {
            call_id: call_id.into(),
            approved: true,
            remember: Remember::Once,
            reason: None,
        }
    }

    /// Rejects the call `call_id`, saying why when `reason` is given.
    pub fn reject(call_id: impl Into<String>, reason: Option<String>) -> Self {
        Self {
            call_id: call_id.into(),
            approved: false,
            remember: Remember::Once,
            reason,
        }
    }

    /// The same answer, remembered as `remember` says (meaningful for approvals).
    pub fn remembering(mut self, remember: Remember) -> Self {
        self.remember = remember;
        self
    }
}

/// How far an approval reaches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Remember {
    /// This call only.
    #[default]
    Once,
    /// Every later call of the same tool ("always approve this tool").
    Tool,
    /// Later calls of the same tool with exactly the same arguments.
    ToolWithArguments,
}

/// One message of a conversation: a role and its contents, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who it is from.
    pub role: Role,
    /// What it holds.
    pub contents: Vec<Content>,
}

impl Message {
    /// A message of `role` holding `contents`.
    pub fn new(role: Role, contents: Vec<Content>) -> Self {
        Self { role, contents }
    }

    /// A message of `role` holding one text.
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        Self::new(role, vec![Content::Text { text: text.into() }])
    }

    /// System instructions.
    pub fn system(text: impl Into<String>) -> Self {
        Self::text(Role::System, text)
    }

    /// A user's text.
    pub fn user(text: impl Into<String>) -> Self {
        Self::text(Role::User, text)
    }

    /// The model's text.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self::text(Role::Assistant, text)
    }

    /// The text contents joined with blank lines; empty when there are none.
    pub fn joined_text(&self) -> String {
        let texts: Vec<&str> = self
            .contents
            .iter()
            .filter_map(|content| match content {
                Content::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n\n")
    }

    /// The text a strict chat template counts as the user's query: a user message whose text is
    /// not blank. (A user message holding only approval answers carries no query.)
    pub fn user_query(&self) -> Option<String> {
        let text = self.joined_text();
        (self.role == Role::User && !text.trim().is_empty()).then_some(text)
    }

    /// The text of the last assistant message of `messages`; empty when there is none.
    pub fn last_assistant_text(messages: &[Message]) -> String {
        messages
            .iter()
            .rev()
            .find(|message| message.role == Role::Assistant)
            .map(Message::joined_text)
            .unwrap_or_default()
    }

    /// The tool calls in this message, including those waiting for approval.
    pub fn function_calls(&self) -> impl Iterator<Item = &FunctionCall> {
        self.contents.iter().filter_map(|content| match content {
            Content::FunctionCall(call) => Some(call),
            Content::ApprovalRequest(request) => Some(&request.call),
            _ => None,
        })
    }

    /// The approval requests in this message.
    pub fn approval_requests(&self) -> impl Iterator<Item = &ApprovalRequest> {
        self.contents.iter().filter_map(|content| match content {
            Content::ApprovalRequest(request) => Some(request),
            _ => None,
        })
    }
}
