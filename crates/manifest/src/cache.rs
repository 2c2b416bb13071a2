//! Digests reused by file stamp, so that checking an unchanged directory hashes nothing.

use std::collections::BTreeMap;
use std::path::Path;

use skillful_fs::FileStamp;

use crate::ManifestError;

/// The size and SHA-256 of files hashed by earlier manifests, by directory and relative path,
/// each with the [`FileStamp`] its file had when the walk reached it (taken before the read, so a
/// file changed while it was hashed has another stamp next time).
///
/// [`Manifest::of_dir_cached`](crate::Manifest::of_dir_cached) reuses an entry only while the
/// file's stamp is the same, and replaces a directory's entries with what the walk found (files
/// gone are forgotten). [`DigestCache::hashed`] counts the files actually read, so that a caller
/// (and a test) can see that an unchanged tree cost no hashing.
///
/// It is plain data: [`DigestCache::load`] and [`DigestCache::save`] keep it in a private file
/// (e.g. in the user's state directory); a missing or unreadable file is an empty cache.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct DigestCache {
    version: u32,
    dirs: BTreeMap<String, BTreeMap<String, Cached>>,
    #[serde(skip)]
    hashed: u64,
    #[serde(skip)]
    changed: bool,
}

/// One file's digest and the stamp it was taken under.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Cached {
    pub(crate) stamp: FileStamp,
    pub(crate) size: u64,
    pub(crate) sha256: String,
}

/// The format version [`DigestCache::save`] writes; another version loads as an empty cache.
const CACHE_VERSION: u32 = 1;

/// The largest cache file read (64 MiB, some 300,000 files).
const MAX_CACHE_BYTES: u64 = 64 * 1024 * 1024;

impl Default for DigestCache {
    fn default() -> Self {
        Self::new()
    }
}

impl DigestCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self {
            version: CACHE_VERSION,
            dirs: BTreeMap::new(),
            hashed: 0,
            changed: false,
        }
    }

    /// How many files this cache's manifests have read and hashed since it was made or loaded.
    pub fn hashed(&self) -> u64 {
        self.hashed
    }

    /// Whether anything changed since it was made or loaded (whether [`DigestCache::save`] has
    /// anything to write).
    pub fn is_changed(&self) -> bool {
        self.changed
    }

    /// Keeps only the directories `keep` accepts (e.g. those that still exist).
    pub fn retain(&mut self, mut keep: impl FnMut(&Path) -> bool) {
        let before = self.dirs.len();
        self.dirs.retain(|dir, _| keep(Path::new(dir)));
        self.changed |= self.dirs.len() != before;
    }

    /// The cache kept in the private file `path`; missing, unreadable, another user's, not JSON
    /// or of another version: an empty cache (it is rebuilt by hashing).
    pub fn load(path: &Path) -> Self {
        skillful_state::read_private(path, MAX_CACHE_BYTES)
            .ok()
            .flatten()
            .and_then(|bytes| serde_json::from_slice::<Self>(&bytes).ok())
            .filter(|cache| cache.version == CACHE_VERSION)
            .unwrap_or_default()
    }

    /// Writes the cache to the private file `path` (mode 0600, atomically).
    ///
    /// # Errors
    /// [`ManifestError::Io`] naming the file.
    pub fn save(&self, path: &Path) -> Result<(), ManifestError> {
        let bytes = serde_json::to_vec(self).expect("a digest cache serializes");
        skillful_state::write_private(path, &bytes).map_err(|error| ManifestError::Io {
            path: path.to_owned(),
            source: std::io::Error::other(error.to_string()),
        })
    }

    /// The cached digest of `path` in `dir`, if its stamp is still `stamp`.
    pub(crate) fn get(&self, dir: &str, path: &str, stamp: &FileStamp) -> Option<&Cached> {
        self.dirs
            .get(dir)?
            .get(path)
            .filter(|cached| cached.stamp == *stamp)
    }

    /// Counts one file read and hashed.
    pub(crate) fn count_hashed(&mut self) {
        self.hashed += 1;
    }

    /// Replaces the entries of `dir` with `files`.
    pub(crate) fn replace(&mut self, dir: String, files: BTreeMap<String, Cached>) {
        if self.dirs.get(&dir) != Some(&files) {
            self.dirs.insert(dir, files);
            self.changed = true;
        }
    }
}
