//! One span per MCP request the server answers, in the OpenTelemetry MCP conventions (the
//! `#[instrument]`s of the `ServerHandler` methods): `{mcp.method.name} {target}` (kind
//! SERVER; the target is the resource or skill URI) with `mcp.method.name`, `mcp.session.id`
//! (over streamable HTTP), `mcp.resource.uri`, `jsonrpc.request.id`, `network.transport`; a
//! failed request's error is an event on its span (its status: error).

use rmcp::service::{RequestContext, RoleServer};

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
