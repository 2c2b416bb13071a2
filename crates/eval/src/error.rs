//! Why an evaluation could not be done.

use std::path::PathBuf;

use skillful_chat::ChatError;

/// Why an evaluation could not be done. A failing expectation, or a model that errs in one run,
/// is a result, not an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EvalError {
    /// The directory is not a skill (no readable `SKILL.md`).
    #[error("{dir}: not a skill directory ({reason}); give a directory holding a SKILL.md")]
    NotASkill {
        /// The directory given.
        dir: PathBuf,
        /// Why.
        reason: String,
    },
    /// `evals/evals.json` or `evals/triggers.json` is missing or wrong.
    #[error("{path}: {reason}")]
    Spec {
        /// The file.
        path: PathBuf,
        /// What is wrong, and the expected form.
        reason: String,
    },
    /// A file is larger than the evaluation reads.
    #[error("{path}: larger than {limit} bytes; make it smaller")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit.
        limit: u64,
    },
    /// The workspace cannot be used.
    #[error("workspace {path}: {reason}")]
    Workspace {
        /// The workspace directory.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A file or directory could not be read or written.
    #[error("cannot {action} {path}: {source}")]
    Io {
        /// What was being done (`read`, `write`, ...).
        action: &'static str,
        /// The path.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A file or directory of the workspace could not be made or written safely.
    #[error(transparent)]
    Files(#[from] skillful_state::StateError),
    /// A file the evaluation reads or writes is a link, not a regular file, too large or
    /// unreadable.
    #[error(transparent)]
    Fs(#[from] skillful_fs::FsError),
    /// The model server cannot be reached at all, so no run can be done.
    #[error(transparent)]
    Unreachable(ChatError),
    /// The chat client could not be set up (a bad URL).
    #[error("the model's client: {0}")]
    Client(ChatError),
    /// The skill's files could not be set up for a run.
    #[error("cannot offer the skill in {dir}: {reason}")]
    Skills {
        /// The skill's directory.
        dir: PathBuf,
        /// Why.
        reason: String,
    },
    /// The script runner could not be set up.
    #[error("the script runner: {0}")]
    Runner(#[from] skillful_scripts::BuildError),
}
