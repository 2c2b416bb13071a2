//! `skills trust`: a project (or a directory of projects) trusted in the per-user trust store, or
//! the trusted directories listed.

use std::path::PathBuf;

use skillful_config::{ConfigError, Environment, Risk, TrustStore, shown_path};
use skillful_core::text::one_line;

use crate::{Outcome, UsageError, output};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The directory to trust (a project, or a directory of projects). Default: the repository
    /// root of the working directory, else the project (the directory holding `.agents`), else
    /// the working directory.
    #[arg(value_name = "DIR", conflicts_with = "list")]
    dir: Option<PathBuf>,
    /// Trust it even though it is risky: the home directory or one above it, another user's,
    /// or one every user may write in (the refusal says which).
    #[arg(long, conflicts_with = "list")]
    force: bool,
    /// List the trusted directories instead.
    #[arg(long)]
    list: bool,
    /// With --list: print one JSON document on stdout (schema: trust-list.schema.json in the book).
    #[arg(long, requires = "list")]
    json: bool,
}

/// Runs `skills trust`.
pub(crate) fn run(args: Args) -> anyhow::Result<Outcome> {
    let environment = Environment::from_process()?;
    let mut out = output::stdout();
    if args.list {
        let listing = TrustStore::load(&environment)?.listing();
        if args.json {
            out.json(&listing)?;
            return Ok(Outcome::Ok);
        }
        for entry in &listing.directories {
            let note = match (entry.honoured, entry.forced) {
                (false, _) => "  (recorded by an older version and not honoured: trust it again)",
                (true, true) => "  (trusted with --force)",
                (true, false) => "",
            };
            writeln!(out, "{}{note}", one_line(&entry.dir))?;
        }
        return Ok(Outcome::Ok);
    }
    let dir = args.dir.unwrap_or_else(|| environment.trust_target());
    let trusted = match TrustStore::trust(&environment, &dir, args.force) {
        Err(error @ ConfigError::Risky { .. }) => return Err(UsageError(error.to_string()).into()),
        result => result?,
    };
    let dir = one_line(&shown_path(&trusted.dir)).into_owned();
    if !trusted.risks.is_empty() {
        writeln!(
            output::stderr(),
            "skills: warning: {dir} {}; trusted anyway (--force)",
            Risk::describe(&trusted.risks)
        )?;
    }
    writeln!(
        out,
        "trusted {dir}: the skills (.agents/skills) and settings (.agents/skillful.toml) of {dir} and of the directories below it are loaded from now on, except in repositories of their own below it (a directory holding .git) and in directories of other users; removed and re-created, it is no longer trusted"
    )?;
    for recorded in &trusted.plugins {
        writeln!(
            out,
            "plugin directory recorded: {} (sha256 {}); its plugins are loaded while its files stay as they are now",
            one_line(&shown_path(&recorded.dir)),
            recorded.digest
        )?;
    }
    Ok(Outcome::Ok)
}
