//! Skills covered by a lock (`skills-lock.json` beside their root, as `skills add` writes it)
//! whose files differ from it.
//!
//! Stamps first: each covered skill's manifest is made with
//! [`Manifest::of_dir_cached`](skillful_manifest::Manifest::of_dir_cached) over a
//! [`DigestCache`] kept in the user's cache directory, so an unchanged skill costs the `lstat`
//! of its files and no read; only a file whose stamp changed is hashed again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use skillful_lockfile::LockFile;
use skillful_manifest::{DigestCache, Limits, Manifest};

/// The name of the digest cache in the user's cache directory.
pub(crate) const DIGEST_CACHE_FILE: &str = "manifest-digests.json";

/// A covered skill whose files differ from its lock.
#[derive(Debug, Clone)]
pub(crate) struct Drift {
    /// The lock it is covered by.
    pub(crate) lock: PathBuf,
    /// The paths added, removed or changed, in path order (or why its files cannot be read).
    pub(crate) files: Vec<String>,
}

/// What one check found.
#[derive(Debug, Default)]
pub(crate) struct Checked {
    /// By skill directory (as its origin's location), the covered skills that differ.
    pub(crate) drifted: HashMap<String, Drift>,
    /// Files read and hashed (0 when nothing changed since the cache was written).
    pub(crate) hashed: u64,
}

/// Checks the skills at `skill_dirs` (canonical directories) covered by a lock beside one of
/// `roots` against it, reusing and updating the digest cache at `cache_file` (its directory is
/// created private when the cache is first written).
pub(crate) fn check(roots: &[PathBuf], skill_dirs: &[String], cache_file: &Path) -> Checked {
    let mut covered = HashMap::new();
    for root in roots {
        let lock_path = LockFile::path_for(root);
        if std::fs::symlink_metadata(&lock_path).is_err() {
            continue;
        }
        let lock = match LockFile::read(&lock_path) {
            Ok(lock) => lock,
            Err(error) => {
                tracing::warn!("{error}; its skills are not checked against it");
                continue;
            }
        };
        let Ok(root) = dunce::canonicalize(root) else {
            continue;
        };
        for (name, entry) in lock.skills {
            covered.insert(root.join(name), (lock_path.clone(), entry));
        }
    }
    let mut checked = Checked::default();
    if covered.is_empty() {
        return checked;
    }
    let mut cache = DigestCache::load(cache_file);
    let limits = Limits::default();
    for dir in skill_dirs {
        let Some((lock, entry)) = covered.get(Path::new(dir)) else {
            continue;
        };
        let files = match Manifest::of_dir_cached(Path::new(dir), &limits, &mut cache) {
            Ok(now) if now.digest() == entry.digest => continue,
            Ok(now) => {
                let diff = now.diff(&entry.files);
                let mut files: Vec<String> = [diff.added, diff.removed, diff.changed].concat();
                files.sort();
                files
            }
            Err(error) => vec![error.to_string()],
        };
        checked.drifted.insert(
            dir.clone(),
            Drift {
                lock: lock.clone(),
                files,
            },
        );
    }
    checked.hashed = cache.hashed();
    if cache.is_changed() {
        cache.retain(|dir| dir.is_dir());
        let saved = match cache_file.parent() {
            Some(dir) => skillful_state::private_dir(dir)
                .map_err(|error| error.to_string())
                .and_then(|()| cache.save(cache_file).map_err(|error| error.to_string())),
            None => Ok(()),
        };
        if let Err(error) = saved {
            tracing::debug!("the digest cache was not saved: {error}");
        }
    }
    checked
}
