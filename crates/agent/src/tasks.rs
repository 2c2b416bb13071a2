//! Script tasks in the agent (see [`skillful_provider::tasks`]): a `run_skill_script` call that
//! became a task is recorded in the session; [`Agent::wait_for_tasks`] waits for what is still
//! running and [`Input::Tasks`](crate::Input::Tasks) continues the conversation with the results,
//! once; a task whose process is gone is lost ([`Agent::lost_tasks`]); each task's start and end
//! are audited and traced. The guided strategy waits for a task within its turn: a small model
//! asked one decision at a time gets the script's result, never a task to reason about.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use skillful_chat::{Content, Message, Role};
use skillful_provider::{TaskEvent, TaskId, TaskRecord, TaskStatus, Tasks, ToolKind};
use tokio::sync::broadcast;
use tokio::task::JoinSet;

use crate::agent::Agent;
use crate::approver::{Approver, Turn};
use crate::audit::Auditor;
use crate::error::AgentError;
use crate::run_options::RunOptions;
use crate::session::Session;

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

impl Agent {
    /// The tasks of every skills provider that has them.
    fn task_engines(&self) -> impl Iterator<Item = &Arc<Tasks>> {
        self.skills.iter().filter_map(|provider| provider.tasks())
    }

    /// The tasks `session` started that were not yet reported to the model.
    pub fn running_tasks(&self, session: &Session) -> Vec<SessionTask> {
        session
            .tasks()
            .iter()
            .filter(|task| task.state == SessionTaskState::Running)
            .cloned()
            .collect()
    }

    /// Waits until a task `session` started and has not reported has ended, and gives every one
    /// that has ended by then (oldest first): continue the conversation with them as
    /// [`Input::Tasks`](crate::Input::Tasks), which reports each once. Empty when nothing runs.
    /// A task no provider of this agent runs or recorded is marked lost ([`Agent::lost_tasks`]).
    ///
    /// # Errors
    /// A task store could not be read.
    pub async fn wait_for_tasks(
        &self,
        session: &mut Session,
    ) -> Result<Vec<TaskRecord>, AgentError> {
        let mut ended = Vec::new();
        let mut waits = JoinSet::new();
        for task in self.running_tasks(session) {
            match self.find_task(session, &task.task).await? {
                Some((_, record)) if record.status.is_terminal() => ended.push(record),
                Some((tasks, _)) => {
                    let (id, key) = (task.task.clone(), session.id().to_owned());
                    waits.spawn(async move { tasks.wait(Some(&key), &id).await });
                }
                None => session.set_task_state(&task.task, SessionTaskState::Lost),
            }
        }
        if ended.is_empty()
            && let Some(first) = waits.join_next().await
        {
            ended.extend(joined(first)?);
        }
        while let Some(done) = waits.try_join_next() {
            ended.extend(joined(done)?);
        }
        ended.sort_by(|a, b| a.created_at.cmp(&b.created_at));
        if self.task_events_watched() {
            self.ended_tasks.recorded(&ended).await;
        }
        Ok(ended)
    }

    /// Continues `turn` while tasks of `session` run after the model answered: tells `approver`
    /// what it waits for, waits ([`Agent::wait_for_tasks`]), then runs the ended tasks' results
    /// as a new turn ([`Input::Tasks`](crate::Input::Tasks), held calls asked of `approver`),
    /// until no task runs or a turn ends with a call held. The responses join `turn`'s.
    ///
    /// # Errors
    /// As [`Agent::run_approving`]; a task store could not be read.
    pub async fn run_approving_tasks(
        &self,
        mut turn: Turn,
        session: &mut Session,
        options: &RunOptions,
        approver: &mut dyn Approver,
    ) -> Result<Turn, AgentError> {
        while !turn.pending {
            let running = self.running_tasks(session);
            if running.is_empty() {
                break;
            }
            approver
                .waiting_for(&running)
                .await
                .map_err(AgentError::Approver)?;
            let ended = self.wait_for_tasks(session).await?;
            if ended.is_empty() {
                break;
            }
            let next = self
                .run_approving(crate::Input::Tasks(ended), session, options, approver)
                .await?;
            turn.responses.extend(next.responses);
            turn.pending = next.pending;
        }
        Ok(turn)
    }

    /// The tasks `session` started that no provider of this agent runs or recorded as ended:
    /// their process is gone (a session resumed in a new process). Each is marked lost; a host
    /// says so and may offer to run it again ([`SessionTask::rerun_request`]).
    ///
    /// # Errors
    /// A task store could not be read.
    pub async fn lost_tasks(&self, session: &mut Session) -> Result<Vec<SessionTask>, AgentError> {
        let mut lost = Vec::new();
        for task in self.running_tasks(session) {
            let found = self.find_task(session, &task.task).await?;
            let gone = match &found {
                None => true,
                Some((tasks, record)) => !record.status.is_terminal() && !tasks.is_live(&task.task),
            };
            if gone {
                session.set_task_state(&task.task, SessionTaskState::Lost);
                lost.push(SessionTask {
                    state: SessionTaskState::Lost,
                    ..task
                });
            }
        }
        Ok(lost)
    }

    /// The provider's tasks that hold task `id` of `session`, with its record.
    async fn find_task(
        &self,
        session: &Session,
        id: &TaskId,
    ) -> Result<Option<(Arc<Tasks>, TaskRecord)>, AgentError> {
        for tasks in self.task_engines() {
            if let Some(record) = tasks.get(Some(session.id()), id).await? {
                return Ok(Some((Arc::clone(tasks), record)));
            }
        }
        Ok(None)
    }

    /// Waits for the task `id` of `session` when `result` announces one (the guided strategy's
    /// script call), and gives its result as the call's: the text and whether it failed.
    pub(crate) async fn task_result(&self, session: &str, result: &str) -> Option<(String, bool)> {
        let id = announced_task(result)?;
        for tasks in self.task_engines() {
            if let Ok(Some(record)) = tasks.wait(Some(session), &id).await {
                if self.task_events_watched() {
                    self.ended_tasks
                        .recorded(std::slice::from_ref(&record))
                        .await;
                }
                let failed = record.status != TaskStatus::Completed;
                return Some((record.result.unwrap_or_default(), failed));
            }
        }
        None
    }

    /// Whether the task events are being audited (the first run started it).
    fn task_events_watched(&self) -> bool {
        self.task_events
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .is_none()
    }

    /// Starts auditing and tracing the tasks' starts and ends, once per agent (on its first
    /// run, inside the runtime).
    pub(crate) fn watch_tasks(&self) {
        let receivers = self
            .task_events
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        for receiver in receivers.into_iter().flatten() {
            tokio::spawn(record_tasks(
                receiver,
                self.auditor.clone(),
                Arc::clone(&self.ended_tasks),
            ));
        }
    }
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
    fn add(&self, id: TaskId) {
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
    async fn recorded(&self, records: &[TaskRecord]) {
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

fn joined(
    done: Result<
        Result<Option<TaskRecord>, skillful_provider::TaskStoreError>,
        tokio::task::JoinError,
    >,
) -> Result<Option<TaskRecord>, AgentError> {
    match done {
        Ok(record) => Ok(record?),
        Err(error) => {
            tracing::warn!(%error, "waiting for a task failed");
            Ok(None)
        }
    }
}

/// Audits and traces each task's start and end as the provider announces them.
async fn record_tasks(
    mut events: broadcast::Receiver<TaskEvent>,
    auditor: Option<Arc<Auditor>>,
    ended: Arc<EndedTasks>,
) {
    loop {
        let event = match events.recv().await {
            Ok(event) => event,
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::warn!(
                    missed,
                    "task events were missed; some task starts or ends are not audited"
                );
                continue;
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let (started, record, subject) = match event {
            TaskEvent::Started { record, subject } => (true, record, subject),
            TaskEvent::Ended { record, subject } => (false, record, subject),
            _ => continue,
        };
        crate::spans::task(&record, started);
        if let Some(auditor) = &auditor {
            auditor.task(&record, subject, started).await;
        }
        if !started {
            ended.add(record.task_id);
        }
    }
}
