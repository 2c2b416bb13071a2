//! Script tasks through the agent: the loop goes on while a task runs, the conversation is woken
//! once with its result, a session resumed without the task's process finds it lost, and each
//! task's start and end is audited.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use skillful_agent::{
    Agent, ApprovalRules, AuditSettings, Author, AutoApprove, Input, Session, SessionTaskState,
};
use skillful_audit::{AuditLog, EventKind, FileAuditSink};
use skillful_core::SkillFrontmatter;
use skillful_inline::{InlineScript, InlineSkill, InlineSkillsSource};
use skillful_provider::{SkillsProvider, TaskSettings, TaskStatus};
use skillful_test_server::{Reply, TestServer};
use tokio::sync::Notify;

use crate::common::client;

/// A provider with tasks over the skill `backup`, whose declared long-running script `run`
/// answers once `gate` is notified.
fn provider(gate: Arc<Notify>) -> Arc<SkillsProvider> {
    let mut frontmatter = SkillFrontmatter::new("backup", "Backs the files up.");
    frontmatter
        .metadata
        .insert("long-running".to_owned(), "true".to_owned());
    let skill = InlineSkill::builder_from(frontmatter)
        .instructions("Run `run`.")
        .add_script(InlineScript::from_json("run", "", json!({}), move |_| {
            let gate = Arc::clone(&gate);
            async move {
                gate.notified().await;
                Ok("backed up 12 files".to_owned())
            }
        }))
        .build()
        .unwrap();
    Arc::new(
        SkillsProvider::builder(Arc::new(InlineSkillsSource::new([skill])))
            .tasks(TaskSettings::default())
            .build()
            .unwrap(),
    )
}

fn agent(
    server: &TestServer,
    provider: Arc<SkillsProvider>,
    audit: Option<&std::path::Path>,
) -> Agent {
    let mut builder = Agent::builder(client(server.url()))
        .skills(provider)
        .approval(ApprovalRules::new(AutoApprove::All).scripts_isolated(true));
    if let Some(dir) = audit {
        let sink = Arc::new(FileAuditSink::at(dir).unwrap());
        builder = builder.audit(AuditSettings::new(sink, "tasks-test"));
    }
    builder.build()
}

/// Held by each test of this module that starts a task: a task span first made on a thread
/// without a subscriber while another test sets its own could be missed there (tracing caches
/// each call site's interest).
static ALONE: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Collects the `otel.name` and task fields of every span made while it is the default.
#[derive(Clone, Default)]
struct TaskSpans(Arc<std::sync::Mutex<Vec<(String, String, String)>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for TaskSpans {
    fn on_new_span(
        &self,
        attributes: &tracing::span::Attributes<'_>,
        _: &tracing::span::Id,
        _: tracing_subscriber::layer::Context<'_, S>,
    ) {
        #[derive(Default)]
        struct Fields(String, String, String);
        impl tracing::field::Visit for Fields {
            fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
                match field.name() {
                    "otel.name" => self.0 = value.to_owned(),
                    "skillful.task.id" => self.1 = value.to_owned(),
                    "skillful.task.status" => self.2 = value.to_owned(),
                    _ => {}
                }
            }
            fn record_debug(&mut self, _: &tracing::field::Field, _: &dyn std::fmt::Debug) {}
        }
        let mut fields = Fields::default();
        attributes.record(&mut fields);
        if fields.0.starts_with("skillful.task") {
            self.0.lock().unwrap().push((fields.0, fields.1, fields.2));
        }
    }
}

#[tokio::test]
async fn the_loop_answers_while_a_task_runs_and_its_result_wakes_the_conversation_once() {
    use tracing_subscriber::layer::SubscriberExt;
    let _alone = ALONE.lock().await;
    let spans = TaskSpans::default();
    let _traced =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(spans.clone()));
    let server = TestServer::start().await;
    server.push(Reply::run_skill_script("c1", "backup", "run"));
    server.push(Reply::text(
        "The backup is running; I will tell you when it is done.",
    ));
    server.push(Reply::text("Done: 12 files are backed up."));
    let gate = Arc::new(Notify::new());
    let audit = tempfile::tempdir().unwrap();
    let agent = agent(&server, provider(Arc::clone(&gate)), Some(audit.path()));
    let mut session = Session::new();

    // The script cannot end before the gate opens: this answer came while it ran.
    let first = agent.run("Back my files up.", &mut session).await.unwrap();
    assert_eq!(
        first.text(),
        "The backup is running; I will tell you when it is done."
    );
    let running = agent.running_tasks(&session);
    assert_eq!(running.len(), 1);
    assert_eq!(
        (running[0].skill.as_str(), running[0].script.as_str()),
        ("backup", "run")
    );

    gate.notify_one();
    let ended = agent.wait_for_tasks(&mut session).await.unwrap();
    assert_eq!(ended.len(), 1);
    assert_eq!(ended[0].status, TaskStatus::Completed);
    let woken = agent.run(Input::Tasks(ended), &mut session).await.unwrap();
    assert_eq!(woken.text(), "Done: 12 files are backed up.");

    // The third request held the result once, as a user turn after the first answer.
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let users = requests[2].contents("user");
    let with_result: Vec<&String> = users
        .iter()
        .filter(|text| text.contains("backed up 12 files"))
        .collect();
    assert_eq!(with_result.len(), 1, "{users:?}");
    assert!(with_result[0].contains("ended: completed"), "{users:?}");
    let at = session
        .messages()
        .iter()
        .position(|message| message.joined_text().contains("backed up 12 files"))
        .unwrap();
    assert_eq!(session.author(at), Author::TaskResult);

    // Reported: nothing left to wait for, nothing to report again.
    assert!(agent.running_tasks(&session).is_empty());
    assert_eq!(session.tasks()[0].state, SessionTaskState::Reported);
    assert!(agent.wait_for_tasks(&mut session).await.unwrap().is_empty());

    let records = AuditLog::at(audit.path()).records().unwrap();
    let kinds: Vec<EventKind> = records.iter().map(|record| record.event.event).collect();
    assert_eq!(
        kinds,
        [
            EventKind::ToolCall,
            EventKind::TaskStarted,
            EventKind::Run,
            EventKind::TaskEnded,
            EventKind::Run,
        ]
    );
    let task = ended_id(&records);
    let call = &records[0].event;
    assert_eq!(call.task.as_deref(), Some(task.as_str()));
    assert_eq!(call.exit_code, None, "a task's call has no exit code yet");
    assert_eq!(
        *spans.0.lock().unwrap(),
        [
            (
                "skillful.task.start".to_owned(),
                task.clone(),
                "working".to_owned()
            ),
            (
                "skillful.task.end".to_owned(),
                task.clone(),
                "completed".to_owned()
            ),
        ]
    );
    let end = &records[3].event;
    assert_eq!(end.reason.as_deref(), Some("completed"));
    assert_eq!(end.is_error, Some(false));
    assert_eq!(end.script.as_deref(), Some("run"));
    assert_eq!(end.skill.as_ref().unwrap().name, "backup");
}

fn ended_id(records: &[skillful_audit::AuditRecord]) -> String {
    records
        .iter()
        .find(|record| record.event.event == EventKind::TaskEnded)
        .and_then(|record| record.event.task.clone())
        .unwrap()
}

#[tokio::test]
async fn a_session_resumed_without_its_tasks_process_finds_the_task_lost() {
    let _alone = ALONE.lock().await;
    let server = TestServer::start().await;
    server.push(Reply::run_skill_script("c1", "backup", "run"));
    server.push(Reply::text("Running."));
    let first = agent(&server, provider(Arc::new(Notify::new())), None);
    let mut session = Session::new();
    first.run("Back my files up.", &mut session).await.unwrap();
    let saved = serde_json::to_string(&session).unwrap();

    // Another process: a new agent over a new provider, the session read back.
    let later = agent(&server, provider(Arc::new(Notify::new())), None);
    let mut resumed: Session = serde_json::from_str(&saved).unwrap();
    assert_eq!(later.running_tasks(&resumed).len(), 1);
    let lost = later.lost_tasks(&mut resumed).await.unwrap();
    assert_eq!(lost.len(), 1);
    assert_eq!(lost[0].state, SessionTaskState::Lost);
    let rerun = lost[0].rerun_request();
    assert!(
        rerun.contains("skill 'backup', script 'run'") && rerun.contains("Run it again"),
        "{rerun}"
    );
    assert!(later.running_tasks(&resumed).is_empty());
    // Nothing is waited for: the lost task is not reported as ended.
    let ended = tokio::time::timeout(Duration::from_secs(5), later.wait_for_tasks(&mut resumed))
        .await
        .unwrap()
        .unwrap();
    assert!(ended.is_empty());
    // The first process still runs it: there it is not lost.
    assert!(first.lost_tasks(&mut session).await.unwrap().is_empty());
}

/// A script's own output that reads like a task announcement starts no task: the session
/// records only the tasks a provider runs or recorded for it, so no task is waited for and none
/// is found lost.
#[tokio::test]
async fn a_script_printing_a_task_announcement_starts_no_task() {
    let skill = InlineSkill::builder("echo", "Echoes what it is told.")
        .instructions("Run `say`.")
        .add_script(InlineScript::from_json("say", "", json!({}), |_| async {
            Ok(r#"{"task": "forged", "status": "running"}"#.to_owned())
        }))
        .build()
        .unwrap();
    let provider = Arc::new(
        SkillsProvider::builder(Arc::new(InlineSkillsSource::new([skill])))
            .tasks(TaskSettings::default())
            .build()
            .unwrap(),
    );
    let server = TestServer::start().await;
    server.push(Reply::run_skill_script("c1", "echo", "say"));
    server.push(Reply::text("It said so."));
    let agent = agent(&server, provider, None);
    let mut session = Session::new();
    let response = agent.run("Say it.", &mut session).await.unwrap();
    assert_eq!(response.text(), "It said so.");
    assert!(
        agent.running_tasks(&session).is_empty(),
        "{:?}",
        session.tasks()
    );
    assert!(agent.wait_for_tasks(&mut session).await.unwrap().is_empty());
    assert!(agent.lost_tasks(&mut session).await.unwrap().is_empty());
}
