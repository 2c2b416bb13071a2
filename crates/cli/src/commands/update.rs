//! `skills update`: each locked git skill fetched again, its changes and scan shown, and
//! installed in place when allowed.

use anyhow::Context;
use skillful_core::text::one_line;
use skillful_install::Selection;

use crate::supply::{InstallFlags, ScopeArgs, install, require_trusted_lock};
use crate::{Outcome, output};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The skills to update (all locked git skills when none).
    names: Vec<String>,
    #[command(flatten)]
    install: InstallFlags,
    #[command(flatten)]
    scope: ScopeArgs,
}

/// Runs `skills update`.
pub(crate) fn run(args: Args) -> anyhow::Result<Outcome> {
    require_trusted_lock(&args.scope, "update")?;
    let installer = args.scope.installer()?;
    let lock = installer.lock()?;
    let mut outcome = Outcome::Ok;
    for (name, entry) in &lock.skills {
        if entry.source_type != "git" || !(args.names.is_empty() || args.names.contains(name)) {
            continue;
        }
        let source = installer.locked_source(name, entry, false)?;
        let selection = Selection {
            skills: vec![name.clone()],
            path: (entry.path != ".").then(|| entry.path.clone()),
        };
        let prepared = installer
            .prepare(source, &selection)
            .with_context(|| format!("updating {name}"))?;
        if prepared.commit == entry.commit {
            writeln!(output::stdout(), "{}: up to date", one_line(name))?;
            continue;
        }
        if let Some(candidate) = prepared.candidates.first() {
            let diff = candidate.manifest.diff(&entry.files);
            writeln!(
                output::stdout(),
                "{}: {} added, {} removed, {} changed file(s)",
                one_line(name),
                diff.added.len(),
                diff.removed.len(),
                diff.changed.len()
            )?;
        }
        if let Outcome::Invalid = install(&installer, &prepared, &args.install, true)? {
            outcome = Outcome::Invalid;
        }
    }
    Ok(outcome)
}
