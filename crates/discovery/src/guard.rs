//! Read-time checks: a file found at discovery is read only if it is still a plain file inside
//! its skill directory, reached without any symbolic link, and with no other hard link (unless
//! allowed). Opening never blocks (a FIFO swapped in is opened at once and refused), and reads
//! are bounded: a whole file up to a cap, or a window of it, never more.

use std::fs::{self, File, Metadata};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use skillful_core::SkillError;
use skillful_core::names::RelativeName;
use skillful_fs::{FileStamp, FsError, is_link_refusal, open_nofollow};

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

/// Proves that `relative` (a `/`-separated path) names a file inside `dir` (canonical) with no
/// symbolic link on the way and is a regular file, and returns its canonical path with its
/// metadata.
///
/// # Errors
/// [`SkillError::Refused`] when a segment is a symbolic link, the file is not a regular file
/// or it resolves outside `dir`; [`SkillError::Unreadable`] when a segment cannot be inspected.
pub(crate) fn check_inside(dir: &Path, relative: &str) -> Result<(PathBuf, Metadata), SkillError> {
    if let Err(unsafe_name) = RelativeName::new(relative) {
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

/// How the files of a skill may be read: at most `max_bytes` into memory at once, and whether a
/// file with more than one hard link is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReadLimits {
    pub(crate) max_bytes: u64,
    pub(crate) allow_hard_links: bool,
}

/// How many names the file has (hard links); 1 where that cannot be known.
#[cfg(unix)]
fn link_count(metadata: &Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    metadata.nlink()
}

#[cfg(not(unix))]
fn link_count(_metadata: &Metadata) -> u64 {
    1
}

/// Opens the file `relative` below `dir` after [`check_inside`], without blocking, and checks
/// the file opened: a regular file, the very file checked, and (unless `limits` allow it) with no
/// other hard link. Returns it with its metadata and its path.
///
/// # Errors
/// [`SkillError::Refused`] as for [`check_inside`], when the file changed between checking
/// and opening (a link, a FIFO or another file swapped in), or has another hard link;
/// [`SkillError::Unreadable`] when it cannot be opened.
fn open_inside(
    dir: &Path,
    relative: &str,
    limits: &ReadLimits,
) -> Result<(File, Metadata, PathBuf), SkillError> {
    let (_, on_disk) = check_inside(dir, relative)?;
    let path = relative
        .split('/')
        .fold(dir.to_path_buf(), |path, segment| path.join(segment));
    let unsafe_path = |path: PathBuf, reason: &str| SkillError::Refused {
        what: path.display().to_string(),
        reason: reason.to_owned(),
    };
    let file = match open_nofollow(&path) {
        Ok(file) => file,
        Err(error) if is_link_refusal(&error) => {
            return Err(unsafe_path(
                path,
                "it was replaced by a symbolic link while it was being opened; links inside a skill are not followed",
            ));
        }
        Err(source) => return Err(unreadable(&path, source)),
    };
    let opened = match file.metadata() {
        Ok(opened) => opened,
        Err(source) => return Err(unreadable(&path, source)),
    };
    if !opened.is_file() {
        return Err(unsafe_path(
            path,
            "it is no longer a regular file (a FIFO, device or directory was put in its place)",
        ));
    }
    if !same_file(&opened, &on_disk) {
        return Err(unsafe_path(
            path,
            "the file was replaced while it was being opened",
        ));
    }
    let links = link_count(&opened);
    if links > 1 && !limits.allow_hard_links {
        return Err(SkillError::Refused {
            what: path.display().to_string(),
            reason: format!(
                "it has {links} hard links, so it may be a file from outside the skill; copy the file into the skill instead, or allow hard links (FileSkillsSourceBuilder::allow_hard_links)"
            ),
        });
    }
    Ok((file, opened, path))
}

/// The error for a file over `limit` bytes.
fn over_limit(path: PathBuf, limit: u64) -> SkillError {
    SkillError::TooLarge {
        what: path.display().to_string(),
        limit,
        advice: "shorten it, read it in pages, or raise the limit".to_owned(),
    }
}

/// Reads the whole file `relative` below `dir` (see [`open_inside`]), refusing one larger than
/// `limit` bytes (for `SKILL.md`, the frontmatter loader's limit) or than `limits.max_bytes`.
///
/// # Errors
/// As [`open_inside`]; [`SkillError::Unreadable`] when it cannot be read or is over the limit.
pub(crate) fn read_inside(
    dir: &Path,
    relative: &str,
    limit: Option<u64>,
    limits: &ReadLimits,
) -> Result<Vec<u8>, SkillError> {
    read_inside_stamped(dir, relative, limit, limits).map(|(bytes, _)| bytes)
}

/// [`read_inside`], with the stamp of the file opened (taken before its bytes were read, so a
/// file changed while it was read gets another stamp afterwards).
///
/// # Errors
/// As [`read_inside`].
pub(crate) fn read_inside_stamped(
    dir: &Path,
    relative: &str,
    limit: Option<u64>,
    limits: &ReadLimits,
) -> Result<(Vec<u8>, FileStamp), SkillError> {
    let (file, opened, path) = open_inside(dir, relative, limits)?;
    let stamp = FileStamp::of(&opened);
    let limit = limit.map_or(limits.max_bytes, |limit| limit.min(limits.max_bytes));
    match skillful_fs::read_opened(&path, &file, &opened, limit) {
        Ok(bytes) => Ok((bytes, stamp)),
        Err(FsError::TooLarge { .. }) => Err(over_limit(path, limit)),
        Err(FsError::Io { source, .. }) => Err(unreadable(&path, source)),
        Err(other) => Err(unreadable(&path, io::Error::other(other))),
    }
}

/// Reads at most `max_len` bytes (and never more than `limits.max_bytes`) of the file
/// `relative` below `dir` (see [`open_inside`]), from byte `offset`, reading nothing else of it;
/// returns them with the file's length. Past the end, no bytes.
///
/// # Errors
/// As [`open_inside`]; [`SkillError::Unreadable`] when it cannot be read.
pub(crate) fn read_window(
    dir: &Path,
    relative: &str,
    offset: u64,
    max_len: u64,
    limits: &ReadLimits,
) -> Result<(Vec<u8>, u64), SkillError> {
    let (mut file, opened, path) = open_inside(dir, relative, limits)?;
    let total = opened.len();
    let wanted = max_len
        .min(limits.max_bytes)
        .min(total.saturating_sub(offset));
    let mut bytes = Vec::with_capacity(usize::try_from(wanted).unwrap_or(0));
    if wanted > 0 {
        let io_error = |source| unreadable(&path, source);
        file.seek(SeekFrom::Start(offset)).map_err(io_error)?;
        file.take(wanted)
            .read_to_end(&mut bytes)
            .map_err(io_error)?;
    }
    Ok((bytes, total))
}

/// A read of `path` that failed.
pub(crate) fn unreadable(path: &Path, source: io::Error) -> SkillError {
    SkillError::Unreadable {
        what: path.display().to_string(),
        source,
    }
}
