//! Reading files that others may have tampered with: no final symbolic link followed, no FIFO
//! blocking the reader, a size cap.

use std::fs;
use std::io::Read;
use std::path::Path;

use crate::StateError;

/// Makes `options` refuse a final symbolic link and not block on a FIFO (Unix).
pub(crate) fn no_follow(options: &mut fs::OpenOptions) {
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        options,
        libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC,
    );
    #[cfg(not(unix))]
    let _ = options;
}

/// Opens `path` for reading: a final symbolic link is refused, a FIFO does not block, and
/// anything but a regular file is refused. `None` when there is no such file.
///
/// # Errors
/// [`StateError::UnsafeFile`] for a symbolic link or a file that is not regular;
/// [`StateError::Io`] when it cannot be opened or inspected.
pub fn open_regular_file(path: &Path) -> Result<Option<(fs::File, fs::Metadata)>, StateError> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    no_follow(&mut options);
    let file = match options.open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        #[cfg(unix)]
        Err(error) if error.raw_os_error() == Some(libc::ELOOP) => {
            return Err(StateError::UnsafeFile {
                path: path.to_path_buf(),
                reason: "is a symbolic link; refusing to follow it".to_owned(),
            });
        }
        Err(error) => return Err(StateError::io(path, error)),
    };
    let metadata = file
        .metadata()
        .map_err(|error| StateError::io(path, error))?;
    if !metadata.is_file() {
        return Err(StateError::UnsafeFile {
            path: path.to_path_buf(),
            reason: "is not a regular file".to_owned(),
        });
    }
    Ok(Some((file, metadata)))
}

/// The bytes of `path`, opened as [`open_regular_file`] does, when it holds at most `limit`
/// bytes; `None` when there is no such file.
///
/// # Errors
/// As [`open_regular_file`], and [`StateError::TooLarge`] past `limit`.
pub fn read_regular_file(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, StateError> {
    let Some((file, metadata)) = open_regular_file(path)? else {
        return Ok(None);
    };
    let too_large = || StateError::TooLarge {
        path: path.to_path_buf(),
        limit,
    };
    if metadata.len() > limit {
        return Err(too_large());
    }
    // The file may grow after the check: never read more than the limit and one byte.
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| StateError::io(path, error))?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(Some(bytes))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn links_fifos_and_large_files_are_refused_and_missing_files_are_none() {
        let temp = tempfile::tempdir().unwrap();
        let file = temp.path().join("data");
        fs::write(&file, "12345").unwrap();
        assert_eq!(read_regular_file(&file, 5).unwrap().unwrap(), b"12345");
        let error = read_regular_file(&file, 4).unwrap_err();
        assert!(matches!(error, StateError::TooLarge { limit: 4, .. }), "{error}");
        let link = temp.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let error = read_regular_file(&link, 5).unwrap_err().to_string();
        assert!(error.contains("is a symbolic link"), "{error}");
        let fifo = temp.path().join("fifo");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let error = read_regular_file(&fifo, 5).unwrap_err().to_string();
        assert!(error.contains("is not a regular file"), "{error}");
        assert!(read_regular_file(&temp.path().join("none"), 5).unwrap().is_none());
    }
}
