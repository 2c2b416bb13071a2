//! Exclusive advisory locks on lock files.

use std::fs;
use std::path::Path;

use crate::StateError;
use crate::read::no_follow;

/// An exclusive lock on a file (`flock` on Unix), held until dropped; closing the file releases
/// it, so a process that dies releases its locks.
///
/// Lock a file that is never replaced (a `NAME.lock` beside the data): a lock on a file that is
/// renamed over is a lock on the old file.
#[derive(Debug)]
pub struct FileLock {
    _file: fs::File,
}

impl FileLock {
    /// Waits for and takes the lock on `path` (created, mode 0600, if missing; a symbolic link is
    /// refused). Blocks the calling thread.
    ///
    /// # Errors
    /// [`StateError::Io`] when the file cannot be opened or locked.
    pub fn acquire(path: &Path) -> Result<Self, StateError> {
        Self::lock(path, true)
    }

    /// Takes the lock on `path` if no one holds it.
    ///
    /// # Errors
    /// [`StateError::Locked`] when another process (or another handle of this one) holds it;
    /// [`StateError::Io`] as for [`FileLock::acquire`].
    pub fn try_acquire(path: &Path) -> Result<Self, StateError> {
        Self::lock(path, false)
    }

    fn lock(path: &Path, wait: bool) -> Result<Self, StateError> {
        let mut options = fs::OpenOptions::new();
        options.create(true).truncate(false).write(true);
        no_follow(&mut options);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options
            .open(path)
            .map_err(|error| StateError::io(path, error))?;
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            let operation = if wait {
                libc::LOCK_EX
            } else {
                libc::LOCK_EX | libc::LOCK_NB
            };
            loop {
                // SAFETY: the descriptor is open for the call; flock has no other preconditions.
                if unsafe { libc::flock(file.as_raw_fd(), operation) } == 0 {
                    break;
                }
                let error = std::io::Error::last_os_error();
                match error.kind() {
                    std::io::ErrorKind::Interrupted => continue,
                    std::io::ErrorKind::WouldBlock => {
                        return Err(StateError::Locked {
                            path: path.to_path_buf(),
                        });
                    }
                    _ => return Err(StateError::io(path, error)),
                }
            }
        }
        #[cfg(not(unix))]
        let _ = wait;
        Ok(Self { _file: file })
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_is_refused_until_dropped() {
        let temp = tempfile::tempdir().unwrap();
        let path = temp.path().join("x.lock");
        let held = FileLock::acquire(&path).unwrap();
        let error = FileLock::try_acquire(&path).unwrap_err();
        assert!(matches!(error, StateError::Locked { .. }), "{error}");
        drop(held);
        FileLock::try_acquire(&path).unwrap();
    }
}
