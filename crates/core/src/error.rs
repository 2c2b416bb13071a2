use std::time::Duration;

/// Why a skill operation failed.
///
/// Every variant names what it is about (`what`: a file's path, a server's URI, a plugin's
/// script) as text, so that this type knows nothing of the backend that failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    /// Something of the skill could not be read: a file, a server's resource, a plugin's data.
    #[error("cannot read {what}: {source}")]
    Unreadable {
        /// What could not be read.
        what: String,
        /// What the operating system, the server or the plugin said.
        #[source]
        source: std::io::Error,
    },
    /// Refused for safety: the name or path would leave the skill, passes through a link, is not
    /// a regular file, changed while it was opened, or is not one the skill lists.
    #[error("refused to read {what}: {reason}")]
    Refused {
        /// What was refused.
        what: String,
        /// Why.
        reason: String,
    },
    /// Content is larger than the limit it is read with.
    #[error("{what} is over the limit of {limit} bytes; {advice}")]
    TooLarge {
        /// What is too large.
        what: String,
        /// The limit, in bytes.
        limit: u64,
        /// What to do instead (read it in pages, raise the limit).
        advice: String,
    },
    /// Content is not what it was promised to be (a digest, a size, a frontmatter): it is not
    /// used.
    #[error("{what} does not match what was listed for it: {detail}")]
    Mismatch {
        /// What was checked.
        what: String,
        /// Expected against actual.
        detail: String,
    },
    /// The arguments do not fit what the script expects.
    #[error("invalid arguments for script '{script}': {message}")]
    InvalidArguments {
        /// The script's name.
        script: String,
        /// What is wrong with them.
        message: String,
    },
    /// The script may not or cannot run here: no runner is configured, or its source is not
    /// trusted to run code.
    #[error("script '{script}' cannot run: {reason}")]
    NotRunnable {
        /// The script's name.
        script: String,
        /// Why, and what to do.
        reason: String,
    },
    /// The script ran and failed, or could not be started.
    #[error("script '{script}' failed: {message}")]
    Script {
        /// The script's name.
        script: String,
        /// What went wrong.
        message: String,
    },
    /// A script or call did not finish in time and was stopped (or abandoned).
    #[error("{what} did not finish within {}s", after.as_secs_f64())]
    TimedOut {
        /// What timed out.
        what: String,
        /// The limit it was given.
        after: Duration,
    },
    /// A script did not finish within its limit ([`SkillScript::timeout`](crate::SkillScript::timeout),
    /// else [`DEFAULT_SCRIPT_TIMEOUT`](crate::DEFAULT_SCRIPT_TIMEOUT)) and was stopped: a file
    /// script killed with every process it started, an in-process script abandoned. The one
    /// timeout error of every kind of script (file, inline, plugin).
    #[error(
        "script '{script}' of skill '{skill}' did not finish within {}s and was stopped; ask it for less work at a time, or give it a longer limit (the script runner's timeout, or the inline script's)",
        after.as_secs_f64()
    )]
    ScriptTimedOut {
        /// The skill's name.
        skill: String,
        /// The script's name.
        script: String,
        /// The limit it was given.
        after: Duration,
    },
    /// The script was stopped before it ended because its caller asked (a cancelled task).
    #[error("script '{script}' of skill '{skill}' was cancelled and stopped before it ended")]
    ScriptCancelled {
        /// The skill's name.
        skill: String,
        /// The script's name.
        script: String,
    },
    /// Any other failure of a skill's own code (a callback, a plugin, a server).
    #[error("{0}")]
    Other(String),
}

impl SkillError {
    /// [`SkillError::Other`] with the text of `cause` (blocking work that was interrupted, a
    /// failure of a skill's own code).
    pub fn other(cause: impl std::fmt::Display) -> Self {
        Self::Other(cause.to_string())
    }
}
