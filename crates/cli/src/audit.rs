//! What the audit's commands share (`commands/audit.rs`, `stats.rs`, `report.rs`: `stats` and
//! `report` count both of the user's logs, [`UserLog`]) and the
//! `--audit-redact` flag of the commands that write the audit log (`run`, `chat`, `eval`,
//! `serve`): the log's settings, the `--since` time, the skills that could have been used.

use std::sync::Arc;
use std::time::SystemTime;

use anyhow::Context as _;
use skillful_agent::AuditSettings;
use skillful_audit::{AuditLog, AuditRecord, FileAuditSink, UserLog, parse_since};
use skillful_core::SourceContext;

use crate::UsageError;
use crate::inspect::Roots;

/// How the commands that run skills audit their calls.
#[derive(Debug, clap::Args)]
pub(crate) struct AuditFlags {
    /// Keep only a digest of each tool call's arguments in the audit log, not the arguments.
    #[arg(long)]
    audit_redact: bool,
}

impl AuditFlags {
    /// The settings of the user's audit log `log` for `host`.
    pub(crate) fn settings(&self, host: &str, log: UserLog) -> anyhow::Result<AuditSettings> {
        let sink = FileAuditSink::per_user_log(log).context("cannot use the per-user audit log")?;
        Ok(AuditSettings::new(Arc::new(sink), host).redact(self.audit_redact))
    }
}

/// The time `--since` names, as the records write times; a usage error otherwise.
pub(crate) fn since(text: Option<&str>) -> anyhow::Result<Option<String>> {
    text.map(|text| parse_since(text, SystemTime::now()))
        .transpose()
        .map_err(|error| UsageError(error.to_string()).into())
}

/// What usage is counted over (`skills stats`, `skills report`): the `--since` time, the
/// records of the user's audit log, and the names of the skills under `roots` (sorted), which
/// could have been used.
pub(crate) struct Usage {
    pub(crate) since: Option<String>,
    pub(crate) records: Vec<AuditRecord>,
    pub(crate) known: Vec<String>,
}

impl Usage {
    /// The usage from `since_text` (as `--since` gives it) on, over the skills under `roots`.
    pub(crate) async fn read(since_text: Option<&str>, roots: &Roots) -> anyhow::Result<Self> {
        let since = since(since_text)?;
        // A skill used through `skills serve` is used too: both logs, in time order.
        let mut records = Vec::new();
        for log in UserLog::ALL {
            records.extend(AuditLog::per_user_log(log)?.records()?);
        }
        records.sort_by(|a, b| a.time.cmp(&b.time));
        Ok(Self {
            since,
            records,
            known: known_skills(roots).await?,
        })
    }
}

/// The names of the skills under `roots` (sorted), which could have been used.
pub(crate) async fn known_skills(roots: &Roots) -> anyhow::Result<Vec<String>> {
    let composition = roots.compose()?;
    let mut known: Vec<String> = composition
        .source()
        .skills(&SourceContext::default())
        .await?
        .iter()
        .map(|skill| skill.name().to_owned())
        .collect();
    known.sort();
    Ok(known)
}
