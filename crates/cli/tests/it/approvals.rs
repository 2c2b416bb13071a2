//! "Always" on the terminal of `skills run`: kept in the user's state directory (a private file),
//! found again by the next process, voided when the script changes; the question says which
//! skill, script, risk tier and origin it is about.

use crate::common;
use serde_json::json;
use skillful_test_server::{Reply, TestServer};

use crate::common::{command_with_state, run_args, run_with, skill_root, text};

#[tokio::test(flavor = "multi_thread")]
async fn always_is_kept_per_user_and_voided_when_the_script_changes() {
    if !common::python_runs() {
        return;
    }
    let (root, dir) = skill_root(
        "tools",
        "Run `scripts/a.py`.",
        &[("a.py", "print('a ran')\n")],
    );
    let state = tempfile::tempdir().unwrap();
    let server = TestServer::start().await;
    let call = json!({"skillName": "tools", "scriptName": "scripts/a.py"});
    for _ in 0..2 {
        server.push(Reply::tool_call("c1", "run_skill_script", call.clone()));
        server.push(Reply::text("done"));
    }
    server.push(Reply::tool_call("c1", "run_skill_script", call.clone()));
    let root = root.path().to_str().unwrap();
    let run = |stdin: &str| {
        let command = command_with_state(&run_args(root, server.url(), &["Run a."]), state.path());
        run_with(command, stdin.to_owned())
    };

    let first = run("a\n").await;
    let stdout = text(&first.stdout);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let about = stdout
        .lines()
        .find(|line| line.starts_with("?? skill "))
        .unwrap_or_default();
    assert!(
        about.starts_with("?? skill tools · script scripts/a.py · risk write-high · from files "),
        "{stdout}"
    );
    assert!(about.ends_with("(explicit scope)"), "{stdout}");
    assert!(stdout.contains("<< tool result: a ran"), "{stdout}");

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode =
            |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        let store = state.path().join("skillful/approvals.json");
        assert_eq!(mode(&store), 0o600);
        assert_eq!(mode(store.parent().unwrap()), 0o700);
    }

    let second = run("").await;
    let stdout = text(&second.stdout);
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));
    assert!(!stdout.contains("?? approve"), "asked again: {stdout}");
    assert!(stdout.contains("<< tool result: a ran"), "{stdout}");

    std::fs::write(dir.join("scripts/a.py"), "print('changed')\n").unwrap();
    let third = run("").await;
    let stdout = text(&third.stdout);
    // Asked again, and no answer (end of input): the run stops pending, exit 3.
    assert_eq!(third.status.code(), Some(3), "{}", text(&third.stderr));
    assert!(
        stdout.contains("?? approve run_skill_script("),
        "not asked: {stdout}"
    );
    assert!(
        !stdout.contains("changed"),
        "the changed script ran: {stdout}"
    );
}

/// Runs `skills run` three times over a skill whose `scripts/run.py` imports a module of its
/// own (`import helper`, and the standard library's `json`): "always" the first time, nothing
/// answered after; `change` edits the skill between the second and the third run. Returns the
/// three outputs' stdout.
async fn always_then_change(change: impl FnOnce(&std::path::Path)) -> [String; 3] {
    let mut change = Some(change);
    let (root, dir) = skill_root(
        "tools",
        "Run `scripts/run.py`.",
        &[
            (
                "run.py",
                "import json\nimport helper\nprint(json.dumps(helper.greet()))\n",
            ),
            ("helper.py", "def greet():\n    return 'helper ran'\n"),
        ],
    );
    let state = tempfile::tempdir().unwrap();
    let server = TestServer::start().await;
    let call = json!({"skillName": "tools", "scriptName": "scripts/run.py"});
    for _ in 0..2 {
        server.push(Reply::tool_call("c1", "run_skill_script", call.clone()));
        server.push(Reply::text("done"));
    }
    // Used only when the third run does not ask (the attack succeeds).
    server.push(Reply::tool_call("c1", "run_skill_script", call.clone()));
    server.push(Reply::text("done"));
    let root = root.path().to_str().unwrap();
    let run = |stdin: &str| {
        let args = run_args(root, server.url(), &["Run it.", "--activate", "off"]);
        run_with(command_with_state(&args, state.path()), stdin.to_owned())
    };
    let mut stdouts = Vec::new();
    for (round, stdin) in ["a\n", "", ""].into_iter().enumerate() {
        if let Some(change) = change.take_if(|_| round == 2) {
            change(&dir);
        }
        let output = run(stdin).await;
        // The last round is asked again and given no answer: it stops pending (exit 3).
        let expected = if round == 2 { 3 } else { 0 };
        assert_eq!(
            output.status.code(),
            Some(expected),
            "{}",
            text(&output.stderr)
        );
        stdouts.push(text(&output.stdout));
    }
    let [first, second, third] = <[String; 3]>::try_from(stdouts).unwrap();
    assert!(first.contains(r#"<< tool result: "helper ran""#), "{first}");
    // The question says the sandbox the script gets and what "always" covers: all three files.
    assert!(
        first.contains("\n?? sandbox: write-high — ")
            || first.contains("\n?? sandbox: none — this machine cannot isolate scripts"),
        "{first}"
    );
    assert!(
        first.contains(
            "[a]lways (this tool for this skill and script, until anything in the skill's 3 \
             files (sha256 "
        ),
        "{first}"
    );
    assert!(!second.contains("?? approve"), "asked again: {second}");
    assert!(
        second.contains(r#"<< tool result: "helper ran""#),
        "{second}"
    );
    [first, second, third]
}

#[tokio::test(flavor = "multi_thread")]
async fn always_is_voided_when_an_imported_helper_changes() {
    if !common::python_runs() {
        return;
    }
    let [_, _, third] = always_then_change(|dir| {
        std::fs::write(
            dir.join("scripts/helper.py"),
            "def greet():\n    return 'helper changed'\n",
        )
        .unwrap();
    })
    .await;
    assert!(
        third.contains("?? approve run_skill_script("),
        "the changed helper was not asked about: {third}"
    );
    assert!(
        !third.contains("helper changed"),
        "the changed helper ran: {third}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn always_is_voided_by_a_new_file_shadowing_the_standard_library() {
    if !common::python_runs() {
        return;
    }
    let [_, _, third] = always_then_change(|dir| {
        std::fs::write(
            dir.join("scripts/json.py"),
            "def dumps(value):\n    return 'shadowed'\n",
        )
        .unwrap();
    })
    .await;
    assert!(
        third.contains("?? approve run_skill_script("),
        "the new file was not asked about: {third}"
    );
    assert!(!third.contains("shadowed"), "the new module ran: {third}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_question_shows_the_declared_capabilities_and_the_sandbox() {
    let (root, dir) = skill_root(
        "fetcher",
        "Run `scripts/fetch.py`.",
        &[("fetch.py", "print('fetched')\n")],
    );
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: fetcher\ndescription: Fetches.\nmetadata:\n  risk: read\n  \
         capabilities.network: api.example.com\n  capabilities.writes: out/\n---\nFetch.\n",
    )
    .unwrap();
    let server = TestServer::start().await;
    let call = json!({"skillName": "fetcher", "scriptName": "scripts/fetch.py"});
    server.push(Reply::tool_call("c1", "run_skill_script", call));
    let args = run_args(
        root.path().to_str().unwrap(),
        server.url(),
        &["Fetch.", "--activate", "off"],
    );
    let state = tempfile::tempdir().unwrap();
    let output = run_with(command_with_state(&args, state.path()), String::new()).await;
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(3), "{}", text(&output.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    let at = lines
        .iter()
        .position(|line| line.starts_with("?? skill fetcher · script scripts/fetch.py · risk read"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert_eq!(
        lines[at + 1],
        "?? declares network: api.example.com · writes: out (never more than the sandbox allows)"
    );
    // The `read` profile: the declared network is not granted.
    assert!(
        lines[at + 2] == "?? sandbox: read — writes only in $TMPDIR, no network"
            || lines[at + 2].starts_with("?? sandbox: none — "),
        "{stdout}"
    );
    assert!(
        stdout.contains("until anything in the skill's 2 files (sha256 "),
        "{stdout}"
    );
}
