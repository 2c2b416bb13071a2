//! Where the engine keeps its files: the user's own cache and state directories (see
//! `skillful-state`).

use std::fs;
use std::path::{Path, PathBuf};

use skillful_state::{Dirs, private_dir};

use crate::error::EngineError;

/// The engine's per-user directories: downloads and installations in the cache, the records of
/// running engines and their logs in the state directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineDirs {
    cache: PathBuf,
    state: PathBuf,
}

impl EngineDirs {
    /// The user's directories ([`Dirs::per_user`]).
    ///
    /// # Errors
    /// [`EngineError::State`] when the platform has no home directory.
    pub fn per_user() -> Result<Self, EngineError> {
        Ok(Self::from(&Dirs::per_user()?))
    }

    /// Both under `root` (`root/cache`, `root/state`), e.g. for a test or a CI run.
    pub fn under(root: impl AsRef<Path>) -> Self {
        Self::from(&Dirs::under(root))
    }

    /// The cache directory (not created by this call).
    pub fn cache(&self) -> &Path {
        &self.cache
    }

    /// The state directory (not created by this call).
    pub fn state(&self) -> &Path {
        &self.state
    }

    /// The cache directory, created if missing and checked (`skillful_state::private_dir`).
    pub(crate) fn cache_dir(&self) -> Result<&Path, EngineError> {
        private_dir(&self.cache)?;
        Ok(&self.cache)
    }

    /// The state directory, created if missing and checked (`skillful_state::private_dir`).
    pub(crate) fn state_dir(&self) -> Result<&Path, EngineError> {
        private_dir(&self.state)?;
        Ok(&self.state)
    }
}

impl From<&Dirs> for EngineDirs {
    fn from(dirs: &Dirs) -> Self {
        Self {
            cache: dirs.cache().to_path_buf(),
            state: dirs.state().to_path_buf(),
        }
    }
}

/// Creates `path` and its parents (inside a private directory, so the default mode is enough).
pub(crate) fn create_dir(path: &Path) -> Result<(), EngineError> {
    fs::create_dir_all(path).map_err(|error| EngineError::io(path, error))
}
