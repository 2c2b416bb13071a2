//! [`VerifiedDir`] elsewhere than on Unix: the same directories, reached by path (there are no
//! Unix owners, modes or `openat` to check and hold them with).

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};

use crate::StateError;

/// A directory for private files. On this platform it is reached by path, and only a symbolic
/// link is refused.
#[derive(Debug)]
pub struct VerifiedDir {
    path: PathBuf,
}

impl VerifiedDir {
    /// Opens the directory `path`, creating it and its parents when missing.
    ///
    /// # Errors
    /// [`StateError::Refused`] when it is a symbolic link; [`StateError::Fs`].
    pub fn open_or_create(path: &Path) -> Result<Self, StateError> {
        let path = std::path::absolute(path).map_err(|error| StateError::io(path, error))?;
        if std::fs::symlink_metadata(&path).is_ok_and(|metadata| metadata.file_type().is_symlink())
        {
            return Err(StateError::Refused {
                path,
                reason: "is a symbolic link; give the directory it leads to, if it is yours"
                    .to_owned(),
            });
        }
        std::fs::create_dir_all(&path).map_err(|error| StateError::io(&path, error))?;
        Ok(Self { path })
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The directory `name` inside this one, created when missing.
    ///
    /// # Errors
    /// [`StateError::Refused`] for a name that is not one plain file name; [`StateError::Fs`].
    pub fn dir(&self, name: impl AsRef<OsStr>) -> Result<Self, StateError> {
        let path = crate::child_of(&self.path, name.as_ref())?;
        match std::fs::create_dir(&path) {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(StateError::io(&path, error)),
        }
        Ok(Self { path })
    }

    /// Creates the new directory `name` inside this one.
    ///
    /// # Errors
    /// [`StateError::Fs`] (`FsError::Io`) with [`io::ErrorKind::AlreadyExists`] when something has that name;
    /// [`StateError::Refused`] for a name that is not one plain file name.
    pub fn create_dir(&self, name: impl AsRef<OsStr>) -> Result<Self, StateError> {
        let path = crate::child_of(&self.path, name.as_ref())?;
        std::fs::create_dir(&path).map_err(|error| StateError::io(&path, error))?;
        Ok(Self { path })
    }

    /// Writes `bytes` as the whole of the file `name` inside this directory
    /// ([`skillful_fs::write_atomic`]).
    ///
    /// # Errors
    /// [`StateError::Refused`] for a name that is not one plain file name; [`StateError::Fs`].
    pub fn write(&self, name: impl AsRef<OsStr>, bytes: &[u8]) -> Result<(), StateError> {
        let path = crate::child_of(&self.path, name.as_ref())?;
        Ok(skillful_fs::write_atomic(&path, bytes, 0o600)?)
    }

    /// The names of the entries of this directory.
    ///
    /// # Errors
    /// [`StateError::Fs`].
    pub fn entries(&self) -> Result<Vec<OsString>, StateError> {
        let io = |error| StateError::io(&self.path, error);
        std::fs::read_dir(&self.path)
            .map_err(io)?
            .map(|entry| entry.map(|entry| entry.file_name()).map_err(io))
            .collect()
    }
}
