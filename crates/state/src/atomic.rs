//! Files replaced whole or not at all.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::StateError;

/// Replaces `path` with `bytes`: written to a temporary file in the same directory (mode 0600,
/// created afresh, never through a link), fsynced, renamed over `path`, and the directory
/// fsynced. A process killed at any point leaves either the old file or the new one.
///
/// Only one writer of `path` at a time: hold a [`FileLock`](crate::FileLock) around it. The
/// temporary file is `.NAME.tmp` beside `path`; one left by a killed writer is replaced.
///
/// # Errors
/// [`StateError::Io`] when any step fails; `path` is then untouched.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), StateError> {
    let temporary = temporary_path(path);
    // A leftover of a killed writer (or anything planted there) goes; the file is created new.
    match fs::remove_file(&temporary) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return Err(StateError::io(&temporary, error)),
    }
    let written = write_new(&temporary, bytes).and_then(|()| {
        fs::rename(&temporary, path).map_err(|error| StateError::io(path, error))
    });
    if let Err(error) = written {
        let _ = fs::remove_file(&temporary);
        return Err(error);
    }
    sync_directory(path)
}

/// `.NAME.tmp` in the directory of `path`.
fn temporary_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp"))
}

fn write_new(path: &Path, bytes: &[u8]) -> Result<(), StateError> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(path)
        .map_err(|error| StateError::io(path, error))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|error| StateError::io(path, error))
}

/// Makes the rename durable (Unix; elsewhere the rename is all there is).
fn sync_directory(path: &Path) -> Result<(), StateError> {
    #[cfg(unix)]
    {
        let dir = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        fs::File::open(dir)
            .and_then(|dir| dir.sync_all())
            .map_err(|error| StateError::io(dir, error))?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_file_is_replaced_whole_with_mode_0600_and_no_leftover() {
        let temp = tempfile::tempdir().unwrap();
        let path = temp.path().join("state.json");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        // A leftover of a killed writer, as a link to a file that must stay untouched.
        let victim = temp.path().join("victim");
        fs::write(&victim, "victim").unwrap();
        std::os::unix::fs::symlink(&victim, temp.path().join(".state.json.tmp")).unwrap();
        write_atomically(&path, b"new").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(fs::read(&victim).unwrap(), b"victim");
        let names: Vec<String> = fs::read_dir(temp.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }
}
