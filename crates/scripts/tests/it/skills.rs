//! The runner behind file skills and the provider's `run_skill_script`, as an agent uses it.

use crate::common;
mod tasks;

use std::path::Path;
use std::sync::Arc;

use common::script;
use serde_json::{Value, json};
use skillful_core::{SkillError, SkillsSource, SourceContext};
use skillful_discovery::FileSkillsSource;
use skillful_provider::{RunContext, SkillsProvider, ToolOutput};
use skillful_scripts::ProcessRunner;

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/skills");

/// The tools of a run over `root`; scripts run (when `runnable`) in `root/work`, the directory a
/// `write-low` script may write.
async fn agent_run(root: &Path, runnable: bool) -> RunContext {
    let work = root.join("work");
    let runner = if work.is_dir() {
        ProcessRunner::builder().working_dir(work).build().unwrap()
    } else {
        ProcessRunner::new()
    };
    let source = FileSkillsSource::builder()
        .root(root)
        .script_runner(Arc::new(runner))
        .scripts_runnable(runnable)
        .build()
        .unwrap();
    SkillsProvider::new(Arc::new(source))
        .context(&SourceContext::default())
        .await
        .unwrap()
}

async fn run_script(run: &RunContext, arguments: Value) -> ToolOutput {
    run.tool("run_skill_script")
        .unwrap()
        .invoke(arguments)
        .await
}

/// Runs the unit converter's `scripts/convert.py` with `arguments`, as the model would.
async fn convert(arguments: Value) -> ToolOutput {
    let run = agent_run(Path::new(EXAMPLES), true).await;
    let call = json!({
        "skillName": "unit-converter",
        "scriptName": "scripts/convert.py",
        "arguments": arguments
    });
    run_script(&run, call).await
}

fn text(output: ToolOutput) -> String {
    match output {
        ToolOutput::Text(text) => text,
        ToolOutput::Error(error) => panic!("expected text, got {error}"),
    }
}

#[tokio::test]
async fn the_unit_converter_runs_with_an_object_or_an_array_of_arguments() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let expected = r#"{"value": 26.2, "factor": 1.609344, "result": 42.1648}"#;
    let object = json!({"value": 26.2, "factor": 1.609344});
    assert_eq!(text(convert(object).await), expected);
    let array = json!(["--value", "26.2", "--factor", "1.609344"]);
    assert_eq!(text(convert(array).await), expected);
}

#[tokio::test]
async fn a_failing_script_shows_its_stderr_and_exit_code_to_the_model() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let shown = text(convert(json!({"value": 26.2})).await);
    assert!(shown.starts_with("[stderr]\nusage: convert.py"), "{shown}");
    assert!(
        shown.ends_with("[exit code: 2]\n[sandbox: read — writes only in $TMPDIR, no network]"),
        "{shown}"
    );
}

#[tokio::test]
async fn arguments_that_make_no_command_line_are_an_invalid_arguments_error() {
    match convert(json!({"value": [26.2]})).await {
        ToolOutput::Error(error) => {
            assert_eq!(
                error.code,
                skillful_provider::ToolErrorCode::InvalidArguments
            );
            assert!(
                error.hint.contains("the value of `value` is an array"),
                "{}",
                error.hint
            );
        }
        ToolOutput::Text(text) => panic!("expected an error, got {text}"),
    }
}

/// A skill `counter` whose script appends a line to `count.txt` in its working directory
/// (`work`) and prints the number of lines.
fn counter_root() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("counter")).unwrap();
    std::fs::create_dir_all(root.path().join("work")).unwrap();
    std::fs::write(
        root.path().join("counter/SKILL.md"),
        "---\nname: counter\ndescription: Counts runs.\nmetadata:\n  risk: write-low\n---\nRun it.\n",
    )
    .unwrap();
    script(
        &root.path().join("counter"),
        "scripts/count.sh",
        "echo run >> count.txt\nwc -l < count.txt\n",
        false,
    );
    root
}

fn runs(root: &Path) -> usize {
    std::fs::read_to_string(root.join("work/count.txt")).map_or(0, |text| text.lines().count())
}

#[tokio::test]
async fn a_repeated_idempotency_key_runs_the_script_once() {
    let root = counter_root();
    let run = agent_run(root.path(), true).await;
    let call = |key: &str| json!({"skillName": "counter", "scriptName": "scripts/count.sh", "arguments": ["x"], "idempotencyKey": key});
    let first = text(run_script(&run, call("write-1")).await);
    let retry = text(run_script(&run, call("write-1")).await);
    assert_eq!(first, "1");
    assert!(
        retry.starts_with("1\n\n[replayed: idempotencyKey 'write-1'"),
        "{retry}"
    );
    assert_eq!(runs(root.path()), 1);
    assert_eq!(text(run_script(&run, call("write-2")).await), "2");
    let conflicting = json!({"skillName": "counter", "scriptName": "scripts/count.sh", "arguments": ["y"], "idempotencyKey": "write-1"});
    assert!(run_script(&run, conflicting).await.is_error());
    assert_eq!(runs(root.path()), 2);
}

#[tokio::test]
async fn the_declared_tier_reaches_the_tool_and_the_catalog() {
    let root = counter_root();
    let run = agent_run(root.path(), true).await;
    let tool = run.tool("run_skill_script").unwrap();
    let tier = tool.risk_tier(&json!({"skillName": "counter", "scriptName": "scripts/count.sh"}));
    assert_eq!(tier, skillful_core::RiskTier::WriteLow);
    assert!(
        run.instructions()
            .unwrap()
            .contains("    <risk>write-low</risk>\n")
    );
}

#[tokio::test]
async fn scripts_of_an_untrusted_source_never_reach_the_runner() {
    let root = counter_root();
    let run = agent_run(root.path(), false).await;
    let output = run_script(
        &run,
        json!({"skillName": "counter", "scriptName": "scripts/count.sh"}),
    )
    .await;
    assert!(output.is_error());
    assert!(output.into_model_text().contains("not allowed to run"));
    assert_eq!(runs(root.path()), 0);
}

#[tokio::test]
async fn a_missing_interpreter_reaches_the_model_as_a_script_error_naming_it() {
    let root = counter_root();
    let runner = ProcessRunner::builder()
        .interpreter(
            ".sh",
            skillful_scripts::Interpreter::new("bash-does-not-exist"),
        )
        .build()
        .unwrap();
    let source = FileSkillsSource::builder()
        .root(root.path())
        .script_runner(Arc::new(runner))
        .build()
        .unwrap();
    let skill = &source.discover().await.skills[0];
    let error = skillful_core::Skill::script(skill.as_ref(), "scripts/count.sh")
        .unwrap()
        .run(Value::Null)
        .await
        .unwrap_err();
    match error {
        SkillError::Script { script, message } => {
            assert_eq!(script, "scripts/count.sh");
            assert!(
                message.contains("`bash-does-not-exist` is not installed"),
                "{message}"
            );
        }
        other => panic!("unexpected error: {other:?}"),
    }
}

#[tokio::test]
async fn a_file_script_past_its_limit_is_the_one_timeout_error_naming_skill_script_and_limit() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("slow/scripts")).unwrap();
    std::fs::write(
        root.path().join("slow/SKILL.md"),
        "---\nname: slow\ndescription: Waits.\n---\nRun it.\n",
    )
    .unwrap();
    script(
        &root.path().join("slow/scripts"),
        "wait.sh",
        "sleep 1000\n",
        false,
    );
    let runner = ProcessRunner::builder()
        .timeout(std::time::Duration::from_millis(300))
        .build()
        .unwrap();
    let source = Arc::new(
        FileSkillsSource::builder()
            .root(root.path())
            .script_runner(Arc::new(runner))
            .build()
            .unwrap(),
    );
    let run = SkillsProvider::new(Arc::clone(&source) as _)
        .context(&SourceContext::default())
        .await
        .unwrap();
    let call = json!({"skillName": "slow", "scriptName": "scripts/wait.sh"});
    match run_script(&run, call).await {
        ToolOutput::Error(error) => {
            assert_eq!(error.code, skillful_provider::ToolErrorCode::ScriptFailed);
            assert_eq!(
                error.message,
                "Error: Failed to execute script 'scripts/wait.sh' from skill 'slow'."
            );
            assert_eq!(
                error.hint,
                "The script ran out of time (0.3s) and was stopped. Call it with less work at a time, or tell the user it needs a longer limit."
            );
        }
        ToolOutput::Text(text) => panic!("expected a timeout, got {text}"),
    }
    let skills = source.skills(&SourceContext::default()).await.unwrap();
    let script = skills[0].script("scripts/wait.sh").unwrap();
    match skillful_provider::run_script("slow", &*script, Value::Null).await {
        Err(SkillError::ScriptTimedOut {
            skill,
            script,
            after,
        }) => {
            assert_eq!(
                (skill.as_str(), script.as_str()),
                ("slow", "scripts/wait.sh")
            );
            assert_eq!(after, std::time::Duration::from_millis(300));
        }
        other => panic!("expected the timeout error, got {other:?}"),
    }
}
