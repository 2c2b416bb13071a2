//! What can go wrong with private state.

use std::path::PathBuf;

/// Why a private directory or file could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// A directory that must be this user's only is not safe to use.
    #[error(
        "{path}: {reason}; refusing to keep private state there (remove it, or fix its owner \
         and permissions)"
    )]
    UnsafeDirectory {
        /// The directory.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A file is not a regular file reached without a symbolic link.
    #[error("{path}: {reason}")]
    UnsafeFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A file is larger than its reader accepts.
    #[error("{path}: larger than {limit} bytes; refusing to read it")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The most bytes accepted.
        limit: u64,
    },
    /// Another process holds the lock.
    #[error("{path}: locked by another process")]
    Locked {
        /// The lock file.
        path: PathBuf,
    },
    /// The platform has no home directory to keep per-user state under.
    #[error("no home directory: cannot find the per-user state directory")]
    NoHomeDirectory,
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

impl StateError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }
}
