//! A skill whose answer the stand-in model knows only when the skill is offered, evaluated with
//! code expectations and no judge: the pass rates, the workspace's files, and what is refused
//! before anything runs.

use std::path::{Path, PathBuf};

use serde_json::Value;
use skillful_agent::Mode;
use skillful_eval::{EvalSettings, Evaluator, History, JudgeSettings, SkillUnderTest};
use skillful_test_server::{Reply, TestServer};

const SKILL_MD: &str = "---
name: unit-converter
description: Converts values between units. Use for unit conversions.
---
# Unit converter

A mile is 1.609344 km.
";

const EVALS: &str = r#"{
  "skill_name": "unit-converter",
  "evals": [
    {
      "id": 1,
      "prompt": "How far is the morning run in run.txt, in km?",
      "expected_output": "16.09 km",
      "files": ["evals/files/run.txt"],
      "expectations": [{"contains": "16.09"}, {"regex": "\\bkm\\b"}]
    }
  ]
}"#;

/// The skill under test in a directory of its own.
fn skill_dir(root: &Path) -> PathBuf {
    let skill = root.join("unit-converter");
    for (name, text) in [
        ("SKILL.md", SKILL_MD),
        ("evals/evals.json", EVALS),
        ("evals/files/run.txt", "10 miles\n"),
    ] {
        let path = skill.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    skill
}

/// With the skill's tools offered the stand-in loads the skill and answers from it; without
/// them it cannot know the answer.
fn stand_in(body: &Value) -> Reply {
    let offered = body["tools"]
        .as_array()
        .is_some_and(|tools| !tools.is_empty());
    if !offered {
        return Reply::text("I cannot tell without a conversion table.");
    }
    let last = body["messages"].as_array().and_then(|m| m.last().cloned());
    if last.is_some_and(|last| last["role"] == "user") {
        Reply::load_skill("call-1", "unit-converter")
    } else {
        Reply::text("The run is 16.09344 km.")
    }
}

fn settings(server: &TestServer) -> EvalSettings {
    let mut settings = EvalSettings::new(server.url());
    settings.judge = JudgeSettings::None;
    // The stand-in scripts the tool loop (a loopback server gets guided by default).
    settings.mode = Mode::Tools;
    settings
}

fn read_json(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    serde_json::from_str(&text).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_skill_wins_its_expectations_and_the_iteration_is_written_and_read_back() {
    let root = tempfile::tempdir().unwrap();
    let skill = SkillUnderTest::load(skill_dir(root.path())).await.unwrap();
    let server = TestServer::start().await;
    server.respond(stand_in);
    let workspace = root.path().join("workspace");

    let evaluator = Evaluator::new(settings(&server)).unwrap();
    let report = evaluator
        .evaluate(&skill, std::slice::from_ref(&skill), &workspace, &|_| {})
        .await
        .unwrap();

    let summary = &report.benchmark.run_summary;
    assert_eq!(summary.with_skill.pass_rate.unwrap().mean, 1.0);
    assert_eq!(summary.without_skill.pass_rate.unwrap().mean, 0.0);
    assert_eq!(summary.delta.pass_rate, Some(1.0));
    assert_eq!(summary.with_skill.skill_loaded, 1);
    assert_eq!(summary.without_skill.skill_loaded, 0);
    assert!(report.benchmark.triggers.is_none());

    // Each run's answer, its input file beside it, and its grading; the benchmark as reported.
    assert_eq!(report.iteration_dir, workspace.join("iteration-1"));
    let with = report.iteration_dir.join("eval-1/with_skill");
    assert!(
        std::fs::read_to_string(with.join("outputs/answer.md"))
            .unwrap()
            .contains("16.09344 km")
    );
    assert_eq!(
        std::fs::read_to_string(with.join("outputs/run.txt")).unwrap(),
        "10 miles\n"
    );
    let grading = read_json(&with.join("grading.json"));
    assert_eq!(grading["summary"]["passed"], 2, "{grading}");
    let without = read_json(
        &report
            .iteration_dir
            .join("eval-1/without_skill/grading.json"),
    );
    assert_eq!(without["summary"]["passed"], 0, "{without}");

    let history = History::read(&workspace).unwrap();
    assert_eq!(history.skill_name(), Some("unit-converter"));
    let [iteration] = history.iterations.as_slice() else {
        panic!("one iteration: {history:?}");
    };
    assert_eq!(iteration.number, 1);
    // Read back from JSON: the runs and pass rates as reported (times may differ in the last bit).
    assert_eq!(iteration.benchmark.runs, report.benchmark.runs);
    assert_eq!(iteration.benchmark.run_summary.delta.pass_rate, Some(1.0));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_input_file_outside_the_skill_is_refused_when_the_skill_loads() {
    let root = tempfile::tempdir().unwrap();
    let dir = skill_dir(root.path());
    std::fs::write(root.path().join("secret.txt"), "secret").unwrap();
    std::fs::write(
        dir.join("evals/evals.json"),
        EVALS.replace("evals/files/run.txt", "../secret.txt"),
    )
    .unwrap();

    let error = SkillUnderTest::load(&dir).await.unwrap_err();
    assert!(
        error
            .to_string()
            .contains("evals.json: eval 1: file \"../secret.txt\""),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_workspace_inside_the_skill_is_refused_before_anything_runs() {
    let root = tempfile::tempdir().unwrap();
    let skill = SkillUnderTest::load(skill_dir(root.path())).await.unwrap();
    let server = TestServer::start().await;
    server.respond(stand_in);

    let evaluator = Evaluator::new(settings(&server)).unwrap();
    let error = evaluator
        .evaluate(
            &skill,
            std::slice::from_ref(&skill),
            &skill.dir().join("scratch"),
            &|_| {},
        )
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("lies inside the skill's directory"),
        "{error}"
    );
    assert!(server.requests().is_empty(), "nothing ran");
}
