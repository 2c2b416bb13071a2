//! What an update changes in a skill's files, for a person to read before it is installed:
//! each added, removed or changed file with a unified diff of its text ([`similar`]), bounded
//! so that a huge change is a summary, not megabytes. The text is other people's: the caller
//! prints it through its terminal-safe writer.

use std::fs;
use std::path::Path;

use similar::{ChangeTag, TextDiff};
use skillful_manifest::{EntryKind, Limits, Manifest, ManifestEntry};

use crate::{Candidate, InstallError, Installer, io};

/// The most bytes of one side of a file that are diffed; a larger file is summarised.
pub const MAX_DIFF_BYTES: usize = 256 * 1024;

/// The most lines of one file's unified diff shown; a longer one is summarised.
pub const MAX_FILE_DIFF_LINES: usize = 200;

/// The most lines of unified diff shown for one skill, all files together; the files past it
/// are summarised.
pub const MAX_DIFF_LINES: usize = 600;

/// How one file changes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileDiff {
    /// The unified diff of its text (`--- a/PATH`, `+++ b/PATH`, `@@` hunks; `/dev/null` for
    /// an added or removed file), every line ending in a newline.
    Unified(String),
    /// Not text (not UTF-8, or holding a NUL byte): only the sizes, in bytes.
    Binary {
        /// The locked size (0 when added).
        old: u64,
        /// The new size (0 when removed).
        new: u64,
    },
    /// A side is over [`MAX_DIFF_BYTES`]: only the sizes, in bytes.
    TooLarge {
        /// The locked size (0 when added).
        old: u64,
        /// The new size (0 when removed).
        new: u64,
    },
    /// The diff is over [`MAX_FILE_DIFF_LINES`], or over what is left of [`MAX_DIFF_LINES`]:
    /// only the lines added and removed.
    TooLong {
        /// Lines added.
        added: usize,
        /// Lines removed.
        removed: usize,
    },
    /// The locked text is not at hand: the installed copy is gone or differs from the lock
    /// (`skills verify` says how).
    Unavailable,
}

/// One file of a skill that an update adds, removes or changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// Its path inside the skill.
    pub path: String,
    /// How it changes.
    pub diff: FileDiff,
}

impl Installer {
    /// How the files of `candidate` differ from the locked files of the installed skill of its
    /// name, file by file in path order (none when no skill of its name is locked). The locked
    /// text is read from the installed copy, file by file where it is still as locked.
    ///
    /// # Errors
    /// [`InstallError::Lock`], or a fetched file that cannot be read.
    pub fn file_changes(&self, candidate: &Candidate) -> Result<Vec<FileChange>, InstallError> {
        let lock = self.lock()?;
        let Some(entry) = lock.skills.get(&candidate.name) else {
            return Ok(Vec::new());
        };
        let installed_dir = self.skills_dir.join(&candidate.name);
        let installed = Manifest::of_dir(&installed_dir, &self.limits).ok();
        let changes = candidate.manifest.diff(&entry.files);
        let mut paths: Vec<&String> = changes
            .added
            .iter()
            .chain(&changes.removed)
            .chain(&changes.changed)
            .collect();
        paths.sort();
        let mut budget = MAX_DIFF_LINES;
        let mut files = Vec::new();
        for path in paths {
            let locked = entry.files.get(path);
            let old = match locked {
                None => Some(Vec::new()),
                Some(locked) => match &installed {
                    Some(installed) if installed.get(path) == Some(locked) => {
                        Some(bytes_of(&installed_dir, locked, &self.limits)?)
                    }
                    _ => None,
                },
            };
            let new = match candidate.manifest.get(path) {
                Some(fetched) => bytes_of(&candidate.dir, fetched, &self.limits)?,
                None => Vec::new(),
            };
            let diff = match old {
                None => FileDiff::Unavailable,
                Some(old) => diff_of(
                    path,
                    &old,
                    &new,
                    locked.is_some(),
                    candidate.manifest.get(path).is_some(),
                    &mut budget,
                ),
            };
            files.push(FileChange {
                path: path.clone(),
                diff,
            });
        }
        Ok(files)
    }
}

/// The bytes of `entry` below `dir`: a file's, or a link's target text.
fn bytes_of(dir: &Path, entry: &ManifestEntry, limits: &Limits) -> Result<Vec<u8>, InstallError> {
    let path = dir.join(&entry.path);
    match entry.kind {
        EntryKind::File => {
            skillful_manifest::read_bounded(&path, limits.max_file_bytes).map_err(|source| {
                InstallError::Unsafe {
                    skill: dir.display().to_string(),
                    source,
                }
            })
        }
        EntryKind::Link => Ok(fs::read_link(&path)
            .map_err(io(&path))?
            .to_string_lossy()
            .into_owned()
            .into_bytes()),
    }
}

/// The diff of one file from `old` to `new` (`existed`: whether the old side is a file,
/// `exists`: the new), taking its lines from `budget`.
fn diff_of(
    path: &str,
    old: &[u8],
    new: &[u8],
    existed: bool,
    exists: bool,
    budget: &mut usize,
) -> FileDiff {
    let sizes = (old.len() as u64, new.len() as u64);
    if old.len() > MAX_DIFF_BYTES || new.len() > MAX_DIFF_BYTES {
        return FileDiff::TooLarge {
            old: sizes.0,
            new: sizes.1,
        };
    }
    let text = |bytes: &[u8]| {
        std::str::from_utf8(bytes)
            .ok()
            .filter(|text| !text.contains('\0'))
            .map(str::to_owned)
    };
    let (Some(old_text), Some(new_text)) = (text(old), text(new)) else {
        return FileDiff::Binary {
            old: sizes.0,
            new: sizes.1,
        };
    };
    let diff = TextDiff::from_lines(&old_text, &new_text);
    let (mut added, mut removed) = (0, 0);
    for change in diff.iter_all_changes() {
        match change.tag() {
            ChangeTag::Insert => added += 1,
            ChangeTag::Delete => removed += 1,
            ChangeTag::Equal => {}
        }
    }
    let side = |present: bool, prefix: &str| {
        if present {
            format!("{prefix}/{path}")
        } else {
            "/dev/null".to_owned()
        }
    };
    let mut unified = diff
        .unified_diff()
        .context_radius(3)
        .header(&side(existed, "a"), &side(exists, "b"))
        .to_string();
    if !unified.is_empty() && !unified.ends_with('\n') {
        unified.push('\n');
    }
    let lines = unified.lines().count();
    if lines > MAX_FILE_DIFF_LINES || lines > *budget {
        return FileDiff::TooLong { added, removed };
    }
    *budget -= lines;
    FileDiff::Unified(unified)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_is_a_unified_diff_with_its_path() {
        let mut budget = MAX_DIFF_LINES;
        let FileDiff::Unified(text) = diff_of(
            "SKILL.md",
            b"one\ntwo\nthree\n",
            b"one\n2\nthree\n",
            true,
            true,
            &mut budget,
        ) else {
            panic!("a text diff");
        };
        assert_eq!(
            text,
            "--- a/SKILL.md\n+++ b/SKILL.md\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
        );
        assert_eq!(budget, MAX_DIFF_LINES - 7);
    }

    #[test]
    fn an_added_file_comes_from_dev_null() {
        let mut budget = MAX_DIFF_LINES;
        let FileDiff::Unified(text) = diff_of("new.md", b"", b"new\n", false, true, &mut budget)
        else {
            panic!("a text diff");
        };
        assert!(text.starts_with("--- /dev/null\n+++ b/new.md\n"), "{text}");
    }

    #[test]
    fn large_long_and_binary_changes_are_summaries() {
        let mut budget = MAX_DIFF_LINES;
        let huge = vec![b'a'; MAX_DIFF_BYTES + 1];
        assert_eq!(
            diff_of("big", b"", &huge, true, true, &mut budget),
            FileDiff::TooLarge {
                old: 0,
                new: huge.len() as u64
            }
        );
        let long: String = (0..MAX_FILE_DIFF_LINES).map(|n| format!("{n}\n")).collect();
        assert_eq!(
            diff_of("long", b"", long.as_bytes(), true, true, &mut budget),
            FileDiff::TooLong {
                added: MAX_FILE_DIFF_LINES,
                removed: 0
            }
        );
        assert_eq!(
            diff_of("bin", b"\0\x01", b"\0\x02", true, true, &mut budget),
            FileDiff::Binary { old: 2, new: 2 }
        );
        assert_eq!(budget, MAX_DIFF_LINES);
        // What is left of the skill's budget bounds the next file.
        let mut budget = 3;
        assert!(matches!(
            diff_of("x", b"a\n", b"b\n", true, true, &mut budget),
            FileDiff::TooLong {
                added: 1,
                removed: 1
            }
        ));
    }
}
