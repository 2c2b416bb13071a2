//! `skills outdated`: the locked git skills whose files differ at the commit their ref points
//! at now, each with the files that differ (exit 1 when any does).

use skillful_core::text::one_line;
use skillful_install::OutdatedReport;

use crate::supply::{ScopeArgs, changed_files, require_trusted_lock};
use crate::{Outcome, output};

/// The help of `--json`, naming this command's schema.
const JSON_HELP: &str = "Print one JSON document on stdout (schema: outdated.schema.json in the \
    book); the exit  code is the same.";

#[derive(Debug, clap::Args)]
#[command(mut_arg("json", |json| json.help(JSON_HELP)))]
pub(crate) struct Args {
    #[command(flatten)]
    scope: ScopeArgs,
}

/// Runs `skills outdated`.
pub(crate) fn run(args: Args) -> anyhow::Result<Outcome> {
    require_trusted_lock(&args.scope, "outdated")?;
    let installer = args.scope.installer()?;
    let outdated = installer.outdated()?;
    let mut out = output::stdout();
    let status = if outdated.is_empty() {
        Outcome::Ok
    } else {
        Outcome::Invalid
    };
    if args.scope.json {
        out.json(&OutdatedReport {
            lock: installer.lock_path().to_owned(),
            skills: outdated,
        })?;
        return Ok(status);
    }
    for entry in &outdated {
        writeln!(
            out,
            "{}: {} -> {} ({})",
            one_line(&entry.name),
            entry.locked,
            entry.latest,
            changed_files(&entry.changes)
        )?;
    }
    Ok(status)
}
