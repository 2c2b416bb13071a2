//! Long-running scripts as tasks, with real processes: the call answers while the script goes
//! on, `get_task` shows it, `cancel_task` stops its whole tree, and its limits and sandbox hold.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use skillful_core::SourceContext;
use skillful_discovery::FileSkillsSource;
use skillful_provider::{
    RunContext, SkillsProvider, TaskEvent, TaskId, TaskSettings, TaskStatus, Tasks, ToolOutput,
};
use skillful_scripts::ProcessRunner;

use crate::common::script;

/// Writes the skill `name` under `root`: its `SKILL.md` with `metadata` lines, and its scripts.
fn skill(root: &Path, name: &str, metadata: &str, scripts: &[(&str, &str)]) {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!(
            "---\nname: {name}\ndescription: Runs {name}.\nmetadata:\n{metadata}---\nRun it.\n"
        ),
    )
    .unwrap();
    for (file, text) in scripts {
        script(&dir, file, text, false);
    }
}

/// A provider with tasks over `root`, its runner built by `runner`, and the run of session `s1`.
async fn provider(
    root: &Path,
    runner: ProcessRunner,
    after: Duration,
) -> (Arc<Tasks>, RunContext, SkillsProvider) {
    let source = FileSkillsSource::builder()
        .root(root)
        .script_runner(Arc::new(runner))
        .build()
        .unwrap();
    let provider = SkillsProvider::builder(Arc::new(source))
        .tasks(
            TaskSettings::default()
                .after(after)
                .poll_after(Duration::from_millis(1)),
        )
        .build()
        .unwrap();
    let tasks = Arc::clone(provider.tasks().unwrap());
    let run = provider
        .context(&SourceContext::isolated("s1"))
        .await
        .unwrap();
    (tasks, run, provider)
}

async fn call(run: &RunContext, tool: &str, arguments: Value) -> Value {
    match run.tool(tool).unwrap().invoke(arguments).await {
        ToolOutput::Text(text) => serde_json::from_str(&text).unwrap(),
        ToolOutput::Error(error) => panic!("{tool} failed: {error}"),
    }
}

fn task_id(answer: &Value) -> TaskId {
    assert_eq!(answer["status"], "running", "{answer}");
    assert!(answer["poll_after_ms"].as_u64().is_some(), "{answer}");
    TaskId::from(answer["task"].as_str().unwrap().to_owned())
}

fn python_runs() -> bool {
    skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
}

#[tokio::test]
async fn a_slow_script_becomes_a_task_the_loop_goes_on_and_get_task_shows_it_during_and_after() {
    let root = tempfile::tempdir().unwrap();
    let gate = root.path().join("slow/gate");
    // The script cannot end before the test opens the gate: the answer below came while it ran.
    skill(
        root.path(),
        "slow",
        "  risk: read\n",
        &[(
            "scripts/progress.sh",
            "echo 'step 1'\nwhile [ ! -e \"$1\" ]; do sleep 0.05; done\necho 'step 2'\nexit 3\n",
        )],
    );
    let (tasks, run, provider) = provider(
        root.path(),
        ProcessRunner::new(),
        Duration::from_millis(200),
    )
    .await;
    let mut events = tasks.subscribe();
    let answer = call(
        &run,
        "run_skill_script",
        json!({"skillName": "slow", "scriptName": "scripts/progress.sh", "arguments": [gate]}),
    )
    .await;
    let id = task_id(&answer);
    loop {
        match events.recv().await.unwrap() {
            TaskEvent::Line { task, line, .. } if line == "step 1" => {
                assert_eq!(task, id);
                break;
            }
            TaskEvent::Line { line, .. } => assert_ne!(line, "step 2"),
            _ => {}
        }
    }
    let during = call(&run, "get_task", json!({"taskId": id})).await;
    assert_eq!(during["status"], "working", "{during}");
    assert!(
        during["output"].as_str().unwrap().contains("step 1"),
        "{during}"
    );
    assert_eq!(during["skill"], "slow");
    assert_eq!(during["script"], "scripts/progress.sh");

    std::fs::write(&gate, "").unwrap();
    let ended = tasks.wait(Some("s1"), &id).await.unwrap().unwrap();
    assert_eq!(ended.status, TaskStatus::Completed);
    assert_eq!(ended.exit_code, Some(3));
    let result = ended.result.unwrap();
    assert!(
        result.contains("step 2") && result.contains("[exit code: 3]"),
        "{result}"
    );
    let after = call(&run, "get_task", json!({"taskId": id})).await;
    assert_eq!(after["status"], "completed", "{after}");
    assert_eq!(after["exitCode"], 3, "{after}");

    // Another conversation does not see it.
    let other = provider
        .context(&SourceContext::isolated("s2"))
        .await
        .unwrap();
    let ToolOutput::Error(error) = other
        .tool("get_task")
        .unwrap()
        .invoke(json!({"taskId": id}))
        .await
    else {
        panic!("another session saw the task");
    };
    assert!(error.to_string().contains("task_not_found"), "{error}");
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn cancel_task_stops_the_script_and_every_process_it_started() {
    let root = tempfile::tempdir().unwrap();
    // It says its own pid and its child's, in a line of its output, once both run.
    skill(
        root.path(),
        "forever",
        "  risk: read\n  long-running: \"scripts/forever.sh\"\n",
        &[(
            "scripts/forever.sh",
            "sleep 300 &\necho \"pids $$ $!\"\nsleep 300\n",
        )],
    );
    // Unconfined: the cancel is under test, not the sandbox.
    let runner = ProcessRunner::builder()
        .sandbox(skillful_scripts::SandboxMode::Off)
        .build()
        .unwrap();
    let (tasks, run, _provider) = provider(root.path(), runner, Duration::from_secs(60)).await;
    let mut events = tasks.subscribe();
    // Declared long-running: a task at once, though the threshold is a minute.
    let answer = call(
        &run,
        "run_skill_script",
        json!({"skillName": "forever", "scriptName": "scripts/forever.sh"}),
    )
    .await;
    let id = task_id(&answer);
    let said = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            if let TaskEvent::Line { task, line, .. } = events.recv().await.unwrap()
                && task == id
                && let Some(pids) = line.strip_prefix("pids ")
            {
                return pids.to_owned();
            }
        }
    })
    .await
    .expect("the script said its pids");
    let pids: Vec<u32> = said
        .split_whitespace()
        .map(|pid| pid.parse().unwrap())
        .collect();
    let cancelled = call(&run, "cancel_task", json!({"taskId": id})).await;
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    assert!(
        cancelled["statusMessage"]
            .as_str()
            .unwrap()
            .starts_with("Cancelled on request"),
        "{cancelled}"
    );
    for pid in pids {
        let gone = tokio::task::spawn_blocking(move || {
            skillful_test_support::wait::gone_within(pid, Duration::from_secs(5))
        })
        .await
        .unwrap();
        assert!(gone, "process {pid} of the cancelled task still runs");
    }
    assert!(!tasks.is_live(&id));
}

#[tokio::test]
async fn a_tasks_time_limit_output_bound_and_sandbox_hold() {
    if !python_runs() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let forbidden = root.path().join("bounded/written.txt");
    skill(
        root.path(),
        "bounded",
        "  risk: read\n  long-running: \"true\"\n",
        &[
            (
                "scripts/sleepy.py",
                "import time\nprint('started', flush=True)\ntime.sleep(30)\n",
            ),
            (
                "scripts/chatty.py",
                "import sys\nprint('x' * 5000)\ntry:\n    open(sys.argv[1], 'w').write('escaped')\nexcept OSError as error:\n    print('denied', error.errno, file=sys.stderr)\n",
            ),
        ],
    );
    let runner = ProcessRunner::builder()
        .timeout(Duration::from_secs(2))
        .max_output_bytes(100)
        .build()
        .unwrap();
    let isolated = runner.isolates();
    let (tasks, run, _provider) = provider(root.path(), runner, Duration::from_secs(60)).await;

    let sleepy = call(
        &run,
        "run_skill_script",
        json!({"skillName": "bounded", "scriptName": "scripts/sleepy.py"}),
    )
    .await;
    let ended = tasks
        .wait(Some("s1"), &task_id(&sleepy))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(ended.status, TaskStatus::Failed, "{ended:?}");
    assert!(
        ended.status_message.unwrap().contains("Failed to execute"),
        "the time limit ended it"
    );
    assert!(ended.result.unwrap().contains("ran out of time"));

    let chatty = call(
        &run,
        "run_skill_script",
        json!({"skillName": "bounded", "scriptName": "scripts/chatty.py", "arguments": [forbidden]}),
    )
    .await;
    let ended = tasks
        .wait(Some("s1"), &task_id(&chatty))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(ended.status, TaskStatus::Completed);
    let result = ended.result.unwrap();
    assert!(result.contains("[output truncated"), "{result}");
    if isolated {
        assert!(result.contains("denied"), "{result}");
        assert!(!forbidden.exists(), "a read-tier task wrote a file");
    }
}
