//! `skills update`: each locked git skill fetched again, its changes and scan shown, and
//! installed in place when allowed.

use anyhow::Context;
use skillful_core::text::one_line;
use skillful_install::{Selection, SkillUpdate, UpdateReport};

use crate::supply::{InstallFlags, ScopeArgs, install, outcome_of, require_trusted_lock};
use crate::{Outcome, output};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The skills to update (all locked git skills when none).
    names: Vec<String>,
    /// Print one JSON document on stdout (schema: update.schema.json in the book). Never asks:
    /// without --yes the first changed skill is left as it is (exit 2).
    #[arg(long)]
    json: bool,
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
    let mut report = UpdateReport::default();
    let mut outcome = Ok(Outcome::Ok);
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
        let mut update = SkillUpdate {
            name: name.clone(),
            locked: entry.commit.clone(),
            latest: prepared.commit.clone(),
            installation: None,
        };
        if prepared.commit == entry.commit {
            if !args.json {
                writeln!(output::stdout(), "{}: up to date", one_line(name))?;
            }
            report.skills.push(update);
            continue;
        }
        let replaces = installer.replacements(&prepared)?;
        if !args.json
            && let Some(candidate) = prepared.candidates.first()
        {
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
        let installation = install(
            vec![(&installer, replaces)],
            &prepared,
            &args.install,
            args.json,
        )?
        .remove(0);
        let ended = outcome_of(installation.outcome);
        update.installation = Some(installation);
        report.skills.push(update);
        match ended {
            Ok(Outcome::Ok) => {}
            Ok(other) => outcome = Ok(other),
            Err(error) => {
                // Nothing further is asked: the report so far, then the error.
                outcome = Err(error);
                break;
            }
        }
    }
    if args.json {
        output::stdout().json(&report)?;
    }
    outcome
}
