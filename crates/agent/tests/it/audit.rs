//! The audit log through the agent: one record per call the loop decides on, with the skill,
//! its digests, the decision and who made it, and one per run with its tokens; records are
//! flushed to disk off the calls' path, and all of them before the run returns.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use serde_json::json;
use skillful_agent::{Agent, ApprovalRules, AuditSettings, AutoApprove, Session};
use skillful_audit::{
    AuditError, AuditEvent, AuditLog, AuditRecord, AuditSink, EventKind, FileAuditSink,
    json_digest, sha256_hex,
};
use skillful_chat::ApprovalResponse;
use skillful_provider::SkillsProvider;
use skillful_test_server::{Reply, TestServer};

use crate::common::{
    CountingRunner, MARATHON, OpsSkill, OpsSource, client, example_provider, examples, load_skill,
    run_convert,
};

fn file_digest(relative: &str) -> String {
    sha256_hex(&std::fs::read(examples().join(relative)).unwrap())
}

fn records_of(log: &AuditLog) -> Vec<AuditRecord> {
    log.records().unwrap()
}

#[tokio::test]
async fn every_decided_call_and_every_run_is_one_chained_record() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let server = TestServer::start().await;
    server.push(Reply::tool_calls(&[
        ("c1", "load_skill", load_skill()),
        ("c2", "run_skill_script", run_convert()),
    ]));
    server.push(Reply::tool_call("c3", "wipe_everything", json!({})));
    server.push(Reply::text("42.16 km; I did not wipe anything."));
    let dir = tempfile::tempdir().unwrap();
    let sink = Arc::new(FileAuditSink::at(dir.path().join("audit")).unwrap());
    let runner = Arc::new(CountingRunner::default());
    let agent = Agent::builder(client(server.url()))
        .skills(example_provider(Arc::clone(&runner)))
        .approval(ApprovalRules::new(AutoApprove::ReadOnly))
        .audit(AuditSettings::new(sink, "audit-test"))
        .build();
    let mut session = Session::new();
    let first = agent.run(MARATHON, &mut session).await.unwrap();
    assert_eq!(first.pending.len(), 1);
    agent
        .run(vec![ApprovalResponse::approve("c2")], &mut session)
        .await
        .unwrap();
    assert_eq!(runner.runs(), 1);

    let log = AuditLog::at(dir.path().join("audit"));
    let records = records_of(&log);
    let kinds: Vec<(EventKind, Option<&str>)> = records
        .iter()
        .map(|record| (record.event.event, record.event.call_id.as_deref()))
        .collect();
    assert_eq!(
        kinds,
        [
            (EventKind::ApprovalRequest, Some("c2")),
            (EventKind::ToolCall, Some("c1")),
            (EventKind::Run, None),
            (EventKind::ToolCall, Some("c2")),
            (EventKind::Refusal, Some("c3")),
            (EventKind::Run, None),
        ]
    );
    for (index, record) in records.iter().enumerate() {
        assert_eq!(record.seq, index as u64);
        assert_eq!(record.event.session.as_deref(), Some(session.id()));
        assert_eq!(record.event.host, "audit-test");
        assert!(!record.event.user.is_empty());
        assert_eq!(record.event.sandbox, None);
    }

    let loaded = &records[1].event;
    assert_eq!(loaded.tool.as_deref(), Some("load_skill"));
    let skill = loaded.skill.as_ref().unwrap();
    assert_eq!(skill.name, "unit-converter");
    assert_eq!(
        (skill.origin.as_str(), skill.scope.as_str()),
        ("files", "explicit")
    );
    assert_eq!(
        skill.digest.as_deref(),
        Some(file_digest("unit-converter/SKILL.md").as_str())
    );
    assert_eq!(loaded.decision.as_deref(), Some("approved"));
    assert_eq!(
        loaded.decided_by.as_deref(),
        Some("rule: auto-approve read-only")
    );
    assert_eq!(loaded.args, Some(load_skill()));
    assert_eq!(loaded.args_digest, Some(json_digest(&load_skill())));
    assert_eq!(loaded.is_error, Some(false));
    assert!(loaded.duration_us.is_some());
    let shown = &server.requests()[1].contents("tool")[0];
    assert_eq!(loaded.result_digest, Some(sha256_hex(shown.as_bytes())));

    let asked = &records[0].event;
    assert_eq!(asked.decision.as_deref(), Some("asked"));
    assert_eq!(asked.script.as_deref(), Some("scripts/convert.py"));
    assert_eq!(asked.result_digest, None);

    let ran = &records[3].event;
    assert_eq!(ran.decided_by.as_deref(), Some("user (once)"));
    assert_eq!(ran.script.as_deref(), Some("scripts/convert.py"));
    assert_eq!(
        ran.script_digest.as_deref(),
        Some(file_digest("unit-converter/scripts/convert.py").as_str())
    );
    assert_eq!(ran.exit_code, Some(0));
    assert_eq!(ran.risk.as_deref(), Some("read"));

    let unknown = &records[4].event;
    assert_eq!(unknown.decision.as_deref(), Some("refused"));
    assert_eq!(unknown.decided_by.as_deref(), Some("unknown tool"));
    assert_eq!(unknown.skill, None);

    let run = records[2].event.tokens.unwrap();
    assert_eq!((run.input, run.output), (10, 5));

    let verification = log.verify().unwrap();
    assert_eq!((verification.verified, verification.broken), (6, None));
}

#[tokio::test]
async fn a_call_the_rules_refuse_is_a_refusal_by_the_policy() {
    let server = TestServer::start().await;
    server.push(Reply::run_skill_script("c1", "ops", "wipe"));
    server.push(Reply::text("I did not wipe anything."));
    let dir = tempfile::tempdir().unwrap();
    let sink = Arc::new(FileAuditSink::at(dir.path()).unwrap());
    let ops = OpsSkill::new();
    let agent = Agent::builder(client(server.url()))
        .skills(Arc::new(SkillsProvider::new(Arc::new(OpsSource(
            Arc::clone(&ops),
        )))))
        .approval(ApprovalRules::new(AutoApprove::All).scripts_isolated(true))
        .audit(AuditSettings::new(sink, "audit-test"))
        .build();
    agent.run("Clean up.", &mut Session::new()).await.unwrap();
    let records = records_of(&AuditLog::at(dir.path()));
    let refused = &records[0].event;
    assert_eq!(refused.event, EventKind::Refusal);
    assert_eq!(refused.decided_by.as_deref(), Some("policy"));
    assert_eq!(refused.risk.as_deref(), Some("destructive"));
    let skill = refused.skill.as_ref().unwrap();
    assert_eq!(
        (skill.name.as_str(), skill.origin.as_str()),
        ("ops", "inline")
    );
    assert!(
        skill.digest.is_some(),
        "an inline skill's digest is its document's"
    );
    assert!(refused.reason.as_deref().unwrap().contains("destructive"));
    assert_eq!(refused.exit_code, None);
}

#[tokio::test]
async fn redacted_records_keep_the_digest_of_the_arguments_only() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "load_skill", load_skill()));
    server.push(Reply::text("loaded"));
    let dir = tempfile::tempdir().unwrap();
    let sink = Arc::new(FileAuditSink::at(dir.path()).unwrap());
    let agent = Agent::builder(client(server.url()))
        .skills(example_provider(Arc::default()))
        .approval(ApprovalRules::new(AutoApprove::ReadOnly))
        .audit(AuditSettings::new(sink, "audit-test").redact(true))
        .build();
    agent.run(MARATHON, &mut Session::new()).await.unwrap();
    let records = records_of(&AuditLog::at(dir.path()));
    assert_eq!(records[0].event.args, None);
    assert_eq!(
        records[0].event.args_digest,
        Some(json_digest(&load_skill()))
    );
}

#[tokio::test]
async fn a_prompt_over_a_pending_call_records_it_unanswered() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "run_skill_script", run_convert()));
    server.push(Reply::text("Something else, then."));
    let dir = tempfile::tempdir().unwrap();
    let sink = Arc::new(FileAuditSink::at(dir.path()).unwrap());
    let agent = Agent::builder(client(server.url()))
        .skills(example_provider(Arc::default()))
        .approval(ApprovalRules::new(AutoApprove::ReadOnly))
        .audit(AuditSettings::new(sink, "audit-test"))
        .build();
    let mut session = Session::new();
    agent.run(MARATHON, &mut session).await.unwrap();
    agent.run("Never mind.", &mut session).await.unwrap();
    let records = records_of(&AuditLog::at(dir.path()));
    let answer = records
        .iter()
        .find(|record| record.event.event == EventKind::ApprovalAnswer)
        .unwrap();
    assert_eq!(answer.event.decision.as_deref(), Some("unanswered"));
    assert_eq!(answer.event.call_id.as_deref(), Some("c1"));
    assert_eq!(
        answer.event.skill.as_ref().map(|skill| skill.name.as_str()),
        Some("unit-converter")
    );
}

/// A sink that keeps its records in memory, and whose syncs wait until the test opens its gate.
#[derive(Debug, Default)]
struct GatedSink {
    state: Mutex<Gated>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct Gated {
    appended: Vec<EventKind>,
    /// Records written by `record`: durable at once, as the agent's calls must not wait for.
    recorded: usize,
    /// How many appended records the syncs so far have covered.
    on_disk: usize,
    open: bool,
}

impl GatedSink {
    /// Waits (a minute at most) until `ready` holds of the state.
    fn wait_until(&self, ready: impl Fn(&Gated) -> bool) -> std::sync::MutexGuard<'_, Gated> {
        let (state, timeout) = self
            .changed
            .wait_timeout_while(
                self.state.lock().unwrap(),
                Duration::from_secs(60),
                |state| !ready(state),
            )
            .unwrap();
        assert!(!timeout.timed_out(), "the sink waited a minute: {state:?}");
        state
    }

    fn open(&self) {
        self.state.lock().unwrap().open = true;
        self.changed.notify_all();
    }
}

impl AuditSink for GatedSink {
    fn record(&self, _event: AuditEvent) -> Result<(), AuditError> {
        self.state.lock().unwrap().recorded += 1;
        self.changed.notify_all();
        Ok(())
    }

    fn append(&self, event: AuditEvent) -> Result<(), AuditError> {
        self.state.lock().unwrap().appended.push(event.event);
        self.changed.notify_all();
        Ok(())
    }

    fn sync(&self) -> Result<(), AuditError> {
        let covered = self.state.lock().unwrap().appended.len();
        let mut state = self.wait_until(|state| state.open);
        state.on_disk = state.on_disk.max(covered);
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_go_on_while_their_records_are_flushed_and_the_run_waits_for_the_disk() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "load_skill", load_skill()));
    server.push(Reply::text("loaded"));
    let sink = Arc::new(GatedSink::default());
    let agent = Agent::builder(client(server.url()))
        .skills(example_provider(Arc::default()))
        .approval(ApprovalRules::new(AutoApprove::ReadOnly))
        .audit(AuditSettings::new(
            Arc::clone(&sink) as Arc<dyn AuditSink>,
            "audit-test",
        ))
        .build();
    let run = tokio::spawn(async move { agent.run(MARATHON, &mut Session::new()).await });

    // The run record comes after the model saw the call's result: the call did not wait for
    // its record's sync, which the closed gate holds.
    let watching = Arc::clone(&sink);
    tokio::task::spawn_blocking(move || {
        drop(watching.wait_until(|state| state.appended.len() == 2));
    })
    .await
    .unwrap();
    assert!(
        !run.is_finished(),
        "the run returned before its records were on the disk"
    );
    sink.open();
    let reply = run.await.unwrap().unwrap();
    assert_eq!(reply.text(), "loaded");

    let state = sink.state.lock().unwrap();
    assert_eq!(state.appended, [EventKind::ToolCall, EventKind::Run]);
    assert_eq!(state.recorded, 0, "no record waited for the disk");
    assert_eq!(
        state.on_disk, 2,
        "every record was synced before the run returned"
    );
}

/// A sink that can write nothing (a full disk, a log directory made unsafe).
#[derive(Debug)]
struct BrokenSink;

impl BrokenSink {
    fn error() -> AuditError {
        AuditError::Io {
            path: "/var/audit/audit.jsonl".into(),
            source: std::io::Error::other("no space left on device"),
        }
    }
}

impl AuditSink for BrokenSink {
    fn record(&self, _event: AuditEvent) -> Result<(), AuditError> {
        Err(Self::error())
    }

    fn append(&self, _event: AuditEvent) -> Result<(), AuditError> {
        Err(Self::error())
    }

    fn sync(&self) -> Result<(), AuditError> {
        Err(Self::error())
    }
}

#[tokio::test]
async fn a_record_that_cannot_be_written_never_fails_the_run() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "load_skill", load_skill()));
    server.push(Reply::text("loaded"));
    let agent = Agent::builder(client(server.url()))
        .skills(example_provider(Arc::default()))
        .approval(ApprovalRules::new(AutoApprove::ReadOnly))
        .audit(AuditSettings::new(
            Arc::new(BrokenSink) as Arc<dyn AuditSink>,
            "audit-test",
        ))
        .build();
    let reply = agent.run(MARATHON, &mut Session::new()).await.unwrap();
    assert_eq!(reply.text(), "loaded");
    assert!(
        server.requests()[1].contents("tool")[0].contains("unit-converter"),
        "the call ran and its result reached the model"
    );
}
