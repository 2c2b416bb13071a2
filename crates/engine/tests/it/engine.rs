//! Starting, finding, reusing and stopping engines, with a stand-in engine (a Python program that
//! serves an OpenAI-compatible API on 127.0.0.1) in real processes.
// Processes are watched through /proc.
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::time::Duration;

use skillful_engine::{
    DEFAULT_MODEL, Engine, EngineDirs, EngineError, EngineGuard, EngineRecord, Serving,
    StartOptions, model, template,
};
use skillful_test_support::free_port;
use skillful_test_support::wait::running;

const FAKE_ENGINE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fake_engine.py");

/// An engine whose directories live in a temporary directory, replaced by the stand-in.
fn engine(root: &Path) -> Engine {
    Engine::new(EngineDirs::under(root))
        .stand_in(FAKE_ENGINE)
        .startup_timeout(Duration::from_secs(60))
}

/// Waits (bounded) until `pid` is gone.
fn gone(pid: u32) -> bool {
    skillful_test_support::wait::gone_within(pid, Duration::from_secs(30))
}

async fn answers(url: &str) -> bool {
    let client = skillful_http::client_builder().unwrap().build().unwrap();
    client
        .get(url)
        .send()
        .await
        .is_ok_and(|response| response.status() == 200)
}

#[tokio::test(flavor = "multi_thread")]
async fn an_engine_is_recorded_reused_refused_with_another_template_and_stopped() {
    let root = tempfile::tempdir().unwrap();
    let engine = engine(root.path());
    let port = free_port();
    let model = model(DEFAULT_MODEL).unwrap();
    let started = engine
        .start(&StartOptions::new(model).port(port))
        .await
        .unwrap();
    assert!(!started.reused());
    let record = started.detach();
    assert_eq!(
        (
            record.port,
            record.model.as_str(),
            record.template.as_str(),
            record.owner
        ),
        (port, DEFAULT_MODEL, "qwen25-fenced-json", None)
    );
    assert_eq!(record.endpoint(), format!("http://127.0.0.1:{port}/v1"));
    assert!(answers(&format!("{}/models", record.endpoint())).await);
    assert_eq!(engine.running().unwrap(), std::slice::from_ref(&record));

    let again = engine
        .start(&StartOptions::new(model).port(port))
        .await
        .unwrap();
    assert!(again.reused());
    assert_eq!(again.record(), &record);
    drop(again);
    assert!(running(record.pid), "a reused engine is left running");

    let other = StartOptions::new(model)
        .port(port)
        .template(template("qwen25-fenced-json-require-user").unwrap());
    let error = engine.start(&other).await.unwrap_err();
    assert!(
        matches!(error, EngineError::PortHasOtherEngine { port: p, .. } if p == port),
        "{error}"
    );

    assert_eq!(
        engine.stop(None).await.unwrap(),
        std::slice::from_ref(&record)
    );
    assert!(gone(record.pid));
    assert!(engine.running().unwrap().is_empty());
    assert!(engine.stop(None).await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_record_of_a_dead_process_is_removed() {
    let root = tempfile::tempdir().unwrap();
    let engine = engine(root.path());
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    let records = root.path().join("state/engines");
    std::fs::create_dir_all(&records).unwrap();
    let stale = EngineRecord {
        pid,
        port: 9,
        model: DEFAULT_MODEL.to_owned(),
        template: "qwen25-fenced-json".to_owned(),
        log: PathBuf::from("/nonexistent"),
        owner: None,
        started: None,
    };
    std::fs::write(records.join("9.json"), serde_json::to_vec(&stale).unwrap()).unwrap();
    std::fs::write(records.join("10.json"), "not json").unwrap();
    assert!(engine.running().unwrap().is_empty());
    assert_eq!(std::fs::read_dir(&records).unwrap().count(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stale_record_whose_pid_is_now_another_process_is_removed_and_nothing_is_signalled() {
    // The engine crashed (or the machine rebooted) and its pid now belongs to an unrelated
    // process of the same user: `engine stop` must not kill it.
    let root = tempfile::tempdir().unwrap();
    let engine = engine(root.path());
    let mut unrelated = std::process::Command::new("sleep")
        .arg("600")
        .spawn()
        .unwrap();
    let pid = unrelated.id();
    let records = root.path().join("state/engines");
    std::fs::create_dir_all(&records).unwrap();
    let record = |port: u16, started: &str| {
        format!(
            r#"{{"pid": {pid}, "port": {port}, "model": "{DEFAULT_MODEL}", "template": "qwen25-fenced-json", "log": "/nonexistent", "owner": null{started}}}"#
        )
    };
    // A record of the old format (no start stamp) and one whose stamp is another process's.
    std::fs::write(records.join("9.json"), record(9, "")).unwrap();
    std::fs::write(
        records.join("10.json"),
        record(10, r#", "started": "0:1:/usr/bin/python3""#),
    )
    .unwrap();
    let stopped = engine.stop(None).await.unwrap();
    assert!(stopped.is_empty(), "{stopped:?}");
    assert!(
        unrelated.try_wait().unwrap().is_none(),
        "the unrelated process was signalled"
    );
    assert!(running(pid));
    assert_eq!(std::fs::read_dir(&records).unwrap().count(), 0);
    std::fs::write(records.join("9.json"), record(9, "")).unwrap();
    assert!(engine.running().unwrap().is_empty());
    assert_eq!(std::fs::read_dir(&records).unwrap().count(), 0);
    assert!(running(pid));
    unrelated.kill().unwrap();
    unrelated.wait().unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_default_endpoint_held_by_another_user_is_refused() {
    // A local user squats the default port: without --endpoint, the conversation must not go
    // to their listener.
    let prefix = match skillful_test_support::unprivileged::as_unprivileged_user() {
        Ok(prefix) if !prefix.is_empty() => prefix,
        Ok(_) => {
            skillful_test_support::prerequisite_missing(
                "running a listener as another user needs root",
            );
            return;
        }
        Err(reason) => {
            skillful_test_support::prerequisite_missing(&format!(
                "this test needs another user, and {reason}"
            ));
            return;
        }
    };
    let port = free_port();
    let mut squatter = std::process::Command::new(&prefix[0])
        .args(&prefix[1..])
        .args([
            // The system's Python: a user's own (pyenv's shims) may be out of the other
            // user's reach.
            "/usr/bin/python3",
            // Unbuffered: it says `Serving HTTP on ...` once it listens.
            "-u",
            "-m",
            "http.server",
            "--bind",
            "127.0.0.1",
            &port.to_string(),
        ])
        .current_dir("/")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let listening = skillful_test_support::wait::line_within(
        squatter.stdout.take().unwrap(),
        Duration::from_secs(30),
        |line| line.starts_with("Serving HTTP on"),
    );
    assert!(listening, "the squatter never listened");
    let root = tempfile::tempdir().unwrap();
    let default = format!("http://127.0.0.1:{port}/v1");
    let error = EngineGuard::ensure(
        &engine(root.path()),
        &default,
        model(DEFAULT_MODEL).unwrap(),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(error, EngineError::ForeignListener { .. }),
        "{error}"
    );
    let message = error.to_string();
    let (uid, _) = skillful_test_support::unprivileged::test_user_ids();
    assert!(message.contains(&format!("uid {uid}")), "{message}");
    assert!(message.contains("--endpoint"), "{message}");
    squatter.kill().unwrap();
    squatter.wait().unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_port_in_use_by_something_else_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let router = axum::Router::new().route("/health", axum::routing::get(|| async { "hi" }));
    let server = tokio::spawn(async move { axum::serve(listener, router).await });
    let error = engine(root.path())
        .start(&StartOptions::new(model(DEFAULT_MODEL).unwrap()).port(port))
        .await
        .unwrap_err();
    assert!(
        error.to_string().starts_with(&format!(
            "port {port} of 127.0.0.1 is already in use (an HTTP server answers 200)"
        )),
        "{error}"
    );
    server.abort();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_engine_that_exits_at_once_shows_its_log() {
    let root = tempfile::tempdir().unwrap();
    let script = root.path().join("exiting.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\necho \"cannot load model $2\"\nexit 3\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let engine = engine(root.path()).stand_in(&script);
    let error = engine
        .start(&StartOptions::new(model(DEFAULT_MODEL).unwrap()))
        .await
        .unwrap_err();
    assert!(matches!(error, EngineError::Exited { .. }), "{error}");
    assert!(
        error
            .to_string()
            .contains(&format!("cannot load model {DEFAULT_MODEL}")),
        "{error}"
    );
    assert!(engine.running().unwrap().is_empty(), "no record is left");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_guard_prefers_the_default_endpoint_then_a_running_engine_then_starts_one() {
    let root = tempfile::tempdir().unwrap();
    let engine = engine(root.path());
    let model = model(DEFAULT_MODEL).unwrap();
    let nothing = format!("http://127.0.0.1:{}/v1", free_port());

    // Nothing anywhere: an engine is started for the guard's lifetime.
    let guard = EngineGuard::ensure(&engine, &nothing, model).await.unwrap();
    let Serving::Started(record) = guard.serving().clone() else {
        panic!("{:?}", guard.serving());
    };
    assert_eq!(record.owner, Some(std::process::id()));
    assert_eq!(guard.endpoint(), record.endpoint());
    assert!(answers(&format!("{}/models", guard.endpoint())).await);
    let note = guard.note().unwrap();
    assert!(
        note.starts_with(&format!(
            "nothing answers at {nothing}; started the embedded engine at {}",
            record.endpoint()
        )),
        "{note}"
    );
    // Another command does not share an engine that stops with its command.
    let second = EngineGuard::ensure(&engine, &nothing, model).await.unwrap();
    assert!(matches!(second.serving(), Serving::Started(other) if other.port != record.port));
    drop(second);
    drop(guard);
    assert!(gone(record.pid), "the engine stops with the guard");
    assert!(engine.running().unwrap().is_empty());

    // A running engine is used, and left running.
    let kept = engine
        .start(&StartOptions::new(model))
        .await
        .unwrap()
        .detach();
    let guard = EngineGuard::ensure(&engine, &nothing, model).await.unwrap();
    assert_eq!(guard.serving(), &Serving::Running(kept.clone()));
    assert!(
        guard
            .note()
            .unwrap()
            .contains("using the running engine at")
    );
    drop(guard);
    assert!(running(kept.pid));

    // Whatever answers at the default endpoint comes first.
    let guard = EngineGuard::ensure(&engine, &kept.endpoint(), model)
        .await
        .unwrap();
    assert_eq!(guard.serving(), &Serving::Default(kept.endpoint()));
    assert_eq!(guard.note(), None);
    drop(guard);
    engine.stop(None).await.unwrap();
    assert!(gone(kept.pid));
}
