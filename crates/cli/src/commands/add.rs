//! `skills add`: skills from a git repository or a directory, scanned and shown, then installed
//! into a scope's skills directory and recorded in its `skills-lock.json` (the logic is
//! `skillful-install`'s).

use skillful_core::text::one_line;
use skillful_install::{Candidate, Installer, Prepared, Selection, Source};

use crate::supply::{InstallFlags, ScopeArgs, install};
use crate::{Outcome, UsageError, output};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// A git URL (https://, ssh://, file://, git@host:path), owner/repo (GitHub) or a
    /// directory; `@REF` pins a tag, branch or commit.
    source: String,
    /// Only the skill of this name, or in a directory of this name (repeatable; `*` for all).
    /// A name the source does not have fails, naming the nearest one it has.
    #[arg(long = "skill", value_name = "NAME")]
    skills: Vec<String>,
    /// Only the skills below this directory of the source.
    #[arg(long, value_name = "SUBDIR")]
    path: Option<String>,
    /// List what the source offers (name, directory, scan verdict, description); install
    /// nothing.
    #[arg(long)]
    list: bool,
    #[command(flatten)]
    install: InstallFlags,
    #[command(flatten)]
    scope: ScopeArgs,
}

/// Runs `skills add`.
pub(crate) fn run(args: Args) -> anyhow::Result<Outcome> {
    let installer = args.scope.installer()?;
    let (source, page_path) =
        Source::parse_located(&args.source).map_err(|e| UsageError(e.to_string()))?;
    let selection = Selection {
        skills: args.skills,
        path: args.path.or(page_path),
    };
    let prepared = installer.prepare(source, &selection)?;
    if args.list {
        list(&prepared)?;
        return Ok(Outcome::Ok);
    }
    let replace = say_replaced(&installer, &prepared)?;
    install(&installer, &prepared, &args.install, replace)
}

/// For each skill `prepared` holds that is installed already: what this add changes in it.
/// Whether any is (then the add replaces it, as `update` does, after the same question). A
/// directory of that name the lock does not know is not skillful's to replace: refused.
fn say_replaced(installer: &Installer, prepared: &Prepared) -> anyhow::Result<bool> {
    let lock = installer.lock()?;
    let mut replace = false;
    let mut out = output::stdout();
    for candidate in &prepared.candidates {
        let target = installer.skills_dir().join(&candidate.name);
        if std::fs::symlink_metadata(&target).is_err() {
            continue;
        }
        let Some(entry) = lock.skills.get(&candidate.name) else {
            return Err(UsageError(format!(
                "{} exists and was not installed by `skills add` (the lock does not list it); \
                 move it away or remove it first",
                one_line(&target.display().to_string())
            ))
            .into());
        };
        replace = true;
        let diff = candidate.manifest.diff(&entry.files);
        let named = |kind: &str, paths: &[String]| {
            (!paths.is_empty()).then(|| format!("{kind} {}", one_line(&paths.join(", "))))
        };
        let changes: Vec<String> = [
            named("added", &diff.added),
            named("removed", &diff.removed),
            named("changed", &diff.changed),
        ]
        .into_iter()
        .flatten()
        .collect();
        writeln!(
            out,
            "{} is installed: this add replaces it ({})",
            one_line(&candidate.name),
            if changes.is_empty() {
                "no file changes".to_owned()
            } else {
                changes.join("; ")
            }
        )?;
    }
    Ok(replace)
}

/// One line per skill the source offers: name, directory, the scan's verdict, description.
fn list(prepared: &Prepared) -> anyhow::Result<()> {
    let mut out = output::stdout();
    let width = |of: fn(&Candidate) -> &str| {
        prepared
            .candidates
            .iter()
            .map(|candidate| one_line(of(candidate)).chars().count())
            .max()
            .unwrap_or(0)
    };
    let (name_width, path_width) = (width(|c| &c.name), width(|c| &c.path));
    for candidate in &prepared.candidates {
        let verdict = candidate
            .report
            .max_severity()
            .map_or("clean", |severity| severity.as_str());
        writeln!(
            out,
            "{:name_width$}  {:path_width$}  {verdict:8}  {}",
            one_line(&candidate.name),
            one_line(&candidate.path),
            one_line(&candidate.description)
        )?;
    }
    writeln!(
        out,
        "{} skill(s); add one with --skill NAME, all with --skill '*'",
        prepared.candidates.len()
    )?;
    Ok(())
}
