//! `skills run` writes the user's audit log; `skills audit` prints and filters it, `--verify`
//! checks its chain (and names what an edit broke), `skills stats` counts from it; a run killed
//! with SIGKILL leaves a log that verifies.

use crate::common;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};
use skillful_test_server::{Reply, TestServer};

use crate::common::{command_with_state, run_args, run_with, skill_root, text};

fn audit_file(state: &Path) -> std::path::PathBuf {
    state.join("skillful/audit/audit.jsonl")
}

/// `skills ARGS` with its state under `state`; its exit code, stdout and stderr.
async fn skills_in(state: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
    let output = run_with(command_with_state(&args, state), String::new()).await;
    (
        output.status.code(),
        text(&output.stdout),
        text(&output.stderr),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_is_audited_and_the_log_is_printed_verified_and_counted() {
    if !common::python_runs() {
        return;
    }
    let (root, _dir) = skill_root(
        "tools",
        "Run `scripts/a.py`.",
        &[("a.py", "import sys\nprint('a ran')\nsys.exit(3)\n")],
    );
    let state = tempfile::tempdir().unwrap();
    let server = TestServer::start().await;
    server.push(Reply::load_skill("c1", "tools"));
    server.push(Reply::tool_call(
        "c2",
        "run_skill_script",
        json!({"skillName": "tools", "scriptName": "scripts/a.py", "arguments": ["--secret", "x"]}),
    ));
    server.push(Reply::text("done"));
    let root_path = root.path().to_str().unwrap();
    let args = run_args(
        root_path,
        server.url(),
        &["Run a.", "--approve", "read-only"],
    );
    let run = run_with(command_with_state(&args, state.path()), "y\n".to_owned()).await;
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));

    let (code, stdout, stderr) = skills_in(state.path(), &["audit", "--json"]).await;
    assert_eq!(code, Some(0), "{stderr}");
    let records: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    for record in &records {
        common::check_schema("audit", record);
    }
    let events: Vec<&str> = records
        .iter()
        .map(|record| record["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        events,
        ["tool_call", "approval_request", "run", "tool_call", "run"],
        "{stdout}"
    );
    let script = &records[3];
    assert_eq!(script["host"], "skills run");
    assert_eq!(script["tool"], "run_skill_script");
    assert_eq!(script["skill"]["name"], "tools");
    assert_eq!(script["script"], "scripts/a.py");
    assert_eq!(script["decided_by"], "user (once)");
    assert_eq!(script["exit_code"], 3);
    assert_eq!(script["args"]["arguments"], json!(["--secret", "x"]));
    assert_eq!(script["sandbox"], Value::Null);
    assert_eq!(records[0]["decided_by"], "rule: auto-approve read-only");
    let session = records[0]["session"].as_str().unwrap().to_owned();

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(audit_file(state.path()))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    let (_, stdout, _) = skills_in(state.path(), &["audit"]).await;
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{stdout}");
    assert!(
        lines[3].contains(
            "#3 tool_call run_skill_script tools/scripts/a.py approved by user (once) exit 3"
        ),
        "{stdout}"
    );
    let (_, stdout, _) = skills_in(state.path(), &["audit", "--skill", "tools"]).await;
    assert_eq!(
        stdout.lines().count(),
        3,
        "the run records name no skill: {stdout}"
    );
    let (_, stdout, _) = skills_in(state.path(), &["audit", "--session", &session]).await;
    assert_eq!(stdout.lines().count(), 5, "{stdout}");
    let (_, stdout, _) = skills_in(state.path(), &["audit", "--session", "other"]).await;
    assert_eq!(stdout, "");
    let (_, stdout, _) = skills_in(state.path(), &["audit", "--since", "2999-01-01"]).await;
    assert_eq!(stdout, "");
    let (code, _, stderr) = skills_in(state.path(), &["audit", "--since", "yesterday"]).await;
    assert_eq!(code, Some(2), "{stderr}");

    let (code, stdout, stderr) = skills_in(
        state.path(),
        &["stats", root_path, "--json", "--since", "1h"],
    )
    .await;
    assert_eq!(code, Some(0), "{stderr}");
    let stats: Value = serde_json::from_str(&stdout).unwrap();
    common::check_schema("stats", &stats);
    let tools = &stats["skills"]["tools"];
    assert_eq!(tools["activations"], json!({"model": 1}));
    assert_eq!(
        tools["calls"],
        json!({"load_skill": 1, "run_skill_script": 1})
    );
    assert_eq!(tools["failures"], 0);
    // Three model calls (15 tokens each) in the two runs of the session that used it.
    assert_eq!(tools["tokens"], 45);
    assert!(tools["median_ms"].as_f64().is_some());
    assert_eq!(stats["unused"], json!([]));
    let (_, table, _) = skills_in(state.path(), &["stats", root_path]).await;
    assert!(
        table.lines().nth(1).unwrap().starts_with("tools "),
        "{table}"
    );

    let (code, stdout, stderr) = skills_in(state.path(), &["audit", "--verify"]).await;
    assert_eq!(
        (code, stdout.as_str()),
        (Some(0), "ok: 5 records verify\n"),
        "{stderr}"
    );

    // Someone rewrites what the script was run with.
    let file = audit_file(state.path());
    let mut lines: Vec<String> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    lines[3] = lines[3].replace("--secret", "--harmless");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let (code, _, stderr) = skills_in(state.path(), &["audit", "--verify"]).await;
    assert_eq!(code, Some(1));
    assert!(stderr.contains("line 4: record 3 was altered"), "{stderr}");
    assert!(stderr.contains("3 records before it verify"), "{stderr}");
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn a_run_killed_mid_script_leaves_a_log_that_verifies_up_to_a_torn_line() {
    if !common::python_runs() {
        return;
    }
    // The script is sandboxed (it can write nothing the test could watch): its start is the
    // line it prints, which the run shows on stderr as it comes.
    let script = "import time\nprint('started', flush=True)\ntime.sleep(30)\n";
    let (root, _dir) = skill_root("slow", "Run `scripts/slow.py`.", &[("slow.py", script)]);
    let state = tempfile::tempdir().unwrap();
    let server = TestServer::start().await;
    server.push(Reply::load_skill("c1", "slow"));
    server.push(Reply::run_skill_script("c2", "slow", "scripts/slow.py"));
    server.push(Reply::text("done"));
    let args = run_args(
        root.path().to_str().unwrap(),
        server.url(),
        &["Run slow.", "--approve", "all"],
    );
    let mut child: std::process::Child = command_with_state(&args, state.path()).spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let started = tokio::task::spawn_blocking(move || {
        skillful_test_support::wait::line_within(stderr, Duration::from_secs(60), |line| {
            line.starts_with("   [slow scripts/slow.py ") && line.ends_with("] started")
        })
    })
    .await
    .unwrap();
    Command::new("kill")
        .args(["-9", &child.id().to_string()])
        .status()
        .unwrap();
    let _ = child.wait();
    assert!(started, "the script never started");

    let (code, stdout, stderr) = skills_in(state.path(), &["audit", "--verify"]).await;
    assert_eq!(
        (code, stdout.as_str()),
        (Some(0), "ok: 1 record verify\n"),
        "{stderr}"
    );

    // A crash in the middle of a write leaves a torn line: reported, never taken as a record.
    let file = audit_file(state.path());
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(br#"{"seq":1,"time":"20"#);
    std::fs::write(&file, bytes).unwrap();
    let (code, _, stderr) = skills_in(state.path(), &["audit", "--verify"]).await;
    assert_eq!(code, Some(1));
    assert!(stderr.contains("line 2: the last line is torn"), "{stderr}");
    assert!(stderr.contains("1 record before it verify"), "{stderr}");
}

#[test]
fn stale_names_the_skills_unused_unevaluated_or_regressed_and_disables_them() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("skills");
    for name in ["fresh", "old", "idle"] {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: The {name} skill.\n---\nBody.\n"),
        )
        .unwrap();
    }
    let state = home.path().join(".local/state/skillful");
    let sink = skillful_audit::FileAuditSink::at(state.join("audit")).unwrap();
    let now = std::time::SystemTime::now();
    for (skill, days_ago) in [("old", 90), ("fresh", 1)] {
        let mut event = skillful_audit::AuditEvent::new(
            skillful_audit::EventKind::ToolCall,
            "u",
            "skills run",
            skillful_audit::Actor::Model,
        );
        event.tool = Some("load_skill".to_owned());
        event.skill = Some(skillful_audit::SkillRef::new(skill, "files", "explicit"));
        sink.record_at(event, now - Duration::from_secs(days_ago * 86_400))
            .unwrap();
    }
    let record = skillful_eval::EvalRecord::at(state.join("eval-record.jsonl"));
    for (skill, rate) in [("fresh", 0.9), ("old", 0.9), ("old", 0.5)] {
        let summary: skillful_eval::EvalSummary = serde_json::from_value(json!({
            "time": "2026-12-01T00:00:00Z", "skill": skill, "digest": null, "model": null,
            "mode": "guided", "runs": 1, "pass_rate": rate, "baseline": 0.0,
            "passed": rate >= 0.5,
        }))
        .unwrap();
        record.append(&summary).unwrap();
    }
    let stale = |args: &[&str]| {
        common::command_at_home(home.path(), home.path())
            .arg("stale")
            .args(args)
            .arg(&root)
            .output()
            .unwrap()
    };
    let output = stale(&["--only", "regressed"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        "old: regressed 90% -> 50% (2026-12-01)\n"
    );
    let output = stale(&["--json"]);
    let listed = common::json_of("stale", &output);
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| skill["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["idle", "old"], "{listed}");
    assert_eq!(
        listed[0]["reasons"],
        json!([{"reason": "unused", "last_used": null}, {"reason": "never-evaluated"}])
    );
    let output = stale(&["--only", "never-evaluated", "--disable-stale"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("disabled idle in"),
        "{}",
        text(&output.stderr)
    );
    let listed = common::command_at_home(home.path(), home.path())
        .arg("list")
        .arg(&root)
        .output()
        .unwrap();
    let listed = text(&listed.stdout);
    assert!(!listed.contains("idle"), "{listed}");
    assert!(
        listed.contains("fresh") && listed.contains("old"),
        "{listed}"
    );
}
