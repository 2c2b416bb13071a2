//! `skills add`: skills from a git repository or a directory, scanned and shown, then installed
//! into a scope's skills directory and recorded in its `skills-lock.json` (the logic is
//! `skillful-install`'s).

use skillful_core::text::one_line;
use skillful_install::{Candidate, Prepared, Selection, Source};

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
    install(&installer, &prepared, &args.install, false)
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
