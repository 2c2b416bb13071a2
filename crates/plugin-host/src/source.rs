//! Plugin files and directories as a [`SkillsSource`].

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use skillful_core::{Skill, SkillError, SkillsSource, SourceContext};
use tokio::sync::OnceCell;

use crate::error::PluginError;
use crate::skill::PluginSkill;
use crate::trust::{check_library, check_loadable};

/// Whether `path`'s file name is a dynamic library's on this platform: `lib<name>.so` on Linux,
/// `lib<name>.dylib` on macOS, `<name>.dll` on Windows.
///
/// # Example
/// ```
/// use std::path::Path;
/// use skillful_plugin_host::is_plugin_file_name;
///
/// # #[cfg(target_os = "linux")] {
/// assert!(is_plugin_file_name(Path::new("plugins/libclock.so")));
/// assert!(!is_plugin_file_name(Path::new("plugins/clock.d")));
/// # }
/// ```
pub fn is_plugin_file_name(path: &Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .and_then(|name| name.strip_prefix(std::env::consts::DLL_PREFIX))
        .and_then(|name| name.strip_suffix(std::env::consts::DLL_SUFFIX))
        .is_some_and(|stem| !stem.is_empty())
}

/// The plugin files directly in `dir` (see [`is_plugin_file_name`]), sorted by name; none when
/// `dir` does not exist.
///
/// # Errors
/// `dir` exists but cannot be listed.
pub fn plugin_files(dir: &Path) -> Result<Vec<PathBuf>, PluginError> {
    let io_error = |source| PluginError::Io {
        dir: dir.to_path_buf(),
        source,
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(io_error(error)),
    };
    let mut files = Vec::new();
    for entry in entries {
        let path = entry.map_err(io_error)?.path();
        if is_plugin_file_name(&path) && path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// What loading a [`PluginSkillsSource`] gave: the skills, and an error for every file or
/// directory that could not be loaded.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct PluginLoad {
    /// The loaded skills, in the order their files were given (a directory's by file name).
    pub skills: Vec<Arc<PluginSkill>>,
    /// Why each other file, or directory, was skipped (shared, so that every caller of a loaded
    /// source sees the same errors).
    pub errors: Vec<Arc<PluginError>>,
}

#[derive(Debug, Clone)]
enum Location {
    Dir(PathBuf),
    File(PathBuf),
}

/// The skills of plugin libraries: single files and every plugin in directories.
///
/// Before anything is opened, every directory and library is checked with [`check_loadable`]
/// (no symbolic link, not writable by group or others, owned by the user or root): opening a
/// library runs its code. A refused one is an error like any other failed file.
///
/// The plugins are loaded once, on the first call of [`PluginSkillsSource::load`] or
/// [`SkillsSource::skills`], on tokio's blocking pool. A file that cannot be loaded is skipped
/// with a `tracing` warning (and kept in [`PluginLoad::errors`]); the others still load.
///
/// # Example
/// ```no_run
/// use std::sync::Arc;
/// use skillful_plugin_host::PluginSkillsSource;
/// use skillful_inline::SkillsSourceBuilder;
/// use skillful_provider::SkillsProvider;
///
/// let plugins = PluginSkillsSource::new()
///     .dir("target/plugins")
///     .file("/opt/skills/libclock.so");
/// let source = SkillsSourceBuilder::new().source(Arc::new(plugins)).build();
/// let provider = SkillsProvider::new(source);
/// ```
#[derive(Debug, Default)]
pub struct PluginSkillsSource {
    locations: Vec<Location>,
    loaded: OnceCell<PluginLoad>,
}

impl PluginSkillsSource {
    /// A source with no plugins yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds every plugin file directly in `dir` (none if it does not exist).
    #[must_use]
    pub fn dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.locations.push(Location::Dir(dir.into()));
        self
    }

    /// Adds one plugin file.
    #[must_use]
    pub fn file(mut self, file: impl Into<PathBuf>) -> Self {
        self.locations.push(Location::File(file.into()));
        self
    }

    /// Loads the plugins (once; later calls return the same result).
    ///
    /// # Errors
    /// Only when the loading task itself could not finish; plugins that fail to load are in
    /// [`PluginLoad::errors`].
    pub async fn load(&self) -> Result<&PluginLoad, SkillError> {
        self.loaded
            .get_or_try_init(|| async {
                let locations = self.locations.clone();
                skillful_fs::blocking::run("loading plugins", move || load_all(&locations))
                    .await
                    .map_err(SkillError::other)
            })
            .await
    }
}

/// Loads every plugin at `locations`, in order: a directory's files by name.
fn load_all(locations: &[Location]) -> PluginLoad {
    let mut files = Vec::new();
    for location in locations {
        match location {
            Location::File(file) => files.push(check_library(file).map(|()| file.clone())),
            Location::Dir(dir) if !dir.exists() => {}
            Location::Dir(dir) => match check_loadable(dir).and_then(|()| plugin_files(dir)) {
                Ok(found) => files.extend(
                    found
                        .into_iter()
                        .map(|file| check_loadable(&file).map(|()| file)),
                ),
                Err(error) => files.push(Err(error)),
            },
        }
    }
    let mut load = PluginLoad::default();
    for file in files {
        match file.and_then(PluginSkill::load) {
            Ok(skill) => load.skills.push(Arc::new(skill)),
            Err(error) => {
                tracing::warn!("skipped plugin: {error}");
                load.errors.push(Arc::new(error));
            }
        }
    }
    load
}

#[async_trait]
impl SkillsSource for PluginSkillsSource {
    async fn skills(&self, _context: &SourceContext) -> Result<Vec<Arc<dyn Skill>>, SkillError> {
        Ok(self
            .load()
            .await?
            .skills
            .iter()
            .map(|skill| Arc::clone(skill) as Arc<dyn Skill>)
            .collect())
    }
}
