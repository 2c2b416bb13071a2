//! Decorators over any [`ChatClient`](skillful_chat::ChatClient), each a client wrapping another:
//!
//! - [`EnsureUserMessage`]: puts the conversation's last user query back into a request that has
//!   none, for local engines whose chat templates demand one;
//! - [`FunctionInvocation`]: the model → tools → model loop, with concurrent calls, errors fed
//!   back to the model, a repeated-failure breaker, a guard against identical calls, and **tool
//!   approval** through an [`ApprovalPolicy`] (calls held back as approval requests, resumed
//!   with the answers and decided again, approvals given for good kept by the policy, never
//!   read from the history), and a [`CallObserver`] told what became of every call (the
//!   decision, who made it, the result), for an audit log; the loop decides, runs and records
//!   its calls through a [`CallRunner`], which a caller's own calls (a runtime's activation, a
//!   guided strategy) go through too;
//! - [`Tracing`]: a `tracing` span per model call (tool calls get theirs from the loop), in the
//!   OpenTelemetry GenAI conventions ([`execute_tool_span`] names the attributes).
//!
//! Each has a [`Layer`] that builds it. A typical stack, outermost first:
//! `FunctionInvocation → EnsureUserMessage → Tracing → OpenAiClient`, so every model call of the
//! loop is checked for a user query and traced.
//!
//! **It knows nothing of skills**: tools are `skillful_chat::Tool`s, and which of them may run
//! without asking is the policy's business, supplied by the caller.
//!
//! # Example
//! ```
//! use skillful_chat::OpenAiClient;
//! use skillful_decorators::{EnsureUserMessageLayer, FunctionInvocationLayer, Layer, TracingLayer};
//!
//! let base = OpenAiClient::builder("http://127.0.0.1:1234/v1").build().unwrap();
//! let client = FunctionInvocationLayer::new()
//!     .layer(EnsureUserMessageLayer.layer(TracingLayer::new().layer(base)));
//! # let _ = client;
//! ```

#![forbid(unsafe_code)]

mod approval;
mod calls;
mod ensure_user;
mod identity;
mod invocation;
mod layer;
mod observe;
mod trace;

pub use approval::{ApprovalPolicy, Decision, RememberError, pending_approvals};
pub use calls::{CallEnd, CallRunner, Calls, Verdict, not_approved, refused};
pub use ensure_user::{
    DEFAULT_REMEMBERED_CONVERSATIONS, EnsureUserMessage, EnsureUserMessageLayer,
};
pub use invocation::{FunctionInvocation, FunctionInvocationLayer, Limits};
pub use layer::Layer;
pub use observe::{ApprovedBy, CallActor, CallEvent, CallObserver, CallOutcome, RefusedBy};
pub use trace::{
    PROVIDER_NAME, Tracing, TracingLayer, execute_tool_span, record_error, record_tool_result,
    record_usage,
};

#[cfg(test)]
mod tests {
    /// Of the workspace, the decorators know `skillful-chat` alone: which tools may run is the
    /// policy's business, supplied by the caller.
    #[test]
    fn the_decorators_link_the_chat_crate_alone() {
        assert_eq!(
            skillful_test_support::skillful_dependencies(include_str!("../Cargo.toml")),
            ["skillful-chat"]
        );
    }
}
