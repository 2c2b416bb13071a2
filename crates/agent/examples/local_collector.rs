//! One agent turn whose spans go to a local OpenTelemetry collector and whose skill calls go to
//! an audit sink of our own.
//!
//! ```text
//! cargo run -p skillful-agent --example local_collector
//! ```
//!
//! The spans (`invoke_agent`, `chat`, `execute_tool load_skill`, in the GenAI conventions) are
//! exported over OTLP to the collector `OTEL_EXPORTER_OTLP_ENDPOINT` names, by default
//! `http://127.0.0.1:4318` (OTLP/HTTP; `OTEL_EXPORTER_OTLP_PROTOCOL=grpc` for gRPC on 4317): a
//! Jaeger all-in-one, Grafana Tempo or the OpenTelemetry Collector listening there shows the
//! run. The model is a stand-in in this process (it asks for the skill, then answers), so no
//! model server is needed; an `OpenAiClient` goes where `StandIn` is.
//!
//! The audit sink is [`skillful_audit::AuditSink`] implemented here: it prints one line per
//! record to stdout (a host would send them to its SIEM or database).

use std::process::ExitCode;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::json;
use skillful_agent::{Agent, ApprovalRules, AuditSettings, AutoApprove, Session};
use skillful_audit::{AuditError, AuditEvent, AuditSink};
use skillful_chat::{
    ChatClient, ChatError, ChatRequest, ChatResponse, Content, FunctionCall, Message, Role, Usage,
};
use skillful_inline::{InlineSkill, InlineSkillsSource};
use skillful_provider::SkillsProvider;
use skillful_telemetry::Telemetry;
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Where spans go when no variable says.
const DEFAULT_ENDPOINT: &str = "http://127.0.0.1:4318";

/// An audit sink of our own: each record as one line on stdout.
#[derive(Debug)]
struct PrintingSink;

impl AuditSink for PrintingSink {
    fn record(&self, event: AuditEvent) -> Result<(), AuditError> {
        let skill = event
            .skill
            .as_ref()
            .map_or("-", |skill| skill.name.as_str());
        println!(
            "audit: {:?} tool={} skill={skill} decision={} by={}",
            event.event,
            event.tool.as_deref().unwrap_or("-"),
            event.decision.as_deref().unwrap_or("-"),
            event.decided_by.as_deref().unwrap_or("-"),
        );
        Ok(())
    }
}

/// The stand-in model: asks for the `greeting` skill, then answers with what it read.
#[derive(Debug)]
struct StandIn;

#[async_trait]
impl ChatClient for StandIn {
    async fn get_response(&self, request: ChatRequest) -> Result<ChatResponse, ChatError> {
        let loaded = request.messages.iter().rev().find_map(|message| {
            message.contents.iter().find_map(|content| match content {
                Content::FunctionResult(result) => Some(result.result.clone()),
                _ => None,
            })
        });
        let message = match loaded {
            Some(skill) => Message::assistant(format!(
                "The skill says: {}",
                skill
                    .lines()
                    .find(|line| line.contains("hello"))
                    .unwrap_or_default()
            )),
            None => Message::new(
                Role::Assistant,
                vec![Content::FunctionCall(FunctionCall {
                    call_id: "call-1".to_owned(),
                    name: "load_skill".to_owned(),
                    arguments: json!({"skillName": "greeting"}),
                })],
            ),
        };
        Ok(ChatResponse {
            messages: vec![message],
            model: Some("stand-in".to_owned()),
            finish_reason: Some("stop".to_owned()),
            usage: Some(Usage {
                prompt_tokens: 12,
                completion_tokens: 3,
            }),
            stopped: None,
        })
    }
}

fn main() -> ExitCode {
    if std::env::var_os("OTEL_EXPORTER_OTLP_ENDPOINT").is_none()
        && std::env::var_os("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").is_none()
    {
        // SAFETY: no other thread runs yet.
        unsafe { std::env::set_var("OTEL_EXPORTER_OTLP_ENDPOINT", DEFAULT_ENDPOINT) };
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    // Inside the runtime: gRPC's connection task runs on it.
    let telemetry = match runtime.block_on(async { Telemetry::from_env("local-collector-example") })
    {
        Ok(telemetry) => telemetry,
        Err(error) => {
            eprintln!("local_collector: {error}");
            return ExitCode::from(2);
        }
    };
    // Our spans to the collector, warnings (a collector that is not there) to stderr: an
    // example program writes its own diagnostics.
    #[allow(clippy::disallowed_methods)]
    tracing_subscriber::registry()
        .with(telemetry.as_ref().map(|telemetry| telemetry.layer()))
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_filter(tracing_subscriber::filter::LevelFilter::WARN),
        )
        .init();

    let result = runtime.block_on(turn());
    if let Some(telemetry) = telemetry {
        // Exports what is left (waiting at most skillful_telemetry::SHUTDOWN_BOUND).
        telemetry.shutdown();
    }
    match result {
        Ok(answer) => {
            println!("{answer}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("local_collector: {error}");
            ExitCode::from(1)
        }
    }
}

/// One turn: the model loads the skill and answers.
async fn turn() -> Result<String, Box<dyn std::error::Error>> {
    let skill = InlineSkill::builder("greeting", "How to greet a person. Use when asked to.")
        .instructions("Say hello and use their name.")
        .build()?;
    let provider = SkillsProvider::new(Arc::new(InlineSkillsSource::new([skill])));
    let agent = Agent::builder(StandIn)
        .name("local-collector-example")
        .skills(Arc::new(provider))
        .approval(ApprovalRules::new(AutoApprove::ReadOnly))
        .audit(AuditSettings::new(
            Arc::new(PrintingSink),
            "local_collector",
        ))
        .build();
    let mut session = Session::new();
    let response = agent.run("Greet Ada.", &mut session).await?;
    Ok(response.text())
}
