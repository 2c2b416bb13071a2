//! `skills run` exports its spans over OTLP when the standard variables say so, in the GenAI
//! conventions (names, kinds, parent/child links, attributes), to a real receiver on 127.0.0.1
//! decoding them with the protocol's own protobuf definitions; nothing is sent otherwise, and a
//! collector that is down or never answers neither fails nor holds up the run.

use crate::common;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use skillful_test_server::otlp::{OtlpReceiver, ReceivedSpan, SpanKind};
use skillful_test_server::{Reply, TestServer};

use crate::common::{command_with_state, run_args, run_with, skill_root, text};

/// Every variable that could send spans somewhere, removed (the developer's own collector).
const OTEL_VARIABLES: &[&str] = &[
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    "OTEL_TRACES_EXPORTER",
    "OTEL_SDK_DISABLED",
    "OTEL_SERVICE_NAME",
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
];

/// The scripted run: `--skill tools` (the runtime activates it), a script call the person
/// approves once on the terminal, then the answer. Its output once it has exited.
async fn scripted_run(state: &Path, env: &[(&str, &str)], extra: &[&str]) -> Output {
    let (root, _dir) = skill_root(
        "tools",
        "Run `scripts/a.py`.",
        &[("a.py", "print('a ran')\n")],
    );
    let server = TestServer::start().await;
    server.push(Reply::run_skill_script("c1", "tools", "scripts/a.py"));
    server.push(Reply::text("done"));
    let session = state.join("session.json");
    let mut flags = vec![
        "Run a.",
        "--skill",
        "tools",
        "--approve",
        "read-only",
        "--model",
        "test-model",
        "--session",
        session.to_str().unwrap(),
    ];
    flags.extend_from_slice(extra);
    let args = run_args(root.path().to_str().unwrap(), server.url(), &flags);
    let mut command = command_with_state(&args, state);
    clean(&mut command);
    command.envs(env.iter().copied());
    run_with(command, "y\n".to_owned()).await
}

fn clean(command: &mut Command) {
    for variable in OTEL_VARIABLES {
        command.env_remove(variable);
    }
}

fn one<'a>(spans: &'a [ReceivedSpan], name: &str) -> &'a ReceivedSpan {
    let found: Vec<&ReceivedSpan> = spans.iter().filter(|span| span.name() == name).collect();
    assert_eq!(found.len(), 1, "one `{name}` span in {:#?}", names(spans));
    found[0]
}

fn names(spans: &[ReceivedSpan]) -> Vec<&str> {
    spans.iter().map(ReceivedSpan::name).collect()
}

/// The spans of the scripted run, as `receiver` got them over `protocol`.
fn check_the_scripted_run(spans: &[ReceivedSpan], service: &str) {
    let mut sorted = names(spans);
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        [
            "chat test-model",
            "chat test-model",
            "execute_tool load_skill",
            "execute_tool run_skill_script",
            "invoke_agent skills",
            "invoke_agent skills",
        ],
        "{spans:#?}"
    );
    assert!(
        spans
            .iter()
            .all(|span| span.service.as_deref() == Some(service))
    );

    // Two runs: the first ends with the approval request, the second resumes with the answer.
    let runs: Vec<&ReceivedSpan> = spans
        .iter()
        .filter(|span| span.name() == "invoke_agent skills")
        .collect();
    for run in &runs {
        assert_eq!(run.kind(), SpanKind::Internal);
        assert_eq!(run.span.parent_span_id, Vec::<u8>::new(), "a root span");
        assert_eq!(
            run.attribute("gen_ai.operation.name").as_deref(),
            Some("invoke_agent")
        );
        assert_eq!(
            run.attribute("gen_ai.agent.name").as_deref(),
            Some("skills")
        );
        assert!(run.attribute("gen_ai.conversation.id").is_some());
    }
    let parent = |span: &ReceivedSpan| {
        runs.iter()
            .position(|run| span.is_child_of(run))
            .unwrap_or_else(|| panic!("{} is a child of a run: {spans:#?}", span.name()))
    };

    for chat in spans.iter().filter(|span| span.name() == "chat test-model") {
        assert_eq!(chat.kind(), SpanKind::Client);
        assert_eq!(
            chat.attribute("gen_ai.operation.name").as_deref(),
            Some("chat")
        );
        assert_eq!(
            chat.attribute("gen_ai.request.model").as_deref(),
            Some("test-model")
        );
        assert_eq!(
            chat.attribute("gen_ai.response.model").as_deref(),
            Some("test-model")
        );
        assert_eq!(
            chat.attribute("gen_ai.usage.input_tokens").as_deref(),
            Some("10")
        );
        assert_eq!(
            chat.attribute("gen_ai.usage.output_tokens").as_deref(),
            Some("5")
        );
        assert!(chat.attribute("gen_ai.response.finish_reasons").is_some());
        assert_eq!(chat.attribute("gen_ai.input.messages"), None, "no contents");
        parent(chat);
    }

    let activation = one(spans, "execute_tool load_skill");
    assert_eq!(activation.kind(), SpanKind::Internal);
    assert_eq!(parent(activation), 0, "in the first run");
    for (key, value) in [
        ("gen_ai.operation.name", "execute_tool"),
        ("gen_ai.tool.name", "load_skill"),
        ("gen_ai.tool.type", "function"),
        ("skillful.call.actor", "runtime"),
        ("skillful.skill.name", "tools"),
        ("skillful.skill.origin.kind", "files"),
        ("skillful.skill.scope", "explicit"),
        ("skillful.approval.decision", "approved"),
        ("skillful.approval.by", "rule: auto-approve read-only"),
    ] {
        assert_eq!(
            activation.attribute(key).as_deref(),
            Some(value),
            "{key}: {activation:#?}"
        );
    }

    let script = one(spans, "execute_tool run_skill_script");
    assert_eq!(script.kind(), SpanKind::Internal);
    assert_eq!(parent(script), 1, "in the resumed run");
    for (key, value) in [
        ("gen_ai.tool.name", "run_skill_script"),
        ("gen_ai.tool.call.id", "c1"),
        ("gen_ai.tool.type", "function"),
        ("skillful.call.actor", "model"),
        ("skillful.skill.name", "tools"),
        ("skillful.script", "scripts/a.py"),
        ("skillful.approval.decision", "approved"),
        ("skillful.approval.by", "user (once)"),
    ] {
        assert_eq!(
            script.attribute(key).as_deref(),
            Some(value),
            "{key}: {script:#?}"
        );
    }
    let digest = script
        .attribute("skillful.skill.digest")
        .expect("the skill's digest");
    assert_eq!(digest.len(), 64, "{digest}");
    assert!(script.attribute("skillful.risk_tier").is_some());
    assert!(script.attribute("skillful.sandbox.profile").is_some());
    assert_eq!(
        script.attribute("gen_ai.tool.call.arguments"),
        None,
        "no contents"
    );
    assert_eq!(
        script.attribute("gen_ai.tool.call.result"),
        None,
        "no contents"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_sends_its_spans_over_http_protobuf() {
    let receiver = OtlpReceiver::http().await;
    let state = tempfile::tempdir().unwrap();
    let run = scripted_run(
        state.path(),
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint())],
        &[],
    )
    .await;
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    check_the_scripted_run(&receiver.spans(), "skills");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_sends_its_spans_over_grpc_with_contents_when_asked() {
    if !common::python_runs() {
        return;
    }
    let receiver = OtlpReceiver::grpc().await;
    let state = tempfile::tempdir().unwrap();
    let run = scripted_run(
        state.path(),
        &[
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", receiver.endpoint()),
            ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "grpc"),
            ("OTEL_SERVICE_NAME", "my-agent"),
        ],
        &["--otel-capture-content"],
    )
    .await;
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let spans = receiver.spans();
    assert_eq!(spans.len(), 6, "{spans:#?}");
    let script = one(&spans, "execute_tool run_skill_script");
    let arguments = script.attribute("gen_ai.tool.call.arguments").unwrap();
    assert!(arguments.contains("scripts/a.py"), "{arguments}");
    let result = script.attribute("gen_ai.tool.call.result").unwrap();
    assert!(result.contains("a ran"), "{result}");
    let chat = spans
        .iter()
        .find(|span| span.name() == "chat test-model")
        .unwrap();
    let messages = chat.attribute("gen_ai.input.messages").unwrap();
    assert!(messages.contains("Run a."), "{messages}");
    assert!(
        spans
            .iter()
            .all(|span| span.service.as_deref() == Some("my-agent"))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_same_run_in_grpc_has_the_same_spans() {
    let receiver = OtlpReceiver::grpc().await;
    let state = tempfile::tempdir().unwrap();
    let run = scripted_run(
        state.path(),
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint()),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        ],
        &[],
    )
    .await;
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    check_the_scripted_run(&receiver.spans(), "skills");
}

#[tokio::test(flavor = "multi_thread")]
async fn nothing_is_sent_without_the_variables_or_with_the_exporter_none() {
    let receiver = OtlpReceiver::http().await;
    let state = tempfile::tempdir().unwrap();
    let run = scripted_run(state.path(), &[("OTEL_SERVICE_NAME", "x")], &[]).await;
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let state = tempfile::tempdir().unwrap();
    let run = scripted_run(
        state.path(),
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint()),
            ("OTEL_TRACES_EXPORTER", "none"),
        ],
        &[],
    )
    .await;
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert!(receiver.spans().is_empty(), "{:#?}", receiver.spans());
}

/// Accepts connections and never answers (nor closes them), until the test ends.
fn hanging_endpoint() -> (String, std::thread::JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let handle = std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    (format!("http://{address}"), handle)
}

/// A port nothing listens on (bound, then released).
fn closed_endpoint() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{address}")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dead_collector_neither_fails_nor_holds_up_the_run() {
    let (hanging, _thread) = hanging_endpoint();
    let closed = closed_endpoint();
    for (endpoint, protocol) in [
        (closed.as_str(), "http/protobuf"),
        (closed.as_str(), "grpc"),
        (hanging.as_str(), "http/protobuf"),
        (hanging.as_str(), "grpc"),
    ] {
        let state = tempfile::tempdir().unwrap();
        let started = Instant::now();
        let run = scripted_run(
            state.path(),
            &[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint),
                ("OTEL_EXPORTER_OTLP_PROTOCOL", protocol),
            ],
            &[],
        )
        .await;
        let stderr = text(&run.stderr);
        assert_eq!(
            run.status.code(),
            Some(0),
            "{endpoint} {protocol}: {stderr}"
        );
        // A generous bound: the export's own timeout is 10 s; the run waits at most 2 s.
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{endpoint} {protocol}: {:?}",
            started.elapsed()
        );
        let warnings = stderr
            .lines()
            .filter(|line| line.contains("traces"))
            .count();
        assert!(
            warnings <= 1,
            "{endpoint} {protocol}: one warning at most: {stderr}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn serve_spans_each_mcp_request() {
    use rmcp::ServiceExt as _;
    use rmcp::transport::TokioChildProcess;
    use skillful_mcp::final_form::{self, ListingLimits};

    let receiver = OtlpReceiver::http().await;
    let (root, _dir) = skill_root("tools", "Body.", &[]);
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_skills"));
    command
        .args(["serve", "--stdio"])
        .arg(root.path())
        .env("HOME", root.path())
        .env_remove("RUST_LOG");
    for variable in OTEL_VARIABLES {
        command.env_remove(variable);
    }
    command.env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint());
    let client = ().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();
    let listed = final_form::list_all_skills(client.peer(), "served", ListingLimits::default())
        .await
        .unwrap();
    assert_eq!(listed.skills.len(), 1);
    client.peer().list_all_resources().await.unwrap();
    // The server exits when its client leaves, flushing its spans.
    client.cancel().await.unwrap();
    let spans = receiver.spans_within(2, Duration::from_secs(20)).await;
    let list = one(&spans, "skills/list");
    assert_eq!(list.kind(), SpanKind::Server);
    assert_eq!(
        list.attribute("mcp.method.name").as_deref(),
        Some("skills/list")
    );
    assert_eq!(list.attribute("network.transport").as_deref(), Some("pipe"));
    assert!(list.attribute("jsonrpc.request.id").is_some());
    let resources = one(&spans, "resources/list");
    assert_eq!(resources.kind(), SpanKind::Server);
}
