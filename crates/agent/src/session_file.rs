//! A session kept in a file: locked for the whole run, written atomically, versioned.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use skillful_fs::{FileLock, FsError};

use crate::approvals::lock_path;
use crate::session::Session;

/// The session file format this version writes (and the newest it reads).
pub const SESSION_FORMAT_VERSION: u32 = 1;

/// The largest session file read.
pub const MAX_SESSION_BYTES: u64 = 256 << 20;

/// Why a session file cannot be used. A file that cannot be read is never written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionFileError {
    /// Another process holds the session (see [`SessionFile::try_open`]).
    #[error("{path}: another process is using this session")]
    Busy {
        /// The session file.
        path: PathBuf,
    },
    /// The file is not a session this version reads; it is left as it is.
    #[error("{path}: not a session file skillful can read ({reason}); it is left as it is")]
    Corrupt {
        /// The session file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The file (or its lock) is unsafe to use or cannot be read or written.
    #[error(transparent)]
    Fs(#[from] FsError),
}

/// The session as saved: a format version, then the session's fields.
#[derive(Serialize)]
struct Saved<'a> {
    version: u32,
    #[serde(flatten)]
    session: &'a Session,
}

#[derive(Deserialize)]
struct Loaded {
    /// Files written before versions existed have none; their shape is version 1's.
    #[serde(default)]
    version: Option<u32>,
    #[serde(flatten)]
    session: Session,
}

/// A [`Session`] kept in a file, held by this process.
///
/// Opening takes an exclusive lock (on `FILE.lock` beside it, which is never replaced) that is
/// held until the `SessionFile` is dropped, so two processes on one session take turns instead of
/// losing each other's turns. [`SessionFile::save`] writes a temporary file in the same
/// directory (mode 0600), fsyncs it and renames it over the session: a process killed at any
/// moment leaves the old session or the new one, never a mix. The file carries a format
/// `version`; a file that does not parse (or is newer) is refused with the reason and never
/// overwritten.
///
/// Nothing in a session file approves anything: it holds the history and the calls waiting for
/// approval, and a waiting call goes through the whole approval policy again when it resumes.
///
/// # Example
/// ```
/// use skillful_agent::{Session, SessionFile};
///
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("session.json");
/// let (file, session) = SessionFile::open(&path).unwrap();
/// let session = session.unwrap_or_default();
/// file.save(&session).unwrap();
/// drop(file);
/// let (_file, restored) = SessionFile::open(&path).unwrap();
/// assert_eq!(restored.unwrap().id(), session.id());
/// ```
#[derive(Debug)]
pub struct SessionFile {
    path: PathBuf,
    _lock: FileLock,
}

impl SessionFile {
    /// Takes `path`'s lock, waiting for another process to let go of it, then reads the session
    /// (`None` when the file does not exist yet). Blocks the calling thread.
    ///
    /// # Errors
    /// [`SessionFileError::Corrupt`] for a file that is not a session;
    /// [`SessionFileError::Fs`] for a file or lock that is unsafe (a symbolic link, not a
    /// regular file), too large or unreadable.
    pub fn open(path: impl Into<PathBuf>) -> Result<(Self, Option<Session>), SessionFileError> {
        let path = path.into();
        let lock = FileLock::acquire(&lock_path(&path))?;
        Self::load(path, lock)
    }

    /// Like [`SessionFile::open`], without waiting.
    ///
    /// # Errors
    /// [`SessionFileError::Busy`] when another process holds the session; otherwise as
    /// [`SessionFile::open`].
    pub fn try_open(path: impl Into<PathBuf>) -> Result<(Self, Option<Session>), SessionFileError> {
        let path = path.into();
        let Some(lock) = FileLock::try_acquire(&lock_path(&path))? else {
            return Err(SessionFileError::Busy { path });
        };
        Self::load(path, lock)
    }

    fn load(path: PathBuf, lock: FileLock) -> Result<(Self, Option<Session>), SessionFileError> {
        let session = match skillful_fs::read_bounded(&path, MAX_SESSION_BYTES)? {
            None => None,
            Some(bytes) => Some(parse(&path, &bytes)?),
        };
        Ok((Self { path, _lock: lock }, session))
    }

    /// The session file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Replaces the file with `session`, atomically (see the type's documentation).
    ///
    /// # Errors
    /// [`SessionFileError::Fs`] when it cannot be written; the file on disk is then the one
    /// saved before.
    pub fn save(&self, session: &Session) -> Result<(), SessionFileError> {
        let saved = Saved {
            version: SESSION_FORMAT_VERSION,
            session,
        };
        let bytes =
            serde_json::to_vec_pretty(&saved).map_err(|error| SessionFileError::Corrupt {
                path: self.path.clone(),
                reason: format!("cannot be written: {error}"),
            })?;
        skillful_fs::write_atomic(&self.path, &bytes, 0o600)?;
        Ok(())
    }
}

fn parse(path: &Path, bytes: &[u8]) -> Result<Session, SessionFileError> {
    let corrupt = |reason: String| SessionFileError::Corrupt {
        path: path.to_path_buf(),
        reason,
    };
    let loaded: Loaded =
        serde_json::from_slice(bytes).map_err(|error| corrupt(error.to_string()))?;
    match loaded.version {
        None | Some(SESSION_FORMAT_VERSION) => Ok(loaded.session),
        Some(version) => Err(corrupt(format!(
            "format version {version}; this version of skillful reads {SESSION_FORMAT_VERSION}"
        ))),
    }
}
