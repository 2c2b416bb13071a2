//! `skills stats`: usage per skill from the audit log, and the skills never used.

use skillful_audit::Stats;
use skillful_core::text::one_line;

use crate::Outcome;
use crate::audit::Usage;
use crate::inspect::Roots;
use crate::output;

/// What `skills stats` counts.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
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

/// Runs `skills stats`.
pub(crate) async fn run(args: Args) -> anyhow::Result<Outcome> {
    let usage = Usage::read(args.since.as_deref(), &args.roots).await?;
    let stats = Stats::from_records(&usage.records, usage.since.as_deref(), &usage.known);
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
            usage
                .since
                .map(|since| format!(" since {since}"))
                .unwrap_or_default(),
            one_line(&stats.unused.join(", "))
        )?;
    }
    Ok(Outcome::Ok)
}
