//! Per-user private state of skillful: where it lives, who owns it, and how it is written.
//!
//! Trust decisions, remembered approvals, the embedded engine, MCP caches and sessions are
//! state another local user must not read, plant or replace. Every directory this crate hands
//! out is created with mode 0700 and refused when it is a symbolic link, not a directory or owned
//! by another user; every private file is written with mode 0600 through `skillful-fs`'s atomic
//! write, and read back only when it is this user's. [`VerifiedDir`] holds a checked directory
//! by handle, [`Ownership`] reads who owns a file and who may write it, [`inspect_private`] and
//! [`Checkup`] are what `skills doctor` reports.
//!
//! It knows the per-user directories and their owners, not what is stored in them; how a file is
//! opened, read, written, locked and stamped is `skillful-fs`'s.
//!
//! # Example
//! ```
//! # let temp = tempfile::tempdir().unwrap();
//! let dirs = skillful_state::Dirs::under(temp.path());
//! let file = dirs.config_dir().unwrap().join("trusted.toml");
//! skillful_state::write_private(&file, b"trusted = []\n").unwrap();
//! assert_eq!(
//!     skillful_state::read_private(&file, 1024).unwrap().unwrap(),
//!     b"trusted = []\n"
//! );
//! ```

#![forbid(unsafe_code)]

mod checkup;
mod inspect;
#[cfg(unix)]
mod owner;
#[cfg(unix)]
mod verified;
#[cfg(not(unix))]
#[path = "verified_portable.rs"]
mod verified;

pub use checkup::{Check, CheckDetail, CheckStatus, Checkup};
pub use inspect::{PathState, inspect_private};
#[cfg(unix)]
pub use owner::{Ownership, current_uid};
pub use verified::VerifiedDir;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Why per-user state could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// The platform has no home directory to keep per-user state in.
    #[error("no home directory is known for this user; set HOME")]
    NoHomeDirectory,
    /// A directory that would hold private files is one another user could tamper with.
    #[error("{}: {reason}", path.display())]
    Refused {
        /// The directory.
        path: PathBuf,
        /// What is wrong with it, and what to do.
        reason: String,
    },
    /// A directory or file could not be used: the operating system refused, or it is not safe
    /// (a link, not a regular file or directory, too large).
    #[error(transparent)]
    Fs(#[from] skillful_fs::FsError),
    /// Blocking work on private state panicked or was cancelled.
    #[error(transparent)]
    Interrupted(#[from] skillful_fs::blocking::Interrupted),
}

impl StateError {
    fn io(path: &Path, source: io::Error) -> Self {
        Self::Fs(skillful_fs::FsError::io(path, source))
    }

    fn unsafe_path(path: &Path, reason: impl Into<String>) -> Self {
        Self::Fs(skillful_fs::FsError::unsafe_path(path, reason))
    }
}

/// The per-user directories of skillful (none is created until asked for through its `_dir`
/// method).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dirs {
    config: PathBuf,
    state: PathBuf,
    cache: PathBuf,
}

impl Dirs {
    /// The platform's directories: on Linux `$XDG_CONFIG_HOME/skillful` (`~/.config/skillful`),
    /// `$XDG_STATE_HOME/skillful` (`~/.local/state/skillful`) and `$XDG_CACHE_HOME/skillful`
    /// (`~/.cache/skillful`); on macOS and Windows their equivalents.
    ///
    /// # Errors
    /// [`StateError::NoHomeDirectory`] when the platform has none.
    pub fn per_user() -> Result<Self, StateError> {
        let project = directories::ProjectDirs::from("", "", "skillful")
            .ok_or(StateError::NoHomeDirectory)?;
        Ok(Self {
            config: project.config_dir().to_path_buf(),
            state: project
                .state_dir()
                .unwrap_or_else(|| project.data_local_dir())
                .to_path_buf(),
            cache: project.cache_dir().to_path_buf(),
        })
    }

    /// All three under `root` (`root/config`, `root/state`, `root/cache`): for a test or a CI
    /// run.
    pub fn under(root: impl AsRef<Path>) -> Self {
        let root = root.as_ref();
        Self {
            config: root.join("config"),
            state: root.join("state"),
            cache: root.join("cache"),
        }
    }

    /// The configuration directory (not created by this call).
    pub fn config(&self) -> &Path {
        &self.config
    }

    /// The state directory (not created by this call).
    pub fn state(&self) -> &Path {
        &self.state
    }

    /// The cache directory (not created by this call).
    pub fn cache(&self) -> &Path {
        &self.cache
    }

    /// The configuration directory, created private if missing and checked ([`private_dir`]).
    ///
    /// # Errors
    /// As [`private_dir`].
    pub fn config_dir(&self) -> Result<&Path, StateError> {
        private_dir(&self.config)?;
        Ok(&self.config)
    }

    /// The state directory, created private if missing and checked ([`private_dir`]).
    ///
    /// # Errors
    /// As [`private_dir`].
    pub fn state_dir(&self) -> Result<&Path, StateError> {
        private_dir(&self.state)?;
        Ok(&self.state)
    }

    /// The cache directory, created private if missing and checked ([`private_dir`]).
    ///
    /// # Errors
    /// As [`private_dir`].
    pub fn cache_dir(&self) -> Result<&Path, StateError> {
        private_dir(&self.cache)?;
        Ok(&self.cache)
    }
}

/// `dir/name` when `name` is one plain file name (not empty, `.`, `..` or a path).
fn child_of(dir: &Path, name: &std::ffi::OsStr) -> Result<PathBuf, StateError> {
    if Path::new(name).file_name() == Some(name) {
        Ok(dir.join(name))
    } else {
        Err(StateError::Refused {
            path: dir.join(name),
            reason: "is not a plain file name inside its directory".to_owned(),
        })
    }
}

/// Creates `path` (mode 0700 on Unix) if missing; refuses it when it is a symbolic link, not a
/// directory, or owned by another user; takes away access by others when it has it. Its parents
/// are created as usual.
///
/// # Errors
/// [`StateError::Fs`].
pub fn private_dir(path: &Path) -> Result<(), StateError> {
    let metadata = match fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).map_err(|error| StateError::io(parent, error))?;
            }
            let mut builder = fs::DirBuilder::new();
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            match builder.create(path) {
                Ok(()) => {}
                // Another process created it meanwhile: checked below like any existing one.
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
                Err(error) => return Err(StateError::io(path, error)),
            }
            fs::symlink_metadata(path).map_err(|error| StateError::io(path, error))?
        }
        Err(error) => return Err(StateError::io(path, error)),
    };
    if metadata.file_type().is_symlink() {
        return Err(StateError::unsafe_path(path, "is a symbolic link"));
    }
    if !metadata.is_dir() {
        return Err(StateError::unsafe_path(path, "is not a directory"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let ownership = Ownership::of(&metadata);
        check_owner(path, ownership.uid)?;
        if ownership.open_to_others() {
            fs::set_permissions(path, fs::Permissions::from_mode(0o700))
                .map_err(|error| StateError::io(path, error))?;
        }
    }
    Ok(())
}

#[cfg(unix)]
fn check_owner(path: &Path, owner: u32) -> Result<(), StateError> {
    let me = current_uid();
    if owner != me {
        return Err(StateError::unsafe_path(
            path,
            format!("is owned by another user (uid {owner}, not {me})"),
        ));
    }
    Ok(())
}

/// Writes `bytes` as the whole of `path` (in a directory checked with [`private_dir`]), with
/// mode 0600, as [`skillful_fs::write_atomic`] does.
///
/// # Errors
/// As [`private_dir`] for the directory; [`StateError::Fs`] as [`skillful_fs::write_atomic`].
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<(), StateError> {
    private_dir(path.parent().unwrap_or(Path::new(".")))?;
    Ok(skillful_fs::write_atomic(path, bytes, 0o600)?)
}

/// Reads the private file `path` whole, or `None` when it does not exist; refuses one that is a
/// symbolic link, not a regular file, owned by another user, or over `max_bytes`.
///
/// # Errors
/// [`StateError::Fs`] (`FsError::Unsafe`) for another user's file; [`StateError::Fs`] as
/// [`skillful_fs::read_bounded`].
pub fn read_private(path: &Path, max_bytes: u64) -> Result<Option<Vec<u8>>, StateError> {
    let Some((file, metadata)) = skillful_fs::open_regular_file(path)? else {
        return Ok(None);
    };
    #[cfg(unix)]
    check_owner(path, std::os::unix::fs::MetadataExt::uid(&metadata))?;
    Ok(Some(skillful_fs::read_opened(
        path, &file, &metadata, max_bytes,
    )?))
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    use super::*;

    #[test]
    fn a_new_directory_is_private_and_a_loose_one_is_tightened() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("a/b/skillful");
        private_dir(&dir).unwrap();
        assert_eq!(fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        private_dir(&dir).unwrap();
        assert_eq!(fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
    }

    #[test]
    fn a_symbolic_link_or_a_file_is_refused() {
        let temp = tempfile::tempdir().unwrap();
        let target = temp.path().join("elsewhere");
        fs::create_dir(&target).unwrap();
        let link = temp.path().join("skillful");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let error = private_dir(&link).unwrap_err().to_string();
        assert!(error.contains("is a symbolic link"), "{error}");
        let file = temp.path().join("file");
        fs::write(&file, "").unwrap();
        let error = private_dir(&file).unwrap_err().to_string();
        assert!(error.contains("is not a directory"), "{error}");
    }

    #[test]
    fn a_directory_of_another_user_is_refused() {
        let temp = tempfile::tempdir().unwrap();
        let dir = if current_uid() == 0 {
            let dir = temp.path().join("theirs");
            fs::create_dir(&dir).unwrap();
            std::os::unix::fs::chown(&dir, Some(65534), Some(65534)).unwrap();
            dir
        } else {
            PathBuf::from("/")
        };
        let error = private_dir(&dir).unwrap_err().to_string();
        assert!(error.contains("owned by another user"), "{error}");
    }

    #[test]
    fn private_files_are_written_whole_with_mode_0600_and_read_back() {
        let temp = tempfile::tempdir().unwrap();
        let file = temp.path().join("state/approvals.json");
        write_private(&file, b"one").unwrap();
        write_private(&file, b"two").unwrap();
        assert_eq!(fs::metadata(&file).unwrap().mode() & 0o777, 0o600);
        assert_eq!(read_private(&file, 16).unwrap().unwrap(), b"two");
        assert_eq!(
            read_private(&temp.path().join("missing"), 16).unwrap(),
            None
        );
        let leftovers: Vec<_> = fs::read_dir(file.parent().unwrap()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file is left behind");
    }

    #[test]
    fn a_planted_link_or_an_oversized_file_is_not_read() {
        let temp = tempfile::tempdir().unwrap();
        let planted = skillful_test_support::planted_link(temp.path(), "trusted.toml");
        let error = read_private(&planted, 1024).unwrap_err().to_string();
        assert!(error.contains("symbolic link"), "{error}");
        let big = temp.path().join("big");
        fs::write(&big, vec![b'x'; 100]).unwrap();
        assert!(matches!(
            read_private(&big, 10),
            Err(StateError::Fs(skillful_fs::FsError::TooLarge {
                limit: 10,
                ..
            }))
        ));
    }
}
