//! `skills audit`: the audit log of skill tool calls, read back (filtered by time, session or
//! skill) or its hash chain checked.

use skillful_audit::{AuditLog, AuditRecord, UserLog};
use skillful_core::text::one_line;

use crate::Outcome;
use crate::audit::since;
use crate::output;

/// Which records to show.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Only records from this time on: RFC 3339 in UTC (2026-12-01T10:00:00Z), a date
    /// (2026-12-01), or a span back from now (30m, 12h, 7d, 2w).
    #[arg(long, value_name = "T")]
    since: Option<String>,
    /// Only the records of this session.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Only the records naming this skill.
    #[arg(long, value_name = "NAME")]
    skill: Option<String>,
    /// Print the records as JSON lines, as stored.
    #[arg(long)]
    json: bool,
    /// Check the hash chain instead: every record whole, numbered in order and holding the
    /// digest of the one before. Names the first broken record and exits 1.
    #[arg(long, conflicts_with_all = ["since", "session", "skill", "json"])]
    verify: bool,
    /// Which log: the agent's (run, chat, eval) or the one `skills serve` records its
    /// clients' skill calls in, kept apart so that a server's clients cannot rotate away the
    /// history of your own runs.
    #[arg(long, value_enum, default_value_t = Log::Agent)]
    log: Log,
}

/// `--log`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Log {
    Agent,
    Serve,
}

impl From<Log> for UserLog {
    fn from(log: Log) -> Self {
        match log {
            Log::Agent => UserLog::Agent,
            Log::Serve => UserLog::Serve,
        }
    }
}

/// Runs `skills audit`.
pub(crate) fn run(args: Args) -> anyhow::Result<Outcome> {
    let log = AuditLog::per_user_log(args.log.into())?;
    if args.verify {
        return verify(&log);
    }
    let since = since(args.since.as_deref())?;
    let mut out = output::stdout();
    for record in log.records()? {
        let event = &record.event;
        let skill = event.skill.as_ref().map(|skill| skill.name.as_str());
        if since
            .as_deref()
            .is_some_and(|since| record.time.as_str() < since)
            || args
                .session
                .as_ref()
                .is_some_and(|id| event.session.as_ref() != Some(id))
            || args
                .skill
                .as_deref()
                .is_some_and(|name| skill != Some(name))
        {
            continue;
        }
        if args.json {
            writeln!(out, "{}", serde_json::to_string(&record)?)?;
        } else {
            writeln!(out, "{}", summary(&record))?;
        }
    }
    Ok(Outcome::Ok)
}

/// One line for a person: time, number, event, tool, skill and script, decision.
fn summary(record: &AuditRecord) -> String {
    let event = &record.event;
    let kind = serde_json::to_value(event.event)
        .ok()
        .and_then(|value| value.as_str().map(str::to_owned))
        .unwrap_or_default();
    let mut line = format!("{} #{} {kind}", record.time, record.seq);
    if let Some(tool) = &event.tool {
        line.push_str(&format!(" {tool}"));
    }
    if let Some(skill) = &event.skill {
        line.push_str(&format!(" {}", skill.name));
    }
    if let Some(script) = &event.script {
        line.push_str(&format!("/{script}"));
    }
    if let (Some(decision), Some(by)) = (&event.decision, &event.decided_by) {
        line.push_str(&format!(" {decision} by {by}"));
    }
    if let Some(code) = event.exit_code {
        line.push_str(&format!(" exit {code}"));
    }
    if let Some(micros) = event.duration_us {
        line.push_str(&format!(" {:.1} ms", micros as f64 / 1000.0));
    }
    if let Some(tokens) = event.tokens {
        line.push_str(&format!(" tokens {}+{}", tokens.input, tokens.output));
    }
    if let Some(session) = &event.session {
        line.push_str(&format!(" session {session}"));
    }
    one_line(&line).into_owned()
}

fn verify(log: &AuditLog) -> anyhow::Result<Outcome> {
    let verification = log.verify()?;
    let from = match verification.first_seq {
        Some(first) if first > 0 => {
            format!(" (from record {first}; older files were rotated away)")
        }
        _ => String::new(),
    };
    match verification.broken {
        None => {
            writeln!(
                output::stdout(),
                "ok: {} record{} verify{from}",
                verification.verified,
                if verification.verified == 1 { "" } else { "s" }
            )?;
            Ok(Outcome::Ok)
        }
        Some(broken) => {
            let mut err = output::stderr();
            writeln!(
                err,
                "skills: the audit log is broken: {}",
                one_line(&broken.to_string())
            )?;
            writeln!(
                err,
                "skills: {} record{} before it verify{from}",
                verification.verified,
                if verification.verified == 1 { "" } else { "s" }
            )?;
            Ok(Outcome::Invalid)
        }
    }
}
