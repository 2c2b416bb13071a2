//! The session: one conversation's history, saved and restored with serde.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use skillful_chat::{ApprovalRequest, Message};
use skillful_decorators::pending_approvals;
use skillful_provider::TaskId;

use crate::session_tasks::{SessionTask, SessionTaskState};

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
    /// Who made the messages the model's loop did not (by index in `messages`).
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "authors_by_index"
    )]
    authors: BTreeMap<usize, Author>,
    /// The script tasks the conversation started, so that a session resumed elsewhere knows what
    /// was running.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    tasks: Vec<SessionTask>,
}

/// Reads the authors' map, whose keys JSON holds as strings. Parsed here rather than by serde:
/// inside a flattened struct (as [`SessionFile`](crate::SessionFile) saves a session) serde
/// buffers the map and no longer turns a string key into a number.
fn authors_by_index<'de, D>(deserializer: D) -> Result<BTreeMap<usize, Author>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let by_text = BTreeMap::<String, Author>::deserialize(deserializer)?;
    by_text
        .into_iter()
        .map(|(index, author)| {
            index
                .parse()
                .map(|index| (index, author))
                .map_err(|_| serde::de::Error::custom(format!("not a message index: {index:?}")))
        })
        .collect()
}

/// Who made a message of the history: the conversation itself (the user, the model, the tools it
/// called), or one of the agent's aids ([`Aids`](crate::Aids)) acting for it.
///
/// It says where a message came from, for transcripts and records; it grants nothing (a call the
/// runtime made is approved like any other).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Author {
    /// The user, the model, or the results of the calls the model made.
    Conversation,
    /// A `load_skill` call the runtime made because the request matches the skill (and its
    /// result).
    Activation,
    /// A `load_skill` call the runtime made because the user named the skill (and its result).
    Invocation,
    /// The answer asked for in a clean request (the question and the results, no tools) after a
    /// loop guard stopped the run.
    AnswerStep,
    /// Guided: the `load_skill` call of the skill the model chose in the selection (and its
    /// result).
    Selection,
    /// Guided: a `read_skill_resource` call the runtime made to disclose a resource the skill's
    /// body names (and its result).
    Disclosure,
    /// Guided: a script run or resource read the model chose in a constrained decision (and its
    /// result).
    Decision,
    /// Guided: the answer, asked for with the question and the results, no tools.
    Answer,
    /// The results of script tasks that ended, given to the model as a new turn
    /// ([`Input::Tasks`](crate::Input::Tasks)).
    TaskResult,
}

impl Author {
    /// The name `skills run --json` and the records use: `model`, `activation`, `invocation`,
    /// `answer_step`, `selection`, `disclosure`, `decision`, `answer`, `task_result`.
    pub fn as_str(self) -> &'static str {
        match self {
            Author::Conversation => "model",
            Author::Activation => "activation",
            Author::Invocation => "invocation",
            Author::AnswerStep => "answer_step",
            Author::Selection => "selection",
            Author::Disclosure => "disclosure",
            Author::Decision => "decision",
            Author::Answer => "answer",
            Author::TaskResult => "task_result",
        }
    }

    /// Whether the guided strategy made the message.
    pub fn is_guided(self) -> bool {
        matches!(
            self,
            Author::Selection | Author::Disclosure | Author::Decision | Author::Answer
        )
    }
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
            authors: BTreeMap::new(),
            tasks: Vec::new(),
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

    /// Who made the message at `index` of [`Session::messages`].
    pub fn author(&self, index: usize) -> Author {
        self.authors
            .get(&index)
            .copied()
            .unwrap_or(Author::Conversation)
    }

    /// The script tasks the conversation started, oldest first, with where each is.
    pub fn tasks(&self) -> &[SessionTask] {
        &self.tasks
    }

    /// Records tasks the conversation started.
    pub(crate) fn add_tasks(&mut self, tasks: Vec<SessionTask>) {
        self.tasks.extend(tasks);
    }

    /// Sets the state of task `id`.
    pub(crate) fn set_task_state(&mut self, id: &TaskId, state: SessionTaskState) {
        for task in self.tasks.iter_mut().filter(|task| task.task == *id) {
            task.state = state;
        }
    }

    /// Appends `messages`, each with its author.
    pub(crate) fn extend(&mut self, messages: impl IntoIterator<Item = (Message, Author)>) {
        for (message, author) in messages {
            if author != Author::Conversation {
                self.authors.insert(self.messages.len(), author);
            }
            self.messages.push(message);
        }
    }
}

impl Default for Session {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SessionFile;

    #[test]
    fn authors_survive_a_session_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.json");
        let mut session = Session::new();
        session.extend([
            (Message::user("a question"), Author::Conversation),
            (Message::user("a skill's text"), Author::Activation),
            (Message::user("an answer"), Author::AnswerStep),
        ]);
        let (file, _) = SessionFile::open(&path).unwrap();
        file.save(&session).unwrap();
        drop(file);

        let (_file, restored) = SessionFile::open(&path).unwrap();
        let restored = restored.expect("the saved session");
        assert_eq!(restored.author(1), Author::Activation);
        assert_eq!(restored.author(2), Author::AnswerStep);
        assert_eq!(restored, session);
    }
}
