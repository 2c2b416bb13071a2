//! Why a script could not run, and why a runner could not be built.

use std::path::PathBuf;

use skillful_core::SkillError;

/// A script that could not be run (as opposed to one that ran and failed, which is a
/// [`ScriptOutput`](crate::ScriptOutput) with a non-zero exit code).
#[derive(Debug, thiserror::Error)]
#[error("cannot run script '{script}': {reason}")]
pub struct RunError {
    /// The script's name as the skill lists it (`scripts/convert.py`).
    pub script: String,
    /// What went wrong.
    pub reason: RunFailure,
}

/// What kept a script from running.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunFailure {
    /// The arguments cannot be made into a command line.
    #[error("{0}")]
    InvalidArguments(String),
    /// None of the interpreter's programs is installed.
    #[error(
        "its interpreter {} is not installed; install it, or configure another interpreter for `{extension}` files on the runner",
        programs(tried)
    )]
    InterpreterNotFound {
        /// The script's extension (`.py`).
        extension: String,
        /// The programs looked for, in order.
        tried: Vec<String>,
    },
    /// No interpreter is configured for the file, and it is not an executable file.
    #[error(
        "{} has no configured interpreter for its extension and is not an executable file; make it executable with a `#!` line, or configure an interpreter for its extension",
        path.display()
    )]
    NotExecutable {
        /// The script file.
        path: PathBuf,
    },
    /// The operating system refused to start the process.
    #[error("starting `{program}` failed: {error}")]
    Spawn {
        /// The program that was started (an interpreter, or the script itself).
        program: String,
        /// What the operating system said.
        error: std::io::Error,
    },
    /// The script's tier is `destructive`: such scripts never run.
    #[error(
        "its risk tier is `{tier}`, and scripts of that tier never run; the skill's author must split the destructive part out, or the user runs it by hand"
    )]
    Refused {
        /// The script's tier.
        tier: skillful_core::RiskTier,
    },
    /// The script's tier may write the working directory, and that is the home directory or
    /// holds it: every project, shell startup file and configuration of the user would be
    /// writable (the script did not start).
    #[error(
        "its risk tier `{tier}` may write the working directory {}, which is your home directory or holds it; run from a project's directory, or give one with `--workdir DIR`",
        dir.display()
    )]
    WorkingDirTooBroad {
        /// The script's tier.
        tier: skillful_core::RiskTier,
        /// The working directory.
        dir: PathBuf,
    },
    /// The sandbox could not be prepared (the script did not start).
    #[error(
        "{action} failed: {error}; run with `--sandbox off` only if you trust the script with everything you can do"
    )]
    Sandbox {
        /// What was being done.
        action: String,
        /// What went wrong.
        error: String,
    },
    /// The script file could not be inspected, or its process could not be waited for.
    #[error("{action} failed: {error}")]
    Io {
        /// What was being done.
        action: String,
        /// What the operating system said.
        error: std::io::Error,
    },
}

/// `` `python3` (also tried `python`) ``.
fn programs(tried: &[String]) -> String {
    let mut names = tried.iter().map(|program| format!("`{program}`"));
    let first = names.next().unwrap_or_default();
    let rest: Vec<String> = names.collect();
    if rest.is_empty() {
        first
    } else {
        format!("{first} (also tried {})", rest.join(", "))
    }
}

impl From<RunError> for SkillError {
    fn from(error: RunError) -> Self {
        match error.reason {
            RunFailure::InvalidArguments(message) => SkillError::InvalidArguments {
                script: error.script,
                message,
            },
            reason => SkillError::Script {
                script: error.script,
                message: reason.to_string(),
            },
        }
    }
}

/// Why a [`ProcessRunnerBuilder`](crate::ProcessRunnerBuilder) refused its configuration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The timeout is zero.
    #[error("the script timeout must be longer than zero")]
    ZeroTimeout,
    /// The output limit is zero.
    #[error("the output limit must be at least 1 byte per stream")]
    ZeroOutputLimit,
    /// An interpreter's extension does not have the form `.ext`.
    #[error(
        "interpreter extension {0:?} is invalid: it must start with '.' and name a file ending, e.g. \".py\""
    )]
    Extension(String),
    /// An interpreter has a blank program name.
    #[error("the interpreter for {0:?} names a blank program; give the program to run")]
    BlankProgram(String),
}

/// Why [`harden_process`](crate::harden_process) could not protect this process.
#[derive(Debug, thiserror::Error)]
#[error(
    "cannot make this process non-dumpable (prctl PR_SET_DUMPABLE): {source}; scripts and other child processes running as the same user could read its environment and memory through /proc"
)]
pub struct HardenError {
    /// What the operating system said.
    #[source]
    pub source: std::io::Error,
}
