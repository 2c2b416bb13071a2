//! Script tasks in the agent (see [`skillful_provider::tasks`]): a `run_skill_script` call that
//! became a task is recorded in the session; [`Agent::wait_for_tasks`] waits for what is still
//! running and [`Input::Tasks`](crate::Input::Tasks) continues the conversation with the results,
//! once; a task whose process is gone is lost ([`Agent::lost_tasks`]); each task's start and end
//! are audited and traced. The guided strategy waits for a task within its turn: a small model
//! asked one decision at a time gets the script's result, never a task to reason about.

use std::sync::Arc;

use skillful_chat::Message;
use skillful_provider::{TaskEvent, TaskId, TaskRecord, TaskStatus, Tasks};
use tokio::sync::broadcast;
use tokio::task::JoinSet;

use crate::agent::Agent;
use crate::approver::{Approver, Turn};
use crate::audit::Auditor;
use crate::error::AgentError;
use crate::run_options::RunOptions;
use crate::session::Session;
use crate::session_tasks::{self, EndedTasks, SessionTask, SessionTaskState, announced_task};

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

    /// The tasks the `run_skill_script` calls of `messages` started: those whose result
    /// announces a task that a provider of this agent runs or recorded for `session`. A
    /// script's own output that only reads like an announcement starts none; a task whose
    /// store could not be read is kept (a later wait finds out).
    pub(crate) async fn started_tasks(
        &self,
        session: &Session,
        messages: &[Message],
    ) -> Vec<SessionTask> {
        let mut started = Vec::new();
        for task in session_tasks::started_in(messages) {
            if !matches!(self.find_task(session, &task.task).await, Ok(None)) {
                started.push(task);
            }
        }
        started
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
