//! One span per MCP request the server answers, in the OpenTelemetry MCP conventions ([`request`],
//! which each `ServerHandler` method runs in): `{mcp.method.name} {target}` (kind
//! SERVER; the target is the resource or skill URI) with `mcp.method.name`, `mcp.session.id`
//! (over streamable HTTP), `mcp.resource.uri`, `jsonrpc.request.id`, `network.transport`; a
//! failed request's error is an event on its span (its status: error).

use std::future::Future;

use rmcp::model::ErrorData;
use rmcp::service::{RequestContext, RoleServer};
use tracing::{Instrument as _, Span};

/// The span of the request `context` for `method`, about the resource or skill `uri` when it
/// names one.
pub(super) fn request(
    method: &'static str,
    uri: Option<&str>,
    context: &RequestContext<RoleServer>,
) -> Span {
    let name = uri.map_or_else(|| method.to_owned(), |uri| format!("{method} {uri}"));
    tracing::info_span!(
        "mcp_request",
        otel.name = %name,
        otel.kind = "server",
        mcp.method.name = method,
        mcp.resource.uri = uri,
        mcp.session.id = session(context),
        jsonrpc.request.id = %context.id,
        network.transport = transport(context),
    )
}

/// Answers in `span`; a failure is an error event on it.
pub(super) async fn traced<T>(
    span: Span,
    answer: impl Future<Output = Result<T, ErrorData>>,
) -> Result<T, ErrorData> {
    async move {
        let answer = answer.await;
        if let Err(error) = &answer {
            tracing::error!(error = %error);
        }
        answer
    }
    .instrument(span)
    .await
}

/// The `mcp.session.id` of a request over streamable HTTP (its `Mcp-Session-Id` header).
pub(super) fn session(context: &RequestContext<RoleServer>) -> Option<&str> {
    context
        .extensions
        .get::<axum::http::request::Parts>()?
        .headers
        .get("mcp-session-id")?
        .to_str()
        .ok()
}

/// The `network.transport` of a request: `tcp` (streamable HTTP) or `pipe` (stdio).
pub(super) fn transport(context: &RequestContext<RoleServer>) -> &'static str {
    if context
        .extensions
        .get::<axum::http::request::Parts>()
        .is_some()
    {
        "tcp"
    } else {
        "pipe"
    }
}
