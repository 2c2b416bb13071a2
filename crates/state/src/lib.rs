//! Per-user private state of skillful: where it lives and how it is written.
//!
//! Trust decisions, remembered approvals, the embedded engine, MCP caches and sessions are
//! state another local user must not read, plant or replace. Every directory this crate hands
//! out is created with mode 0700 and refused when it is a symbolic link, not a directory or owned
//! by another user; every file is written whole to a temporary file, flushed to disk and renamed
//! into place with mode 0600, so that a crash never leaves half a file; locks serialize writers.
//!
//! It knows files and directories, not what is stored in them.
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

pub mod blocking;
mod checkup;
mod digest;
mod inspect;
#[cfg(unix)]
mod owner;
mod stamp;
#[cfg(unix)]
mod verified;
#[cfg(not(unix))]
#[path = "verified_portable.rs"]
mod verified;

pub use checkup::{Check, CheckDetail, CheckStatus, Checkup};
pub use digest::{FileDigest, hex, sha256_file, sha256_hex};
pub use inspect::{PathState, inspect_private};
#[cfg(unix)]
pub use owner::{Ownership, current_uid};
pub use stamp::FileStamp;
pub use verified::VerifiedDir;

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Why per-user state could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// The platform has no home directory to keep per-user state in.
    #[error("no home directory is known for this user; set HOME")]
    NoHomeDirectory,
    /// A directory or file that would hold private state is not safe to use.
    #[error("{}: refused as a place for private state: it {reason}; remove it (it is recreated) or fix its owner and permissions", path.display())]
    Unsafe {
        /// The path.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A directory that would hold private files is one another user could tamper with.
    #[error("{}: {reason}", path.display())]
    Refused {
        /// The directory.
        path: PathBuf,
        /// What is wrong with it, and what to do.
        reason: String,
    },
    /// A file of private state is larger than it may be.
    #[error("{}: over the limit of {limit} bytes; it is not read", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit.
        limit: u64,
    },
    /// Blocking work on private state panicked or was cancelled.
    #[error(transparent)]
    Interrupted(#[from] blocking::Interrupted),
    /// The operating system refused.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
}

impl StateError {
    fn io(path: &Path, source: io::Error) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    fn unsafe_path(path: &Path, reason: impl Into<String>) -> Self {
        Self::Unsafe {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
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
/// [`StateError::Unsafe`] or [`StateError::Io`].
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
/// mode 0600, as [`write_atomic`] does.
///
/// # Errors
/// As [`private_dir`] for the directory; as [`write_atomic`].
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<(), StateError> {
    private_dir(path.parent().unwrap_or(Path::new(".")))?;
    write_atomic(path, bytes, 0o600)
}

/// Writes `bytes` as the whole of `path`: into a new temporary file beside it (with `mode` on
/// Unix), flushed to disk, then renamed over `path`, and the directory flushed too; readers see
/// the old file or the new one, never half of either. The directory must exist.
///
/// # Errors
/// [`StateError::Io`] when writing fails (the temporary file is removed).
pub fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> Result<(), StateError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let name = path
        .file_name()
        .ok_or_else(|| StateError::unsafe_path(path, "names no file"))?;
    #[cfg(unix)]
    {
        let flags = rustix::fs::OFlags::RDONLY
            | rustix::fs::OFlags::DIRECTORY
            | rustix::fs::OFlags::CLOEXEC;
        let fd = rustix::fs::open(dir, flags, rustix::fs::Mode::empty())
            .map_err(|error| StateError::io(dir, error.into()))?;
        verified::write_at(&fd, name, path, bytes, mode)
    }
    #[cfg(not(unix))]
    {
        use std::io::Write;
        use std::sync::atomic::{AtomicU64, Ordering};
        let _ = mode;
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let temporary = dir.join(format!(
            ".{}.{}.{}.tmp",
            name.to_string_lossy(),
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let written = (|| {
            let mut file = OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&temporary)?;
            file.write_all(bytes)?;
            file.sync_all()?;
            fs::rename(&temporary, path)
        })();
        written.map_err(|error| {
            let _ = fs::remove_file(&temporary);
            StateError::io(path, error)
        })
    }
}

/// Reads the private file `path` whole, or `None` when it does not exist; refuses one that is a
/// symbolic link, not a regular file, owned by another user, or over `max_bytes`.
///
/// # Errors
/// [`StateError::Unsafe`], [`StateError::TooLarge`] or [`StateError::Io`].
pub fn read_private(path: &Path, max_bytes: u64) -> Result<Option<Vec<u8>>, StateError> {
    read(path, max_bytes, true)
}

/// Reads the file `path` whole, or `None` when it does not exist; refuses one that is a symbolic
/// link, not a regular file, or over `max_bytes`. Never blocks on a FIFO.
///
/// # Errors
/// [`StateError::Unsafe`], [`StateError::TooLarge`] or [`StateError::Io`].
pub fn read_bounded(path: &Path, max_bytes: u64) -> Result<Option<Vec<u8>>, StateError> {
    read(path, max_bytes, false)
}

/// Opens `path` for reading without following a final symbolic link and without blocking on a
/// FIFO, and refuses anything but a regular file; `None` when there is no such file. The
/// metadata is the opened file's, so a file swapped in after a check cannot pass for it.
///
/// # Errors
/// [`StateError::Unsafe`] for a symbolic link or a file that is not regular; [`StateError::Io`].
pub fn open_regular_file(path: &Path) -> Result<Option<(File, fs::Metadata)>, StateError> {
    let file = match open_nofollow(path) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) if is_link_refusal(&error) => {
            return Err(StateError::unsafe_path(path, "is a symbolic link"));
        }
        Err(error) => return Err(StateError::io(path, error)),
    };
    let metadata = file
        .metadata()
        .map_err(|error| StateError::io(path, error))?;
    if !metadata.is_file() {
        return Err(StateError::unsafe_path(path, "is not a regular file"));
    }
    Ok(Some((file, metadata)))
}

/// Opens `path` for reading without ever blocking or following a final symbolic link: on Unix
/// with `O_NOFOLLOW | O_NONBLOCK`, so that a FIFO (or device) put in place of a file is opened at
/// once, to be refused by its type, instead of waiting forever for a writer. The one safe open
/// of the workspace; [`open_regular_file`] adds the type check.
///
/// # Errors
/// The operating system's; on Unix a final symbolic link is `ELOOP` (see [`is_link_refusal`]).
pub fn open_nofollow(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut options,
        libc::O_NOFOLLOW | libc::O_NONBLOCK,
    );
    options.open(path)
}

/// Whether `error` is [`open_nofollow`] refusing a symbolic link.
pub fn is_link_refusal(error: &io::Error) -> bool {
    #[cfg(unix)]
    {
        error.raw_os_error() == Some(libc::ELOOP)
    }
    #[cfg(not(unix))]
    {
        let _ = error;
        false
    }
}

/// Reads the regular file `path` (opened as [`open_regular_file`] opens it) through `sink` in
/// chunks, refusing more than `max_bytes`; the number of bytes read and the opened file's
/// metadata, or `None` when there is no such file.
///
/// # Errors
/// [`StateError::Unsafe`] for a link or a file that is not regular, [`StateError::TooLarge`]
/// (what was read so far has gone to `sink`), [`StateError::Io`].
pub fn read_regular_file(
    path: &Path,
    max_bytes: u64,
    sink: &mut dyn FnMut(&[u8]),
) -> Result<Option<(u64, fs::Metadata)>, StateError> {
    let Some((file, metadata)) = open_regular_file(path)? else {
        return Ok(None);
    };
    let too_large = || StateError::TooLarge {
        path: path.to_path_buf(),
        limit: max_bytes,
    };
    if metadata.len() > max_bytes {
        return Err(too_large());
    }
    let mut reader = file.take(max_bytes.saturating_add(1));
    let mut buffer = vec![0u8; 64 * 1024];
    let mut read: u64 = 0;
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(StateError::io(path, error)),
        };
        read += n as u64;
        if read > max_bytes {
            return Err(too_large());
        }
        sink(&buffer[..n]);
    }
    Ok(Some((read, metadata)))
}

fn read(path: &Path, max_bytes: u64, own: bool) -> Result<Option<Vec<u8>>, StateError> {
    let Some((file, metadata)) = open_regular_file(path)? else {
        return Ok(None);
    };
    #[cfg(unix)]
    if own {
        check_owner(path, std::os::unix::fs::MetadataExt::uid(&metadata))?;
    }
    #[cfg(not(unix))]
    let _ = own;
    if metadata.len() > max_bytes {
        return Err(StateError::TooLarge {
            path: path.to_path_buf(),
            limit: max_bytes,
        });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|error| StateError::io(path, error))?;
    if bytes.len() as u64 > max_bytes {
        return Err(StateError::TooLarge {
            path: path.to_path_buf(),
            limit: max_bytes,
        });
    }
    Ok(Some(bytes))
}

/// An exclusive lock on a file, held until dropped.
#[derive(Debug)]
pub struct FileLock {
    _file: File,
}

impl FileLock {
    /// Waits for and takes the exclusive lock on `path` (created if missing, mode 0600).
    ///
    /// # Errors
    /// [`StateError::Io`] when the file cannot be opened or locked.
    pub fn acquire(path: &Path) -> Result<Self, StateError> {
        Self::lock(path, true).map(|lock| lock.expect("a blocking lock is always taken"))
    }

    /// Takes the exclusive lock on `path` if nobody holds it; `None` when somebody does.
    ///
    /// # Errors
    /// [`StateError::Io`] when the file cannot be opened or locked.
    pub fn try_acquire(path: &Path) -> Result<Option<Self>, StateError> {
        Self::lock(path, false)
    }

    fn lock(path: &Path, wait: bool) -> Result<Option<Self>, StateError> {
        let mut options = OpenOptions::new();
        options.create(true).truncate(false).write(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
        }
        let file = options.open(path).map_err(|error| {
            #[cfg(unix)]
            if error.raw_os_error() == Some(libc::ELOOP) {
                return StateError::unsafe_path(path, "is a symbolic link");
            }
            StateError::io(path, error)
        })?;
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            let operation = if wait {
                libc::LOCK_EX
            } else {
                libc::LOCK_EX | libc::LOCK_NB
            };
            // SAFETY: the descriptor is open for the call; flock has no other preconditions.
            if unsafe { libc::flock(file.as_raw_fd(), operation) } != 0 {
                let error = io::Error::last_os_error();
                if !wait && error.kind() == io::ErrorKind::WouldBlock {
                    return Ok(None);
                }
                return Err(StateError::io(path, error));
            }
        }
        #[cfg(not(unix))]
        let _ = wait;
        // Closing the file releases the lock.
        Ok(Some(Self { _file: file }))
    }
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
        // SAFETY: geteuid has no preconditions.
        let dir = if unsafe { libc::geteuid() } == 0 {
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
        let secret = temp.path().join("secret");
        fs::write(&secret, "secret").unwrap();
        let planted = temp.path().join("trusted.toml");
        std::os::unix::fs::symlink(&secret, &planted).unwrap();
        let error = read_private(&planted, 1024).unwrap_err().to_string();
        assert!(error.contains("symbolic link"), "{error}");
        let big = temp.path().join("big");
        fs::write(&big, vec![b'x'; 100]).unwrap();
        assert!(matches!(
            read_private(&big, 10),
            Err(StateError::TooLarge { limit: 10, .. })
        ));
    }

    #[test]
    fn a_held_lock_is_not_taken_twice() {
        let temp = tempfile::tempdir().unwrap();
        let path = temp.path().join("session.lock");
        let held = FileLock::acquire(&path).unwrap();
        assert!(FileLock::try_acquire(&path).unwrap().is_none());
        drop(held);
        assert!(FileLock::try_acquire(&path).unwrap().is_some());
    }
}
