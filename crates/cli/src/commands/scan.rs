//! `skills scan`: runs the scanner over skills and prints its findings as a table, JSON or
//! SARIF; exits 1 when a finding is at or above `--fail-on`.

use std::io::{self, Write};

use crate::output::{self, Tone, Writer};
use std::path::PathBuf;

use skillful_core::text::one_line;
use skillful_scan::{Baseline, Report, Severity, SuppressionKind};

use crate::{Outcome, UsageError};

#[derive(Debug, clap::Args)]
pub(crate) struct ScanArgs {
    /// Print the report as JSON (`{findings, skills, files, bytes, suppressed}`).
    #[arg(long, conflicts_with = "sarif")]
    json: bool,
    /// Print the report as SARIF 2.1.0 (for code scanning).
    #[arg(long)]
    sarif: bool,
    /// Exit 1 when a finding is at or above this severity: low, medium, high, critical.
    #[arg(long, value_name = "SEVERITY", default_value = "high")]
    fail_on: Severity,
    /// Accept the findings this baseline holds: reported as suppressed, never failing.
    #[arg(long, value_name = "FILE", conflicts_with = "write_baseline")]
    baseline: Option<PathBuf>,
    /// Write every finding that counts now to this baseline file, then report them as accepted.
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
    /// List the remarks (severity info) in the table too; they never fail the scan.
    #[arg(short, long)]
    verbose: bool,
    /// Skill directories, directories holding skills, or single files.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
}

pub(crate) fn scan(args: ScanArgs) -> anyhow::Result<Outcome> {
    let mut report =
        skillful_scan::scan_paths(&args.paths).map_err(|e| UsageError(e.to_string()))?;
    if let Some(path) = &args.baseline {
        let baseline = Baseline::read(path).map_err(|e| UsageError(e.to_string()))?;
        report.apply_baseline(&baseline);
    }
    if let Some(path) = &args.write_baseline {
        let baseline = Baseline::of(&report);
        baseline.write(path)?;
        report.apply_baseline(&baseline);
    }
    let mut out = output::stdout();
    if args.sarif {
        out.json(&report.to_sarif())?;
    } else if args.json {
        out.json(&report.to_json())?;
    } else {
        print_table(&mut out, &report, args.verbose)?;
    }
    Ok(if report.at_or_above(args.fail_on).next().is_some() {
        Outcome::Invalid
    } else {
        Outcome::Ok
    })
}

/// The colour of a finding's severity.
fn tone_of(severity: Severity) -> Tone {
    match severity {
        Severity::Critical | Severity::High => Tone::Bad,
        Severity::Medium => Tone::Warning,
        Severity::Low => Tone::Minor,
        _ => Tone::Info,
    }
}

/// One line per finding (a remark, severity info, only when `verbose`): severity (coloured), rule,
/// `file:line:column`, message, and for a suppressed one who accepted it and why; then a summary
/// line counting the findings that count, and the remarks and the suppressed findings when there
/// are any.
pub(crate) fn print_table<W: Write>(
    out: &mut Writer<W>,
    report: &Report,
    verbose: bool,
) -> io::Result<()> {
    for finding in &report.findings {
        if finding.severity == Severity::Info && finding.suppressed.is_none() && !verbose {
            continue;
        }
        let suppressed = match &finding.suppressed {
            Some(suppression) => match suppression.kind {
                SuppressionKind::Inline => {
                    format!("  [suppressed inline: {}]", one_line(&suppression.reason))
                }
                SuppressionKind::Baseline => "  [suppressed: in the baseline]".to_owned(),
            },
            None => String::new(),
        };
        let severity = finding.severity.as_str();
        out.tone(tone_of(finding.severity), severity)?;
        writeln!(
            out,
            "{:pad$} {} {:<30} {}:{}:{}  {}{suppressed}",
            "",
            finding.rule_id,
            finding.rule_name,
            one_line(&finding.file),
            finding.line,
            finding.column,
            one_line(&finding.message),
            pad = 8usize.saturating_sub(severity.len())
        )?;
    }
    let count = |severity| {
        report
            .counted()
            .filter(|finding| finding.severity == severity)
            .count()
    };
    write!(
        out,
        "{} skill(s), {} file(s) scanned: {} critical, {} high, {} medium, {} low",
        report.skills,
        report.files,
        count(Severity::Critical),
        count(Severity::High),
        count(Severity::Medium),
        count(Severity::Low)
    )?;
    let remarks = report.remarks().count();
    if remarks > 0 {
        write!(out, "; {remarks} info, listed by skills scan --verbose")?;
    }
    let suppressed = report.suppressed().count();
    if suppressed > 0 {
        write!(out, "; {suppressed} suppressed")?;
    }
    writeln!(out)
}
