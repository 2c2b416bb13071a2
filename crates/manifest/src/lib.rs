//! The file manifest of a skill directory.
//!
//! A [`Manifest`] lists every file of a skill (its path relative to the skill's directory, with
//! `/` between segments, its size and its SHA-256) and has one [`Manifest::digest`] over that
//! list. The lock file of installed skills records it, so that `skills verify` can say which
//! files were added, removed or changed ([`Manifest::diff`]); an approval given to a whole skill
//! is bound to its digest, so that any change to any file asks again.
//!
//! The walk never follows a symbolic link: a link whose target stays inside the directory is
//! recorded as a link (its target text hashed, never its target's bytes); one that could leave
//! it (an absolute target, or `..` climbing above the directory) is refused. Sockets, FIFOs and
//! devices are refused; files are opened with `O_NOFOLLOW | O_NONBLOCK`, and the number of
//! entries, the depth, each file's size and the total are bounded ([`Limits`]).
//!
//! [`Manifest::of_dir_cached`] makes the same manifest reusing the digests a [`DigestCache`]
//! holds for files whose stamp is unchanged, so that checking an unchanged skill at load time
//! reads no file.
//!
//! `computed_hash` (feature `computed-hash`, which links ICU's collator) is vercel-labs/skills'
//! `computedHash` of the same directory (its lock's per-skill value), so that either tool can
//! check the other's installs.
//!
//! It knows files and digests, not skills, `SKILL.md`, git or lock files.
//!
//! # The digest
//! Lowercase hexadecimal SHA-256 of the UTF-8 text `skillful-manifest-v1\n` followed, for each
//! entry in byte order of its path, by the line `LEN:PATH KIND SIZE SHA256\n`: `LEN` the length
//! of `PATH` in bytes (decimal), `KIND` `file` or `link`, `SIZE` in bytes (decimal; for a link,
//! of its target text), `SHA256` the entry's lowercase hexadecimal SHA-256 (of the file's bytes,
//! or of a link's target text). The length prefix frames each path, so no two manifests share a
//! digest.
//!
//! # Example
//! ```
//! # let temp = tempfile::tempdir().unwrap();
//! # let dir = temp.path();
//! std::fs::write(dir.join("SKILL.md"), "---\nname: demo\n---\n").unwrap();
//! let manifest = skillful_manifest::Manifest::of_dir(dir, &Default::default()).unwrap();
//! assert_eq!(manifest.files()[0].path, "SKILL.md");
//! assert_eq!(manifest.files()[0].size, 19);
//! assert_eq!(manifest.digest().len(), 64);
//! ```

#![forbid(unsafe_code)]

mod cache;
mod walk;

pub use cache::DigestCache;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use skillful_fs::hex;

use cache::Cached;
use walk::{Kind, hash_file, link_target, walk};

/// Why a directory has no manifest.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ManifestError {
    /// A file or directory could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        /// The path that failed.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// The path given is not a directory (or is a symbolic link to one).
    #[error("{}: not a directory; give the skill's directory itself, not a link to it", path.display())]
    NotADirectory {
        /// The path given.
        path: PathBuf,
    },
    /// A symbolic link that does not name one of the skill's files directly: its target could
    /// leave the skill's directory, passes through another link, or is a directory, a link or
    /// nothing.
    #[error("{}: a symbolic link to {} does not name a file of the skill through no other link (it could leave the skill's directory, or names a directory, a link or nothing); replace it with the file itself", path.display(), target.display())]
    LinkEscapes {
        /// The link.
        path: PathBuf,
        /// Its target, as written in the link.
        target: PathBuf,
    },
    /// A socket, FIFO or device, or a file replaced by one of them while it was read.
    #[error("{}: not a regular file, directory or symbolic link; remove it from the skill", path.display())]
    NotARegularFile {
        /// The path.
        path: PathBuf,
    },
    /// A path below the directory that is not UTF-8 or could not be named safely.
    #[error("{}: refused as a file name in a skill: {reason}; rename it", path.display())]
    UnsafeName {
        /// The path.
        path: PathBuf,
        /// Which rule the name breaks.
        reason: String,
    },
    /// More entries than [`Limits::max_files`].
    #[error("{}: more than {limit} files; a skill this large is refused (raise the limit if it is yours)", dir.display())]
    TooManyFiles {
        /// The directory walked.
        dir: PathBuf,
        /// The limit.
        limit: usize,
    },
    /// Directories nested deeper than [`Limits::max_depth`].
    #[error("{}: nested deeper than {limit} directories; a skill this deep is refused", path.display())]
    TooDeep {
        /// The directory that is too deep.
        path: PathBuf,
        /// The limit.
        limit: usize,
    },
    /// One file larger than [`Limits::max_file_bytes`].
    #[error("{}: larger than {limit} bytes; a file this large is refused in a skill", path.display())]
    FileTooLarge {
        /// The file.
        path: PathBuf,
        /// The limit.
        limit: u64,
    },
    /// All files together larger than [`Limits::max_total_bytes`].
    #[error("{}: its files together are larger than {limit} bytes; a skill this large is refused", dir.display())]
    TooLarge {
        /// The directory walked.
        dir: PathBuf,
        /// The limit.
        limit: u64,
    },
}

/// Bounds on the directory a manifest is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Entries (files and links) at most; default 10,000.
    pub max_files: usize,
    /// Directory depth below the skill's directory at most; default 32.
    pub max_depth: usize,
    /// Bytes of one file at most; default 16 MiB (discovery's own read limit).
    pub max_file_bytes: u64,
    /// Bytes of all files together at most; default 256 MiB.
    pub max_total_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_files: 10_000,
            max_depth: 32,
            max_file_bytes: 16 * 1024 * 1024,
            max_total_bytes: 256 * 1024 * 1024,
        }
    }
}

/// What an entry of a manifest is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    /// A regular file: size and digest of its bytes.
    File,
    /// A symbolic link inside the skill: size and digest of its target text.
    Link,
}

impl EntryKind {
    fn is_file(&self) -> bool {
        *self == Self::File
    }

    fn as_str(self) -> &'static str {
        match self {
            Self::File => "file",
            Self::Link => "link",
        }
    }
}

/// One file of a manifest.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ManifestEntry {
    /// The path relative to the skill's directory, `/` between segments.
    pub path: String,
    /// A file, or a link inside the skill (`"kind": "link"`; absent for a file).
    #[serde(default = "file_kind", skip_serializing_if = "EntryKind::is_file")]
    pub kind: EntryKind,
    /// The size in bytes (of a link: of its target text).
    pub size: u64,
    /// Lowercase hexadecimal SHA-256 of the bytes (of a link: of its target text).
    pub sha256: String,
}

fn file_kind() -> EntryKind {
    EntryKind::File
}

/// Every file of a skill directory, in byte order of its path.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Manifest {
    files: Vec<ManifestEntry>,
}

/// How one manifest differs from another ([`Manifest::diff`]), each list in path order. It is
/// part of the `--json` output of `skills verify`, `install`, `add`, `update` and
/// `outdated` (serialized as it reads; the `schema` feature derives its JSON Schema).
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ManifestDiff {
    /// Paths present now and not in the expected manifest.
    pub added: Vec<String>,
    /// Paths expected and absent now.
    pub removed: Vec<String>,
    /// Paths in both whose kind, size or digest differ.
    pub changed: Vec<String>,
}

impl ManifestDiff {
    /// Whether the two manifests are the same.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

impl Manifest {
    /// The manifest of the directory `dir` (every file below it; directories themselves are
    /// not recorded, so an empty directory adds nothing).
    ///
    /// # Errors
    /// [`ManifestError`] naming the path: unreadable, a link that leaves the directory, a
    /// special file, a name that is not UTF-8 or not a safe relative name, or over a limit.
    pub fn of_dir(dir: &Path, limits: &Limits) -> Result<Self, ManifestError> {
        Self::of_dir_cached(dir, limits, &mut DigestCache::new())
    }

    /// The manifest of the directory `dir`, as [`Manifest::of_dir`] makes it, reading and
    /// hashing only the files whose [`FileStamp`](skillful_fs::FileStamp) is not the one
    /// `cache` recorded for them (the walk's `lstat` of every entry is the only cost of an
    /// unchanged file); `cache` is then updated with what was found in `dir` (`dir` is its key
    /// as given, so give a directory the same way each time).
    ///
    /// # Errors
    /// As [`Manifest::of_dir`]; `cache` is left as it was.
    pub fn of_dir_cached(
        dir: &Path,
        limits: &Limits,
        cache: &mut DigestCache,
    ) -> Result<Self, ManifestError> {
        let key = dir.to_str().map(str::to_owned);
        let mut files = Vec::new();
        let mut digests = BTreeMap::new();
        let walked = walk(dir, limits, &|_| false)?;
        let of_kind = |link: bool| -> std::collections::BTreeSet<PathBuf> {
            walked
                .iter()
                .filter(|found| match found.kind {
                    Kind::Link(_) => link,
                    Kind::File(_) => !link,
                    Kind::Special => false,
                })
                .map(|found| found.relative.clone())
                .collect()
        };
        let (links, regular) = (of_kind(true), of_kind(false));
        for found in walked {
            let path = relative_name(&found.path, &found.relative)?;
            let entry = match found.kind {
                Kind::File(stamp) => {
                    let reused = key
                        .as_deref()
                        .and_then(|key| cache.get(key, &path, &stamp))
                        .filter(|cached| cached.size <= limits.max_file_bytes)
                        .map(|cached| (cached.size, cached.sha256.clone()));
                    let (size, sha256) = match reused {
                        Some(known) => known,
                        None => {
                            cache.count_hashed();
                            hash_file(&found.path, limits.max_file_bytes)?
                        }
                    };
                    digests.insert(
                        path.clone(),
                        Cached {
                            stamp,
                            size,
                            sha256: sha256.clone(),
                        },
                    );
                    ManifestEntry {
                        path,
                        kind: EntryKind::File,
                        size,
                        sha256,
                    }
                }
                Kind::Link(target) => {
                    let names_a_file =
                        link_target(&found.relative, &target, |path| links.contains(path))
                            .is_some_and(|file| regular.contains(&file));
                    if !names_a_file {
                        return Err(ManifestError::LinkEscapes {
                            path: found.path,
                            target,
                        });
                    }
                    let text = target.as_os_str().as_encoded_bytes();
                    ManifestEntry {
                        path,
                        kind: EntryKind::Link,
                        size: text.len() as u64,
                        sha256: skillful_fs::sha256_hex(text),
                    }
                }
                Kind::Special => {
                    return Err(ManifestError::NotARegularFile { path: found.path });
                }
            };
            files.push(entry);
        }
        if let Some(key) = key {
            cache.replace(key, digests);
        }
        Ok(Self::from_entries(files))
    }

    /// A manifest of these entries (sorted into byte order of their paths).
    pub fn from_entries(mut files: Vec<ManifestEntry>) -> Self {
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Self { files }
    }

    /// The entries, in byte order of their paths.
    pub fn files(&self) -> &[ManifestEntry] {
        &self.files
    }

    /// The entry of `path`, if the manifest has one.
    pub fn get(&self, path: &str) -> Option<&ManifestEntry> {
        self.files
            .binary_search_by(|entry| entry.path.as_str().cmp(path))
            .ok()
            .map(|index| &self.files[index])
    }

    /// The bytes of all files together.
    pub fn total_size(&self) -> u64 {
        self.files.iter().map(|entry| entry.size).sum()
    }

    /// The one digest over the manifest (see the crate documentation for its exact input).
    pub fn digest(&self) -> String {
        let mut hasher = Sha256::new();
        hasher.update(b"skillful-manifest-v1\n");
        for entry in &self.files {
            hasher.update(
                format!(
                    "{}:{} {} {} {}\n",
                    entry.path.len(),
                    entry.path,
                    entry.kind.as_str(),
                    entry.size,
                    entry.sha256
                )
                .as_bytes(),
            );
        }
        hex(&hasher.finalize())
    }

    /// How `self` (what is there now) differs from `expected`.
    pub fn diff(&self, expected: &Manifest) -> ManifestDiff {
        let mut diff = ManifestDiff::default();
        for entry in &self.files {
            match expected.get(&entry.path) {
                None => diff.added.push(entry.path.clone()),
                Some(old) if old != entry => diff.changed.push(entry.path.clone()),
                Some(_) => {}
            }
        }
        for entry in &expected.files {
            if self.get(&entry.path).is_none() {
                diff.removed.push(entry.path.clone());
            }
        }
        diff
    }

    /// Groups of paths that differ only in letter case (each group in path order): on a
    /// case-insensitive file system (macOS, Windows) they would overwrite one another.
    pub fn case_collisions(&self) -> Vec<Vec<String>> {
        let mut by_folded: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for entry in &self.files {
            by_folded
                .entry(entry.path.to_lowercase())
                .or_default()
                .push(entry.path.clone());
        }
        by_folded
            .into_values()
            .filter(|paths| paths.len() > 1)
            .collect()
    }
}

/// The relative path as the manifest's name for it: UTF-8, `/` between segments, and a safe
/// relative name by the workspace's one rule set.
fn relative_name(path: &Path, relative: &Path) -> Result<String, ManifestError> {
    let unsafe_name = |reason: String| ManifestError::UnsafeName {
        path: path.to_owned(),
        reason,
    };
    let mut name = String::new();
    for component in relative.components() {
        let segment = component
            .as_os_str()
            .to_str()
            .ok_or_else(|| unsafe_name("the name is not UTF-8".to_owned()))?;
        if !name.is_empty() {
            name.push('/');
        }
        name.push_str(segment);
    }
    let name = skillful_core::names::RelativeName::new(name)
        .map_err(|refused| unsafe_name(refused.reason.to_owned()))?;
    Ok(name.into_string())
}

/// The bytes of the regular file at `path`, read by [`skillful_fs::read_bounded`] (no symbolic
/// link followed, no FIFO waited on, nothing past `limit` bytes) with the errors a manifest
/// gives: how the files a manifest lists are read for anything else (scanning, copying).
///
/// # Errors
/// [`ManifestError::Io`] (a file gone is `NotFound`), [`ManifestError::NotARegularFile`] or
/// [`ManifestError::FileTooLarge`].
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, ManifestError> {
    match skillful_fs::read_bounded(path, limit) {
        Ok(Some(bytes)) => Ok(bytes),
        Ok(None) => Err(walk::vanished(path)),
        Err(error) => Err(walk::read_error(path, error)),
    }
}

/// vercel-labs/skills' `computedHash` of the directory `dir`: lowercase hexadecimal SHA-256
/// over, for each regular file below it in JavaScript `localeCompare` order (ICU's root
/// collation) of its relative path (`/` between segments), the UTF-8 bytes of that path
/// followed by the file's bytes, with nothing between. Directories named `.git` or
/// `node_modules` are left out at any depth, and so are symbolic links, sockets, FIFOs and
/// devices (which vercel-labs/skills skips too).
///
/// The value depends only on the bytes, not on this machine's locale; vercel-labs/skills uses
/// its machine's default locale, which gives the same order under English and most others.
///
/// # Errors
/// [`ManifestError`] naming the path when a file cannot be read or a limit is passed.
#[cfg(feature = "computed-hash")]
pub fn computed_hash(dir: &Path, limits: &Limits) -> Result<String, ManifestError> {
    let mut files = Vec::new();
    for found in walk(dir, limits, &|name| {
        name == ".git" || name == "node_modules"
    })? {
        if let Kind::File(_) = found.kind {
            let relative = found.relative.to_string_lossy().replace('\\', "/");
            files.push((relative, found.path));
        }
    }
    let collator = icu_collator::Collator::try_new(Default::default(), Default::default())
        .expect("the collator's root data is compiled in");
    files.sort_by(|a, b| collator.compare(&a.0, &b.0));
    let mut hasher = Sha256::new();
    for (relative, path) in &files {
        hasher.update(relative.as_bytes());
        let read = skillful_fs::read_regular_file(path, limits.max_file_bytes, &mut |bytes| {
            hasher.update(bytes)
        });
        match read {
            Ok(Some(_)) => {}
            Ok(None) => return Err(walk::vanished(path)),
            Err(error) => return Err(walk::read_error(path, error)),
        }
    }
    Ok(hex(&hasher.finalize()))
}
