//! Long-running scripts as tasks: a `run_skill_script` call whose script declares it runs long
//! ([`LongRunning`](skillful_core::LongRunning)), or that is still running after a threshold
//! ([`TaskSettings::after`]), answers at once with `{"task": ID, "status": "running",
//! "poll_after_ms": N}` and the script goes on; `get_task` and `cancel_task` ask about it and
//! stop it, and a host waits for it ([`Tasks::wait`]) to continue the conversation with its
//! result.
//!
//! A task is the same call, only not waited for: it keeps the script's sandbox, limits and
//! output bound, and the approval and audit of the call that started it. Every script call of a
//! provider with tasks is watched (its output lines are [`TaskEvent::Line`]s, for live
//! progress), whether or not it becomes a task.
//!
//! The states and fields follow the MCP tasks utility (specification 2025-11-25: `taskId`,
//! `status` one of `working`, `input_required`, `completed`, `failed`, `cancelled`,
//! `statusMessage`, `createdAt`, `lastUpdatedAt`, `ttl`, `pollInterval`), so that a server can
//! expose them without a second model. Records live in a [`TaskStore`]; the running processes
//! live in this process.

mod lines;
mod store;

use std::collections::HashMap;
use std::future::Future;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::json;
use skillful_core::{OutputStream, ScriptMonitor, StopRequest};
use tokio::sync::{broadcast, watch};

use crate::kind::CallSubject;
use crate::tool_error::{ToolError, ToolErrorCode};
use lines::{Lines, Tail};
pub use store::{InMemoryTaskStore, TaskStore, TaskStoreError};

/// How long a script call runs before it becomes a task when not configured: 15 seconds.
pub const DEFAULT_TASK_AFTER: Duration = Duration::from_secs(15);

/// The hard time limit hosts give a task's script when not configured: 30 minutes. The limit is
/// the script's own ([`script_limit`](crate::script_limit): a file script's runner's timeout), so
/// a host that turns tasks on builds its runner with this limit (the `skills` command does).
pub const DEFAULT_TASK_LIMIT: Duration = Duration::from_secs(30 * 60);

/// How long a model is told to wait before it asks about a running task again, when not
/// configured: 5 seconds.
pub const DEFAULT_POLL_AFTER: Duration = Duration::from_secs(5);

/// How many tasks one session may have running when not configured: 8.
pub const DEFAULT_MAX_RUNNING: usize = 8;

/// How long a cancelled script may take to stop itself (a file script's runner stops its whole
/// tree) before the call is dropped.
const CANCEL_GRACE: Duration = Duration::from_secs(10);

/// How many events a slow subscriber may fall behind before it misses some.
const EVENT_CAPACITY: usize = 1024;

/// The identity of one task (and of the watched call it came from): `task-` and 16 hex digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TaskId(String);

impl TaskId {
    /// A new id, unlike any other of this process and unlikely to match one of another.
    fn new() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(NEXT.fetch_add(1, Ordering::Relaxed));
        hasher.write_u32(std::process::id());
        Self(format!("task-{:016x}", hasher.finish()))
    }

    /// The id as the model and the records write it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<String> for TaskId {
    fn from(id: String) -> Self {
        Self(id)
    }
}

impl std::fmt::Display for TaskId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a task is, as the MCP tasks utility names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The script is running.
    Working,
    /// The task waits for input from its requestor. No script asks for input today; the state
    /// is here so that a server can expose tasks without a second model.
    InputRequired,
    /// The script ran to its end (whatever its exit code: the result says it).
    Completed,
    /// The script could not run, failed or ran out of time.
    Failed,
    /// The script was stopped on request.
    Cancelled,
}

impl TaskStatus {
    /// Whether the task has ended (completed, failed or cancelled): it changes no more.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }

    /// The status as written on the wire (`working`, `completed`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }
}

/// One task as a store keeps it and `get_task` shows it: the MCP tasks utility's fields, then
/// the script call's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task's id.
    pub task_id: TaskId,
    /// Where it is.
    pub status: TaskStatus,
    /// A line saying why it ended as it did, when it failed or was cancelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When the call started (RFC 3339, UTC).
    pub created_at: String,
    /// When the record last changed (RFC 3339, UTC).
    pub last_updated_at: String,
    /// How long the record is kept after its creation, in milliseconds; `None`: as long as the
    /// store keeps records ([`InMemoryTaskStore`]: for the life of the process, the newest
    /// [`InMemoryTaskStore::DEFAULT_CAPACITY`] of them).
    pub ttl: Option<u64>,
    /// How long to wait before asking again, in milliseconds.
    pub poll_interval: u64,
    /// The skill whose script runs.
    pub skill: String,
    /// The script.
    pub script: String,
    /// The arguments it was called with.
    pub arguments: serde_json::Value,
    /// The session (isolation key) of the run that started it: only that session's calls see it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The script's exit code, once its process ended (`None` for a script without one, or one
    /// ended by a signal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// What the model is shown of the ended call: the script's result, or its error object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// How long the call ran (so far), in milliseconds.
    pub elapsed_ms: u64,
}

/// What happens to the watched script calls of a provider, for a host to show live
/// ([`Tasks::subscribe`]) and to audit.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum TaskEvent {
    /// A running script wrote a line (the end of a line that was too long is cut).
    Line {
        /// The call (and, once it became one, the task).
        task: TaskId,
        /// The skill.
        skill: Arc<str>,
        /// The script.
        script: Arc<str>,
        /// Which stream.
        stream: OutputStream,
        /// The line, without its line break; invalid UTF-8 replaced.
        line: String,
        /// How long the script had run.
        elapsed: Duration,
    },
    /// A call became a task: its script goes on while the conversation does.
    Started {
        /// The task as recorded.
        record: TaskRecord,
        /// The skill and script it runs, as the call found them.
        subject: CallSubject,
    },
    /// A task ended (never sent for a call that ended before it became one).
    Ended {
        /// The task as recorded.
        record: TaskRecord,
        /// The skill and script it ran.
        subject: CallSubject,
    },
}

/// How a provider turns script calls into tasks.
///
/// # Example
/// ```
/// use std::time::Duration;
/// use skillful_provider::TaskSettings;
///
/// let settings = TaskSettings::default()
///     .after(Duration::from_secs(5))
///     .poll_after(Duration::from_secs(2));
/// assert_eq!(settings.threshold(), Duration::from_secs(5));
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct TaskSettings {
    after: Duration,
    poll_after: Duration,
    max_running: usize,
    store: Arc<dyn TaskStore>,
}

impl Default for TaskSettings {
    /// [`DEFAULT_TASK_AFTER`], [`DEFAULT_POLL_AFTER`], [`DEFAULT_MAX_RUNNING`], an
    /// [`InMemoryTaskStore`].
    fn default() -> Self {
        Self {
            after: DEFAULT_TASK_AFTER,
            poll_after: DEFAULT_POLL_AFTER,
            max_running: DEFAULT_MAX_RUNNING,
            store: Arc::new(InMemoryTaskStore::default()),
        }
    }
}

impl TaskSettings {
    /// How long a call runs before it becomes a task (a declared long-running script is one at
    /// once); zero makes every script call a task.
    pub fn after(mut self, after: Duration) -> Self {
        self.after = after;
        self
    }

    /// How long a model is told to wait before it asks about a running task again.
    pub fn poll_after(mut self, poll_after: Duration) -> Self {
        self.poll_after = poll_after.max(Duration::from_millis(1));
        self
    }

    /// How many tasks one session may have running at once (at least one); a call past it is
    /// waited for as without tasks.
    pub fn max_running(mut self, max_running: usize) -> Self {
        self.max_running = max_running.max(1);
        self
    }

    /// Where task records are kept.
    pub fn store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.store = store;
        self
    }

    /// The threshold ([`TaskSettings::after`]).
    pub fn threshold(&self) -> Duration {
        self.after
    }
}

/// What a call of a watched script is: its names, arguments and session, and what it names.
#[derive(Debug, Clone)]
pub(crate) struct TaskCall {
    pub(crate) skill: String,
    pub(crate) script: String,
    pub(crate) arguments: serde_json::Value,
    pub(crate) session: Option<String>,
    pub(crate) subject: CallSubject,
}

/// The tasks of one provider: the watched calls running in this process, their records in the
/// [`TaskStore`], and the events a host shows.
///
/// A durable host (one that outlives its process, or spreads calls over several) keeps the
/// records in a store of its own and runs the scripts where it keeps its workers; this type is
/// the in-process engine: it runs each call on the tokio runtime and keeps its process handle,
/// so a record whose process is gone is a task that was lost ([`Tasks::is_live`]).
#[derive(Debug)]
pub struct Tasks {
    settings: TaskSettings,
    output_budget: usize,
    live: Mutex<HashMap<TaskId, Arc<Live>>>,
    events: broadcast::Sender<TaskEvent>,
}

/// A call running in this process.
#[derive(Debug)]
struct Live {
    id: TaskId,
    call: TaskCall,
    skill: Arc<str>,
    script: Arc<str>,
    created_at: String,
    started: Instant,
    /// Whether it became a task, and its result once it ended; store writes happen under it so
    /// that a record never goes back from ended to working.
    state: tokio::sync::Mutex<State>,
    ended: watch::Sender<bool>,
    stop: watch::Sender<bool>,
    output: Mutex<Tail>,
    lines: Mutex<Lines>,
    exit_code: Mutex<Option<i32>>,
    last_asked: Mutex<Option<Instant>>,
}

#[derive(Debug, Default)]
struct State {
    promoted: bool,
    result: Option<Result<String, ToolError>>,
    record: Option<TaskRecord>,
}

impl Tasks {
    pub(crate) fn new(settings: TaskSettings, output_budget: usize) -> Self {
        Self {
            settings,
            output_budget,
            live: Mutex::new(HashMap::new()),
            events: broadcast::channel(EVENT_CAPACITY).0,
        }
    }

    /// The events of every watched call from now on: lines as scripts write them, tasks started
    /// and ended. A subscriber that falls more than 1,024 events behind misses the oldest
    /// (`RecvError::Lagged` says how many).
    pub fn subscribe(&self) -> broadcast::Receiver<TaskEvent> {
        self.events.subscribe()
    }

    /// The settings.
    pub fn settings(&self) -> &TaskSettings {
        &self.settings
    }

    /// Runs `call` (the future `work` makes, given the monitor that watches it) and waits for
    /// it up to the threshold (none when `at_once`): its result when it ended in time, else the
    /// task's answer (`{"task": ID, "status": "running", "poll_after_ms": N}`) while it goes on.
    pub(crate) async fn run<F, Fut>(
        self: &Arc<Self>,
        call: TaskCall,
        at_once: bool,
        work: F,
    ) -> Result<String, ToolError>
    where
        F: FnOnce(Arc<dyn ScriptMonitor>) -> Fut,
        Fut: Future<Output = Result<String, ToolError>> + Send + 'static,
    {
        let live = Arc::new(Live {
            id: TaskId::new(),
            skill: Arc::from(call.skill.as_str()),
            script: Arc::from(call.script.as_str()),
            call,
            created_at: now(),
            started: Instant::now(),
            state: tokio::sync::Mutex::new(State::default()),
            ended: watch::channel(false).0,
            stop: watch::channel(false).0,
            output: Mutex::new(Tail::new(self.output_budget)),
            lines: Mutex::new(Lines::default()),
            exit_code: Mutex::new(None),
            last_asked: Mutex::new(None),
        });
        lock(&self.live).insert(live.id.clone(), Arc::clone(&live));
        let monitor = Arc::new(Monitor {
            live: Arc::clone(&live),
            events: self.events.clone(),
        });
        let work = work(monitor);
        let tasks = Arc::clone(self);
        let running = Arc::clone(&live);
        tokio::spawn(async move {
            let result = tokio::select! {
                result = work => result,
                () = running.stopped_past_grace() => Err(cancelled_error(&running.call)),
            };
            tasks.end(&running, result).await;
        });
        let wait = if at_once {
            Duration::ZERO
        } else {
            self.settings.after
        };
        // Ended or not, the state decides below: the result is taken under its lock. No timer
        // for a task at once: the timer's granularity (a millisecond) would be its whole cost.
        if !wait.is_zero() {
            let mut ended = live.ended.subscribe();
            let _ = tokio::time::timeout(wait, ended.wait_for(|ended| *ended)).await;
        }
        let mut state = live.state.lock().await;
        if state.result.is_none()
            && self.running_in(live.call.session.as_deref()) >= self.settings.max_running
        {
            // At the cap, the call is waited for as without tasks: a model cannot start more
            // processes than the cap by calling long scripts one after another.
            drop(state);
            let mut ended = live.ended.subscribe();
            let _ = ended.wait_for(|ended| *ended).await;
            state = live.state.lock().await;
        }
        if let Some(result) = state.result.take() {
            return result;
        }
        state.promoted = true;
        let record = self.record_of(&live, TaskStatus::Working, None);
        if let Err(error) = self.settings.store.save(&record).await {
            tracing::warn!(task = %live.id, %error, "cannot record a task; get_task answers from this process only");
        }
        state.record = Some(record.clone());
        drop(state);
        tracing::info!(task = %live.id, skill = %live.skill, script = %live.script, "a script call became a task");
        let _ = self.events.send(TaskEvent::Started {
            record,
            subject: live.call.subject.clone(),
        });
        Ok(json!({
            "task": live.id,
            "status": "running",
            "poll_after_ms": millis(self.settings.poll_after),
            "note": "The script goes on as a task: answer the user now. Its result is given to you when it ends."
        })
        .to_string())
    }

    /// Ends `live` with `result`: its last partial lines are shown, and a task's record is
    /// written ended and announced.
    async fn end(&self, live: &Live, result: Result<String, ToolError>) {
        let partial = lock(&live.lines).flush();
        for (stream, line) in partial {
            self.send_line(live, stream, line);
        }
        let mut state = live.state.lock().await;
        if state.promoted {
            // Asked to stop, it is cancelled however it ended (as the MCP tasks utility wants:
            // a cancel that raced the script's own end still leaves it cancelled).
            let cancelled = *live.stop.borrow()
                || result
                    .as_ref()
                    .is_err_and(|error| error.code == ToolErrorCode::ScriptCancelled);
            let (status, message) = match &result {
                _ if cancelled => (
                    TaskStatus::Cancelled,
                    Some(
                        "Cancelled on request: the script was stopped with every process it started."
                            .to_owned(),
                    ),
                ),
                Ok(_) => (TaskStatus::Completed, None),
                Err(error) => (TaskStatus::Failed, Some(error.message.clone())),
            };
            let mut record = self.record_of(live, status, message);
            record.result = Some(match &result {
                Ok(text) => text.clone(),
                Err(error) => error.to_string(),
            });
            if let Err(error) = self.settings.store.save(&record).await {
                tracing::warn!(task = %live.id, %error, "cannot record a task's end");
            }
            tracing::info!(task = %live.id, status = status.as_str(), "a task ended");
            state.record = Some(record.clone());
            let _ = self.events.send(TaskEvent::Ended {
                record,
                subject: live.call.subject.clone(),
            });
        }
        lock(&self.live).remove(&live.id);
        state.result = Some(result);
        drop(state);
        live.ended.send_replace(true);
    }

    fn send_line(&self, live: &Live, stream: OutputStream, line: String) {
        let _ = self.events.send(TaskEvent::Line {
            task: live.id.clone(),
            skill: Arc::clone(&live.skill),
            script: Arc::clone(&live.script),
            stream,
            line,
            elapsed: live.started.elapsed(),
        });
    }

    fn record_of(
        &self,
        live: &Live,
        status: TaskStatus,
        status_message: Option<String>,
    ) -> TaskRecord {
        TaskRecord {
            task_id: live.id.clone(),
            status,
            status_message,
            created_at: live.created_at.clone(),
            last_updated_at: now(),
            ttl: None,
            poll_interval: millis(self.settings.poll_after),
            skill: live.call.skill.clone(),
            script: live.call.script.clone(),
            arguments: live.call.arguments.clone(),
            session: live.call.session.clone(),
            exit_code: *lock(&live.exit_code),
            result: None,
            elapsed_ms: millis(live.started.elapsed()),
        }
    }

    /// The task `id` of `session` as it is now: a running one's record with its elapsed time,
    /// or the store's. `None` when `session` has no task of that id.
    ///
    /// # Errors
    /// The store's.
    pub async fn get(
        &self,
        session: Option<&str>,
        id: &TaskId,
    ) -> Result<Option<TaskRecord>, TaskStoreError> {
        if let Some(live) = self.live_of(session, id) {
            let state = live.state.lock().await;
            if let Some(record) = &state.record {
                let mut record = record.clone();
                if !record.status.is_terminal() {
                    record.elapsed_ms = millis(live.started.elapsed());
                    record.exit_code = *lock(&live.exit_code);
                }
                return Ok(Some(record));
            }
        }
        Ok(self
            .settings
            .store
            .load(id)
            .await?
            .filter(|record| record.session.as_deref() == session))
    }

    /// The tasks of `session` the store holds, oldest first.
    ///
    /// # Errors
    /// The store's.
    pub async fn list(&self, session: Option<&str>) -> Result<Vec<TaskRecord>, TaskStoreError> {
        self.settings.store.list(session).await
    }

    /// The call `id` of `session` running in this process.
    fn live_of(&self, session: Option<&str>, id: &TaskId) -> Option<Arc<Live>> {
        lock(&self.live)
            .get(id)
            .filter(|live| live.call.session.as_deref() == session)
            .cloned()
    }

    /// Whether a task of `session` runs in this process now (a call still within the threshold
    /// is no task).
    pub fn has_running(&self, session: Option<&str>) -> bool {
        self.running_in(session) > 0
    }

    /// How many tasks of `session` run in this process now.
    fn running_in(&self, session: Option<&str>) -> usize {
        lock(&self.live)
            .values()
            .filter(|live| live.call.session.as_deref() == session && live.is_task())
            .count()
    }

    /// Whether the task `id` runs in this process now.
    pub fn is_live(&self, id: &TaskId) -> bool {
        lock(&self.live).contains_key(id)
    }

    /// What the task `id` of `session` has written so far, the end of it within the provider's
    /// output budget; `None` for a task not running in this process.
    pub fn output_so_far(&self, session: Option<&str>, id: &TaskId) -> Option<String> {
        self.live_of(session, id)
            .map(|live| lock(&live.output).text())
    }

    /// Waits for the task `id` to end and gives its record; at once for a task that has ended
    /// (or that this process does not run: a lost one is as the store has it).
    ///
    /// # Errors
    /// The store's.
    pub async fn wait(
        &self,
        session: Option<&str>,
        id: &TaskId,
    ) -> Result<Option<TaskRecord>, TaskStoreError> {
        if let Some(live) = self.live_of(session, id) {
            let mut ended = live.ended.subscribe();
            let _ = ended.wait_for(|ended| *ended).await;
        }
        self.get(session, id).await
    }

    /// Asks the task `id` of `session` to stop and waits for it to end: a file script is
    /// stopped with every process it started; another is dropped after a grace. Gives the
    /// record as it ended (`cancelled`, or how it ended before the request); `None` when
    /// `session` has no task of that id.
    ///
    /// # Errors
    /// The store's.
    pub async fn cancel(
        &self,
        session: Option<&str>,
        id: &TaskId,
    ) -> Result<Option<TaskRecord>, TaskStoreError> {
        if let Some(live) = self.live_of(session, id) {
            tracing::info!(task = %id, "cancelling a task");
            live.stop.send_replace(true);
        }
        self.wait(session, id).await
    }

    /// How long the model should still wait before asking about `id` again, when it asked
    /// sooner than the poll interval after its last question; `None` when it may ask now. Each
    /// question is remembered.
    pub(crate) fn too_soon(&self, id: &TaskId) -> Option<Duration> {
        let live = lock(&self.live).get(id).cloned()?;
        let mut last = lock(&live.last_asked);
        let now = Instant::now();
        let wait = last
            .map(|asked| self.settings.poll_after.saturating_sub(now - asked))
            .filter(|wait| !wait.is_zero());
        if wait.is_none() {
            *last = Some(now);
        }
        wait
    }
}

impl Live {
    /// Whether the call became a task (read without waiting: a call being promoted or ended
    /// right now counts as what it was).
    fn is_task(&self) -> bool {
        self.state.try_lock().is_ok_and(|state| state.promoted)
    }

    /// Ends a grace after a stop was asked: a script that does not stop itself is dropped then.
    async fn stopped_past_grace(&self) {
        let mut stop = self.stop.subscribe();
        let _ = stop.wait_for(|stop| *stop).await;
        tokio::time::sleep(CANCEL_GRACE).await;
    }
}

/// Watches one call: its output into lines, events and the tail, its exit code, its stop.
struct Monitor {
    live: Arc<Live>,
    events: broadcast::Sender<TaskEvent>,
}

impl ScriptMonitor for Monitor {
    fn output(&self, stream: OutputStream, chunk: &[u8]) {
        lock(&self.live.output).push(chunk);
        let lines = lock(&self.live.lines).push(stream, chunk);
        for line in lines {
            let _ = self.events.send(TaskEvent::Line {
                task: self.live.id.clone(),
                skill: Arc::clone(&self.live.skill),
                script: Arc::clone(&self.live.script),
                stream,
                line,
                elapsed: self.live.started.elapsed(),
            });
        }
    }

    fn exited(&self, code: Option<i32>) {
        *lock(&self.live.exit_code) = code;
    }

    fn stop_requested(&self) -> StopRequest {
        let mut stop = self.live.stop.subscribe();
        Box::pin(async move {
            let _ = stop.wait_for(|stop| *stop).await;
        })
    }
}

/// The error of a call stopped on request.
fn cancelled_error(call: &TaskCall) -> ToolError {
    ToolError::new(
        ToolErrorCode::ScriptCancelled,
        format!(
            "Error: Script '{}' from skill '{}' was cancelled.",
            call.script, call.skill
        ),
        "It was stopped on request; run it again only if the user asks.".to_owned(),
    )
}

/// Locks `mutex`, whose data stays valid even if a holder panicked (each is one plain value).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn now() -> String {
    jiff::Timestamp::now().to_string()
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
