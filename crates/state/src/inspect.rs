//! Whether a place of private state is safe, looked at without changing anything (for
//! `skills doctor`): what [`private_dir`](crate::private_dir) and the private reads would refuse
//! or repair, and what they cannot see (a parent directory others can write).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// What a directory or file of private state looks like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathState {
    /// It does not exist (it is created private when first needed).
    Missing,
    /// It is the user's, of the right kind, and no one else may read or write it.
    Private,
    /// It is the user's and no one else may write it, but others may read it (mode shown):
    /// skillful takes that access away the next time it uses it.
    Readable {
        /// Its permission bits.
        mode: u32,
    },
    /// Someone else could plant or replace what it holds.
    Unsafe {
        /// The path that is the problem (it, or a directory above it).
        path: PathBuf,
        /// What is wrong, as a phrase (`is writable by others (mode 0777)`).
        reason: String,
    },
}

impl PathState {
    /// Whether it is [`PathState::Unsafe`].
    pub fn is_unsafe(&self) -> bool {
        matches!(self, Self::Unsafe { .. })
    }
}

/// Looks at `path`, expected to be a directory (`dir`) or a regular file, and at every directory
/// above it: unsafe when it is a symbolic link, of the other kind, owned by another user, or
/// writable by group or others, or when a directory above it is writable by others without the
/// sticky bit or owned by someone other than the user or root. Nothing is created or changed.
///
/// # Errors
/// The operating system refused to describe it (not a missing file: that is
/// [`PathState::Missing`]).
pub fn inspect_private(path: &Path, dir: bool) -> io::Result<PathState> {
    let metadata = match fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(PathState::Missing),
        Err(error) => return Err(error),
    };
    let unsafe_because = |reason: String| PathState::Unsafe {
        path: path.to_path_buf(),
        reason,
    };
    if metadata.file_type().is_symlink() {
        return Ok(unsafe_because("is a symbolic link".into()));
    }
    if dir != metadata.is_dir() || (!dir && !metadata.is_file()) {
        let kind = if dir { "a directory" } else { "a regular file" };
        return Ok(unsafe_because(format!("is not {kind}")));
    }
    #[cfg(unix)]
    {
        use crate::{Ownership, current_uid};
        let me = current_uid();
        let ownership = Ownership::of(&metadata);
        let mode = ownership.mode;
        if !ownership.is_mine() {
            return Ok(unsafe_because(format!(
                "is owned by another user (uid {}, not {me})",
                ownership.uid
            )));
        }
        if ownership.writable_by_others() {
            return Ok(unsafe_because(format!(
                "is writable by others (mode {mode:04o})"
            )));
        }
        for parent in path
            .ancestors()
            .skip(1)
            .filter(|p| !p.as_os_str().is_empty())
        {
            let above = Ownership::of(&fs::metadata(parent)?);
            let parent_mode = above.mode;
            if let Some(uid) = above.foreign_owner() {
                return Ok(PathState::Unsafe {
                    path: parent.to_path_buf(),
                    reason: format!(
                        "(a directory above {}) is owned by another user (uid {uid})",
                        path.display(),
                    ),
                });
            }
            if above.writable_by_everyone() && !above.sticky() {
                return Ok(PathState::Unsafe {
                    path: parent.to_path_buf(),
                    reason: format!(
                        "(a directory above {}) is writable by others (mode {parent_mode:04o}), so \
                         what is below it can be replaced",
                        path.display()
                    ),
                });
            }
        }
        if ownership.open_to_others() {
            return Ok(PathState::Readable { mode });
        }
    }
    Ok(PathState::Private)
}
