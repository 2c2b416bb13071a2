//! Live reload in the long-running commands: `skills chat` offers a skill added between two
//! turns (the strict test server on 127.0.0.1 records what the model was shown), and
//! `skills serve --stdio` tells its client when the skills change and lists the change next.
//! Real files, the platform's watcher, the real binary.

use crate::common;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use rmcp::ClientHandler;
use rmcp::service::{NotificationContext, RoleClient, RunningService, ServiceExt};
use rmcp::transport::TokioChildProcess;
use skillful_mcp::final_form::{self, ListingLimits};
use skillful_test_server::{Reply, TestServer};

use crate::common::text;

/// How long a test waits for something the watcher must bring about.
const BOUND: Duration = Duration::from_secs(20);

fn write_skill(root: &Path, name: &str, description: &str) {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\nBody.\n"),
    )
    .unwrap();
}

/// The lines `reader` gives, sent on as they come.
fn lines_of(reader: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(reader).lines() {
            let Ok(line) = line else { return };
            if sender.send(line).is_err() {
                return;
            }
        }
    });
    receiver
}

/// Waits (bounded) for a line of `lines` that satisfies `wanted`; the lines read on the way.
fn wait_for(lines: &mpsc::Receiver<String>, wanted: impl Fn(&str) -> bool) -> Vec<String> {
    let mut seen = Vec::new();
    loop {
        match lines.recv_timeout(BOUND) {
            Ok(line) => {
                let done = wanted(&line);
                seen.push(line);
                if done {
                    return seen;
                }
            }
            Err(error) => panic!("no such line ({error}); read: {seen:#?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_offers_a_skill_added_between_two_turns() {
    let root = tempfile::tempdir().unwrap();
    write_skill(root.path(), "alpha", "The first skill.");
    let server = TestServer::start().await;
    server.push(Reply::text("Hello."));
    server.push(Reply::text("Still here."));
    let args: Vec<String> = [
        "chat",
        "--skills",
        &root.path().display().to_string(),
        "--endpoint",
        server.url(),
        // The stand-in model's requests carry the catalog: the tool loop's.
        "--mode",
        "tools",
    ]
    .iter()
    .map(|arg| (*arg).to_owned())
    .collect();
    let root_path = root.path().to_path_buf();
    let (status, stderr) = tokio::task::spawn_blocking(move || {
        let mut child = common::command(&args).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let stdout = lines_of(child.stdout.take().unwrap());
        let stderr = lines_of(child.stderr.take().unwrap());
        stdin.write_all(b"Hi\n").unwrap();
        wait_for(&stdout, |line| line.ends_with("Hello."));

        write_skill(&root_path, "beta", "Added while chatting.");
        let said = wait_for(&stderr, |line| line.starts_with("skills: skills reloaded"));
        assert_eq!(
            said.last().unwrap(),
            "skills: skills reloaded: added beta",
            "{said:#?}"
        );

        stdin.write_all(b"Again\nexit\n").unwrap();
        wait_for(&stdout, |line| line.ends_with("Still here."));
        drop(stdin);
        let status = child.wait().unwrap();
        let rest: Vec<String> = stderr.try_iter().collect();
        (status, rest.join("\n"))
    })
    .await
    .unwrap();
    assert_eq!(status.code(), Some(0), "{stderr}");

    let requests = server.requests();
    let first = requests[0].contents("system").join("\n");
    let second = requests[1].contents("system").join("\n");
    assert!(first.contains("alpha"), "{first}");
    assert!(!first.contains("beta"), "{first}");
    assert!(second.contains("alpha"), "{second}");
    assert!(second.contains("beta"), "{second}");
    assert!(
        second.contains("Added while chatting."),
        "{}",
        text(second.as_bytes())
    );
}

/// A client that forwards every `notifications/resources/list_changed` it gets.
#[derive(Clone)]
struct Listener(tokio::sync::mpsc::UnboundedSender<()>);

impl ClientHandler for Listener {
    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.0.send(());
    }
}

async fn names(client: &RunningService<RoleClient, Listener>) -> Vec<String> {
    final_form::list_all_skills(client.peer(), "served", ListingLimits::default())
        .await
        .unwrap()
        .skills
        .into_iter()
        .map(|skill| skill.frontmatter.name)
        .collect()
}

/// `skills serve --stdio ROOT` (with ROOT as its home), and the notifications its client gets.
async fn serve_stdio(
    root: &Path,
) -> (
    RunningService<RoleClient, Listener>,
    tokio::sync::mpsc::UnboundedReceiver<()>,
) {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_skills"));
    command
        .args(["serve", "--stdio"])
        .arg(root)
        .env("HOME", root)
        .env_remove("RUST_LOG");
    let (sender, notifications) = tokio::sync::mpsc::unbounded_channel();
    let client = Listener(sender)
        .serve(TokioChildProcess::new(command).unwrap())
        .await
        .unwrap();
    (client, notifications)
}

#[tokio::test(flavor = "multi_thread")]
async fn serve_tells_its_client_when_skills_are_added_and_removed() {
    let root = tempfile::tempdir().unwrap();
    write_skill(root.path(), "alpha", "The first skill.");
    let (client, mut notifications) = serve_stdio(root.path()).await;
    assert_eq!(names(&client).await, ["alpha"]);
    let next = async |notifications: &mut tokio::sync::mpsc::UnboundedReceiver<()>| {
        tokio::time::timeout(BOUND, notifications.recv())
            .await
            .expect("list_changed within the bound")
            .unwrap();
    };

    write_skill(root.path(), "beta", "Added while serving.");
    next(&mut notifications).await;
    assert_eq!(names(&client).await, ["alpha", "beta"]);

    std::fs::remove_dir_all(root.path().join("alpha")).unwrap();
    next(&mut notifications).await;
    assert_eq!(names(&client).await, ["beta"]);
    client.cancel().await.unwrap();
}

/// The churning process, stopped when the test ends (passed or not).
struct Churn(std::process::Child);

impl Drop for Churn {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// What the issue allows a request under churn: the debounce limit (2 s) plus one reload.
const CHURN_BOUND: Duration = Duration::from_secs(3);

/// A build, a log or a sync client keeps writing under a served root: every request is still
/// answered within [`CHURN_BOUND`], not once the tree is quiet (which it never is here).
#[tokio::test(flavor = "multi_thread")]
async fn serve_answers_every_request_within_3_s_under_continuous_churn() {
    let root = tempfile::tempdir().unwrap();
    write_skill(root.path(), "alpha", "The first skill.");
    write_skill(root.path(), "beta", "The second skill.");
    std::fs::create_dir(root.path().join("build")).unwrap();
    // The churn: a separate process rewriting and appending files under the root, 200 times a
    // second, for as long as the test runs; it says `churning` on its output after 40 rounds.
    let mut churn = Churn(std::process::Command::new("sh")
        .args([
            "-c",
            r#"i=0; while :; do echo "$i" >> "$1/build/log.txt"; echo "$i" > "$1/alpha/notes.txt"; i=$((i+1)); [ "$i" = 40 ] && echo churning; sleep 0.005; done"#,
            "sh",
        ])
        .arg(root.path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap());
    let churning = churn.0.stdout.take().unwrap();
    let (client, _notifications) = serve_stdio(root.path()).await;
    // Synchronised on the churn being under way (within the bound of a request).
    let under_way = tokio::task::spawn_blocking(move || {
        skillful_test_support::wait::line_within(churning, BOUND, |line| line == "churning")
    })
    .await
    .unwrap();
    assert!(under_way, "the churn never started");

    let mut slowest = Duration::ZERO;
    let mut timed = async |what: &str, round: usize, started: std::time::Instant| {
        let took = started.elapsed();
        slowest = slowest.max(took);
        assert!(
            took < CHURN_BOUND,
            "round {round}: {what} took {took:?} under churn"
        );
    };
    for round in 0..6 {
        let started = std::time::Instant::now();
        tokio::time::timeout(
            BOUND,
            client
                .peer()
                .read_resource(rmcp::model::ReadResourceRequestParams::new(
                    "skill://beta/SKILL.md",
                )),
        )
        .await
        .expect("an answer at all")
        .unwrap();
        timed("resources/read", round, started).await;
        let started = std::time::Instant::now();
        let listed = tokio::time::timeout(BOUND, names(&client))
            .await
            .expect("an answer at all");
        timed("skills/list", round, started).await;
        assert_eq!(listed, ["alpha", "beta"]);
    }
    eprintln!("slowest request under churn: {slowest:?}");
    client.cancel().await.unwrap();
}
