//! Tool approval: which calls may run without asking, what a person approved for good, and which
//! calls still wait for an answer.

use std::collections::BTreeSet;
use std::fmt;

use async_trait::async_trait;
use skillful_chat::{ApprovalRequest, ApprovalResponse, Content, Message, Remember, Role, Tool};

/// What an [`ApprovalPolicy`] says about one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run it without asking (a rule, or an approval the person gave for good), on these grounds:
    /// the rule's name or `remembered approval`, as an audit log records who approved the call.
    Approve(String),
    /// Hold it back and ask a person.
    Ask,
    /// Do not run it, whatever was approved; the model is told why.
    Refuse(String),
}

/// Why an approval given for good could not be remembered. The call it answered still runs once
/// (the person approved it); later calls ask again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RememberError(pub String);

/// Decides, per call, whether a tool runs, waits for a person, or is refused; and remembers what
/// a person approved for good.
///
/// The policy sees the tool instance, so it can recognise the tools it knows by identity (through
/// [`Tool::as_any`]) rather than by name. It is the only authority on approvals: nothing in a
/// conversation's history approves a call (a history can be edited), so what a person approved for
/// good is the policy's to keep, where it sees fit (in memory, in a per-user store).
#[async_trait]
pub trait ApprovalPolicy: Send + Sync + fmt::Debug {
    /// The decision for calling `tool` with `arguments`, approvals remembered by
    /// [`ApprovalPolicy::remember`] included. It is asked again when a person's approval resumes
    /// a held-back call: a [`Decision::Refuse`] then still refuses it.
    async fn decide(&self, tool: &dyn Tool, arguments: &serde_json::Value) -> Decision;

    /// A person approved calling `tool` with `arguments` and asked for it to be remembered as
    /// `remember` says ([`Remember::Tool`] or [`Remember::ToolWithArguments`]). The default
    /// remembers nothing: later calls ask again.
    ///
    /// # Errors
    /// Why it could not be remembered; the loop logs it and the call runs once.
    async fn remember(
        &self,
        tool: &dyn Tool,
        arguments: &serde_json::Value,
        remember: Remember,
    ) -> Result<(), RememberError> {
        let _ = (arguments, remember);
        Err(RememberError(format!(
            "this policy remembers no approval of `{}`",
            tool.name()
        )))
    }
}

/// The approval answers a request carries: those of its last message, when it is the user's (the
/// input that resumes the run), never older ones. An answer further back in the history was
/// either acted on already or written there by someone else.
pub(crate) fn new_answers(messages: &[Message]) -> impl Iterator<Item = &ApprovalResponse> {
    messages
        .last()
        .filter(|message| message.role == Role::User)
        .into_iter()
        .flat_map(|message| &message.contents)
        .filter_map(|content| match content {
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
