//! `skills audit`, `skills stats` and `skills report`: the audit log of skill tool calls, read
//! back and checked, usage per skill from it, and the HTML report of usage and evaluations
//! (`skillful-report`); the `--audit-redact` flag of the commands that write it.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use anyhow::Context as _;
use skillful_agent::AuditSettings;
use skillful_audit::{AuditLog, AuditRecord, FileAuditSink, Stats, parse_since};
use skillful_core::SourceContext;
use skillful_core::text::one_line;
use skillful_eval::History;
use skillful_report::Report;

use crate::inspect::Roots;
use crate::output;
use crate::{Outcome, UsageError};

/// How the commands that run skills audit their calls.
#[derive(Debug, clap::Args)]
pub(crate) struct AuditFlags {
    /// Keep only a digest of each tool call's arguments in the audit log, not the arguments.
    #[arg(long)]
    audit_redact: bool,
}

impl AuditFlags {
    /// The settings of the user's audit log for `host`.
    pub(crate) fn settings(&self, host: &str) -> anyhow::Result<AuditSettings> {
        let sink = FileAuditSink::per_user().context("cannot use the per-user audit log")?;
        Ok(AuditSettings::new(Arc::new(sink), host).redact(self.audit_redact))
    }
}

/// Which records to show.
#[derive(Debug, clap::Args)]
pub(crate) struct AuditArgs {
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
}

/// What `skills stats` counts.
#[derive(Debug, clap::Args)]
pub(crate) struct StatsArgs {
    /// Only records from this time on (as for `skills audit --since`).
    #[arg(long, value_name = "T")]
    since: Option<String>,
    /// Print the statistics as JSON.
    #[arg(long)]
    json: bool,
    /// The skills that could have been used are those under these roots (as `skills list`).
    #[command(flatten)]
    roots: Roots,
}

/// What `skills report` shows and where it goes.
#[derive(Debug, clap::Args)]
pub(crate) struct ReportArgs {
    /// Where the page is written (mode 0600), `-` for stdout. Default: `report.html` in your
    /// state directory (`~/.local/state/skillful/report.html`).
    #[arg(long, value_name = "FILE.html")]
    out: Option<PathBuf>,
    /// Usage only from this time on (as for `skills audit --since`); evaluations are all shown.
    #[arg(long, value_name = "T")]
    since: Option<String>,
    /// Eval workspaces to show: a workspace (`skills eval --workspace DIR`) or a directory of
    /// them. Default: those `skills eval` keeps in your state directory
    /// (`~/.local/state/skillful/eval`).
    #[arg(long = "evals", value_name = "DIR")]
    evals: Vec<PathBuf>,
    /// The skills that could have been used are those under these roots (as `skills list`).
    #[command(flatten)]
    roots: Roots,
}

fn since(text: Option<&str>) -> anyhow::Result<Option<String>> {
    text.map(|text| parse_since(text, SystemTime::now()))
        .transpose()
        .map_err(|error| UsageError(error.to_string()).into())
}

pub(crate) fn audit(args: AuditArgs) -> anyhow::Result<Outcome> {
    let log = AuditLog::per_user()?;
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

/// The names of the skills under `roots`, sorted.
async fn known_skills(roots: &Roots) -> anyhow::Result<Vec<String>> {
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

pub(crate) async fn stats(args: StatsArgs) -> anyhow::Result<Outcome> {
    let since = since(args.since.as_deref())?;
    let records = AuditLog::per_user()?.records()?;
    let known = known_skills(&args.roots).await?;
    let stats = Stats::from_records(&records, since.as_deref(), &known);
    let mut out = output::stdout();
    if args.json {
        out.json(&stats)?;
        return Ok(Outcome::Ok);
    }
    writeln!(
        out,
        "{:<28} {:>6} {:>6} {:>6} {:>6} {:>9} {:>9} {:>8}  LAST USED",
        "SKILL", "ACTIV", "CALLS", "FAILED", "REFUSED", "MEDIAN", "P95", "TOKENS"
    )?;
    for (name, skill) in &stats.skills {
        let activations: u64 = skill.activations.values().sum();
        let calls: u64 = skill.calls.values().sum();
        let ms = |value: Option<f64>| value.map_or("-".to_owned(), |ms| format!("{ms:.1} ms"));
        writeln!(
            out,
            "{:<28} {activations:>6} {calls:>6} {:>6} {:>6} {:>9} {:>9} {:>8}  {}",
            one_line(name),
            skill.failures,
            skill.refusals,
            ms(skill.median_ms),
            ms(skill.p95_ms),
            skill.tokens,
            skill.last_used.as_deref().unwrap_or("-")
        )?;
    }
    if !stats.unused.is_empty() {
        writeln!(
            out,
            "never used{}: {}",
            since
                .map(|since| format!(" since {since}"))
                .unwrap_or_default(),
            one_line(&stats.unused.join(", "))
        )?;
    }
    Ok(Outcome::Ok)
}

pub(crate) async fn report(args: ReportArgs) -> anyhow::Result<Outcome> {
    let since = since(args.since.as_deref())?;
    let records = AuditLog::per_user()?.records()?;
    let known = known_skills(&args.roots).await?;
    let dirs = if args.evals.is_empty() {
        vec![History::default_dir()?]
    } else {
        args.evals
    };
    let mut evals = Vec::new();
    for dir in &dirs {
        evals.extend(History::all_in(dir)?);
    }
    let html = Report::new(
        &records,
        since.as_deref(),
        &known,
        &evals,
        SystemTime::now(),
    )
    .html();
    let path = match args.out {
        Some(path) if path.as_os_str() == "-" => {
            // Through the terminal writer, as everything on stdout: the page's text is escaped
            // HTML already, so only a control character a name carried changes.
            let mut out = output::stdout();
            write!(out, "{html}")?;
            out.flush()?;
            return Ok(Outcome::Ok);
        }
        Some(path) => {
            skillful_state::write_atomic(&path, html.as_bytes(), 0o600)?;
            path
        }
        None => {
            let path = skillful_state::Dirs::per_user()?
                .state()
                .join("report.html");
            skillful_state::write_private(&path, html.as_bytes())?;
            path
        }
    };
    writeln!(
        output::stdout(),
        "{}",
        one_line(&path.display().to_string())
    )?;
    Ok(Outcome::Ok)
}
