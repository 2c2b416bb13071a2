//! OpenTelemetry export of skillful's `tracing` spans, configured only by the standard
//! `OTEL_*` variables.
//!
//! The libraries describe what they do as ordinary `tracing` spans named and attributed after
//! the OpenTelemetry GenAI conventions (`invoke_agent`, `chat`, `execute_tool`, and the MCP
//! server's requests; see [the attribute list](#spans-and-attributes)). This crate turns them
//! into OTLP: [`Telemetry::from_env`] reads the variables and builds a batching exporter,
//! [`Telemetry::layer`] is the `tracing-subscriber` layer that feeds it, and
//! [`Telemetry::shutdown`] flushes what is left within [`SHUTDOWN_BOUND`].
//!
//! # Variables
//!
//! Nothing is sent unless `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT`
//! is set (to a non-empty value). `OTEL_TRACES_EXPORTER=none` or `OTEL_SDK_DISABLED=true` turns
//! export off even then; `OTEL_TRACES_EXPORTER` may otherwise only be `otlp`.
//! `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` (or `OTEL_EXPORTER_OTLP_PROTOCOL`) chooses
//! `http/protobuf` (the default; the generic endpoint gets `/v1/traces` appended, the traces
//! endpoint is used as it is) or `grpc`. `OTEL_SERVICE_NAME` names the service (default: the
//! name the host passes, `skills` for the command), `OTEL_RESOURCE_ATTRIBUTES`,
//! `OTEL_EXPORTER_OTLP_HEADERS` and `OTEL_EXPORTER_OTLP_TIMEOUT` (milliseconds, default 10 s,
//! and their `_TRACES_` forms) are honoured as the specification says.
//!
//! # Export never slows or breaks a run
//!
//! Spans are queued (at most 2,048; more are dropped) and exported in batches from a thread of
//! their own, never on the caller's. The first failed export is one warning (`tracing::warn!`,
//! naming the endpoint); later failures are silent. [`Telemetry::shutdown`] waits at most
//! [`SHUTDOWN_BOUND`] for the last batch, so a collector that is down or never answers costs a
//! run no more than that.
//!
//! # Spans and attributes
//!
//! | Span | Kind | From | Attributes |
//! |---|---|---|---|
//! | `invoke_agent {agent}` | INTERNAL | `skillful-agent`, one per run | `gen_ai.operation.name`, `gen_ai.agent.name`, `gen_ai.conversation.id` (the session id), `gen_ai.provider.name` |
//! | `chat {model}` | CLIENT | `skillful-decorators`' `Tracing`, one per model call | `gen_ai.operation.name` = `chat`, `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.response.model`, `gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`, `gen_ai.response.finish_reasons`, `error.type` |
//! | `execute_tool {tool}` | INTERNAL | `skillful-decorators`' `FunctionInvocation` (the model's calls) and `skillful-agent` (the runtime's activations) | `gen_ai.operation.name` = `execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type` = `function`, `error.type`, and ours below |
//! | `{method} {target}` | SERVER | `skillful-mcp`'s server, one per MCP request | `mcp.method.name`, `mcp.session.id`, `gen_ai.tool.name` (for `tools/call`), `mcp.resource.uri`, `jsonrpc.request.id`, `error.type` |
//!
//! Skill attributes of our own, under the prefix `skillful.`, until the conventions settle:
//! `skillful.call.actor` (`model` or `runtime`: who made the call), `skillful.skill.name`,
//! `skillful.skill.origin.kind` (`files`, `inline`, `plugin`, `mcp`), `skillful.skill.scope`,
//! `skillful.skill.digest` (when the call is audited), `skillful.script`, `skillful.risk_tier`,
//! `skillful.sandbox.profile`, `skillful.approval.decision` and `skillful.approval.by` (the
//! rule, `remembered approval`, or the person's answer).
//!
//! Contents (`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.tool.call.arguments`,
//! `gen_ai.tool.call.result`) are recorded only when the user opts in: see
//! [`capture_message_content`].
//!
//! # Your own tracer
//!
//! The spans are plain `tracing` spans, so any `tracing-subscriber` layer sees them: this crate's
//! layer is one choice, not a requirement. An embedder with its own OpenTelemetry pipeline adds
//! `tracing_opentelemetry::layer().with_tracer(its_tracer)` to its subscriber instead.
//!
//! It knows the OpenTelemetry SDK, OTLP and the `OTEL_*` variables; it knows nothing of skills,
//! agents, models or MCP (their crates name their spans), and it never decides what a span holds.
//!
//! # Example
//!
//! The whole of it, runnable, with an agent turn and an audit sink of its own:
//! `crates/agent/examples/local_collector.rs` (`cargo run -p skillful-agent --example
//! local_collector`), which sends its spans to the collector `OTEL_EXPORTER_OTLP_ENDPOINT` names
//! (default `http://127.0.0.1:4318`). In short:
//!
//! ```no_run
//! use tracing_subscriber::layer::SubscriberExt;
//! use tracing_subscriber::util::SubscriberInitExt;
//!
//! # fn main() -> Result<(), skillful_telemetry::TelemetryError> {
//! let telemetry = skillful_telemetry::Telemetry::from_env("my-agent")?;
//! tracing_subscriber::registry()
//!     .with(telemetry.as_ref().map(|telemetry| telemetry.layer()))
//!     .init();
//! // ... run agents ...
//! if let Some(telemetry) = telemetry {
//!     telemetry.shutdown();
//! }
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{BatchSpanProcessor, SdkTracerProvider, SpanData, SpanExporter};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{FilterFn, Filtered};
use tracing_subscriber::registry::LookupSpan;

/// How long [`Telemetry::shutdown`] waits for the last spans to be exported.
pub const SHUTDOWN_BOUND: Duration = Duration::from_secs(2);

/// The export timeout when `OTEL_EXPORTER_OTLP_TIMEOUT` does not say (the specification's).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The variable that opts into recording prompt, answer and tool-call contents.
pub const CAPTURE_CONTENT_VARIABLE: &str = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

/// Why export could not be set up as the variables ask.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TelemetryError {
    /// A protocol variable names a protocol this build does not speak.
    #[error("{variable}={value:?} is not supported: use `http/protobuf` or `grpc`, or unset it")]
    UnsupportedProtocol {
        /// The variable that names it.
        variable: &'static str,
        /// Its value.
        value: String,
    },
    /// `OTEL_TRACES_EXPORTER` names an exporter other than `otlp` or `none`.
    #[error("OTEL_TRACES_EXPORTER={value:?} is not supported: use `otlp` or `none`, or unset it")]
    UnsupportedExporter {
        /// Its value.
        value: String,
    },
    /// The exporter could not be built (an endpoint that is no URL, TLS set-up).
    #[error("cannot set up the OTLP exporter for {endpoint}: {message}")]
    Build {
        /// The endpoint variable's value, without credentials.
        endpoint: String,
        /// What went wrong.
        message: String,
    },
}

/// The OTLP transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Protocol {
    HttpProtobuf,
    Grpc,
}

/// What the variables ask for: `None` when nothing is to be sent.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Settings {
    protocol: Protocol,
    endpoint: String,
    timeout: Duration,
    service: Option<String>,
}

impl Settings {
    /// Reads the variables through `var` (the process's environment, or a test's map).
    fn read(var: impl Fn(&str) -> Option<String>) -> Result<Option<Self>, TelemetryError> {
        let set = |name: &str| var(name).filter(|value| !value.trim().is_empty());
        if set("OTEL_SDK_DISABLED").is_some_and(|value| value.trim().eq_ignore_ascii_case("true")) {
            return Ok(None);
        }
        if let Some(exporter) = set("OTEL_TRACES_EXPORTER") {
            match exporter.trim() {
                "none" => return Ok(None),
                "otlp" => {}
                _ => return Err(TelemetryError::UnsupportedExporter { value: exporter }),
            }
        }
        let Some(endpoint) = set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
            .or_else(|| set("OTEL_EXPORTER_OTLP_ENDPOINT"))
        else {
            return Ok(None);
        };
        let protocol = [
            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
            "OTEL_EXPORTER_OTLP_PROTOCOL",
        ]
        .into_iter()
        .find_map(|variable| set(variable).map(|value| (variable, value)));
        let protocol = match protocol {
            None => Protocol::HttpProtobuf,
            Some((_, value)) if value.trim() == "http/protobuf" => Protocol::HttpProtobuf,
            Some((_, value)) if value.trim() == "grpc" => Protocol::Grpc,
            Some((variable, value)) => {
                return Err(TelemetryError::UnsupportedProtocol { variable, value });
            }
        };
        let timeout = [
            "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
            "OTEL_EXPORTER_OTLP_TIMEOUT",
        ]
        .into_iter()
        .find_map(|variable| set(variable)?.trim().parse::<u64>().ok())
        .map_or(DEFAULT_TIMEOUT, Duration::from_millis);
        Ok(Some(Self {
            protocol,
            endpoint,
            timeout,
            service: set("OTEL_SERVICE_NAME"),
        }))
    }
}

/// An OTLP trace pipeline: the provider, and the tracer its layer feeds.
#[derive(Debug)]
pub struct Telemetry {
    provider: SdkTracerProvider,
    tracer: opentelemetry_sdk::trace::Tracer,
    /// Whether the one warning about export was given.
    warned: Arc<AtomicBool>,
}

impl Telemetry {
    /// The pipeline the `OTEL_*` variables ask for, or `None` when nothing is to be sent (no
    /// endpoint variable, `OTEL_TRACES_EXPORTER=none`, `OTEL_SDK_DISABLED=true`).
    /// `service` is the service name unless `OTEL_SERVICE_NAME` says otherwise.
    ///
    /// For `grpc`, call it inside a tokio runtime that keeps running while spans are exported
    /// (the transport's connection task runs on it).
    ///
    /// # Errors
    /// [`TelemetryError`] when a variable names something unsupported or the exporter cannot be
    /// built from it.
    pub fn from_env(service: &str) -> Result<Option<Self>, TelemetryError> {
        let Some(settings) = Settings::read(|name| std::env::var(name).ok())? else {
            return Ok(None);
        };
        Self::new(&settings, service).map(Some)
    }

    fn new(settings: &Settings, service: &str) -> Result<Self, TelemetryError> {
        let shown = skillful_http::redact_url(&settings.endpoint);
        let build_error = |message: String| TelemetryError::Build {
            endpoint: shown.clone(),
            message,
        };
        let exporter = match settings.protocol {
            Protocol::HttpProtobuf => opentelemetry_otlp::SpanExporter::builder()
                .with_http()
                .with_http_client(blocking_client(settings.timeout).map_err(build_error)?)
                .with_timeout(settings.timeout)
                .build(),
            Protocol::Grpc => opentelemetry_otlp::SpanExporter::builder()
                .with_tonic()
                .with_timeout(settings.timeout)
                .build(),
        }
        .map_err(|error| build_error(error.to_string()))?;
        let warned = Arc::new(AtomicBool::new(false));
        let exporter = WarnOnce {
            inner: exporter,
            endpoint: shown.clone(),
            warned: Arc::clone(&warned),
        };
        let mut resource = Resource::builder();
        if settings.service.is_none() {
            resource = resource.with_service_name(service.to_owned());
        }
        let provider = SdkTracerProvider::builder()
            .with_span_processor(BatchSpanProcessor::builder(exporter).build())
            .with_resource(resource.build())
            .build();
        let tracer = provider.tracer("skillful");
        Ok(Self {
            provider,
            tracer,
            warned,
        })
    }

    /// The `tracing-subscriber` layer that exports skillful's spans (those of the `skillful*`
    /// crates, at level INFO and above) through this pipeline.
    pub fn layer<S>(&self) -> TelemetryLayer<S>
    where
        S: tracing::Subscriber + for<'span> LookupSpan<'span>,
    {
        tracing_opentelemetry::layer()
            .with_tracer(self.tracer.clone())
            .with_location(false)
            .with_threads(false)
            .with_target(false)
            .with_level(false)
            .with_filter(FilterFn::new(ours))
    }

    /// Exports what is queued and stops, waiting at most [`SHUTDOWN_BOUND`]; spans not exported
    /// by then are dropped, with a warning unless export failed (and said so) before.
    pub fn shutdown(self) {
        if let Err(error) = self.provider.shutdown_with_timeout(SHUTDOWN_BOUND)
            && !self.warned.swap(true, Ordering::Relaxed)
        {
            tracing::warn!("traces not exported before exit: {error}");
        }
    }
}

/// The layer [`Telemetry::layer`] returns.
pub type TelemetryLayer<S> = Filtered<
    tracing_opentelemetry::OpenTelemetryLayer<S, opentelemetry_sdk::trace::Tracer>,
    FilterFn<fn(&tracing::Metadata<'_>) -> bool>,
    S,
>;

/// Spans and events of the skillful crates at INFO and above (the exporter's own HTTP client
/// and everything else stay out).
fn ours(metadata: &tracing::Metadata<'_>) -> bool {
    metadata.target().starts_with("skillful") && *metadata.level() <= tracing::Level::INFO
}

/// Whether the user opted into recording contents (prompts, answers, tool arguments and
/// results) on spans: [`CAPTURE_CONTENT_VARIABLE`] is `true`. Hosts may offer a flag of their
/// own as well (`skills run --otel-capture-content`).
pub fn capture_message_content() -> bool {
    std::env::var(CAPTURE_CONTENT_VARIABLE)
        .is_ok_and(|value| value.trim().eq_ignore_ascii_case("true"))
}

/// The blocking HTTP client of the exporter (it runs on the batch thread), with the workspace's
/// TLS set-up; built on a thread of its own, as a blocking client may not be built inside an
/// async runtime.
fn blocking_client(timeout: Duration) -> Result<reqwest::blocking::Client, String> {
    let tls = skillful_http::tls_config().map_err(|error| error.to_string())?;
    std::thread::spawn(move || {
        reqwest::blocking::Client::builder()
            .tls_backend_preconfigured(tls)
            .timeout(timeout)
            .build()
    })
    .join()
    .map_err(|_| "building the HTTP client panicked".to_owned())?
    .map_err(|error| error.to_string())
}

/// An exporter whose first failure is one warning, and later ones silent.
#[derive(Debug)]
struct WarnOnce<E> {
    inner: E,
    endpoint: String,
    warned: Arc<AtomicBool>,
}

impl<E: SpanExporter> SpanExporter for WarnOnce<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let result = self.inner.export(batch).await;
        if let Err(error) = &result
            && !self.warned.swap(true, Ordering::Relaxed)
        {
            tracing::warn!(
                "traces are not reaching {}: {error} (further failures are not reported)",
                self.endpoint
            );
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn read(vars: &[(&str, &str)]) -> Result<Option<Settings>, TelemetryError> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        Settings::read(|name| vars.get(name).cloned())
    }

    #[test]
    fn nothing_is_sent_without_an_endpoint() {
        assert_eq!(read(&[]).unwrap(), None);
        assert_eq!(read(&[("OTEL_SERVICE_NAME", "x")]).unwrap(), None);
        assert_eq!(read(&[("OTEL_EXPORTER_OTLP_ENDPOINT", " ")]).unwrap(), None);
    }

    #[test]
    fn none_and_disabled_turn_export_off() {
        let endpoint = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318");
        assert_eq!(
            read(&[endpoint, ("OTEL_TRACES_EXPORTER", "none")]).unwrap(),
            None
        );
        assert_eq!(
            read(&[endpoint, ("OTEL_SDK_DISABLED", "TRUE")]).unwrap(),
            None
        );
        assert!(matches!(
            read(&[endpoint, ("OTEL_TRACES_EXPORTER", "zipkin")]),
            Err(TelemetryError::UnsupportedExporter { .. })
        ));
    }

    #[test]
    fn the_traces_variables_win_over_the_generic_ones() {
        let settings = read(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:1"),
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://b:2/v1/traces"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"),
            ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "grpc"),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "250"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(settings.endpoint, "http://b:2/v1/traces");
        assert_eq!(settings.protocol, Protocol::Grpc);
        assert_eq!(settings.timeout, Duration::from_millis(250));
    }

    #[test]
    fn an_unsupported_protocol_names_its_variable() {
        let error = read(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:1"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
        ])
        .unwrap_err();
        let text = error.to_string();
        assert!(text.contains("OTEL_EXPORTER_OTLP_PROTOCOL"), "{text}");
        assert!(text.contains("http/protobuf"), "{text}");
    }
}
