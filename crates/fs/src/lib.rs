//! The file toolkit of skillful: the one way the workspace opens, reads, writes, locks, stamps
//! and hashes a file it did not create itself.
//!
//! A skill, a lock file or a baseline is a file someone else may have put there, so every read
//! here refuses a final symbolic link (`O_NOFOLLOW`), never blocks on a FIFO put in place of a
//! file (`O_NONBLOCK`), refuses anything but a regular file (judged on the opened file, not on a
//! path looked at earlier) and stops at a size limit; every write goes whole to a temporary file
//! beside its target, flushed to disk and renamed into place, so that a crash never leaves half a
//! file. [`FileLock`] serializes writers, [`FileStamp`] tells cheaply whether a file may have
//! changed, [`sha256_file`] hashes a file read the same careful way.
//!
//! [`blocking`] (its `run` and `spawn` behind the `blocking` feature) is here too: it is how
//! async code does this blocking I/O (and the other blocking work of the workspace, all of
//! which is I/O of some kind) without stalling the runtime, with one panic policy.
//!
//! It knows files, not who they belong to or what they hold: the per-user directories, private
//! files and ownership rules are `skillful-state`'s, formats are their callers'. It holds the
//! `unsafe` call to `flock`, which `libc` has no safe wrapper for here.
//!
//! # Example
//! ```
//! # let temp = tempfile::tempdir().unwrap();
//! let file = temp.path().join("skills-lock.json");
//! skillful_fs::write_atomic(&file, b"{}\n", 0o644).unwrap();
//! assert_eq!(skillful_fs::read_bounded(&file, 1024).unwrap().unwrap(), b"{}\n");
//! assert!(skillful_fs::read_bounded(&file, 2).is_err());
//! ```

pub mod blocking;
mod digest;
mod stamp;

pub use digest::{FileDigest, hex, sha256_file, sha256_hex};
pub use stamp::FileStamp;

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Why a file could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FsError {
    /// The path is not one to read or write: a symbolic link, or not a regular file.
    #[error("{}: refused as a place for private state: it {reason}; remove it (it is recreated) or fix its owner and permissions", path.display())]
    Unsafe {
        /// The path.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A file is larger than it may be.
    #[error("{}: over the limit of {limit} bytes; it is not read", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit.
        limit: u64,
    },
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

impl FsError {
    /// The operating system's `source` refusing an operation on `path`.
    pub fn io(path: &Path, source: io::Error) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// `path` refused as a place to read or write: it `reason` ("is a symbolic link").
    pub fn unsafe_path(path: &Path, reason: impl Into<String>) -> Self {
        Self::Unsafe {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }

    fn too_large(path: &Path, limit: u64) -> Self {
        Self::TooLarge {
            path: path.to_path_buf(),
            limit,
        }
    }
}

/// Writes `bytes` as the whole of `path`: into a new temporary file beside it (with `mode` on
/// Unix), flushed to disk, then renamed over `path`, and the directory flushed too; readers see
/// the old file or the new one, never half of either. The directory must exist.
///
/// # Errors
/// [`FsError::Io`] when writing fails (the temporary file is removed); [`FsError::Unsafe`] for a
/// path that names no file.
pub fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> Result<(), FsError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let name = path
        .file_name()
        .ok_or_else(|| FsError::unsafe_path(path, "names no file"))?;
    #[cfg(unix)]
    {
        let flags = rustix::fs::OFlags::RDONLY
            | rustix::fs::OFlags::DIRECTORY
            | rustix::fs::OFlags::CLOEXEC;
        let fd = rustix::fs::open(dir, flags, rustix::fs::Mode::empty())
            .map_err(|error| FsError::io(dir, error.into()))?;
        write_atomic_at(&fd, name, path, bytes, mode)
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
            FsError::io(path, error)
        })
    }
}

/// Writes `bytes` as the whole of the file `name` in the open directory `dir`, whose path is
/// `path`'s parent (`path` names the file in errors): a temporary file made
/// `O_CREAT | O_EXCL | O_NOFOLLOW` with `mode` beside it, flushed, renamed over `name` in the
/// same directory, then the directory flushed. Whatever had that name (a file, a symbolic link)
/// is replaced, never written through; nothing is reached by path, so a directory renamed on the
/// way meanwhile changes nothing.
///
/// # Errors
/// [`FsError::Io`] (the temporary file is removed).
#[cfg(unix)]
pub fn write_atomic_at(
    dir: impl std::os::fd::AsFd,
    name: &std::ffi::OsStr,
    path: &Path,
    bytes: &[u8],
    mode: u32,
) -> Result<(), FsError> {
    use std::io::Write;
    use std::sync::atomic::{AtomicU64, Ordering};

    use rustix::fs::{AtFlags, Mode, OFlags};

    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = dir.as_fd();
    let mut temporary = std::ffi::OsString::from(".");
    temporary.push(name);
    temporary.push(format!(
        ".{}.{}.tmp",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let written = (|| -> io::Result<()> {
        let fd = rustix::fs::openat(
            dir,
            temporary.as_os_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(mode),
        )?;
        let mut file = File::from(fd);
        file.write_all(bytes)?;
        file.sync_all()?;
        rustix::fs::renameat(dir, temporary.as_os_str(), dir, name)?;
        rustix::fs::fsync(dir)?;
        Ok(())
    })();
    written.map_err(|error| {
        let _ = rustix::fs::unlinkat(dir, temporary.as_os_str(), AtFlags::empty());
        FsError::io(path, error)
    })
}

/// Reads the file `path` whole, or `None` when it does not exist; refuses one that is a symbolic
/// link, not a regular file, or over `max_bytes`. Never blocks on a FIFO.
///
/// # Errors
/// [`FsError::Unsafe`], [`FsError::TooLarge`] or [`FsError::Io`].
pub fn read_bounded(path: &Path, max_bytes: u64) -> Result<Option<Vec<u8>>, FsError> {
    let Some((file, metadata)) = open_regular_file(path)? else {
        return Ok(None);
    };
    read_opened(path, &file, &metadata, max_bytes).map(Some)
}

/// Reads the whole of `file` from where it stands, opened at `path` (with `metadata`, the opened
/// file's), refusing more than `max_bytes`: [`read_bounded`] for a caller that opens the file
/// itself or looks at the opened file (its owner, its links) before reading it, and may keep it
/// open afterwards. The workspace's one bounded read of a whole file; [`read_regular_file`]
/// streams a file too large to hold (for hashing) instead.
///
/// # Errors
/// [`FsError::TooLarge`] or [`FsError::Io`].
pub fn read_opened(
    path: &Path,
    file: &File,
    metadata: &fs::Metadata,
    max_bytes: u64,
) -> Result<Vec<u8>, FsError> {
    if metadata.len() > max_bytes {
        return Err(FsError::too_large(path, max_bytes));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|error| FsError::io(path, error))?;
    if bytes.len() as u64 > max_bytes {
        return Err(FsError::too_large(path, max_bytes));
    }
    Ok(bytes)
}

/// Opens `path` for reading without following a final symbolic link and without blocking on a
/// FIFO, and refuses anything but a regular file; `None` when there is no such file. The
/// metadata is the opened file's, so a file swapped in after a check cannot pass for it.
///
/// # Errors
/// [`FsError::Unsafe`] for a symbolic link or a file that is not regular; [`FsError::Io`].
pub fn open_regular_file(path: &Path) -> Result<Option<(File, fs::Metadata)>, FsError> {
    let file = match open_nofollow(path) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) if is_link_refusal(&error) => {
            return Err(FsError::unsafe_path(path, "is a symbolic link"));
        }
        Err(error) => return Err(FsError::io(path, error)),
    };
    let metadata = file.metadata().map_err(|error| FsError::io(path, error))?;
    if !metadata.is_file() {
        return Err(FsError::unsafe_path(path, "is not a regular file"));
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
/// [`FsError::Unsafe`] for a link or a file that is not regular, [`FsError::TooLarge`] (what
/// was read so far has gone to `sink`), [`FsError::Io`].
pub fn read_regular_file(
    path: &Path,
    max_bytes: u64,
    sink: &mut dyn FnMut(&[u8]),
) -> Result<Option<(u64, fs::Metadata)>, FsError> {
    let Some((file, metadata)) = open_regular_file(path)? else {
        return Ok(None);
    };
    if metadata.len() > max_bytes {
        return Err(FsError::too_large(path, max_bytes));
    }
    let mut reader = file.take(max_bytes.saturating_add(1));
    let mut buffer = vec![0u8; 64 * 1024];
    let mut read: u64 = 0;
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(FsError::io(path, error)),
        };
        read += n as u64;
        if read > max_bytes {
            return Err(FsError::too_large(path, max_bytes));
        }
        sink(&buffer[..n]);
    }
    Ok(Some((read, metadata)))
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
    /// [`FsError::Unsafe`] when `path` is a symbolic link; [`FsError::Io`] when the file cannot
    /// be opened or locked.
    pub fn acquire(path: &Path) -> Result<Self, FsError> {
        Self::lock(path, true).map(|lock| lock.expect("a blocking lock is always taken"))
    }

    /// Takes the exclusive lock on `path` if nobody holds it; `None` when somebody does.
    ///
    /// # Errors
    /// As [`FileLock::acquire`].
    pub fn try_acquire(path: &Path) -> Result<Option<Self>, FsError> {
        Self::lock(path, false)
    }

    fn lock(path: &Path, wait: bool) -> Result<Option<Self>, FsError> {
        let mut options = OpenOptions::new();
        options.create(true).truncate(false).write(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
        }
        let file = options.open(path).map_err(|error| {
            if is_link_refusal(&error) {
                return FsError::unsafe_path(path, "is a symbolic link");
            }
            FsError::io(path, error)
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
                return Err(FsError::io(path, error));
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
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn files_are_written_whole_with_their_mode_and_a_planted_link_is_replaced() {
        let temp = tempfile::tempdir().unwrap();
        let file = temp.path().join("skills-lock.json");
        let victim = temp.path().join("victim");
        fs::write(&victim, "keep").unwrap();
        std::os::unix::fs::symlink(&victim, &file).unwrap();
        write_atomic(&file, b"one", 0o644).unwrap();
        write_atomic(&file, b"two", 0o644).unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(
            fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o644
        );
        assert_eq!(read_bounded(&file, 16).unwrap().unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(temp.path()).unwrap().collect();
        assert_eq!(names.len(), 2, "no temporary file is left behind");
    }

    #[test]
    fn a_link_a_fifo_or_an_oversized_file_is_not_read() {
        let temp = tempfile::tempdir().unwrap();
        let planted = skillful_test_support::planted_link(temp.path(), "baseline.json");
        let secret = temp.path().join("secret");
        let error = read_bounded(&planted, 1024).unwrap_err().to_string();
        assert!(error.contains("symbolic link"), "{error}");
        let fifo = temp.path().join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert!(matches!(
            read_bounded(&fifo, 1024),
            Err(FsError::Unsafe { .. })
        ));
        assert!(matches!(
            read_bounded(&secret, 3),
            Err(FsError::TooLarge { limit: 3, .. })
        ));
        assert_eq!(read_bounded(&temp.path().join("missing"), 3).unwrap(), None);
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
