//! `skills add`: skills from a git repository or a directory, scanned and shown, then installed
//! into a scope's skills directory (or each `--agent`'s) and recorded in its `skills-lock.json`
//! (the logic is `skillful-install`'s).

use skillful_core::text::one_line;
use skillful_install::{
    Candidate, InstallError, Installer, Prepared, Replacement, Selection, Source,
};

use crate::supply::{
    InstallFlags, ScopeArgs, changed_files, install, outcome_of, print_file_changes,
};
use crate::{Outcome, UsageError, output};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// A git URL (https://, ssh://, file://, git@host:path; git:// and http:// with a warning
    /// off this machine), owner/repo (GitHub) or a
    /// directory; `@REF` pins a tag, branch or commit (full or abbreviated).
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
    /// Print one JSON document on stdout (schema: add.schema.json in the book; with --list,
    /// add-list.schema.json). Never asks: without --yes nothing is installed (exit 2).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    install: InstallFlags,
    #[command(flatten)]
    scope: ScopeArgs,
}

/// Runs `skills add`.
pub(crate) fn run(args: Args) -> anyhow::Result<Outcome> {
    args.scope.one_report(args.json)?;
    let installers = args.scope.installers()?;
    let installer = &installers[0];
    let (source, page_path) =
        Source::parse_located(&args.source).map_err(|e| UsageError(e.to_string()))?;
    if let Some(scheme) = source.plain_transport()
        && !output::quiet()
    {
        writeln!(
            output::stderr(),
            "skills: warning: {scheme} neither authenticates the server nor encrypts the \
             fetch: anyone on the network path can change what is fetched; prefer https:// or \
             ssh://"
        )?;
    }
    let selection = Selection {
        skills: args.skills,
        path: args.path.or(page_path),
    };
    let prepared = installer.prepare(source, &selection)?;
    if args.list {
        if args.json {
            output::stdout().json(&prepared.offer())?;
        } else {
            list(&prepared)?;
        }
        return Ok(Outcome::Ok);
    }
    let mut targets = Vec::new();
    for installer in &installers {
        let replaces = match installer.replacements(&prepared) {
            Err(error @ InstallError::NotOurs { .. }) => {
                return Err(UsageError(error.to_string()).into());
            }
            result => result?,
        };
        if !args.json {
            say_replaced(installer, &prepared, &replaces)?;
        }
        targets.push((installer, replaces));
    }
    let installations = install(targets, &prepared, &args.install, args.json)?;
    if args.json {
        output::stdout().json(&installations[0])?;
    }
    outcome_of(installations[0].outcome)
}

/// For each skill that is installed already: what this add changes in it, file by file with
/// the diffs (the add replaces it, as `update` does, after the same question).
fn say_replaced(
    installer: &Installer,
    prepared: &Prepared,
    replaces: &[Replacement],
) -> anyhow::Result<()> {
    let mut out = output::stdout();
    for replacement in replaces {
        writeln!(
            out,
            "{} is installed: this add replaces it ({})",
            one_line(&replacement.name),
            changed_files(&replacement.changes)
        )?;
        if let Some(candidate) = prepared
            .candidates
            .iter()
            .find(|candidate| candidate.name == replacement.name)
        {
            print_file_changes(&mut out, &installer.file_changes(candidate)?)?;
        }
    }
    Ok(())
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
        let verdict = candidate.verdict();
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
