//! File stamps: a cheap test that a file may have changed.

use std::fs::Metadata;

/// What identifies a file's content without reading it: device and inode, size, modification
/// time and (on Unix) change time. The change time cannot be set by a user, so a file rewritten
/// and given its old modification time back still gets a new stamp.
///
/// Equal stamps mean the file is, in all likelihood, unchanged; a different stamp means "read
/// it again", not "it changed".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct FileStamp {
    device: u64,
    inode: u64,
    len: u64,
    /// Seconds and nanoseconds since the epoch.
    modified: (i64, i64),
    changed: (i64, i64),
}

impl FileStamp {
    /// The stamp of the file `metadata` describes.
    pub fn of(metadata: &Metadata) -> Self {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Self {
                device: metadata.dev(),
                inode: metadata.ino(),
                len: metadata.len(),
                modified: (metadata.mtime(), metadata.mtime_nsec()),
                changed: (metadata.ctime(), metadata.ctime_nsec()),
            }
        }
        #[cfg(not(unix))]
        {
            let modified = metadata
                .modified()
                .ok()
                .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or((0, 0), |since| {
                    (since.as_secs() as i64, i64::from(since.subsec_nanos()))
                });
            Self {
                device: 0,
                inode: 0,
                len: metadata.len(),
                modified,
                changed: (0, 0),
            }
        }
    }
}
