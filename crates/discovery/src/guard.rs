//! Read-time checks: a file found at discovery is read only if it is still a plain file inside
//! its skill directory, reached without any symbolic link.

use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use skillful_core::SkillError;
use skillful_core::names::check_relative_name;

/// Whether two metadata describe the same file on disk.
#[cfg(unix)]
pub(crate) fn same_file(a: &Metadata, b: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// Whether two metadata describe the same file on disk (not knowable portably here; the
/// symbolic-link and containment checks still apply).
#[cfg(not(unix))]
pub(crate) fn same_file(_a: &Metadata, _b: &Metadata) -> bool {
    true
}

/// What identifies a file's content without reading it: modification time, size and (on Unix)
/// device and inode. A cached read of the file is good while its stamp is unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    modified: Option<std::time::SystemTime>,
    len: u64,
    identity: (u64, u64),
}

impl Stamp {
    pub(crate) fn of(metadata: &Metadata) -> Self {
        #[cfg(unix)]
        let identity = {
            use std::os::unix::fs::MetadataExt;
            (metadata.dev(), metadata.ino())
        };
        #[cfg(not(unix))]
        let identity = (0, 0);
        Self {
            modified: metadata.modified().ok(),
            len: metadata.len(),
            identity,
        }
    }
}

/// Proves that `relative` (a `/`-separated path) names a file inside `dir` (canonical) with no
/// symbolic link on the way and is a regular file, and returns its canonical path with its
/// metadata.
///
/// # Errors
/// [`SkillError::Refused`] when a segment is a symbolic link, the file is not a regular file
/// or it resolves outside `dir`; [`SkillError::Unreadable`] when a segment cannot be inspected.
pub(crate) fn check_inside(dir: &Path, relative: &str) -> Result<(PathBuf, Metadata), SkillError> {
    if let Err(unsafe_name) = check_relative_name(relative) {
        return Err(SkillError::Refused {
            what: dir.join(relative).display().to_string(),
            reason: unsafe_name.reason.to_owned(),
        });
    }
    let mut path = dir.to_path_buf();
    let mut last = None;
    for segment in relative.split('/') {
        path.push(segment);
        let metadata = fs::symlink_metadata(&path).map_err(|source| unreadable(&path, source))?;
        if metadata.file_type().is_symlink() {
            return Err(SkillError::Refused {
                what: path.display().to_string(),
                reason: "it is, or passes through, a symbolic link; links inside a skill are not followed: copy the file into the skill instead".into(),
            });
        }
        last = Some(metadata);
    }
    let Some(metadata) = last else {
        return Err(SkillError::Refused {
            what: path.display().to_string(),
            reason: "it names the skill directory itself, not a file in it".into(),
        });
    };
    if !metadata.is_file() {
        return Err(SkillError::Refused {
            what: path.display().to_string(),
            reason: "it is not a regular file".into(),
        });
    }
    let canonical = dunce::canonicalize(&path).map_err(|source| unreadable(&path, source))?;
    if !is_strictly_inside(dir, &canonical) {
        return Err(SkillError::Refused {
            reason: format!(
                "it resolves to {}, outside the skill directory {}",
                canonical.display(),
                dir.display()
            ),
            what: path.display().to_string(),
        });
    }
    Ok((canonical, metadata))
}

/// Whether `path` lies below `dir`, compared by whole components (so `/skills/a-evil` is not
/// inside `/skills/a`).
fn is_strictly_inside(dir: &Path, path: &Path) -> bool {
    path.strip_prefix(dir)
        .is_ok_and(|rest| rest.components().next().is_some())
}

/// Reads the file `relative` below `dir` after [`check_inside`], making sure the file opened is
/// the one checked, and refusing one larger than `limit` bytes.
///
/// # Errors
/// [`SkillError::Refused`] as for [`check_inside`], or when the file changed between checking
/// and opening; [`SkillError::Unreadable`] when it cannot be read or is over the limit.
pub(crate) fn read_inside(
    dir: &Path,
    relative: &str,
    limit: Option<u64>,
) -> Result<Vec<u8>, SkillError> {
    let (_, on_disk) = check_inside(dir, relative)?;
    let path = relative
        .split('/')
        .fold(dir.to_path_buf(), |path, segment| path.join(segment));
    let io_error = |source: io::Error| unreadable(&path, source);
    // Checked before opening, so a planted FIFO or device is refused rather than opened; and the
    // file opened must be the file checked, so a link swapped in between is refused too.
    let mut file = File::open(&path).map_err(io_error)?;
    let opened = file.metadata().map_err(io_error)?;
    if !same_file(&opened, &on_disk) {
        return Err(SkillError::Refused {
            what: path.display().to_string(),
            reason: "the file was replaced while it was being opened".into(),
        });
    }
    let expected = limit.map_or(opened.len(), |limit| {
        opened.len().min(limit.saturating_add(1))
    });
    let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0));
    match limit {
        // One byte past the limit is enough to know the file is over it.
        Some(limit) => {
            file.by_ref()
                .take(limit.saturating_add(1))
                .read_to_end(&mut bytes)
                .map_err(io_error)?;
            if bytes.len() as u64 > limit {
                return Err(io_error(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "the file is over the limit of {limit} bytes; shorten it or raise the limit"
                    ),
                )));
            }
        }
        None => {
            file.read_to_end(&mut bytes).map_err(io_error)?;
        }
    }
    Ok(bytes)
}

/// A read of `path` that failed.
pub(crate) fn unreadable(path: &Path, source: io::Error) -> SkillError {
    SkillError::Unreadable {
        what: path.display().to_string(),
        source,
    }
}
