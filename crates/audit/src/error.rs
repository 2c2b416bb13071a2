//! Why the audit log could not be written or read.

use std::path::PathBuf;

use skillful_state::StateError;

/// Why the audit log could not be written or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuditError {
    /// The log's directory or a file in it is not safe to use, or the system refused.
    #[error(transparent)]
    State(#[from] StateError),
    /// A file of the log could not be read, written or locked safely.
    #[error(transparent)]
    Fs(#[from] skillful_fs::FsError),
    /// A file of the log could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A line of the log is not a record (the log was edited, or a crash cut it short).
    #[error("{}: line {line} is not an audit record ({reason}); run `skills audit --verify`", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// The line, counted from 1.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A `--since` value that is not a time.
    #[error(
        "`{text}` is not a time: give an RFC 3339 time in UTC (2026-12-01T10:00:00Z), a date \
         (2026-12-01) or a span back from now (30m, 12h, 7d, 2w)"
    )]
    BadTime {
        /// The text given.
        text: String,
    },
}

impl AuditError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        AuditError::Io {
            path: path.into(),
            source,
        }
    }
}
