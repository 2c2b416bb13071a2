//! The one walk of a skill directory: entries below it, never through a symbolic link, bounded.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use skillful_fs::FsError;

use crate::{Limits, ManifestError};

/// What the walk found at one path below the directory.
#[derive(Debug)]
pub(crate) enum Kind {
    /// A regular file, with its stamp as the walk saw it (before any read).
    File(skillful_fs::FileStamp),
    /// A symbolic link with this target (never followed).
    Link(PathBuf),
    /// A socket, FIFO or device.
    Special,
}

/// One entry below the walked directory.
#[derive(Debug)]
pub(crate) struct Found {
    /// The path relative to the walked directory.
    pub(crate) relative: PathBuf,
    /// The full path (the walked directory joined with `relative`).
    pub(crate) path: PathBuf,
    /// What is there.
    pub(crate) kind: Kind,
}

/// Walks `dir` depth first, entries of a directory in byte order of their names, never entering
/// a symbolic link; directories whose name `skip` accepts are left out with their contents.
///
/// The limits bound the number of entries, the depth and the bytes of all files together (as
/// `lstat` reports them; reads are bounded again by [`hash_file`]).
pub(crate) fn walk(
    dir: &Path,
    limits: &Limits,
    skip: &dyn Fn(&str) -> bool,
) -> Result<Vec<Found>, ManifestError> {
    let metadata = fs::symlink_metadata(dir).map_err(|source| ManifestError::Io {
        path: dir.to_owned(),
        source,
    })?;
    if !metadata.is_dir() {
        return Err(ManifestError::NotADirectory {
            path: dir.to_owned(),
        });
    }
    let mut walk = Walk {
        dir,
        limits,
        found: Vec::new(),
        total: 0,
    };
    let mut pending = vec![(PathBuf::new(), 0usize)];
    while let Some((relative_dir, depth)) = pending.pop() {
        let mut subdirs = Vec::new();
        for name in sorted_names(&dir.join(&relative_dir))? {
            let relative = relative_dir.join(&name);
            let path = dir.join(&relative);
            let metadata = fs::symlink_metadata(&path).map_err(|source| ManifestError::Io {
                path: path.clone(),
                source,
            })?;
            if metadata.is_dir() {
                if name.to_str().is_some_and(skip) {
                    continue;
                }
                if depth + 1 > limits.max_depth {
                    return Err(ManifestError::TooDeep {
                        path,
                        limit: limits.max_depth,
                    });
                }
                subdirs.push((relative, depth + 1));
            } else {
                walk.add(relative, path, &metadata)?;
            }
        }
        // Depth first, in name order: the last pushed is walked first.
        pending.extend(subdirs.into_iter().rev());
    }
    Ok(walk.found)
}

/// The entries found so far and the bytes of their files, against the walk's limits.
struct Walk<'a> {
    dir: &'a Path,
    limits: &'a Limits,
    found: Vec<Found>,
    total: u64,
}

impl Walk<'_> {
    /// Adds the entry at `path` that is not a directory, within the limits on entries and bytes.
    fn add(
        &mut self,
        relative: PathBuf,
        path: PathBuf,
        metadata: &fs::Metadata,
    ) -> Result<(), ManifestError> {
        let file_type = metadata.file_type();
        let kind = if file_type.is_symlink() {
            let target = fs::read_link(&path).map_err(|source| ManifestError::Io {
                path: path.clone(),
                source,
            })?;
            Kind::Link(target)
        } else if file_type.is_file() {
            self.total = self.total.saturating_add(metadata.len());
            if self.total > self.limits.max_total_bytes {
                return Err(ManifestError::TooLarge {
                    dir: self.dir.to_owned(),
                    limit: self.limits.max_total_bytes,
                });
            }
            Kind::File(skillful_fs::FileStamp::of(metadata))
        } else {
            Kind::Special
        };
        if self.found.len() >= self.limits.max_files {
            return Err(ManifestError::TooManyFiles {
                dir: self.dir.to_owned(),
                limit: self.limits.max_files,
            });
        }
        self.found.push(Found {
            relative,
            path,
            kind,
        });
        Ok(())
    }
}

/// The names in `dir`, in byte order.
fn sorted_names(dir: &Path) -> Result<Vec<std::ffi::OsString>, ManifestError> {
    let io_error = |source| ManifestError::Io {
        path: dir.to_owned(),
        source,
    };
    let mut names = fs::read_dir(dir)
        .map_err(io_error)?
        .map(|entry| entry.map(|entry| entry.file_name()).map_err(io_error))
        .collect::<Result<Vec<_>, _>>()?;
    names.sort();
    Ok(names)
}

/// The file a link at `relative` (below the walked directory) pointing at `target` names, as
/// the kernel resolves it: `None` when the target is absolute, climbs above the walked
/// directory, or passes through a link (`is_link` of a path on the way), whose own target the
/// text does not show (with `b -> .`, `../b/b/../../x` leaves the directory although its text
/// seems not to). The one place a link's target is judged.
pub(crate) fn link_target(
    relative: &Path,
    target: &Path,
    is_link: impl Fn(&Path) -> bool,
) -> Option<PathBuf> {
    let mut at: PathBuf = relative.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut components = target.components().peekable();
    while let Some(component) = components.next() {
        match component {
            Component::Normal(name) => {
                at.push(name);
                if components.peek().is_some() && is_link(&at) {
                    return None;
                }
            }
            Component::CurDir => {}
            Component::ParentDir => {
                if !at.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(at)
}

/// A failure of reading the file at `path` as the manifest says it.
pub(crate) fn read_error(path: &Path, error: FsError) -> ManifestError {
    let path = path.to_owned();
    match error {
        FsError::TooLarge { limit, .. } => ManifestError::FileTooLarge { path, limit },
        FsError::Unsafe { .. } => ManifestError::NotARegularFile { path },
        FsError::Io { source, .. } => ManifestError::Io { path, source },
        other => ManifestError::Io {
            path,
            source: io::Error::other(other),
        },
    }
}

/// A file the walk found that is gone when it is read.
pub(crate) fn vanished(path: &Path) -> ManifestError {
    ManifestError::Io {
        path: path.to_owned(),
        source: io::ErrorKind::NotFound.into(),
    }
}

/// The size and lowercase hexadecimal SHA-256 of the regular file at `path` (never through a
/// final link, never blocking on a FIFO, nothing past `limit` bytes).
pub(crate) fn hash_file(path: &Path, limit: u64) -> Result<(u64, String), ManifestError> {
    match skillful_fs::sha256_file(path, limit) {
        Ok(Some(digest)) => Ok((digest.size, digest.sha256)),
        Ok(None) => Err(vanished(path)),
        Err(error) => Err(read_error(path, error)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_judged_from_their_own_directory_through_no_other_link() {
        let none = |_: &Path| false;
        let target = |relative: &str, target: &str| {
            link_target(Path::new(relative), Path::new(target), none)
        };
        assert_eq!(
            target("a/l", "../SKILL.md"),
            Some(PathBuf::from("SKILL.md"))
        );
        assert_eq!(target("l", "scripts/./x"), Some(PathBuf::from("scripts/x")));
        assert_eq!(target("l", "../x"), None);
        assert_eq!(target("a/l", "../../x"), None);
        assert_eq!(target("a/l", "b/../../../x"), None);
        assert_eq!(target("l", "/etc/passwd"), None);
        // With `b -> .`, the text stays inside but the path does not.
        let b_is_a_link = |path: &Path| path == Path::new("b");
        assert_eq!(
            link_target(Path::new("a/l"), Path::new("../b/b/../../x"), b_is_a_link),
            None
        );
        // A link named last is a chain: the caller refuses a target that is not a file.
        assert_eq!(
            link_target(Path::new("l"), Path::new("b"), b_is_a_link),
            Some(PathBuf::from("b"))
        );
    }
}
