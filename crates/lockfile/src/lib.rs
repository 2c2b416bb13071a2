//! `skills-lock.json`: what is installed in one scope, from where, and its files.
//!
//! A [`LockFile`] is the lock of one scope's skills directory, beside it
//! ([`LockFile::path_for`]): per skill its source, the commit installed, vercel-labs/skills'
//! `computedHash` and the [`Manifest`] of its files with their digest. `skillful-install` writes
//! it; a composition reads it to find the skills whose files differ from it.
//!
//! [`hosts`] is the one table of agent hosts and their own skills directories (each a scope
//! with its lock beside it), here so that a composition reads them without the installer.
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

pub mod hosts;

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
        let bytes = match skillful_state::read_bounded(path, 64 * 1024 * 1024) {
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
        if let Some((name, _)) = lock
            .skills
            .iter()
            .find(|(_, entry)| entry.files.digest() != entry.digest)
        {
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
        skillful_state::write_atomic(path, text.as_bytes(), 0o644).map_err(|error| LockError {
            path: path.to_owned(),
            reason: error.to_string(),
        })
    }
}
