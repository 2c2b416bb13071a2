//! Files of MCP skills kept on disk between runs: verified bytes only, in this user's private
//! cache (never below a skill root that discovery walks), one directory per server and one file
//! per URI, and verified again against the held entry every time they are used. The cache of
//! all servers together stays within a size: the least recently used files go first.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use rmcp::model::{SkillResource, sha256_digest};
use skillful_core::{SkillError, text::one_line};
use skillful_fs::{blocking, open_regular_file};
use skillful_state::{StateError, private_dir};

/// How large the cache of verified files (of all servers together) may grow by default.
pub const DEFAULT_CACHE_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// The length of a cached file's name: the hex of its URI's SHA-256.
const ENTRY_NAME_LEN: usize = 64;

/// Tells temporary files of this process apart.
static TEMPORARIES: AtomicU64 = AtomicU64::new(0);

/// The name of a server's or a URI's place in the cache: the hex of its SHA-256, cut to `len`.
pub(crate) fn hashed(text: &str, len: usize) -> String {
    let digest = sha256_digest(text.as_bytes());
    let hex = digest.strip_prefix("sha256:").unwrap_or(&digest);
    hex[..len.min(hex.len())].to_owned()
}

/// The verified files of one server: `{base}/{hash of the server}/{hash of the URI}`, with a
/// file `server` naming the server, so that the directory can be told apart by a person. Every
/// file written is 0600, every directory 0700.
#[derive(Debug)]
pub(crate) struct FileCache {
    base: PathBuf,
    dir: PathBuf,
    /// The most bytes the cached files below `base` (every server's) may hold together.
    max_bytes: u64,
}

impl FileCache {
    /// The cache of the server `server` (its command line or URL) below `base`, which holds
    /// at most `max_bytes` of cached files (of every server below `base`); both directories are
    /// created private to this user and refused when they are symbolic links or another user's.
    ///
    /// # Errors
    /// When a directory cannot be created or is not safe to use.
    pub(crate) async fn open(
        base: PathBuf,
        server: &str,
        max_bytes: u64,
    ) -> Result<Self, StateError> {
        let dir = base.join(hashed(server, 32));
        let name = one_line(server).into_owned();
        let (opened, checked_base) = (dir.clone(), base.clone());
        blocking::run("opening the MCP cache", move || {
            private_dir(&checked_base)?;
            private_dir(&opened)?;
            let label = opened.join("server");
            if fs::symlink_metadata(&label).is_err() {
                // Only a help for people looking at the cache: its absence changes nothing.
                let _ = write_atomically(&opened, &label, format!("{name}\n").as_bytes());
            }
            Ok::<(), StateError>(())
        })
        .await??;
        Ok(Self {
            base,
            dir,
            max_bytes,
        })
    }

    fn path(&self, uri: &str) -> PathBuf {
        self.dir.join(hashed(uri, 64))
    }

    /// The cached bytes of `uri`, when they are there and still have the manifest's size and
    /// digest; a file that no longer does is removed.
    pub(crate) async fn get(&self, uri: &str, file: &SkillResource) -> Option<Vec<u8>> {
        let path = self.path(uri);
        let file = file.clone();
        let found = blocking::run("reading a cached MCP file", move || {
            read_verified(&path, &file)
        })
        .await;
        found.ok().flatten()
    }

    /// Keeps `bytes` (verified) for `uri`: written to a fresh file, then renamed into place, so
    /// that a reader never sees half of it; then, when the cache holds more than its size, the
    /// least recently used files go (see [`evict`]). A failure only costs a later fetch.
    pub(crate) async fn put(&self, uri: &str, bytes: Vec<u8>) {
        let (dir, path) = (self.dir.clone(), self.path(uri));
        let (base, max_bytes) = (self.base.clone(), self.max_bytes);
        let written = blocking::run("caching an MCP file", move || {
            write_atomically(&dir, &path, &bytes)
                .and_then(|()| evict(&base, max_bytes))
                .map_err(|error| SkillError::Other(format!("{}: {error}", path.display())))
        })
        .await
        .map_err(SkillError::other)
        .and_then(std::convert::identity);
        if let Err(error) = written {
            tracing::debug!("an MCP file was not cached: {error}");
        }
    }
}

/// The bytes at `path` when they are what `file` lists; a use marks the file as recently used
/// (its modification time) for [`evict`].
fn read_verified(path: &Path, file: &SkillResource) -> Option<Vec<u8>> {
    // Never through a link, never blocking on a FIFO: the opened file is the one checked.
    let (opened, metadata) = match open_regular_file(path) {
        Ok(Some(opened)) => opened,
        Ok(None) => return None,
        Err(_) => {
            let _ = fs::remove_file(path);
            return None;
        }
    };
    let bytes = (metadata.len() == file.size)
        .then(|| skillful_fs::read_opened(path, &opened, &metadata, file.size).ok())
        .flatten();
    if let Some(bytes) = bytes
        && file.verify(&bytes).is_ok()
    {
        // Only the order of eviction depends on it.
        let _ = opened.set_modified(SystemTime::now());
        return Some(bytes);
    }
    // Stale (the server's file changed since) or damaged: fetched again.
    let _ = fs::remove_file(path);
    None
}

/// Removes the least recently used cached files below `base` (every server's) until they hold
/// at most `max_bytes` together. Only what this cache writes is counted or removed: regular
/// files named like its entries, in directories of `base` that [`private_dir`] accepts (never a
/// link, never another user's). Files in use by another reader stay readable to it.
fn evict(base: &Path, max_bytes: u64) -> io::Result<()> {
    let mut files = Vec::new();
    let mut total: u64 = 0;
    for server in fs::read_dir(base)? {
        let server = server?.path();
        let is_dir = fs::symlink_metadata(&server).is_ok_and(|metadata| metadata.is_dir());
        if !is_dir || private_dir(&server).is_err() {
            continue;
        }
        for entry in fs::read_dir(&server)? {
            let entry = entry?;
            let name = entry.file_name();
            let ours = name.len() == ENTRY_NAME_LEN
                && name
                    .to_str()
                    .is_some_and(|name| name.bytes().all(|b| b.is_ascii_hexdigit()));
            // `DirEntry::metadata` does not follow a link.
            let Ok(metadata) = entry.metadata() else {
                continue;
            };
            if !ours || !metadata.is_file() {
                continue;
            }
            total = total.saturating_add(metadata.len());
            let used = metadata.modified().unwrap_or(UNIX_EPOCH);
            files.push((used, metadata.len(), entry.path()));
        }
    }
    if total <= max_bytes {
        return Ok(());
    }
    files.sort();
    for (_, len, path) in files {
        if total <= max_bytes {
            break;
        }
        if fs::remove_file(&path).is_ok() {
            total -= len;
        }
    }
    Ok(())
}

fn write_atomically(dir: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
    let n = TEMPORARIES.fetch_add(1, Ordering::Relaxed);
    let temporary = dir.join(format!(".tmp-{}-{n}", std::process::id()));
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options
        .open(&temporary)
        .and_then(|mut out| out.write_all(bytes))
        .and_then(|()| fs::rename(&temporary, path));
    if written.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_cached_file_is_used_only_while_it_matches_the_manifest() {
        let base = tempfile::tempdir().unwrap();
        let cache = FileCache::open(
            base.path().join("mcp"),
            "`python3 server.py`",
            DEFAULT_CACHE_MAX_BYTES,
        )
        .await
        .unwrap();
        let uri = "skill://notes/SKILL.md";
        let listed = SkillResource::from_bytes(uri, b"v1");
        assert_eq!(cache.get(uri, &listed).await, None);
        cache.put(uri, b"v1".to_vec()).await;
        assert_eq!(cache.get(uri, &listed).await, Some(b"v1".to_vec()));

        // The server's file changed: the old bytes no longer count, and are dropped.
        let relisted = SkillResource::from_bytes(uri, b"v2");
        assert_eq!(cache.get(uri, &relisted).await, None);
        assert_eq!(cache.get(uri, &listed).await, None);

        // Damage on disk (same size, other bytes) is caught by the digest.
        cache.put(uri, b"v1".to_vec()).await;
        fs::write(cache.path(uri), b"x1").unwrap();
        assert_eq!(cache.get(uri, &listed).await, None);
    }

    #[tokio::test]
    async fn each_server_has_a_directory_of_its_own_named_in_it() {
        let base = tempfile::tempdir().unwrap();
        let a = FileCache::open(
            base.path().to_path_buf(),
            "http://a/mcp",
            DEFAULT_CACHE_MAX_BYTES,
        )
        .await
        .unwrap();
        let b = FileCache::open(
            base.path().to_path_buf(),
            "http://b/mcp",
            DEFAULT_CACHE_MAX_BYTES,
        )
        .await
        .unwrap();
        assert_ne!(a.dir, b.dir);
        assert_eq!(
            fs::read_to_string(a.dir.join("server")).unwrap(),
            "http://a/mcp\n"
        );
        let uri = "skill://x/SKILL.md";
        a.put(uri, b"a".to_vec()).await;
        assert_eq!(
            b.get(uri, &SkillResource::from_bytes(uri, b"a")).await,
            None
        );
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_symbolic_link_in_place_of_the_cache_is_refused() {
        let base = tempfile::tempdir().unwrap();
        let elsewhere = base.path().join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        let link = base.path().join("mcp");
        std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
        let error = FileCache::open(link, "server", DEFAULT_CACHE_MAX_BYTES)
            .await
            .unwrap_err();
        assert!(error.to_string().contains("symbolic link"), "{error}");
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
    }

    /// Sets the last use of the cached file of `uri` to `seconds` after the epoch.
    fn used_at(cache: &FileCache, uri: &str, seconds: u64) {
        let file = fs::File::options()
            .write(true)
            .open(cache.path(uri))
            .unwrap();
        file.set_modified(UNIX_EPOCH + std::time::Duration::from_secs(seconds))
            .unwrap();
    }

    /// The bytes of every cached entry below `base` (regular files only, as the cache counts).
    fn cached_bytes(base: &Path) -> u64 {
        let mut total = 0;
        for server in fs::read_dir(base).unwrap() {
            let server = server.unwrap().path();
            if !fs::symlink_metadata(&server).unwrap().is_dir() {
                continue;
            }
            for file in fs::read_dir(&server).unwrap() {
                let file = file.unwrap();
                let metadata = file.metadata().unwrap();
                if file.file_name().len() == ENTRY_NAME_LEN && metadata.is_file() {
                    total += metadata.len();
                }
            }
        }
        total
    }

    #[tokio::test]
    async fn over_its_size_the_cache_drops_the_least_recently_used_files() {
        let base = tempfile::tempdir().unwrap();
        let files = base.path().join("files");
        let a = FileCache::open(files.clone(), "http://a/mcp", 10)
            .await
            .unwrap();
        let b = FileCache::open(files.clone(), "http://b/mcp", 10)
            .await
            .unwrap();
        let (first, second, third) = ("skill://x/first", "skill://x/second", "skill://x/third");
        a.put(first, b"1111".to_vec()).await;
        b.put(second, b"2222".to_vec()).await;
        used_at(&a, first, 1_000);
        used_at(&b, second, 2_000);
        // Using `first` makes it the most recently used: `second` is now the oldest.
        let listed_first = SkillResource::from_bytes(first, b"1111");
        assert_eq!(a.get(first, &listed_first).await, Some(b"1111".to_vec()));
        assert_eq!(cached_bytes(&files), 8);

        a.put(third, b"3333".to_vec()).await;
        assert!(cached_bytes(&files) <= 10, "{}", cached_bytes(&files));
        assert!(
            !b.path(second).exists(),
            "the least recently used file went"
        );
        assert!(a.path(first).exists() && a.path(third).exists());
        // The servers' own files are not entries: they are neither counted nor removed.
        assert!(a.dir.join("server").exists() && b.dir.join("server").exists());

        // A file larger than the whole cache is not kept.
        a.put("skill://x/huge", vec![b'h'; 11]).await;
        assert!(cached_bytes(&files) <= 10);
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn cached_files_are_private_to_the_user() {
        use std::os::unix::fs::PermissionsExt;
        let base = tempfile::tempdir().unwrap();
        let files = base.path().join("files");
        let cache = FileCache::open(files.clone(), "http://a/mcp", 100)
            .await
            .unwrap();
        cache.put("skill://x/SKILL.md", b"x".to_vec()).await;
        let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&files), 0o700);
        assert_eq!(mode(&cache.dir), 0o700);
        assert_eq!(mode(&cache.path("skill://x/SKILL.md")), 0o600);
        assert_eq!(mode(&cache.dir.join("server")), 0o600);
    }

    /// Links planted where cached files and server directories lie: eviction and reads touch
    /// the links at most, never what they point at.
    #[cfg(unix)]
    #[tokio::test]
    async fn planted_links_in_the_cache_leave_their_targets_untouched() {
        use std::os::unix::fs::symlink;
        let base = tempfile::tempdir().unwrap();
        let files = base.path().join("files");
        let cache = FileCache::open(files.clone(), "http://a/mcp", 8)
            .await
            .unwrap();
        // A victim directory whose files are named like cache entries, and a victim file.
        let victim = base.path().join("victim");
        fs::create_dir(&victim).unwrap();
        let precious = victim.join("a".repeat(ENTRY_NAME_LEN));
        fs::write(&precious, b"precious data").unwrap();
        let victim_file = base.path().join("victim-file");
        fs::write(&victim_file, b"precious data").unwrap();
        // A "server directory" that is a link to the victim directory, an entry that is a link
        // to the victim file, and the entry of a URI the cache will be asked for.
        symlink(&victim, files.join("0".repeat(32))).unwrap();
        symlink(&victim_file, cache.dir.join("b".repeat(ENTRY_NAME_LEN))).unwrap();
        let uri = "skill://x/SKILL.md";
        symlink(&victim_file, cache.path(uri)).unwrap();

        let listed = SkillResource::from_bytes(uri, b"precious data");
        assert_eq!(cache.get(uri, &listed).await, None, "a link is never read");
        for n in 0..4 {
            cache.put(&format!("skill://x/{n}"), b"1234".to_vec()).await;
        }
        assert!(cached_bytes(&files) <= 8, "{}", cached_bytes(&files));
        assert_eq!(fs::read(&precious).unwrap(), b"precious data");
        assert_eq!(fs::read(&victim_file).unwrap(), b"precious data");
        assert_eq!(fs::read_dir(&victim).unwrap().count(), 1);
    }
}
