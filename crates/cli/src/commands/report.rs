//! `skills report`: the HTML report of usage (from the audit log) and evaluations
//! (`skillful-report`).

use std::path::PathBuf;
use std::time::SystemTime;

use skillful_core::text::one_line;
use skillful_eval::{Comparison, EvalRecord, History};
use skillful_report::Report;

use crate::Outcome;
use crate::audit::Usage;
use crate::inspect::Roots;
use crate::output;

/// What `skills report` shows and where it goes.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
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

/// Runs `skills report`.
pub(crate) async fn run(args: Args) -> anyhow::Result<Outcome> {
    let usage = Usage::read(args.since.as_deref(), &args.roots).await?;
    let dirs = if args.evals.is_empty() {
        vec![History::default_dir()?]
    } else {
        args.evals
    };
    let mut evals = Vec::new();
    let mut comparisons = Vec::new();
    for dir in &dirs {
        evals.extend(History::all_in(dir)?);
        comparisons.extend(Comparison::all_in(dir)?);
    }
    let html = Report::new(
        &usage.records,
        usage.since.as_deref(),
        &usage.known,
        &evals,
        SystemTime::now(),
    )
    .with_record(EvalRecord::per_user()?.summaries()?)
    .with_comparisons(comparisons)
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
            skillful_fs::write_atomic(&path, html.as_bytes(), 0o600)?;
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
