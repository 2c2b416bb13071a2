//! Where the engine keeps its files: a cache (the virtual environment, models, downloads, logs)
//! and a state directory (records of running engines), both of this user only.

use std::fs;
use std::path::{Path, PathBuf};

use skillful_state::private_dir;

use crate::EngineError;

/// The engine's two directories.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineDirs {
    cache: PathBuf,
    state: PathBuf,
}

impl EngineDirs {
    /// The per-user directories of the platform: on Linux `$XDG_CACHE_HOME/skillful` (default
    /// `~/.cache/skillful`) and `$XDG_STATE_HOME/skillful` (default `~/.local/state/skillful`);
    /// on macOS and Windows the platform's cache and local data directories.
    ///
    /// # Errors
    /// [`EngineError::NoHomeDirectory`] when the platform has none.
    pub fn per_user() -> Result<Self, EngineError> {
        Ok(Self {
            cache: skillful_state::per_user_cache_dir()?,
            state: skillful_state::per_user_state_dir()?,
        })
    }

    /// Both under `root` (`root/cache`, `root/state`), e.g. for a test or a CI run.
    pub fn under(root: impl AsRef<Path>) -> Self {
        let root = root.as_ref();
        Self {
            cache: root.join("cache"),
            state: root.join("state"),
        }
    }

    /// The cache directory (not created by this call).
    pub fn cache(&self) -> &Path {
        &self.cache
    }

    /// The state directory (not created by this call).
    pub fn state(&self) -> &Path {
        &self.state
    }

    /// The cache directory, created if missing and checked (see [`private_dir`]).
    pub(crate) fn cache_dir(&self) -> Result<&Path, EngineError> {
        private_dir(&self.cache)?;
        Ok(&self.cache)
    }

    /// The state directory, created if missing and checked (see [`private_dir`]).
    pub(crate) fn state_dir(&self) -> Result<&Path, EngineError> {
        private_dir(&self.state)?;
        Ok(&self.state)
    }
}

/// Creates `path` and its parents (inside a private directory, so the default mode is enough).
pub(crate) fn create_dir(path: &Path) -> Result<(), EngineError> {
    fs::create_dir_all(path).map_err(|error| EngineError::io(path, error))
}

