//! The audit of skill tool calls: each call the loop decides on becomes an
//! [`AuditEvent`](skillful_audit::AuditEvent) with the skill, its digest and the decision.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use skillful_audit::{
    Actor, AuditEvent, AuditSink, EventKind, SkillRef, Tokens, json_digest, sha256_hex,
};
use skillful_chat::{FunctionCall, Usage};
use skillful_decorators::{CallActor, CallEvent, CallObserver, CallOutcome, RefusedBy};
use skillful_fs::blocking;
use skillful_provider::{CallSubject, TaskRecord, TaskStatus, ToolKind};

use crate::approvals::{document_digest, files_of, hash_file};
use crate::context::SkillFunction;
use crate::session_tasks::announced_task;

/// Where and how an agent audits its calls (see
/// [`AgentBuilder::audit`](crate::AgentBuilder::audit)); it lives in `skillful-audit`, which the
/// MCP server shares.
pub use skillful_audit::AuditSettings;

/// Turns the loop's call events into audit records.
///
/// A record is appended before the call's result goes on, so that the process dying loses none;
/// it is flushed to disk in the background, so that no call waits for the disk, and every
/// record of a run is on the disk before the run returns ([`Auditor::on_disk`]).
#[derive(Debug)]
pub(crate) struct Auditor {
    settings: AuditSettings,
    flushing: Arc<Flushing>,
}

/// Flushes appended records to disk off the calls' path: one sync at a time, each covering
/// every record appended before it started; records appended while one runs share the next.
#[derive(Debug)]
struct Flushing {
    sink: Arc<dyn AuditSink>,
    /// How many records were appended.
    appended: AtomicU64,
    /// Whether a background sync is on its way that has not yet counted the records.
    requested: AtomicBool,
    /// How many records are on the disk; held while a sync runs.
    synced: Mutex<u64>,
}

impl Flushing {
    /// Counts one more record appended and has it flushed in the background.
    fn appended(self: &Arc<Self>) {
        self.appended.fetch_add(1, Ordering::SeqCst);
        // A sync asked for that has not counted yet will count this record too.
        if !self.requested.swap(true, Ordering::SeqCst) {
            let this = Arc::clone(self);
            blocking::spawn(FLUSHING, move || this.sync_requested());
        }
    }

    /// The background sync: every record appended until it starts.
    fn sync_requested(&self) {
        let mut synced = self.synced.lock().unwrap_or_else(PoisonError::into_inner);
        self.requested.store(false, Ordering::SeqCst);
        let appended = self.appended.load(Ordering::SeqCst);
        if *synced < appended {
            self.flush(&mut synced, appended);
        }
    }

    /// Blocks until the first `count` records appended are on the disk.
    fn sync_through(&self, count: u64) {
        let mut synced = self.synced.lock().unwrap_or_else(PoisonError::into_inner);
        if *synced < count {
            let appended = self.appended.load(Ordering::SeqCst);
            self.flush(&mut synced, appended);
        }
    }

    /// Syncs the sink: the first `appended` records are on the disk (a failure is a warning).
    fn flush(&self, synced: &mut u64, appended: u64) {
        if let Err(error) = self.sink.sync() {
            tracing::warn!("the audit log was not flushed to disk: {error}");
        }
        *synced = appended;
    }
}

/// What the blocking work of flushing is called in its errors.
const FLUSHING: &str = "flushing the audit log to disk";

impl Auditor {
    /// An auditor writing to the settings' sink, nothing appended yet.
    pub(crate) fn new(settings: AuditSettings) -> Self {
        let flushing = Arc::new(Flushing {
            sink: Arc::clone(&settings.sink),
            appended: AtomicU64::new(0),
            requested: AtomicBool::new(false),
            synced: Mutex::new(0),
        });
        Self { settings, flushing }
    }

    /// Returns once every record appended so far is on the disk.
    pub(crate) async fn on_disk(&self) {
        let appended = self.flushing.appended.load(Ordering::SeqCst);
        // The background syncs usually got there first; a sync running holds the lock.
        if let Ok(synced) = self.flushing.synced.try_lock()
            && *synced >= appended
        {
            return;
        }
        let flushing = Arc::clone(&self.flushing);
        if let Err(error) = blocking::run(FLUSHING, move || flushing.sync_through(appended)).await {
            tracing::warn!("the audit log was not flushed to disk: {error}");
        }
    }

    fn event(&self, kind: EventKind, session: Option<&str>) -> AuditEvent {
        let mut event = AuditEvent::new(
            kind,
            self.settings.user.clone(),
            self.settings.host.clone(),
            Actor::Model,
        );
        event.session = session.map(str::to_owned);
        event
    }

    /// The event for `call`, with the skill and script it names and their digests.
    async fn call_event(
        &self,
        kind: EventKind,
        call: &FunctionCall,
        subject: Option<CallSubject>,
        session: Option<&str>,
    ) -> (AuditEvent, Vec<std::path::PathBuf>) {
        let mut event = self.event(kind, session);
        event.tool = Some(call.name.clone());
        event.call_id = Some(call.call_id.clone());
        event.args_digest = Some(json_digest(&call.arguments));
        if !self.settings.redact {
            event.args = Some(call.arguments.clone());
        }
        let Some(subject) = subject else {
            return (event, Vec::new());
        };
        let origin = subject.skill.origin();
        let files = files_of(&subject);
        let digest = if files.is_empty() {
            document_digest(&subject).await.ok()
        } else {
            None
        };
        event.skill = Some(SkillRef {
            name: subject.skill_name().to_owned(),
            origin: origin.kind.to_string(),
            scope: origin.scope.to_string(),
            location: origin.location.clone(),
            digest,
        });
        event.script = subject.script_name().map(str::to_owned);
        event.risk = Some(subject.risk.to_string());
        (event, files)
    }

    /// Fills the file digests in (the skill's `SKILL.md` or library, the script) and appends the
    /// record, on the blocking pool, then has it flushed in the background; a failure is a
    /// warning.
    async fn write(&self, mut event: AuditEvent, files: Vec<std::path::PathBuf>) {
        let sink = Arc::clone(&self.settings.sink);
        // The call's `execute_tool` span, when it ran: it gets the skill's digest too.
        let span = tracing::Span::current();
        let written = blocking::run("writing an audit record", move || {
            let mut digests = files
                .iter()
                .map(|path| hash_file(path).ok().map(|(d, _)| d));
            if let Some(skill) = &mut event.skill
                && skill.digest.is_none()
            {
                skill.digest = digests.next().flatten();
            }
            if event.script.is_some() {
                event.script_digest = digests.next().flatten();
            }
            if let Some(digest) = event.skill.as_ref().and_then(|skill| skill.digest.as_ref()) {
                crate::spans::record_digest(&span, digest);
            }
            sink.append(event)
        })
        .await;
        match written {
            Ok(Ok(())) => self.flushing.appended(),
            Ok(Err(error)) => tracing::warn!("the audit record was not written: {error}"),
            Err(error) => tracing::warn!("the audit record was not written: {error}"),
        }
    }

    /// Records a `run` event: the tokens of one agent run.
    pub(crate) async fn run_ended(&self, session: &str, usage: Option<Usage>) {
        let mut event = self.event(EventKind::Run, Some(session));
        event.tokens = usage.map(|usage| Tokens {
            input: usage.prompt_tokens,
            output: usage.completion_tokens,
        });
        self.write(event, Vec::new()).await;
    }

    /// Records that a script call became a task (`started`) or that the task ended: the skill
    /// and script with their digests, the task's id; at the end its status (`reason`), exit
    /// code, duration and result digest.
    pub(crate) async fn task(&self, record: &TaskRecord, subject: CallSubject, started: bool) {
        let call = FunctionCall {
            call_id: String::new(),
            name: ToolKind::RunSkillScript.name().to_owned(),
            arguments: serde_json::json!({
                "skillName": record.skill,
                "scriptName": record.script,
                "arguments": record.arguments,
            }),
        };
        let kind = if started {
            EventKind::TaskStarted
        } else {
            EventKind::TaskEnded
        };
        let (mut event, files) = self
            .call_event(kind, &call, Some(subject), record.session.as_deref())
            .await;
        event.call_id = None;
        event.actor = Actor::Runtime;
        event.task = Some(record.task_id.to_string());
        if !started {
            event.reason = Some(record.status.as_str().to_owned());
            event.exit_code = record.exit_code;
            event.is_error = Some(record.status != TaskStatus::Completed);
            event.duration_us = Some(record.elapsed_ms.saturating_mul(1000));
            event.result_digest = record
                .result
                .as_ref()
                .map(|result| sha256_hex(result.as_bytes()));
        }
        self.write(event, files).await;
    }

    /// Records calls left unanswered when a new prompt superseded them.
    pub(crate) async fn unanswered(
        &self,
        calls: &[(FunctionCall, Option<CallSubject>)],
        session: &str,
    ) {
        for (call, subject) in calls {
            let (mut event, files) = self
                .call_event(
                    EventKind::ApprovalAnswer,
                    call,
                    subject.clone(),
                    Some(session),
                )
                .await;
            event.decision = Some("unanswered".to_owned());
            event.decided_by = Some("user".to_owned());
            self.write(event, files).await;
        }
    }
}

/// The skill and script a call of one of the skills providers' tools names.
pub(crate) fn subject_of(
    tool: &dyn skillful_chat::Tool,
    arguments: &serde_json::Value,
) -> Option<CallSubject> {
    tool.as_any()
        .downcast_ref::<SkillFunction>()
        .and_then(|function| function.0.subject(arguments))
}

#[async_trait]
impl CallObserver for Auditor {
    /// Records what became of a call, made by the model or by the runtime for it (an
    /// activation, a guided strategy's disclosure).
    async fn observe(&self, observed: CallEvent<'_>) {
        let kind = match observed.outcome {
            CallOutcome::Ran { .. } => EventKind::ToolCall,
            CallOutcome::Held => EventKind::ApprovalRequest,
            CallOutcome::Refused { .. } => EventKind::Refusal,
            CallOutcome::Rejected { .. } | CallOutcome::Unanswered => EventKind::ApprovalAnswer,
        };
        let subject = observed
            .tool
            .and_then(|tool| subject_of(tool, &observed.call.arguments));
        let kind_of_tool = subject.as_ref().map(|subject| subject.kind);
        let (mut event, files) = self
            .call_event(kind, observed.call, subject, observed.conversation_id)
            .await;
        event.actor = match observed.actor {
            CallActor::Model => Actor::Model,
            CallActor::Runtime => Actor::Runtime,
        };
        let (decision, decided_by) = match observed.outcome {
            CallOutcome::Ran {
                approver,
                result,
                duration,
            } => {
                event.is_error = Some(result.is_error);
                event.duration_us = Some(duration.as_micros() as u64);
                event.result_digest = Some(sha256_hex(result.result.as_bytes()));
                if kind_of_tool == Some(ToolKind::RunSkillScript) {
                    // A call that became a task has no exit code yet: its `task_ended` has it.
                    event.task = announced_task(&result.result).map(|task| task.to_string());
                    if event.task.is_none() {
                        event.exit_code = exit_code(&result.result, result.is_error);
                    }
                }
                ("approved", approver.grounds())
            }
            CallOutcome::Held => ("asked", "policy".to_owned()),
            CallOutcome::Refused { by, reason } => {
                event.reason = Some(reason.to_owned());
                let by = match by {
                    RefusedBy::Policy => "policy",
                    RefusedBy::Guard => "guard",
                    RefusedBy::UnknownTool => "unknown tool",
                };
                ("refused", by.to_owned())
            }
            CallOutcome::Rejected { reason } => {
                event.reason = reason.map(str::to_owned);
                ("rejected", "user".to_owned())
            }
            CallOutcome::Unanswered => ("unanswered", "user".to_owned()),
        };
        event.decision = Some(decision.to_owned());
        event.decided_by = Some(decided_by);
        self.write(event, files).await;
    }
}

/// A script's exit code from its result as the model sees it: the last `[exit code: N]` line
/// (the script runner writes it after the output, before its notes on a timeout, the sandbox or
/// truncation), else 0 for a result that is no error.
pub(crate) fn exit_code(result: &str, is_error: bool) -> Option<i32> {
    let code = result.lines().rev().find_map(|line| {
        line.strip_prefix("[exit code: ")
            .and_then(|rest| rest.strip_suffix(']'))
    });
    match code {
        Some(code) => code.parse().ok(),
        None => (!is_error).then_some(0),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Condvar;
    use std::time::Duration;

    use skillful_audit::AuditError;

    use super::*;

    /// A sink whose syncs count and wait until the gate opens.
    #[derive(Debug, Default)]
    struct Gate {
        /// Syncs started, and whether the gate is open.
        state: Mutex<(usize, bool)>,
        changed: Condvar,
    }

    impl Gate {
        fn wait(&self, until: impl Fn(&(usize, bool)) -> bool) -> (usize, bool) {
            let state = self.state.lock().unwrap();
            let (state, waited) = self
                .changed
                .wait_timeout_while(state, Duration::from_secs(60), |state| !until(state))
                .unwrap();
            assert!(!waited.timed_out(), "waited a minute: {state:?}");
            *state
        }
    }

    impl AuditSink for Gate {
        fn record(&self, _event: AuditEvent) -> Result<(), AuditError> {
            unreachable!("the auditor only appends")
        }

        fn sync(&self) -> Result<(), AuditError> {
            self.state.lock().unwrap().0 += 1;
            self.changed.notify_all();
            self.wait(|&(_, open)| open);
            Ok(())
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn records_appended_during_a_sync_share_the_next_one() {
        let gate = Arc::new(Gate::default());
        let flushing = Arc::new(Flushing {
            sink: Arc::clone(&gate) as Arc<dyn AuditSink>,
            appended: AtomicU64::new(0),
            requested: AtomicBool::new(false),
            synced: Mutex::new(0),
        });
        flushing.appended();
        let waiting = Arc::clone(&gate);
        blocking::run("waiting", move || waiting.wait(|&(syncs, _)| syncs == 1))
            .await
            .unwrap();
        for _ in 0..4 {
            flushing.appended();
        }
        {
            gate.state.lock().unwrap().1 = true;
            gate.changed.notify_all();
        }
        let through = Arc::clone(&flushing);
        blocking::run("syncing", move || through.sync_through(5))
            .await
            .unwrap();
        assert_eq!(*flushing.synced.lock().unwrap(), 5);
        assert_eq!(
            gate.state.lock().unwrap().0,
            2,
            "one sync for the first, one for the rest"
        );
    }
}
