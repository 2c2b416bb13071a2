//! `skills-lock.json`: what is installed in one scope, from where, and its files.
//!
//! A [`LockFile`] is the lock of one scope's skills directory, beside it
//! ([`LockFile::path_for`]): per skill its source, the commit installed, vercel-labs/skills'
//! `computedHash` and the [`Manifest`] of its files with their digest. `skillful-install` writes
//! it; a composition reads it to find the skills whose files differ from it.
//!
//! It knows the format, not git, installing or scanning.
//!
//! ```
//! # let temp = tempfile::tempdir().unwrap();
//! let skills_dir = temp.path().join(".agents/skills");
//! let path = skillful_lockfile::LockFile::path_for(&skills_dir);
//! assert!(path.ends_with(".agents/skills-lock.json"));
//! // A missing lock is an empty one.
//! assert!(skillful_lockfile::LockFile::read(&path).unwrap().skills.is_empty());
//! ```

#![forbid(unsafe_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use skillful_manifest::Manifest;

/// A lock file that could not be read or written.
#[derive(Debug, thiserror::Error)]
#[error("{}: {reason}", path.display())]
pub struct LockError {
    /// The lock file.
    pub path: PathBuf,
    /// Why.
    pub reason: String,
}

/// The lock file's name, beside the scope's `skills` directory.
pub const LOCK_FILE: &str = "skills-lock.json";

/// The format version this crate writes and reads.
pub const LOCK_VERSION: u32 = 1;

/// The lock file of one scope.
///
/// ```json
/// {
///   "version": 1,
///   "skills": {
///     "pdf": {
///       "source": "https://github.com/anthropics/skills.git",
///       "sourceType": "git",
///       "ref": "main",
///       "commit": "0123…",
///       "path": "skills/pdf",
///       "installedAt": "2026-12-01T20:00:00Z",
///       "computedHash": "…",
///       "digest": "…",
///       "files": [{"path": "SKILL.md", "size": 1234, "sha256": "…"}]
///     }
///   }
/// }
/// ```
/// Names are sorted; the file is two-space indented JSON with a final newline (the layout of
/// vercel-labs/skills' `skills-lock.json`, whose `source`, `ref`, `sourceType` and
/// `computedHash` it shares).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LockFile {
    /// [`LOCK_VERSION`].
    pub version: u32,
    /// The locked skills by name.
    pub skills: BTreeMap<String, LockedSkill>,
}

impl Default for LockFile {
    fn default() -> Self {
        Self {
            version: LOCK_VERSION,
            skills: BTreeMap::new(),
        }
    }
}

/// One installed skill.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LockedSkill {
    /// The git URL or local directory it came from.
    pub source: String,
    /// `git` or `local`.
    pub source_type: String,
    /// The tag, branch or commit asked for, if one was.
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// The commit installed (git sources).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The skill's directory inside the source (`.` for its root).
    pub path: String,
    /// When it was installed (RFC 3339, UTC).
    pub installed_at: String,
    /// vercel-labs/skills' `computedHash` of the installed directory.
    pub computed_hash: String,
    /// [`Manifest::digest`] of `files`.
    pub digest: String,
    /// Every installed file.
    pub files: Manifest,
    /// The versions installed before this one, newest first, at most
    /// [`MAX_PREVIOUS_VERSIONS`] (each without a history of its own): what `skills rollback`
    /// restores.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previous: Vec<LockedSkill>,
}

/// How many earlier versions of a skill its lock entry keeps.
pub const MAX_PREVIOUS_VERSIONS: usize = 5;

impl LockedSkill {
    /// `newer`, installed in place of this version: its history is this version (when its files
    /// differ) and this version's history, newest first, at most [`MAX_PREVIOUS_VERSIONS`].
    #[must_use]
    pub fn succeeded_by(mut self, mut newer: LockedSkill) -> LockedSkill {
        let mut history = std::mem::take(&mut self.previous);
        if self.digest != newer.digest {
            history.insert(0, self);
        }
        history.retain(|old| old.digest != newer.digest);
        history.truncate(MAX_PREVIOUS_VERSIONS);
        newer.previous = history;
        newer
    }
}

impl LockFile {
    /// The lock file of the scope whose skills directory is `skills_dir`: `skills-lock.json`
    /// beside it.
    pub fn path_for(skills_dir: &Path) -> PathBuf {
        skills_dir
            .parent()
            .unwrap_or(Path::new("."))
            .join(LOCK_FILE)
    }

    /// Reads the lock file at `path`; a missing file is an empty lock.
    ///
    /// # Errors
    /// [`LockError`] when it cannot be read, is not valid JSON, has another version
    /// or an entry whose digest is not its file list's.
    pub fn read(path: &Path) -> Result<Self, LockError> {
        let bytes = match skillful_fs::read_bounded(path, 64 * 1024 * 1024) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Ok(Self::default()),
            Err(error) => {
                return Err(LockError {
                    path: path.to_owned(),
                    reason: error.to_string(),
                });
            }
        };
        let lock: Self = serde_json::from_slice(&bytes).map_err(|error| LockError {
            path: path.to_owned(),
            reason: format!(
                "not a lock file ({error}); fix it or remove it and add the skills again"
            ),
        })?;
        if lock.version != LOCK_VERSION {
            return Err(LockError {
                path: path.to_owned(),
                reason: format!(
                    "version {} is not {LOCK_VERSION}, the one this skills understands",
                    lock.version
                ),
            });
        }
        // A digest is what a fetch is checked against, the file list what `verify` compares:
        // an entry whose two disagree would install files the list does not show.
        if let Some((name, _)) = lock.skills.iter().find(|(_, entry)| {
            std::iter::once(*entry)
                .chain(&entry.previous)
                .any(|version| version.files.digest() != version.digest)
        }) {
            return Err(LockError {
                path: path.to_owned(),
                reason: format!(
                    "skill {name}: its digest is not the digest of its file list (the lock was \
                     edited); remove the entry and add the skill again"
                ),
            });
        }
        Ok(lock)
    }

    /// Writes the lock file to `path` atomically (mode 0644: it belongs in version control).
    ///
    /// # Errors
    /// [`LockError`] when it cannot be written.
    pub fn write(&self, path: &Path) -> Result<(), LockError> {
        let mut text = serde_json::to_string_pretty(self).expect("a lock serializes");
        text.push('\n');
        skillful_fs::write_atomic(path, text.as_bytes(), 0o644).map_err(|error| LockError {
            path: path.to_owned(),
            reason: error.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(commit: &str, content: &str) -> LockedSkill {
        let files = Manifest::from_entries(vec![skillful_manifest::ManifestEntry {
            path: "SKILL.md".to_owned(),
            kind: skillful_manifest::EntryKind::File,
            size: content.len() as u64,
            sha256: skillful_fs::sha256_hex(content.as_bytes()),
        }]);
        LockedSkill {
            source: "file:///repo".to_owned(),
            source_type: "git".to_owned(),
            reference: Some("main".to_owned()),
            commit: Some(commit.to_owned()),
            path: "skills/alpha".to_owned(),
            installed_at: "2026-12-07T00:00:00Z".to_owned(),
            computed_hash: String::new(),
            digest: files.digest(),
            files,
            previous: Vec::new(),
        }
    }

    #[test]
    fn a_new_version_keeps_the_ones_it_replaces_newest_first_and_bounded() {
        let mut current = version("c0", "zero");
        for n in 1..=7 {
            current = current.succeeded_by(version(&format!("c{n}"), &format!("v{n}")));
        }
        let kept: Vec<&str> = current
            .previous
            .iter()
            .map(|old| old.commit.as_deref().unwrap())
            .collect();
        assert_eq!(kept, ["c6", "c5", "c4", "c3", "c2"]);
        assert!(current.previous.iter().all(|old| old.previous.is_empty()));
        // The same files again (a re-add) keep the history as it was.
        let again = current.clone().succeeded_by(version("c7", "v7"));
        assert_eq!(again.previous, current.previous);
        // Back to an old version's files: that version leaves the history.
        let back = current.succeeded_by(version("c5", "v5"));
        let kept: Vec<&str> = back
            .previous
            .iter()
            .map(|old| old.commit.as_deref().unwrap())
            .collect();
        assert_eq!(kept, ["c7", "c6", "c4", "c3", "c2"]);
    }
}
