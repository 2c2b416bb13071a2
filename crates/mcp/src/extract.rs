//! The extraction directory of one source: archive skills unpacked, replaced and pruned so that
//! what is on disk always matches the index, even under concurrent refreshes.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, Weak};

use skillful_core::{ResourceContent, Skill};
use skillful_fs::blocking;

use crate::archive::{self, ArchiveFormat, ArchiveLimits};
use crate::connection::Connection;
use crate::error::McpSkillsError;
use crate::index::IndexEntry;

/// One lock per extraction directory in this process, shared by every source that uses it.
static LOCKS: LazyLock<Mutex<HashMap<PathBuf, Weak<tokio::sync::Mutex<()>>>>> =
    LazyLock::new(Default::default);

/// Tells temporary directories of this process apart.
static TEMPORARIES: AtomicU64 = AtomicU64::new(0);

/// Where one source unpacks its archive skills: `{base}/{source id}/{skill name}/`.
#[derive(Debug)]
pub(crate) struct ArchiveStore {
    dir: PathBuf,
    /// The host's label for the server, naming it in warnings.
    label: String,
    limits: ArchiveLimits,
    lock: Arc<tokio::sync::Mutex<()>>,
}

impl ArchiveStore {
    /// The store below `base` for the server called `server` (its command line or URL): its
    /// own subdirectory, named by a hash of `server`, so that two servers never share one.
    pub(crate) fn new(base: &Path, server: &str, label: &str, limits: ArchiveLimits) -> Self {
        let digest = rmcp::model::sha256_digest(server.as_bytes());
        let id = digest.strip_prefix("sha256:").unwrap_or(&digest);
        let dir = base.join(&id[..16]);
        let lock = {
            let mut locks = LOCKS.lock().unwrap_or_else(|e| e.into_inner());
            locks.retain(|_, lock| lock.strong_count() > 0);
            match locks.get(&dir).and_then(Weak::upgrade) {
                Some(lock) => lock,
                None => {
                    let lock = Arc::new(tokio::sync::Mutex::new(()));
                    locks.insert(dir.clone(), Arc::downgrade(&lock));
                    lock
                }
            }
        };
        Self {
            dir,
            label: label.to_owned(),
            limits,
            lock,
        }
    }

    /// The directory this source extracts into.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Brings the directory in line with `entries` (archive entries with valid, distinct names):
    /// prunes skills no longer listed, downloads, checks and unpacks each archive afresh (the
    /// first [`ArchiveLimits::max_archives`], within [`ArchiveLimits::max_total_bytes`] in all),
    /// and loads what was unpacked as file skills whose scripts never run. An archive that fails
    /// a check or is over a limit is skipped with a warning naming the server and the limit,
    /// and nothing of it stays on disk; the others load.
    ///
    /// # Errors
    /// A connection failure (the refresh stops; the next call tries again) or an unusable
    /// extraction directory.
    pub(crate) async fn refresh(
        &self,
        entries: &[IndexEntry],
        connection: &Connection,
        discovery: skillful_discovery::FileSkillsSourceBuilder,
    ) -> Result<HashMap<String, Arc<dyn Skill>>, McpSkillsError> {
        let _guard = self.lock.lock().await;
        let dir = self.prune_unlisted(entries).await?;
        let roots = self.unpack_all(entries, connection, &dir).await?;
        self.load(roots, discovery).await
    }

    /// Removes the skills `entries` no longer lists; the directory's canonical path.
    async fn prune_unlisted(&self, entries: &[IndexEntry]) -> Result<PathBuf, McpSkillsError> {
        let dir = self.dir.clone();
        let listed: HashSet<String> = entries.iter().map(|e| e.name.clone()).collect();
        blocking::run("preparing the archive directory", move || {
            prune(&dir, &listed)
        })
        .await
        .map_err(io::Error::from)
        .and_then(std::convert::identity)
        .map_err(|source| McpSkillsError::ExtractionDir {
            path: self.dir.clone(),
            source,
        })
    }

    /// Unpacks the archives of `entries` into `dir`, within the limits; the names and
    /// directories of those unpacked. A skipped one leaves nothing on disk.
    async fn unpack_all(
        &self,
        entries: &[IndexEntry],
        connection: &Connection,
        dir: &Path,
    ) -> Result<Vec<(String, PathBuf)>, McpSkillsError> {
        let mut roots = Vec::new();
        let mut budget = self.limits.max_total_bytes;
        for (position, entry) in entries.iter().enumerate() {
            let target = dir.join(&entry.name);
            if position >= self.limits.max_archives {
                let error = archive::ArchiveError::TooManyArchives {
                    limit: self.limits.max_archives,
                };
                self.skipped(entry, &error);
                self.forget(target).await;
                continue;
            }
            match self
                .unpack_entry(entry, connection, &target, budget)
                .await?
            {
                Some(written) => {
                    budget = budget.saturating_sub(written);
                    roots.push((entry.name.clone(), target));
                }
                None => self.forget(target).await,
            }
        }
        Ok(roots)
    }

    /// Downloads the archive of `entry` and unpacks at most `budget` bytes of it in place of
    /// `target`; how many it unpacked, `None` (with a warning) when it was skipped.
    async fn unpack_entry(
        &self,
        entry: &IndexEntry,
        connection: &Connection,
        target: &Path,
        budget: u64,
    ) -> Result<Option<u64>, McpSkillsError> {
        let Some((bytes, format)) = self.download(entry, connection).await? else {
            return Ok(None);
        };
        let temp = self.temporary("tmp");
        let (limits, install_at) = (self.limits, target.to_path_buf());
        let result = blocking::run("unpacking an MCP archive", move || {
            unpack(&bytes, format, &temp, &install_at, &limits, budget)
        })
        .await;
        match result {
            Ok(Ok(written)) => return Ok(Some(written)),
            Ok(Err(error)) => self.skipped(entry, &error),
            Err(error) => self.skipped(entry, &error),
        }
        Ok(None)
    }

    /// Loads the unpacked `roots` as file skills whose scripts never run; a root that holds no
    /// valid skill of its entry's name is warned about and removed.
    async fn load(
        &self,
        roots: Vec<(String, PathBuf)>,
        discovery: skillful_discovery::FileSkillsSourceBuilder,
    ) -> Result<HashMap<String, Arc<dyn Skill>>, McpSkillsError> {
        let source = discovery
            .roots(roots.iter().map(|(_, root)| root.clone()))
            .scripts_runnable(false)
            .build()
            .map_err(|error| McpSkillsError::ExtractionDir {
                path: self.dir.clone(),
                source: io::Error::other(error),
            })?;
        let found = source.discover().await;
        let mut skills = HashMap::new();
        for skill in found.skills {
            let root = roots.iter().find(|(_, root)| skill.dir().starts_with(root));
            if let Some((name, _)) = root
                && skill.name() == *name
            {
                skills
                    .entry(name.clone())
                    .or_insert(skill as Arc<dyn Skill>);
            }
        }
        for (name, root) in roots {
            if !skills.contains_key(&name) {
                tracing::warn!(server = %self.label, skill = %name, "archive skill skipped: the archive holds no valid SKILL.md named '{name}'");
                self.forget(root).await;
            }
        }
        Ok(skills)
    }

    /// Warns that the archive of `entry` was skipped, and why.
    fn skipped(&self, entry: &IndexEntry, why: &dyn std::fmt::Display) {
        tracing::warn!(server = %self.label, skill = %entry.name, url = %entry.url, "archive skill skipped: {why}");
    }

    /// The archive of `entry` and its format, after the size and digest checks; `None` (with a
    /// warning) when it fails one or the server refuses it.
    async fn download(
        &self,
        entry: &IndexEntry,
        connection: &Connection,
    ) -> Result<Option<(Vec<u8>, ArchiveFormat)>, McpSkillsError> {
        let skip = |reason: String| {
            self.skipped(entry, &reason);
            Ok(None)
        };
        let fetched = match connection.read(&entry.url).await {
            Ok(fetched) => fetched,
            Err(error @ (McpSkillsError::Server { .. } | McpSkillsError::Content { .. })) => {
                return skip(error.to_string());
            }
            Err(error) => return Err(error),
        };
        let ResourceContent::Binary { bytes, .. } = fetched.content else {
            return skip("the archive resource holds text, not a blob".into());
        };
        if bytes.len() as u64 > self.limits.max_download_bytes {
            let error = archive::ArchiveError::DownloadTooLarge {
                size: bytes.len() as u64,
                limit: self.limits.max_download_bytes,
            };
            return skip(error.to_string());
        }
        if bytes.is_empty() {
            return skip("the archive is empty".into());
        }
        if let Some(digest) = &entry.digest {
            if !rmcp::model::is_sha256_digest(digest) {
                return skip(format!(
                    "its digest {digest:?} is not `sha256:` and 64 lowercase hex digits"
                ));
            }
            let actual = rmcp::model::sha256_digest(&bytes);
            if actual != *digest {
                return skip(format!(
                    "its digest does not match: the index says {digest}, the archive has {actual}"
                ));
            }
        }
        match ArchiveFormat::detect(&bytes, fetched.mime_type.as_deref(), &entry.url) {
            Some(format) => Ok(Some((bytes, format))),
            None => skip(format!(
                "it is neither zip nor tar.gz (MIME type {})",
                fetched.mime_type.as_deref().unwrap_or("not given")
            )),
        }
    }

    /// Removes what an earlier refresh unpacked for a skill that is skipped now.
    async fn forget(&self, target: PathBuf) {
        let _ = blocking::run("removing an unpacked archive", move || remove(&target)).await;
    }

    /// A fresh hidden path in the store (hidden: discovery never looks at it).
    fn temporary(&self, kind: &str) -> PathBuf {
        let n = TEMPORARIES.fetch_add(1, Ordering::Relaxed);
        self.dir.join(format!(".{kind}-{}-{n}", std::process::id()))
    }
}

/// Creates `dir` (unless there is nothing to put in it) and removes every skill directory in it
/// that `listed` does not name; returns its canonical path.
fn prune(dir: &Path, listed: &HashSet<String>) -> io::Result<PathBuf> {
    if listed.is_empty() && fs::symlink_metadata(dir).is_err() {
        // Nothing to unpack and nothing to prune: leave the disk alone.
        return Ok(dir.to_owned());
    }
    // Private to this user, and never a link or another user's directory: what is unpacked
    // here is loaded as skills.
    if let Some(base) = dir.parent() {
        skillful_state::private_dir(base).map_err(io::Error::other)?;
    }
    skillful_state::private_dir(dir).map_err(io::Error::other)?;
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || listed.contains(name.as_ref()) {
            continue;
        }
        tracing::debug!(skill = %name, "pruning an archive skill the server no longer lists");
        remove(&entry.path());
    }
    fs::canonicalize(dir)
}

/// Extracts `bytes` (at most `budget` of them) into the new directory `temp` and puts it in
/// place of `target`; returns how many bytes it unpacked. On failure removes `temp` (and leaves
/// `target` as it was).
fn unpack(
    bytes: &[u8],
    format: ArchiveFormat,
    temp: &Path,
    target: &Path,
    limits: &ArchiveLimits,
    budget: u64,
) -> Result<u64, archive::ArchiveError> {
    let written = match archive::extract(bytes, format, temp, limits, budget) {
        Ok(written) => written,
        Err(error) => {
            remove(temp);
            return Err(error);
        }
    };
    install(temp, target)
        .map(|()| written)
        .map_err(|source| archive::ArchiveError::Io {
            path: target.to_owned(),
            source,
        })
}

/// Puts the directory `temp` in place of `target`, replacing what was there.
fn install(temp: &Path, target: &Path) -> io::Result<()> {
    if fs::symlink_metadata(target).is_ok() {
        let n = TEMPORARIES.fetch_add(1, Ordering::Relaxed);
        let old = target.with_file_name(format!(".old-{}-{n}", std::process::id()));
        fs::rename(target, &old)?;
        let installed = fs::rename(temp, target);
        remove(&old);
        if installed.is_err() {
            remove(temp);
        }
        return installed;
    }
    fs::rename(temp, target).inspect_err(|_| remove(temp))
}

/// Removes a file or directory tree (never following a link), warning when it cannot.
fn remove(path: &Path) {
    let result = match fs::symlink_metadata(path) {
        Ok(metadata) if metadata.is_dir() => fs::remove_dir_all(path),
        Ok(_) => fs::remove_file(path),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(error),
    };
    if let Err(error) = result {
        tracing::warn!(path = %path.display(), "cannot remove an extracted archive skill: {error}");
    }
}
