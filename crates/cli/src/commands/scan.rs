//! `skills scan`: runs the scanner over skills and prints its findings as a table, JSON or
//! SARIF; exits 1 when a finding is at or above `--fail-on`.

use std::io::{self, Write};

use crate::output::{self, Writer};
use std::path::PathBuf;

use skillful_core::text::one_line;
use skillful_scan::{Report, Severity};

use crate::{Outcome, UsageError};

#[derive(Debug, clap::Args)]
pub(crate) struct ScanArgs {
    /// Print the report as JSON (`{findings, skills, files, bytes}`).
    #[arg(long, conflicts_with = "sarif")]
    json: bool,
    /// Print the report as SARIF 2.1.0 (for code scanning).
    #[arg(long)]
    sarif: bool,
    /// Exit 1 when a finding is at or above this severity: low, medium, high, critical.
    #[arg(long, value_name = "SEVERITY", default_value = "high")]
    fail_on: Severity,
    /// Skill directories, directories holding skills, or single files.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
}

pub(crate) fn scan(args: ScanArgs) -> anyhow::Result<Outcome> {
    let report = skillful_scan::scan_paths(&args.paths).map_err(|e| UsageError(e.to_string()))?;
    let mut out = output::stdout();
    if args.sarif {
        out.json(&report.to_sarif())?;
    } else if args.json {
        out.json(&report.to_json())?;
    } else {
        print_table(&mut out, &report)?;
    }
    Ok(if report.at_or_above(args.fail_on).next().is_some() {
        Outcome::Invalid
    } else {
        Outcome::Ok
    })
}

/// One line per finding: severity, rule, `file:line:column`, message; then a summary line.
pub(crate) fn print_table<W: Write>(out: &mut Writer<W>, report: &Report) -> io::Result<()> {
    for finding in &report.findings {
        writeln!(
            out,
            "{:<8} {} {:<30} {}:{}:{}  {}",
            finding.severity.as_str(),
            finding.rule_id,
            finding.rule_name,
            one_line(&finding.file),
            finding.line,
            finding.column,
            one_line(&finding.message)
        )?;
    }
    let count = |severity| {
        report
            .findings
            .iter()
            .filter(|finding| finding.severity == severity)
            .count()
    };
    writeln!(
        out,
        "{} skill(s), {} file(s) scanned: {} critical, {} high, {} medium, {} low",
        report.skills,
        report.files,
        count(Severity::Critical),
        count(Severity::High),
        count(Severity::Medium),
        count(Severity::Low)
    )
}
