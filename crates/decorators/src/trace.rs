//! Tracing: a span per model call and per tool call, named and attributed after the
//! OpenTelemetry GenAI conventions (`chat {model}`, `execute_tool {tool}`), so that an
//! OpenTelemetry layer (`skillful-telemetry`) exports them as they are.

use std::time::Instant;

use async_trait::async_trait;
use skillful_chat::{
    ChatClient, ChatError, ChatRequest, ChatResponse, FunctionCall, FunctionResult, Usage,
};
use tracing::field::Empty;
use tracing::{Instrument, Span};

use crate::layer::Layer;
use crate::observe::{ApprovedBy, CallActor};

/// The `gen_ai.provider.name` of every model call: the wire protocol spoken
/// (`/v1/chat/completions`), whichever server answers it.
pub const PROVIDER_NAME: &str = "openai";

/// The `execute_tool {tool}` span of one call (kind INTERNAL): `gen_ai.operation.name`,
/// `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type` (`function`),
/// `skillful.call.actor` and the approval (`skillful.approval.decision` = `approved`,
/// `skillful.approval.by`). The tool may fill in `skillful.skill.name`,
/// `skillful.skill.origin.kind`, `skillful.skill.scope`, `skillful.skill.digest`,
/// `skillful.script`, `skillful.risk_tier` and `skillful.sandbox.profile` (its `invoke` runs in
/// the span: `Span::current().record(..)`); [`record_tool_result`] adds the outcome. With
/// `capture` (the user opted in), `gen_ai.tool.call.arguments` holds the arguments.
pub fn execute_tool_span(
    call: &FunctionCall,
    actor: CallActor,
    approver: &ApprovedBy,
    capture: bool,
) -> Span {
    let span = tracing::info_span!(
        "execute_tool",
        otel.name = %format_args!("execute_tool {}", call.name),
        otel.kind = "internal",
        otel.status_code = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = %call.name,
        gen_ai.tool.call.id = %call.call_id,
        gen_ai.tool.type = "function",
        gen_ai.tool.call.arguments = Empty,
        gen_ai.tool.call.result = Empty,
        "error.type" = Empty,
        skillful.call.actor = actor.as_str(),
        skillful.approval.decision = "approved",
        skillful.approval.by = %approver.grounds(),
        skillful.skill.name = Empty,
        skillful.skill.origin.kind = Empty,
        skillful.skill.scope = Empty,
        skillful.skill.digest = Empty,
        skillful.script = Empty,
        skillful.risk_tier = Empty,
        skillful.sandbox.profile = Empty,
        duration_ms = Empty,
        outcome = Empty,
    );
    if capture && !span.is_disabled() {
        span.record(
            "gen_ai.tool.call.arguments",
            call.arguments.to_string().as_str(),
        );
    }
    span
}

/// Records a model's token usage on `span` (a `chat` or `invoke_agent` span):
/// `gen_ai.usage.input_tokens` and `gen_ai.usage.output_tokens`.
pub fn record_usage(span: &Span, usage: Usage) {
    span.record("gen_ai.usage.input_tokens", usage.prompt_tokens);
    span.record("gen_ai.usage.output_tokens", usage.completion_tokens);
}

/// Marks `span` failed: `error.type` (low-cardinality, e.g. `timeout`) and the status `error`.
pub fn record_error(span: &Span, error_type: &str) {
    span.record("error.type", error_type);
    span.record("otel.status_code", "error");
}

/// Records what became of a call on its [`execute_tool_span`]: the outcome and duration, an
/// error's `error.type` (`tool_error`) and status, and with `capture` the result's text
/// (`gen_ai.tool.call.result`).
pub fn record_tool_result(span: &Span, result: &FunctionResult, started: Instant, capture: bool) {
    span.record("duration_ms", started.elapsed().as_millis() as u64);
    if result.is_error {
        span.record("outcome", "error");
        record_error(span, "tool_error");
    } else {
        span.record("outcome", "ok");
    }
    if capture {
        span.record("gen_ai.tool.call.result", result.result.as_str());
    }
}

/// Opens a `chat {model}` span (kind CLIENT) around every model call, in the GenAI
/// conventions: `gen_ai.operation.name` (`chat`), `gen_ai.provider.name` ([`PROVIDER_NAME`]),
/// `gen_ai.request.model`, `gen_ai.response.model`, `gen_ai.usage.input_tokens` and
/// `gen_ai.usage.output_tokens` when reported, `gen_ai.response.finish_reasons` (one reason, as
/// text), `error.type` on failure; and for a person reading logs `messages`, `tools`,
/// `tool_calls`, `duration_ms` and `outcome` (`ok`, or the error). Requests carry no API key,
/// so no span can show one. With [`TracingLayer::capture_content`], `gen_ai.input.messages` and
/// `gen_ai.output.messages` hold the messages as JSON text.
///
/// Tool calls get their own `execute_tool` spans from
/// [`FunctionInvocation`](crate::FunctionInvocation), which runs them.
#[derive(Debug)]
pub struct Tracing<C> {
    inner: C,
    capture: bool,
}

impl<C> Tracing<C> {
    /// Wraps `inner`, recording no contents.
    pub fn new(inner: C) -> Self {
        Self {
            inner,
            capture: false,
        }
    }
}

#[async_trait]
impl<C: ChatClient> ChatClient for Tracing<C> {
    async fn get_response(&self, request: ChatRequest) -> Result<ChatResponse, ChatError> {
        let model = request.options.model.as_deref();
        let name = model.map_or_else(|| "chat".to_owned(), |model| format!("chat {model}"));
        let span = tracing::info_span!(
            "chat",
            otel.name = %name,
            otel.kind = "client",
            otel.status_code = Empty,
            gen_ai.operation.name = "chat",
            gen_ai.provider.name = PROVIDER_NAME,
            gen_ai.conversation.id = request.options.conversation_id.as_deref(),
            gen_ai.request.model = model,
            gen_ai.response.model = Empty,
            gen_ai.usage.input_tokens = Empty,
            gen_ai.usage.output_tokens = Empty,
            gen_ai.response.finish_reasons = Empty,
            gen_ai.input.messages = Empty,
            gen_ai.output.messages = Empty,
            "error.type" = Empty,
            model,
            messages = request.messages.len(),
            tools = request.tools.len(),
            tool_calls = Empty,
            duration_ms = Empty,
            outcome = Empty,
        );
        if self.capture && !span.is_disabled() {
            let messages = serde_json::to_string(&request.messages).unwrap_or_default();
            span.record("gen_ai.input.messages", messages.as_str());
        }
        let started = Instant::now();
        let result = self
            .inner
            .get_response(request)
            .instrument(span.clone())
            .await;
        span.record("duration_ms", started.elapsed().as_millis() as u64);
        match &result {
            Ok(response) => {
                if let Some(model) = &response.model {
                    span.record("gen_ai.response.model", model.as_str());
                }
                if let Some(usage) = response.usage {
                    record_usage(&span, usage);
                }
                let calls: usize = response
                    .messages
                    .iter()
                    .map(|message| message.function_calls().count())
                    .sum();
                span.record("tool_calls", calls);
                if let Some(reason) = &response.finish_reason {
                    span.record("gen_ai.response.finish_reasons", reason.as_str());
                }
                if self.capture && !span.is_disabled() {
                    let messages = serde_json::to_string(&response.messages).unwrap_or_default();
                    span.record("gen_ai.output.messages", messages.as_str());
                }
                span.record("outcome", "ok");
            }
            Err(error) => {
                record_error(&span, error_type(error));
                span.record("outcome", tracing::field::display(error));
            }
        }
        span.in_scope(|| tracing::debug!("model call finished"));
        result
    }
}

/// The `error.type` of a failed model call: the error's kind, low-cardinality.
fn error_type(error: &ChatError) -> &'static str {
    match error {
        ChatError::Connect { .. } => "connect",
        ChatError::Timeout { .. } => "timeout",
        ChatError::Status { .. } => "http_status",
        ChatError::InvalidResponse { .. } => "invalid_response",
        _ => "_OTHER",
    }
}

/// Builds [`Tracing`].
#[derive(Debug, Clone, Copy, Default)]
pub struct TracingLayer {
    capture: bool,
}

impl TracingLayer {
    /// Records no contents.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the messages sent and received are recorded on the spans
    /// (`gen_ai.input.messages`, `gen_ai.output.messages`): only when the user opted in
    /// (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`, or a host's flag).
    #[must_use]
    pub fn capture_content(mut self, capture: bool) -> Self {
        self.capture = capture;
        self
    }
}

impl<C> Layer<C> for TracingLayer {
    type Client = Tracing<C>;

    fn layer(&self, inner: C) -> Tracing<C> {
        Tracing {
            inner,
            capture: self.capture,
        }
    }
}
