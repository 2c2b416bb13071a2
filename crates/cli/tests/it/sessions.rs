//! Session files of `skills run --session FILE`: two processes on one file lose no turn, a
//! process killed while writing leaves the old file whole, a corrupt file is refused and left as
//! it is, and the file is the user's only.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skillful_test_server::{Reply, TestServer};

use crate::common::{EXAMPLES, command, run_args, skill_root, skills, text};

/// The user prompts of the session in `file`.
fn prompts(file: &Path) -> Vec<String> {
    let session: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    session["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["role"] == "user")
        .flat_map(|message| message["contents"].as_array().unwrap().clone())
        .filter_map(|content| content["text"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn two_processes_on_one_session_lose_no_turn() {
    // The script of the first turn holds its process (and so the session) until the other
    // process says it waits: the test creates `go` beside the script when it reads that line.
    let (root, dir) = skill_root(
        "sleeper",
        "Run `scripts/nap.sh` to wait.",
        &[(
            "nap.sh",
            "for _ in $(seq 12000); do [ -e \"${0%/*}/go\" ] && break; sleep 0.01; done\necho slept\n",
        )],
    );
    let go = dir.join("scripts/go");
    let server = TestServer::start().await;
    // The first request gets the script call; every other one an answer.
    server.push(Reply::run_skill_script("c1", "sleeper", "scripts/nap.sh"));
    server.repeat(Reply::text("done"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("session.json");
    let session = file.to_str().unwrap();
    let root = root.path().to_str().unwrap();
    let run = |prompt: &str| {
        let mut command = command(&run_args(
            root,
            server.url(),
            &[prompt, "--approve", "all", "--session", session],
        ));
        let go = go.clone();
        tokio::task::spawn_blocking(move || {
            let mut child = command
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .spawn()
                .expect("the skills binary runs");
            let mut stderr = String::new();
            for line in BufReader::new(child.stderr.take().unwrap()).lines() {
                let line = line.unwrap();
                if line.contains("waiting for another process") {
                    std::fs::write(&go, "").unwrap();
                }
                stderr += &line;
                stderr.push('\n');
            }
            (child.wait().unwrap(), stderr)
        })
    };
    let (first, second) = tokio::join!(run("first turn"), run("second turn"));
    let (first, second) = (first.unwrap(), second.unwrap());
    for (status, stderr) in [&first, &second] {
        assert_eq!(status.code(), Some(0), "{stderr}");
    }
    let mut turns = prompts(&file);
    turns.sort();
    assert_eq!(turns, ["first turn", "second turn"], "a turn was lost");
    let waited = [&first, &second]
        .iter()
        .filter(|(_, stderr)| stderr.contains("waiting for"))
        .count();
    assert_eq!(waited, 1, "the second process says it waits");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_process_killed_while_writing_leaves_the_old_session_whole() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("session.json");
    // A long history, so that writing it takes a while.
    let filler = "x".repeat(1 << 20);
    let messages: Vec<Value> = (0..40)
        .flat_map(|n| {
            [
                json!({"role": "user", "contents": [{"type": "text", "text": format!("q{n} {filler}")}]}),
                json!({"role": "assistant", "contents": [{"type": "text", "text": format!("a{n}")}]}),
            ]
        })
        .collect();
    let old = serde_json::to_vec(&json!({"id": "big", "messages": messages})).unwrap();
    std::fs::write(&file, &old).unwrap();

    // The write is seen as it starts: a file created beside the session (the new version, renamed
    // over it once whole), or the session itself changed. The lock beside it is no write.
    let (sender, changes) = std::sync::mpsc::channel();
    let mut watcher = notify::recommended_watcher(sender).unwrap();
    notify::Watcher::watch(
        &mut watcher,
        dir.path(),
        notify::RecursiveMode::NonRecursive,
    )
    .unwrap();
    let server = TestServer::start().await;
    server.push(Reply::text("short answer"));
    let session = file.to_str().unwrap();
    let mut child = command(&run_args(
        EXAMPLES,
        server.url(),
        &["next", "--session", session],
    ))
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .spawn()
    .unwrap();
    let (killed, mut child) = tokio::task::spawn_blocking(move || {
        let deadline = Instant::now() + Duration::from_secs(120);
        let bound = || deadline.saturating_duration_since(Instant::now());
        while let Ok(change) = changes.recv_timeout(bound()) {
            if is_a_write(&change.unwrap()) {
                // SIGKILL: no chance to clean up.
                let _ = child.kill();
                return (true, child);
            }
        }
        (false, child)
    })
    .await
    .unwrap();
    drop(watcher);
    let _ = child.wait();
    assert!(killed, "the write was never seen");
    let now = std::fs::read(&file).expect("the session file is still there");
    let session: Value = serde_json::from_slice(&now).expect("the session file still parses");
    let count = session["messages"].as_array().unwrap().len();
    assert!(count == 80 || count == 82, "{count} messages");
}

/// Whether `change` creates, writes or renames a file other than a lock (`*.lock`).
fn is_a_write(change: &notify::Event) -> bool {
    use notify::EventKind;
    use notify::event::ModifyKind;
    let writes = match change.kind {
        EventKind::Create(_) => true,
        EventKind::Modify(modify) => !matches!(modify, ModifyKind::Metadata(_)),
        _ => false,
    };
    writes
        && change.paths.iter().any(|path| {
            !path
                .file_name()
                .is_some_and(|name| name.to_string_lossy().ends_with(".lock"))
        })
}

#[tokio::test(flavor = "multi_thread")]
async fn a_corrupt_session_is_refused_and_left_as_it_is() {
    let server = TestServer::start().await;
    server.push(Reply::text("never asked"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("session.json");
    let corrupt = b"{\"id\": \"s\", \"messages\": [{\"role\": \"user\", \"cont";
    std::fs::write(&file, corrupt).unwrap();
    let session = file.to_str().unwrap();
    let output = skills(
        run_args(EXAMPLES, server.url(), &["Hi", "--session", session]),
        "",
    )
    .await;
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(session), "names the file: {stderr}");
    assert!(
        stderr.contains("line 1"),
        "says where it is broken: {stderr}"
    );
    assert_eq!(
        std::fs::read(&file).unwrap(),
        corrupt,
        "the file was changed"
    );
    assert!(server.requests().is_empty(), "the model was asked");
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn a_session_file_is_the_users_only_and_carries_a_version() {
    use std::os::unix::fs::PermissionsExt;
    let server = TestServer::start().await;
    server.push(Reply::text("Hello."));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("session.json");
    let session = file.to_str().unwrap();
    let output = skills(
        run_args(EXAMPLES, server.url(), &["Hi", "--session", session]),
        "",
    )
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "mode {mode:o}");
    let saved: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(saved["version"], 1, "{saved}");
    assert_eq!(prompts(&file), ["Hi"]);
}
