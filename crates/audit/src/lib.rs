//! A tamper-evident audit log of skill tool calls, and usage statistics from it.
//!
//! Every skill tool call a host decides on (run, held for approval, refused, rejected) becomes an
//! [`AuditEvent`]: who (user, session, host command), what (tool, skill with its origin and
//! digest, script, a digest of the arguments and, unless redacted, the arguments), the decision
//! and who made it, the sandbox profile, the exit code, the duration and a digest of the result.
//! An [`AuditSink`] takes them; [`FileAuditSink`] appends them to the user's log as JSON lines,
//! each holding the sha256 of the previous record's canonical JSON ([`canonical_json`]), each
//! flushed to disk before [`AuditSink::record`] returns, or by the next [`AuditSink::sync`]
//! after [`AuditSink::append`] (for a host that must not wait for the disk, as the agent's tool
//! calls do not). [`AuditLog`] reads the log back and
//! [`AuditLog::verify`] names the first record that breaks the chain (edited, removed,
//! reordered, torn by a crash). [`Stats`] summarises usage per skill.
//!
//! A bare chain cannot show that records were cut off its end: keep a copy of the last digest
//! elsewhere (or ship records to another sink) when that matters.
//!
//! It knows files and records, not skills, tools or models: hosts (`skillful-agent`) fill the
//! events in.
//!
//! # Example
//! ```
//! use skillful_audit::{Actor, AuditEvent, AuditLog, AuditSink, EventKind, FileAuditSink};
//!
//! # let temp = tempfile::tempdir().unwrap();
//! let sink = FileAuditSink::at(temp.path().join("audit")).unwrap();
//! let mut event = AuditEvent::new(EventKind::ToolCall, "ada", "my-host", Actor::Model);
//! event.tool = Some("load_skill".to_owned());
//! sink.record(event).unwrap();
//!
//! let log = AuditLog::at(temp.path().join("audit"));
//! assert_eq!(log.records().unwrap().len(), 1);
//! assert!(log.verify().unwrap().broken.is_none());
//! ```

#![forbid(unsafe_code)]

mod canonical;
mod error;
mod log;
mod record;
mod settings;
mod stats;
mod time;

pub use canonical::{canonical_json, json_digest};
pub use error::AuditError;
pub use log::{
    AuditLog, AuditSink, Broken, DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_FILES, FileAuditSink, Line,
    MAX_ARGS_BYTES, MAX_FIELD_CHARS, UserLog, Verification,
};
pub use record::{Actor, AuditEvent, AuditRecord, EventKind, SkillRef, Tokens, current_user};
pub use settings::AuditSettings;
pub use skillful_fs::sha256_hex;
pub use stats::{SkillStats, Stats};
pub use time::{format_time, parse_since};

#[cfg(test)]
mod tests {
    /// Of the workspace, the audit log links `skillful-state` alone: it knows files and records, not
    /// skills, tools or models.
    #[test]
    fn the_audit_log_links_files_and_state_alone() {
        assert_eq!(
            skillful_test_support::skillful_dependencies(include_str!("../Cargo.toml")),
            ["skillful-fs", "skillful-state"]
        );
    }
}
