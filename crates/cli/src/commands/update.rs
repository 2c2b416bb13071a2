//! `skills update`: each locked git skill fetched again; one whose files differ from the lock
//! has the changed files named, their unified diffs and its scan verdict shown, and is installed
//! in place when allowed.

use anyhow::Context;
use skillful_core::text::one_line;
use skillful_install::{Selection, SkillUpdate, UpdateReport};

use crate::supply::{
    InstallFlags, ScopeArgs, changed_files, install, outcome_of, print_file_changes,
    require_trusted_lock,
};
use crate::{Outcome, output};

/// The help of `--json`, naming this command's schema.
const JSON_HELP: &str = "Print one JSON document on stdout (schema: update.schema.json in the \
    book). Never asks:  without --yes the first changed skill is left as it \
    is (exit 2).";

#[derive(Debug, clap::Args)]
#[command(mut_arg("json", |json| json.help(JSON_HELP)))]
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
        let Some(candidate) = prepared.candidates.first() else {
            continue;
        };
        if candidate.manifest.digest() == entry.digest {
            if !args.scope.json {
                let mut out = output::stdout();
                match &prepared.commit {
                    Some(latest) if prepared.commit != entry.commit => writeln!(
                        out,
                        "{}: up to date (the same files at {latest})",
                        one_line(name)
                    )?,
                    _ => writeln!(out, "{}: up to date", one_line(name))?,
                }
            }
            report.skills.push(update);
            continue;
        }
        let replaces = installer.replacements(&prepared)?;
        if !args.scope.json {
            let mut out = output::stdout();
            writeln!(
                out,
                "{}: {} -> {}: {}",
                one_line(name),
                entry.commit.as_deref().unwrap_or("?"),
                prepared.commit.as_deref().unwrap_or("?"),
                changed_files(&candidate.manifest.diff(&entry.files))
            )?;
            print_file_changes(&mut out, &installer.file_changes(candidate)?)?;
        }
        let installation = install(
            vec![(&installer, replaces)],
            &prepared,
            &args.install,
            args.scope.json,
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
    if args.scope.json {
        output::stdout().json(&report)?;
    }
    outcome
}
