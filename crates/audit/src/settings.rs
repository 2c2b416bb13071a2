//! How a host audits: where records go and what they name.

use std::sync::Arc;

use crate::log::AuditSink;
use crate::record::current_user;

/// Where and how a host audits its skill calls (an agent: `skillful_agent::AgentBuilder::audit`;
/// the MCP server: `skillful_mcp::SkillsMcpServer::with_audit`).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AuditSettings {
    /// Where the records go (the user's log: [`FileAuditSink`](crate::FileAuditSink)).
    pub sink: Arc<dyn AuditSink>,
    /// The host command the records name (`skills run`, or the embedding program's name).
    pub host: String,
    /// The user the records name (default: [`current_user`]).
    pub user: String,
    /// Keep only the arguments' digest, not the arguments (`--audit-redact`).
    pub redact: bool,
}

impl AuditSettings {
    /// Records to `sink` naming `host` and the current user, with the arguments.
    pub fn new(sink: Arc<dyn AuditSink>, host: impl Into<String>) -> Self {
        Self {
            sink,
            host: host.into(),
            user: current_user(),
            redact: false,
        }
    }

    /// Whether the arguments are left out (their digest stays).
    #[must_use]
    pub fn redact(mut self, redact: bool) -> Self {
        self.redact = redact;
        self
    }
}
