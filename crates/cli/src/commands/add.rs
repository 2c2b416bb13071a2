//! `skills add`: skills from a git repository or a directory, scanned and shown, then installed
//! into a scope's skills directory and recorded in its `skills-lock.json` (the logic is
//! `skillful-install`'s).

use skillful_install::{Selection, Source};

use crate::supply::{InstallFlags, ScopeArgs, install};
use crate::{Outcome, UsageError};

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
    #[command(flatten)]
    install: InstallFlags,
    #[command(flatten)]
    scope: ScopeArgs,
}

/// Runs `skills add`.
pub(crate) fn run(args: Args) -> anyhow::Result<Outcome> {
    let installer = args.scope.installer()?;
    let source = Source::parse(&args.source).map_err(|e| UsageError(e.to_string()))?;
    let selection = Selection {
        skills: args.skills,
        path: args.path,
    };
    let prepared = installer.prepare(source, &selection)?;
    install(&installer, &prepared, &args.install, false)
}
