//! The sandbox flags of the commands that run scripts (`run`, `chat`, `eval`, `run-script`):
//! `--sandbox`, `--allow-write` (with the user's `[sandbox] allow_write`) and `--workdir`, given
//! to the script runner's builder, which holds the policy.

use std::path::{Path, PathBuf};
use std::time::Duration;

use skillful_config::{Environment, Settings, SettingsLevel};
use skillful_core::text::one_line;
use skillful_scripts::{ProcessRunner, ProcessRunnerBuilder, SandboxMode};

use crate::UsageError;

/// Whether scripts run in the sandbox of their risk tier.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Sandbox {
    /// The sandbox of each script's tier, where this machine enforces it.
    #[default]
    On,
    /// No sandbox: scripts run as you, whatever their tier; every script then asks first.
    Off,
}

/// `--sandbox` and `--allow-write`.
#[derive(Debug, Default, clap::Args)]
pub(crate) struct SandboxFlags {
    /// `off` runs scripts without the sandbox, as you, whatever their risk tier. Never the
    /// default: every script then asks before it runs (`eval` runs none), and each approval
    /// question says so.
    #[arg(long, value_enum, value_name = "on|off", default_value_t = Sandbox::On)]
    sandbox: Sandbox,
    /// Let `write-high` scripts write under DIR too; repeatable. The user's settings add theirs
    /// (`[sandbox] allow_write`).
    #[arg(long = "allow-write", value_name = "DIR")]
    allow_write: Vec<PathBuf>,
}

impl SandboxFlags {
    /// Whether the sandbox is on.
    pub(crate) fn mode(&self) -> SandboxMode {
        match self.sandbox {
            Sandbox::On => SandboxMode::Enforce,
            Sandbox::Off => SandboxMode::Off,
        }
    }

    /// The directories `write-high` scripts may write under: the user's settings', then the
    /// flags'; each must be an existing directory.
    pub(crate) fn allowed_writes(&self) -> anyhow::Result<Vec<PathBuf>> {
        let settings = Settings::load(
            &Environment::from_process()?.user_config_file(),
            SettingsLevel::User,
        )?;
        let mut dirs = settings.allow_write;
        for dir in &self.allow_write {
            dirs.push(existing_dir("--allow-write", dir)?);
        }
        Ok(dirs)
    }

    /// `builder` with this sandbox mode and these writable directories.
    pub(crate) fn apply(
        &self,
        builder: ProcessRunnerBuilder,
    ) -> anyhow::Result<ProcessRunnerBuilder> {
        Ok(self.allowed_writes()?.into_iter().fold(
            builder.sandbox(self.mode()),
            ProcessRunnerBuilder::allow_write,
        ))
    }
}

/// The sandbox flags of the commands that run scripts in a directory of the user's: also
/// `--workdir`.
#[derive(Debug, Default, clap::Args)]
pub(crate) struct ScriptFlags {
    #[command(flatten)]
    sandbox: SandboxFlags,
    /// The directory `write-low` and `write-high` scripts may write under (default: the
    /// directory the command was started in).
    #[arg(long, value_name = "DIR")]
    workdir: Option<PathBuf>,
}

impl ScriptFlags {
    /// The script runner of these flags, built from `builder`.
    pub(crate) fn runner(&self, builder: ProcessRunnerBuilder) -> anyhow::Result<ProcessRunner> {
        let mut builder = self.sandbox.apply(builder)?;
        if let Some(dir) = &self.workdir {
            builder = builder.writable_dir(existing_dir("--workdir", dir)?);
        }
        Ok(builder
            .build()
            .map_err(|error| UsageError(error.to_string()))?)
    }
}

/// `dir` when it is a directory; a usage error naming `flag` otherwise.
fn existing_dir(flag: &str, dir: &Path) -> anyhow::Result<PathBuf> {
    if dir.is_dir() {
        Ok(dir.to_path_buf())
    } else {
        Err(UsageError(format!(
            "{flag} {}: not a directory; give an existing directory",
            one_line(&dir.display().to_string())
        ))
        .into())
    }
}

/// The line a command that runs scripts shows first when they are not isolated (`None` when
/// they are), with what that means for this command (`then`).
pub(crate) fn not_isolated_line(runner: &ProcessRunner, then: &str) -> Option<String> {
    runner
        .not_isolated()
        .map(|why| format!("skills: {}; {then}", one_line(&why)))
}

/// A duration in seconds (fractions allowed), above zero: a script's timeout, a task's threshold.
pub(crate) fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if seconds.is_nan() || seconds <= 0.0 {
        return Err(format!("it must be above 0 seconds, not {text}"));
    }
    Duration::try_from_secs_f64(seconds).map_err(|error| format!("`{text}`: {error}"))
}
