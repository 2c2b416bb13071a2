//! Script calls as tasks, over inline scripts: when a call becomes one, what `get_task` and
//! `cancel_task` answer, and what a host is told.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use skillful_core::SourceContext;
use skillful_inline::{InlineSkill, InlineSkillsSource};
use skillful_provider::{
    RunContext, SkillsProvider, TaskEvent, TaskId, TaskSettings, TaskStatus, ToolKind, ToolOutput,
};
use tokio::sync::Notify;

use crate::jobs::jobs;

fn provider(skill: InlineSkill, after: Duration) -> SkillsProvider {
    SkillsProvider::builder(Arc::new(InlineSkillsSource::new([skill])))
        .tasks(
            TaskSettings::default()
                .after(after)
                .poll_after(Duration::from_secs(60)),
        )
        .build()
        .unwrap()
}

async fn run(provider: &SkillsProvider, session: &str) -> RunContext {
    provider
        .context(&SourceContext::isolated(session))
        .await
        .unwrap()
}

async fn invoke(run: &RunContext, tool: &str, arguments: Value) -> ToolOutput {
    run.tool(tool).unwrap().invoke(arguments).await
}

async fn started(run: &RunContext, script: &str) -> TaskId {
    let ToolOutput::Text(text) = invoke(
        run,
        "run_skill_script",
        json!({"skillName": "jobs", "scriptName": script}),
    )
    .await
    else {
        panic!("run_skill_script failed");
    };
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["status"], "running", "{answer}");
    assert_eq!(answer["poll_after_ms"], 60_000);
    TaskId::from(answer["task"].as_str().unwrap().to_owned())
}

#[tokio::test]
async fn get_task_and_cancel_task_are_offered_while_a_task_of_the_session_runs() {
    let gate = Arc::new(Notify::new());
    let kinds = |run: &RunContext| -> Vec<ToolKind> {
        run.tools().iter().map(|tool| tool.kind()).collect()
    };
    let with_tasks = provider(jobs(gate.clone()), Duration::ZERO);
    let before = run(&with_tasks, "s").await;
    assert_eq!(kinds(&before), ToolKind::ALL[..3]);
    // Not offered, yet there for the host.
    assert!(before.tool("get_task").is_some() && before.tool("cancel_task").is_some());
    started(&before, "forever").await;
    assert_eq!(
        kinds(&run(&with_tasks, "s").await),
        [
            ToolKind::LoadSkill,
            ToolKind::ReadSkillResource,
            ToolKind::RunSkillScript,
            ToolKind::GetTask,
            ToolKind::CancelTask
        ]
    );
    assert_eq!(
        kinds(&run(&with_tasks, "another").await),
        ToolKind::ALL[..3]
    );
    let without = SkillsProvider::new(Arc::new(InlineSkillsSource::new([jobs(gate)])));
    let without = run(&without, "s").await;
    assert_eq!(kinds(&without), ToolKind::ALL[..3]);
    assert!(without.tool("get_task").is_none());
}

#[tokio::test]
async fn a_call_that_ends_within_the_threshold_is_answered_as_without_tasks_and_recorded_nowhere() {
    let provider = provider(jobs(Arc::new(Notify::new())), Duration::from_secs(60));
    let tasks = provider.tasks().unwrap();
    let run = run(&provider, "s").await;
    let output = invoke(
        &run,
        "run_skill_script",
        json!({"skillName": "jobs", "scriptName": "quick"}),
    )
    .await;
    assert_eq!(output, ToolOutput::Text("quick done".into()));
    assert!(tasks.list(Some("s")).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_call_still_running_at_the_threshold_becomes_a_task_announced_once_and_ended_once() {
    let gate = Arc::new(Notify::new());
    let provider = provider(jobs(gate.clone()), Duration::from_millis(20));
    let tasks = Arc::clone(provider.tasks().unwrap());
    let mut events = tasks.subscribe();
    let run = run(&provider, "s").await;
    let id = started(&run, "gated").await;

    // The first question is answered; the next, too soon, says when to ask.
    let ToolOutput::Text(first) = invoke(&run, "get_task", json!({"taskId": id})).await else {
        panic!("get_task failed");
    };
    let first: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(first["status"], "working");
    assert!(first.get("note").is_none(), "{first}");
    let ToolOutput::Text(again) = invoke(&run, "get_task", json!({"taskId": id})).await else {
        panic!("get_task failed");
    };
    let again: Value = serde_json::from_str(&again).unwrap();
    assert!(
        again["note"].as_str().unwrap().contains("too soon"),
        "{again}"
    );

    gate.notify_one();
    let ended = tasks.wait(Some("s"), &id).await.unwrap().unwrap();
    assert_eq!(ended.status, TaskStatus::Completed);
    assert_eq!(ended.result.as_deref(), Some("gated done"));
    assert_eq!(
        tasks.list(Some("s")).await.unwrap(),
        std::slice::from_ref(&ended)
    );

    let mut announced = Vec::new();
    while let Ok(event) = events.try_recv() {
        announced.push(event);
    }
    assert!(
        matches!(&announced[..], [TaskEvent::Started { record: start, subject }, TaskEvent::Ended { record: end, .. }]
            if start.task_id == id && start.status == TaskStatus::Working && *end == ended
                && subject.script_name() == Some("gated")),
        "{announced:?}"
    );
}

#[tokio::test]
async fn an_unknown_id_or_another_sessions_task_is_not_found() {
    let provider = provider(jobs(Arc::new(Notify::new())), Duration::ZERO);
    let mine = run(&provider, "mine").await;
    let id = started(&mine, "forever").await;
    let theirs = run(&provider, "theirs").await;
    for (run, id) in [(&mine, "task-0000"), (&theirs, id.as_str())] {
        for tool in ["get_task", "cancel_task"] {
            let ToolOutput::Error(error) = invoke(run, tool, json!({"taskId": id})).await else {
                panic!("{tool} found {id}");
            };
            assert!(error.to_string().contains("task_not_found"), "{error}");
        }
    }
    let ToolOutput::Error(error) = invoke(&mine, "get_task", json!({})).await else {
        panic!("get_task without an id");
    };
    assert!(
        error.to_string().contains("Task id cannot be empty"),
        "{error}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_script_that_cannot_stop_itself_is_dropped_a_grace_after_cancel_task() {
    let provider = provider(jobs(Arc::new(Notify::new())), Duration::from_secs(60));
    let tasks = Arc::clone(provider.tasks().unwrap());
    let run = run(&provider, "s").await;
    // Declared long-running: a task at once, though the threshold is a minute.
    let id = started(&run, "forever").await;
    assert!(tasks.is_live(&id));
    let ToolOutput::Text(text) = invoke(&run, "cancel_task", json!({"taskId": id})).await else {
        panic!("cancel_task failed");
    };
    let record: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(record["status"], "cancelled", "{record}");
    assert!(!tasks.is_live(&id));
}

#[tokio::test]
async fn past_the_cap_of_running_tasks_a_call_is_waited_for_as_without_tasks() {
    let gate = Arc::new(Notify::new());
    let provider = SkillsProvider::builder(Arc::new(InlineSkillsSource::new([jobs(gate.clone())])))
        .tasks(
            TaskSettings::default()
                .after(Duration::ZERO)
                .poll_after(Duration::from_secs(60))
                .max_running(2),
        )
        .build()
        .unwrap();
    let tasks = Arc::clone(provider.tasks().unwrap());
    let run = run(&provider, "s").await;
    started(&run, "forever").await;
    started(&run, "forever").await;
    // A third long call is no task: it answers when its script ends.
    let third = tokio::spawn({
        let tool = run.tool("run_skill_script").unwrap().clone();
        async move {
            tool.invoke(json!({"skillName": "jobs", "scriptName": "gated"}))
                .await
        }
    });
    tokio::task::yield_now().await;
    gate.notify_one();
    assert_eq!(third.await.unwrap(), ToolOutput::Text("gated done".into()));
    assert_eq!(tasks.list(Some("s")).await.unwrap().len(), 2);
    // Another session has a cap of its own.
    let other = self::run(&provider, "t").await;
    started(&other, "forever").await;
}
