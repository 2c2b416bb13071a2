//! The `local_collector` example, built and run against a real OTLP receiver on 127.0.0.1: its
//! spans arrive (the run, the model call, the skill's activation under the run) and its own
//! audit sink prints the call.

use std::path::PathBuf;
use std::process::Command;

use skillful_test_server::otlp::{EXPORT_VARIABLES, OtlpReceiver, ReceivedSpan};

/// The example's binary, next to this test's (`target/<profile>/examples/`); built first when
/// `cargo test` did not build it (a test filter) or it is older than its sources.
fn example() -> PathBuf {
    let test = std::env::current_exe().expect("the test's path");
    let profile = test
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps");
    let binary = profile
        .join("examples")
        .join(format!("local_collector{}", std::env::consts::EXE_SUFFIX));
    let built = std::fs::metadata(&binary).and_then(|metadata| metadata.modified());
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let newest_source = std::fs::read_dir(crate_dir.join("src"))
        .expect("src/")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .chain([crate_dir.join("examples/local_collector.rs")])
        .filter_map(|path| std::fs::metadata(path).and_then(|m| m.modified()).ok())
        .max();
    if built.is_err() || built.ok() < newest_source {
        let mut build = Command::new(env!("CARGO"));
        build.args([
            "build",
            "-p",
            "skillful-agent",
            "--example",
            "local_collector",
        ]);
        if profile.file_name().is_some_and(|name| name == "release") {
            build.arg("--release");
        }
        let status = build.status().expect("cargo runs");
        assert!(status.success(), "the example builds");
    }
    binary
}

fn one<'a>(spans: &'a [ReceivedSpan], name: &str) -> &'a ReceivedSpan {
    let found: Vec<&ReceivedSpan> = spans.iter().filter(|span| span.name() == name).collect();
    let names: Vec<&str> = spans.iter().map(ReceivedSpan::name).collect();
    assert_eq!(found.len(), 1, "one `{name}` span in {names:?}");
    found[0]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_sends_its_spans_to_the_collector_and_audits_to_its_own_sink() {
    let receiver = OtlpReceiver::http().await;
    let binary = example();
    let mut command = tokio::process::Command::new(binary);
    for variable in EXPORT_VARIABLES.into_iter().chain(["OTEL_SERVICE_NAME"]) {
        command.env_remove(variable);
    }
    let output = command
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint())
        .output()
        .await
        .expect("the example runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("The skill says: Say hello and use their name."),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "audit: ToolCall tool=load_skill skill=greeting decision=approved \
             by=rule: auto-approve read-only"
        ),
        "{stdout}"
    );

    // The example shuts its exporter down (flushing every span) before it exits.
    let spans = receiver.spans();
    let run = one(&spans, "invoke_agent local-collector-example");
    let load = one(&spans, "execute_tool load_skill");
    assert!(load.is_child_of(run), "the activation is under the run");
    assert_eq!(
        load.attribute("skillful.skill.name").as_deref(),
        Some("greeting")
    );
    let chats: Vec<&ReceivedSpan> = spans.iter().filter(|span| span.name() == "chat").collect();
    assert_eq!(chats.len(), 2, "one `chat` span per model call");
    assert!(chats.iter().all(|chat| chat.is_child_of(run)));
    assert!(
        spans
            .iter()
            .all(|span| span.service.as_deref() == Some("local-collector-example"))
    );
}
