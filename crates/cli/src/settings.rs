//! What `skills enable` and `skills disable` share: the skill named and the settings file its
//! state is recorded in (the user's, or a trusted project's).

use skillful_config::{Environment, Settings, SettingsLevel};
use skillful_core::text::one_line;

use crate::{Outcome, UsageError, output};

#[derive(Debug, clap::Args)]
pub(crate) struct ToggleArgs {
    /// The skill's name (after `--` when it starts with `-`).
    name: String,
    /// Record it in the project's `.agents/skillful.toml` (read only while the project is
    /// trusted).
    #[arg(short, long, conflicts_with = "user")]
    project: bool,
    /// Record it in the user's settings file (the default).
    #[arg(long)]
    user: bool,
}

/// Records `args.name` as `enabled` (or not) in the settings file `args` names.
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
