//! A session's script tasks as data: what a session records of the tasks its calls started,
//! how they are read from its messages and reported back, and which ended tasks are on record.
//! The agent's waiting and auditing of them is in `tasks.rs`.

use std::collections::HashSet;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use skillful_chat::{Content, Message, Role};
use skillful_provider::{TaskId, TaskRecord, ToolKind};

/// A task a session started, as its file records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionTask {
    /// The task's id.
    pub task: TaskId,
    /// The skill whose script it runs.
    pub skill: String,
    /// The script.
    pub script: String,
    /// The arguments it was called with.
    pub arguments: serde_json::Value,
    /// Where it is for the conversation.
    pub state: SessionTaskState,
}

/// Where a session's task is for the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionTaskState {
    /// Started and not yet reported to the model (it may have ended meanwhile).
    Running,
    /// Its result was given to the model.
    Reported,
    /// The process that ran it is gone and nothing recorded its end.
    Lost,
}

impl SessionTask {
    /// The request that asks the model to run a lost task again, for a host that offers it.
    pub fn rerun_request(&self) -> String {
        format!(
            "The script task {} (skill '{}', script '{}', arguments {}) was lost when the program running it ended. Run it again with the same arguments.",
            self.task, self.skill, self.script, self.arguments
        )
    }
}

/// The id of the task a tool's `result` announces (`{"task": ID, "status": "running", ...}`).
pub(crate) fn announced_task(result: &str) -> Option<TaskId> {
    let answer: serde_json::Value = serde_json::from_str(result).ok()?;
    (answer["status"] == "running")
        .then(|| {
            answer["task"]
                .as_str()
                .map(|id| TaskId::from(id.to_owned()))
        })
        .flatten()
}

/// The tasks the `run_skill_script` calls of `messages` started.
pub(crate) fn started_in(messages: &[Message]) -> Vec<SessionTask> {
    let calls: Vec<&skillful_chat::FunctionCall> = messages
        .iter()
        .flat_map(|message| &message.contents)
        .filter_map(|content| match content {
            Content::FunctionCall(call) if call.name == ToolKind::RunSkillScript.name() => {
                Some(call)
            }
            _ => None,
        })
        .collect();
    messages
        .iter()
        .flat_map(|message| &message.contents)
        .filter_map(|content| match content {
            Content::FunctionResult(result) if !result.is_error => {
                let task = announced_task(&result.result)?;
                let call = calls.iter().find(|call| call.call_id == result.call_id)?;
                let named = |key: &str| call.arguments[key].as_str().unwrap_or_default().to_owned();
                Some(SessionTask {
                    task,
                    skill: named("skillName"),
                    script: named("scriptName"),
                    arguments: call.arguments["arguments"].clone(),
                    state: SessionTaskState::Running,
                })
            }
            _ => None,
        })
        .collect()
}

/// The message that gives the model the ended tasks' results, a new turn of the conversation.
pub(crate) fn results_message(records: &[TaskRecord]) -> Message {
    let parts: Vec<String> = records
        .iter()
        .map(|record| {
            let exit = record
                .exit_code
                .map(|code| format!(", exit code {code}"))
                .unwrap_or_default();
            format!(
                "[The script task {} (skill '{}', script '{}') ended: {}{exit}, after {:.1} s. Its result:]\n{}",
                record.task_id,
                record.skill,
                record.script,
                record.status.as_str(),
                record.elapsed_ms as f64 / 1000.0,
                record.result.as_deref().unwrap_or("(no result)")
            )
        })
        .collect();
    Message::new(
        Role::User,
        vec![Content::Text {
            text: parts.join("\n\n"),
        }],
    )
}

/// The tasks whose end was audited and traced, so that a host waiting for a task returns only
/// once its end is on record (and the run's `on_disk` covers it).
#[derive(Debug, Default)]
pub(crate) struct EndedTasks {
    ids: std::sync::Mutex<HashSet<TaskId>>,
    recorded: tokio::sync::Notify,
}

/// How long a wait gives the audit of a task's end before it returns anyway.
const AUDIT_WAIT: Duration = Duration::from_secs(5);

impl EndedTasks {
    pub(crate) fn add(&self, id: TaskId) {
        self.ids
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(id);
        self.recorded.notify_waiters();
    }

    fn has(&self, id: &TaskId) -> bool {
        self.ids
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .contains(id)
    }

    /// Returns once the end of each of `records` is recorded (or after [`AUDIT_WAIT`]).
    pub(crate) async fn recorded(&self, records: &[TaskRecord]) {
        let all = async {
            loop {
                let notified = self.recorded.notified();
                if records.iter().all(|record| self.has(&record.task_id)) {
                    return;
                }
                notified.await;
            }
        };
        if tokio::time::timeout(AUDIT_WAIT, all).await.is_err() {
            tracing::warn!("a task's end was not audited in time");
        }
    }
}
