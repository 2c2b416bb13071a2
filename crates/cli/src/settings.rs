//! `skills trust`, `untrust`, `enable` and `disable`: the user's decisions, recorded in the
//! per-user trust store and in the settings files.

use std::path::PathBuf;

use skillful_config::{
    ConfigError, Environment, Risk, Settings, SettingsLevel, TrustStore, shown_path,
};
use skillful_core::text::one_line;

use crate::{Outcome, UsageError, output};

#[derive(Debug, clap::Args)]
pub(crate) struct TrustArgs {
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
}

#[derive(Debug, clap::Args)]
pub(crate) struct UntrustArgs {
    /// The directory to stop trusting, as `skills trust --list` shows it.
    #[arg(value_name = "DIR")]
    dir: PathBuf,
}

#[derive(Debug, clap::Args)]
pub(crate) struct ToggleArgs {
    /// The skill's name (after `--` when it starts with `-`).
    name: String,
    /// Record it in the project's `.agents/skillful.toml` (read only while the project is
    /// trusted).
    #[arg(long, conflicts_with = "user")]
    project: bool,
    /// Record it in the user's settings file (the default).
    #[arg(long)]
    user: bool,
}

pub(crate) fn trust(args: TrustArgs) -> anyhow::Result<Outcome> {
    let environment = Environment::from_process()?;
    let mut out = output::stdout();
    if args.list {
        for entry in TrustStore::load(&environment)?.entries() {
            let note = match (entry.identity(), entry.forced()) {
                (None, _) => "  (recorded by an older version and not honoured: trust it again)",
                (Some(_), true) => "  (trusted with --force)",
                (Some(_), false) => "",
            };
            writeln!(out, "{}{note}", one_line(&entry.shown()))?;
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
        "trusted {dir}: the skills (.agents/skills), settings and plugin directories (.agents/skillful.toml) of {dir} and of the directories below it are loaded from now on, except in repositories of their own below it (a directory holding .git) and in directories of other users; removed and re-created, it is no longer trusted"
    )?;
    Ok(Outcome::Ok)
}

pub(crate) fn untrust(args: UntrustArgs) -> anyhow::Result<Outcome> {
    let environment = Environment::from_process()?;
    let dir = one_line(&shown_path(&args.dir)).into_owned();
    if TrustStore::untrust(&environment.dirs, &args.dir)? {
        writeln!(output::stdout(), "no longer trusted: {dir}")?;
        Ok(Outcome::Ok)
    } else {
        Err(UsageError(format!(
            "{dir} was not trusted; `skills trust --list` shows the trusted directories"
        ))
        .into())
    }
}

pub(crate) fn toggle(args: ToggleArgs, enabled: bool) -> anyhow::Result<Outcome> {
    let environment = Environment::from_process()?;
    let (path, level) = if args.project {
        let Some(project) = environment.project() else {
            return Err(UsageError(
                "no project here (no .agents directory up to the repository root); create .agents, or use --user"
                    .to_owned(),
            )
            .into());
        };
        (project.config_file(), SettingsLevel::Project)
    } else {
        (environment.user_config_file(), SettingsLevel::User)
    };
    Settings::set_enabled(&environment.dirs, &path, level, &args.name, enabled)?;
    writeln!(
        output::stdout(),
        "{} {} in {}",
        if enabled { "enabled" } else { "disabled" },
        one_line(&args.name),
        one_line(&path.to_string_lossy())
    )?;
    Ok(Outcome::Ok)
}
