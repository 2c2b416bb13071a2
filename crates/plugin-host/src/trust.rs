//! The checks made before any plugin library is opened: opening a library runs its code, so a
//! library anyone else could have put or changed is never opened.

use std::io;
use std::path::Path;

use crate::error::PluginError;

/// Checks that `path` (a plugin library or a directory of them) may be loaded from: it is not a
/// symbolic link, not writable by its group or by others, and owned by the current user or by
/// root. Nothing is opened.
///
/// # Errors
/// [`PluginError::Unsafe`] naming the path, what is wrong and how to fix it; [`PluginError::Io`]
/// when it cannot be inspected.
pub fn check_loadable(path: &Path) -> Result<(), PluginError> {
    let metadata = std::fs::symlink_metadata(path).map_err(|source| PluginError::Io {
        dir: path.to_path_buf(),
        source,
    })?;
    let refuse = |reason: String, fix: String| PluginError::Unsafe {
        path: path.to_path_buf(),
        reason,
        fix,
    };
    if metadata.file_type().is_symlink() {
        return Err(refuse(
            "is a symbolic link".to_owned(),
            "name the real file or directory it points to, or copy the plugin into a directory of your own".to_owned(),
        ));
    }
    #[cfg(unix)]
    {
        let ownership = skillful_state::Ownership::of(&metadata);
        if ownership.writable_by_others() {
            return Err(refuse(
                format!(
                    "is writable by {} (mode {:o}), so another user could have put or changed code in it",
                    if ownership.writable_by_everyone() {
                        "every user"
                    } else {
                        "its group"
                    },
                    ownership.mode
                ),
                format!(
                    "run `chmod go-w {}` if you trust what is in it",
                    path.display()
                ),
            ));
        }
        if let Some(uid) = ownership.foreign_owner() {
            return Err(refuse(
                format!("is owned by another user (uid {uid}), so its code is theirs"),
                "copy the plugins you trust into a directory of your own".to_owned(),
            ));
        }
    }
    Ok(())
}

/// [`check_loadable`] for a library file and the directory it is in.
pub(crate) fn check_library(file: &Path) -> Result<(), PluginError> {
    let dir = match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => std::env::current_dir().map_err(|source: io::Error| PluginError::Io {
            dir: file.to_path_buf(),
            source,
        })?,
    };
    check_loadable(&dir)?;
    check_loadable(file)
}
