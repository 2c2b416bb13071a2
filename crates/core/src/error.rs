use std::path::PathBuf;

/// Why a skill operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    /// A file of the skill could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// A path would leave the skill's directory, or passes through a symbolic link.
    #[error("refused to read {}: {reason}", path.display())]
    UnsafePath {
        /// The path that was refused.
        path: PathBuf,
        /// Why it was refused.
        reason: String,
    },
    /// The arguments do not fit what the script expects.
    #[error("invalid arguments for script '{script}': {message}")]
    InvalidArguments {
        /// The script's name.
        script: String,
        /// What is wrong with them.
        message: String,
    },
    /// No runner is configured for file scripts.
    #[error(
        "script '{script}' cannot run: no script runner is configured; give the file source a runner"
    )]
    NoScriptRunner {
        /// The script's name.
        script: String,
    },
    /// The script ran and failed, or could not be started.
    #[error("script '{script}' failed: {message}")]
    Script {
        /// The script's name.
        script: String,
        /// What went wrong.
        message: String,
    },
    /// Any other failure of a skill's own code (a callback, a plugin, a server).
    #[error("{0}")]
    Other(String),
}
