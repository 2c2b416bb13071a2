//! Directories of this user only, and where the platform keeps per-user state.

use std::fs;
use std::path::{Path, PathBuf};

use crate::StateError;

fn project_dirs() -> Result<directories::ProjectDirs, StateError> {
    directories::ProjectDirs::from("", "", "skillful").ok_or(StateError::NoHomeDirectory)
}

/// skillful's per-user state directory (not created by this call): on Linux
/// `$XDG_STATE_HOME/skillful` (default `~/.local/state/skillful`); on macOS and Windows the
/// platform's local data directory.
///
/// # Errors
/// [`StateError::NoHomeDirectory`] when the platform has none.
pub fn per_user_state_dir() -> Result<PathBuf, StateError> {
    let project = project_dirs()?;
    Ok(project
        .state_dir()
        .unwrap_or_else(|| project.data_local_dir())
        .to_path_buf())
}

/// skillful's per-user cache directory (not created by this call): on Linux
/// `$XDG_CACHE_HOME/skillful` (default `~/.cache/skillful`).
///
/// # Errors
/// [`StateError::NoHomeDirectory`] when the platform has none.
pub fn per_user_cache_dir() -> Result<PathBuf, StateError> {
    Ok(project_dirs()?.cache_dir().to_path_buf())
}

/// Creates `path` (mode 0700 on Unix) if missing; refuses it when it is a symbolic link, not a
/// directory, or owned by another user; takes away access by others when it has it. Its parents
/// are created as usual.
///
/// # Errors
/// [`StateError::UnsafeDirectory`] or [`StateError::Io`].
pub fn private_dir(path: &Path) -> Result<(), StateError> {
    let unsafe_dir = |reason: &str| StateError::UnsafeDirectory {
        path: path.to_path_buf(),
        reason: reason.to_owned(),
    };
    let metadata = match fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).map_err(|error| StateError::io(parent, error))?;
            }
            let mut builder = fs::DirBuilder::new();
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            match builder.create(path) {
                Ok(()) => {}
                // Another process created it meanwhile: checked below like any existing one.
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(error) => return Err(StateError::io(path, error)),
            }
            fs::symlink_metadata(path).map_err(|error| StateError::io(path, error))?
        }
        Err(error) => return Err(StateError::io(path, error)),
    };
    if metadata.file_type().is_symlink() {
        return Err(unsafe_dir("is a symbolic link"));
    }
    if !metadata.is_dir() {
        return Err(unsafe_dir("is not a directory"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        if metadata.uid() != me {
            return Err(unsafe_dir(&format!(
                "is owned by another user (uid {}, not {me})",
                metadata.uid()
            )));
        }
        if metadata.mode() & 0o077 != 0 {
            fs::set_permissions(path, fs::Permissions::from_mode(0o700))
                .map_err(|error| StateError::io(path, error))?;
        }
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    #[test]
    fn a_new_directory_is_private_and_a_loose_one_is_tightened() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("a/b/skillful");
        private_dir(&dir).unwrap();
        assert_eq!(fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        private_dir(&dir).unwrap();
        assert_eq!(fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
    }

    #[test]
    fn a_symbolic_link_or_a_file_is_refused() {
        let temp = tempfile::tempdir().unwrap();
        let target = temp.path().join("elsewhere");
        fs::create_dir(&target).unwrap();
        let link = temp.path().join("skillful");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let error = private_dir(&link).unwrap_err().to_string();
        assert!(error.contains("is a symbolic link"), "{error}");
        let file = temp.path().join("file");
        fs::write(&file, "").unwrap();
        let error = private_dir(&file).unwrap_err().to_string();
        assert!(error.contains("is not a directory"), "{error}");
    }

    #[test]
    fn a_directory_of_another_user_is_refused() {
        let temp = tempfile::tempdir().unwrap();
        // SAFETY: geteuid has no preconditions.
        let dir = if unsafe { libc::geteuid() } == 0 {
            // As root: give a directory away to `nobody`.
            let dir = temp.path().join("theirs");
            fs::create_dir(&dir).unwrap();
            std::os::unix::fs::chown(&dir, Some(65534), Some(65534)).unwrap();
            dir
        } else {
            // As anyone else: the root directory is root's.
            PathBuf::from("/")
        };
        let owner = fs::metadata(&dir).unwrap().uid();
        let error = private_dir(&dir).unwrap_err().to_string();
        assert!(
            error.contains(&format!("is owned by another user (uid {owner}")),
            "{error}"
        );
    }
}
