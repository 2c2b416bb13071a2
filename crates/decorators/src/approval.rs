//! Tool approval: which calls may run without asking, what a person approved for good, and which
//! calls still wait for an answer.

use std::collections::{BTreeSet, HashMap};
use std::fmt;

use skillful_chat::{
    ApprovalRequest, ApprovalResponse, Content, FunctionCall, Message, Remember, Tool,
};

/// What an [`ApprovalPolicy`] says about one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run it without asking.
    Approve,
    /// Hold it back and ask a person (unless they approved it for good earlier).
    Ask,
    /// Do not run it, whatever was approved; the model is told why.
    Refuse(String),
}

/// Decides, per call, whether a tool runs, waits for a person, or is refused.
///
/// The policy sees the tool instance, so it can recognise the tools it knows by identity (through
/// [`Tool::as_any`]) rather than by name.
pub trait ApprovalPolicy: Send + Sync + fmt::Debug {
    /// The decision for calling `tool` with `arguments`.
    fn decide(&self, tool: &dyn Tool, arguments: &serde_json::Value) -> Decision;
}

/// What a person approved for good in a conversation: whole tools, and tools with exact
/// arguments. It is read from the conversation's approval answers, so it lives (and is saved)
/// with the history.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RememberedApprovals {
    tools: BTreeSet<String>,
    calls: Vec<(String, serde_json::Value)>,
}

impl RememberedApprovals {
    /// The approvals remembered in `messages`: every approving answer marked
    /// [`Remember::Tool`] or [`Remember::ToolWithArguments`], applied to the call it answered.
    pub fn from_messages(messages: &[Message]) -> Self {
        let requests: HashMap<&str, &FunctionCall> = messages
            .iter()
            .flat_map(Message::approval_requests)
            .map(|request| (request.call.call_id.as_str(), &request.call))
            .collect();
        let mut remembered = Self::default();
        for response in messages.iter().flat_map(approval_responses) {
            let Some(call) = requests.get(response.call_id.as_str()) else {
                continue;
            };
            match (response.approved, response.remember) {
                (true, Remember::Tool) => {
                    remembered.tools.insert(call.name.clone());
                }
                (true, Remember::ToolWithArguments) => {
                    remembered
                        .calls
                        .push((call.name.clone(), call.arguments.clone()));
                }
                _ => {}
            }
        }
        remembered
    }

    /// Whether `call` is approved already.
    pub fn covers(&self, call: &FunctionCall) -> bool {
        self.tools.contains(&call.name)
            || self
                .calls
                .iter()
                .any(|(name, arguments)| *name == call.name && *arguments == call.arguments)
    }
}

/// The approval answers in a message.
pub(crate) fn approval_responses(message: &Message) -> impl Iterator<Item = &ApprovalResponse> {
    message.contents.iter().filter_map(|content| match content {
        Content::ApprovalResponse(response) => Some(response),
        _ => None,
    })
}

/// The approval requests in `messages` that no tool result answers yet, oldest first.
pub fn pending_approvals(messages: &[Message]) -> Vec<ApprovalRequest> {
    let answered: BTreeSet<&str> = messages
        .iter()
        .flat_map(|message| &message.contents)
        .filter_map(|content| match content {
            Content::FunctionResult(result) => Some(result.call_id.as_str()),
            _ => None,
        })
        .collect();
    messages
        .iter()
        .flat_map(Message::approval_requests)
        .filter(|request| !answered.contains(request.call.call_id.as_str()))
        .cloned()
        .collect()
}
