//! The session: one conversation's history, saved and restored with serde.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use skillful_chat::{ApprovalRequest, Message};
use skillful_decorators::pending_approvals;

/// One conversation with an [`Agent`](crate::Agent): its id and its history.
///
/// Everything a later run needs is in the history: the calls still waiting for approval are read
/// from it. So a session saved with serde (e.g. to JSON, or through [`SessionFile`]) while an
/// approval is pending resumes in another process. Nothing in it approves anything: approvals
/// given for good live in the agent's [`ApprovalsStore`], and a waiting call goes through the
/// whole approval policy again when it resumes.
///
/// [`SessionFile`]: crate::SessionFile
/// [`ApprovalsStore`]: crate::ApprovalsStore
///
/// # Example
/// ```
/// let session = skillful_agent::Session::new();
/// let saved = serde_json::to_string(&session).unwrap();
/// let restored: skillful_agent::Session = serde_json::from_str(&saved).unwrap();
/// assert_eq!(restored.id(), session.id());
/// assert!(restored.pending_approvals().is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    id: String,
    messages: Vec<Message>,
}

impl Session {
    /// An empty session with a fresh id.
    pub fn new() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|elapsed| elapsed.as_nanos())
            .unwrap_or_default();
        Self {
            id: format!(
                "session-{nanos:x}-{:x}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ),
            messages: Vec::new(),
        }
    }

    /// The session's id; decorators keep per-conversation state under it, and the skills
    /// provider its idempotency keys.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The history, oldest first (the system prompt is not stored: it is rebuilt every run).
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The calls waiting for a person's approval.
    pub fn pending_approvals(&self) -> Vec<ApprovalRequest> {
        pending_approvals(&self.messages)
    }

    pub(crate) fn extend(&mut self, messages: impl IntoIterator<Item = Message>) {
        self.messages.extend(messages);
    }
}

impl Default for Session {
    fn default() -> Self {
        Self::new()
    }
}
