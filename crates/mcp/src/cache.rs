//! Files of MCP skills kept on disk between runs: verified bytes only, in this user's private
//! cache (never below a skill root that discovery walks), one directory per server and one file
//! per URI, and verified again against the held entry every time they are used.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::model::{SkillResource, sha256_digest};
use skillful_core::{SkillError, blocking, text::one_line};
use skillful_state::{StateError, private_dir};

/// Tells temporary files of this process apart.
static TEMPORARIES: AtomicU64 = AtomicU64::new(0);

/// The name of a server's or a URI's place in the cache: the hex of its SHA-256, cut to `len`.
pub(crate) fn hashed(text: &str, len: usize) -> String {
    let digest = sha256_digest(text.as_bytes());
    let hex = digest.strip_prefix("sha256:").unwrap_or(&digest);
    hex[..len.min(hex.len())].to_owned()
}

/// The verified files of one server: `{base}/{hash of the server}/{hash of the URI}`, with a
/// file `server` naming the server, so that the directory can be told apart by a person.
#[derive(Debug)]
pub(crate) struct FileCache {
    dir: PathBuf,
}

impl FileCache {
    /// The cache of the server `server` (its command line or URL) below `base`; both
    /// directories are created private to this user and refused when they are symbolic links or
    /// another user's.
    ///
    /// # Errors
    /// When a directory cannot be created or is not safe to use.
    pub(crate) async fn open(base: PathBuf, server: &str) -> Result<Self, StateError> {
        let dir = base.join(hashed(server, 32));
        let name = one_line(server).into_owned();
        let opened = dir.clone();
        let checked = tokio::task::spawn_blocking(move || {
            private_dir(&base)?;
            private_dir(&opened)?;
            let label = opened.join("server");
            if fs::symlink_metadata(&label).is_err() {
                // Only a help for people looking at the cache: its absence changes nothing.
                let _ = fs::write(&label, format!("{name}\n"));
            }
            Ok(())
        })
        .await;
        match checked {
            Ok(result) => result.map(|()| Self { dir }),
            Err(error) => Err(StateError::Io {
                path: dir,
                source: io::Error::other(error),
            }),
        }
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
            Ok(read_verified(&path, &file))
        })
        .await;
        found.ok().flatten()
    }

    /// Keeps `bytes` (verified) for `uri`: written to a fresh file, then renamed into place, so
    /// that a reader never sees half of it. A failure only costs a later fetch.
    pub(crate) async fn put(&self, uri: &str, bytes: Vec<u8>) {
        let (dir, path) = (self.dir.clone(), self.path(uri));
        let written = blocking::run("caching an MCP file", move || {
            write_atomically(&dir, &path, &bytes)
                .map_err(|error| SkillError::Other(format!("{}: {error}", path.display())))
        })
        .await;
        if let Err(error) = written {
            tracing::debug!("an MCP file was not cached: {error}");
        }
    }
}

fn read_verified(path: &Path, file: &SkillResource) -> Option<Vec<u8>> {
    let metadata = fs::symlink_metadata(path).ok()?;
    let fits = metadata.is_file() && metadata.len() == file.size;
    let bytes = if fits { fs::read(path).ok() } else { None };
    match bytes {
        Some(bytes) if file.verify(&bytes).is_ok() => Some(bytes),
        _ => {
            // Stale (the server's file changed since) or damaged: fetched again.
            let _ = fs::remove_file(path);
            None
        }
    }
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
        let cache = FileCache::open(base.path().join("mcp"), "`python3 server.py`")
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
        let a = FileCache::open(base.path().to_path_buf(), "http://a/mcp")
            .await
            .unwrap();
        let b = FileCache::open(base.path().to_path_buf(), "http://b/mcp")
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
        let error = FileCache::open(link, "server").await.unwrap_err();
        assert!(error.to_string().contains("symbolic link"), "{error}");
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
    }
}
