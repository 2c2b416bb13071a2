//! Tracing: a span per model call.

use std::time::Instant;

use async_trait::async_trait;
use skillful_chat::{ChatClient, ChatError, ChatRequest, ChatResponse};
use tracing::Instrument;
use tracing::field::Empty;

use crate::layer::Layer;

/// Opens a `chat` span around every model call, with the fields a person debugging needs:
/// `model` (the server's name for it), `messages`, `tools`, `prompt_tokens` and
/// `completion_tokens` when reported, `tool_calls`, `finish_reason`, `duration_ms` and `outcome`
/// (`ok`, or the error). Requests carry no API key, so no span can show one.
///
/// Tool calls get their own `tool_call` spans from
/// [`FunctionInvocation`](crate::FunctionInvocation), which runs them.
#[derive(Debug)]
pub struct Tracing<C> {
    inner: C,
}

impl<C> Tracing<C> {
    /// Wraps `inner`.
    pub fn new(inner: C) -> Self {
        Self { inner }
    }
}

#[async_trait]
impl<C: ChatClient> ChatClient for Tracing<C> {
    async fn get_response(&self, request: ChatRequest) -> Result<ChatResponse, ChatError> {
        let span = tracing::info_span!(
            "chat",
            model = request.options.model.as_deref(),
            messages = request.messages.len(),
            tools = request.tools.len(),
            prompt_tokens = Empty,
            completion_tokens = Empty,
            tool_calls = Empty,
            finish_reason = Empty,
            duration_ms = Empty,
            outcome = Empty,
        );
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
                    span.record("model", model.as_str());
                }
                if let Some(usage) = response.usage {
                    span.record("prompt_tokens", usage.prompt_tokens);
                    span.record("completion_tokens", usage.completion_tokens);
                }
                let calls: usize = response
                    .messages
                    .iter()
                    .map(|message| message.function_calls().count())
                    .sum();
                span.record("tool_calls", calls);
                if let Some(reason) = &response.finish_reason {
                    span.record("finish_reason", reason.as_str());
                }
                span.record("outcome", "ok");
            }
            Err(error) => {
                span.record("outcome", tracing::field::display(error));
            }
        }
        span.in_scope(|| tracing::debug!("model call finished"));
        result
    }
}

/// Builds [`Tracing`].
#[derive(Debug, Clone, Copy, Default)]
pub struct TracingLayer;

impl<C> Layer<C> for TracingLayer {
    type Client = Tracing<C>;

    fn layer(&self, inner: C) -> Tracing<C> {
        Tracing::new(inner)
    }
}
