//! "Always" on the terminal of `skills run`: kept in the user's state directory (a private file),
//! found again by the next process, voided when the script changes; the question says which
//! skill, script, risk tier and origin it is about.

mod common;

use serde_json::json;
use skillful_test_server::{Reply, TestServer};

use common::{command_with_state, run_args, run_with, skill_root, text};

#[tokio::test(flavor = "multi_thread")]
async fn always_is_kept_per_user_and_voided_when_the_script_changes() {
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
    assert_eq!(third.status.code(), Some(0), "{}", text(&third.stderr));
    assert!(
        stdout.contains("?? approve run_skill_script("),
        "not asked: {stdout}"
    );
    assert!(
        !stdout.contains("changed"),
        "the changed script ran: {stdout}"
    );
}
