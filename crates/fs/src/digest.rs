//! SHA-256 digests in lower-case hex: of bytes, and of a file read as the bounded reads read
//! (never through a final symbolic link, never blocking on a FIFO, a regular file only).

use std::path::Path;

use sha2::{Digest, Sha256};

use crate::{FileStamp, FsError};

/// Bytes as lower-case hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    text
}

/// The SHA-256 of `bytes`, in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// What [`sha256_file`] read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDigest {
    /// The SHA-256 of the content, in lower-case hex.
    pub sha256: String,
    /// How many bytes were read.
    pub size: u64,
    /// The stamp of the file that was opened (not of whatever the path names later).
    pub stamp: FileStamp,
}

/// The SHA-256 of the regular file at `path` (opened as [`open_regular_file`](crate::open_regular_file)
/// opens it), read in chunks: `None` when there is no such file.
///
/// # Errors
/// As [`read_regular_file`](crate::read_regular_file): a link or a file that is not regular
/// ([`FsError::Unsafe`]), over `max_bytes` ([`FsError::TooLarge`]), or [`FsError::Io`].
pub fn sha256_file(path: &Path, max_bytes: u64) -> Result<Option<FileDigest>, FsError> {
    let mut hasher = Sha256::new();
    let Some((size, metadata)) =
        crate::read_regular_file(path, max_bytes, &mut |chunk| hasher.update(chunk))?
    else {
        return Ok(None);
    };
    Ok(Some(FileDigest {
        sha256: hex(&hasher.finalize()),
        size,
        stamp: FileStamp::of(&metadata),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_hashes_as_its_bytes_do_and_a_link_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("data");
        std::fs::write(&file, b"abc").unwrap();
        let digest = sha256_file(&file, 3).unwrap().unwrap();
        assert_eq!(
            digest.sha256,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(digest.sha256, sha256_hex(b"abc"));
        assert_eq!(digest.size, 3);
        assert!(matches!(
            sha256_file(&file, 2),
            Err(FsError::TooLarge { limit: 2, .. })
        ));
        assert_eq!(sha256_file(&dir.path().join("missing"), 9).unwrap(), None);
        #[cfg(unix)]
        {
            let link = dir.path().join("link");
            std::os::unix::fs::symlink(&file, &link).unwrap();
            assert!(matches!(sha256_file(&link, 9), Err(FsError::Unsafe { .. })));
        }
    }
}
