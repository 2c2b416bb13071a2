//! Which project directories the user trusts: skills found by walking up from the working
//! directory are someone else's until the user says otherwise.

use std::path::{Path, PathBuf};

use skillful_state::{Dirs, FileLock, read_private, write_private};
use toml_edit::{Array, DocumentMut, value};

use crate::environment::dunce_canonical;
use crate::error::ConfigError;

/// The trust file, in the user's configuration directory.
pub const TRUST_FILE: &str = "trusted.toml";

/// The largest trust file read.
const MAX_TRUST_FILE_BYTES: u64 = 1024 * 1024;

/// The directories whose project skills (and project configuration) the user trusts, kept in
/// [`TRUST_FILE`] in the user's configuration directory (mode 0600 in a 0700 directory), keyed
/// by canonical path. A directory is trusted when it, or a directory above it, is listed.
///
/// # Example
/// ```
/// use skillful_config::TrustStore;
///
/// # let temp = tempfile::tempdir().unwrap();
/// let dirs = skillful_state::Dirs::under(temp.path().join("user"));
/// let project = temp.path().join("project");
/// std::fs::create_dir_all(project.join("sub")).unwrap();
/// assert!(!TrustStore::load(&dirs).unwrap().is_trusted(&project));
/// TrustStore::trust(&dirs, &project).unwrap();
/// assert!(TrustStore::load(&dirs).unwrap().is_trusted(&project.join("sub")));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustStore {
    trusted: Vec<PathBuf>,
}

impl TrustStore {
    /// The trusted directories recorded for the user of `dirs` (none when nothing was trusted).
    ///
    /// # Errors
    /// The file is unsafe (a link, another user's), too large or not the expected TOML.
    pub fn load(dirs: &Dirs) -> Result<Self, ConfigError> {
        let path = dirs.config().join(TRUST_FILE);
        let Some(bytes) = read_private(&path, MAX_TRUST_FILE_BYTES)? else {
            return Ok(Self::default());
        };
        Ok(Self {
            trusted: parse(&path, &bytes)?,
        })
    }

    /// Whether `dir` (made canonical) or a directory above it is trusted.
    pub fn is_trusted(&self, dir: &Path) -> bool {
        let dir = dunce_canonical(dir);
        self.trusted.iter().any(|trusted| dir.starts_with(trusted))
    }

    /// The trusted directories, in the order they were trusted.
    pub fn directories(&self) -> &[PathBuf] {
        &self.trusted
    }

    /// The trusted directories that trust far more than a project: the file system's root, or
    /// `home` (or a directory above it), under which every project would be trusted.
    pub fn too_broad(&self, home: Option<&Path>) -> Vec<&Path> {
        let home = home.map(dunce_canonical);
        self.trusted
            .iter()
            .map(PathBuf::as_path)
            .filter(|dir| {
                dir.parent().is_none() || home.as_ref().is_some_and(|home| home.starts_with(dir))
            })
            .collect()
    }

    /// Trusts `dir` (made canonical; it must exist), recording it for the user of `dirs`;
    /// returns the canonical path.
    ///
    /// # Errors
    /// `dir` does not exist; the file cannot be read or written safely.
    pub fn trust(dirs: &Dirs, dir: &Path) -> Result<PathBuf, ConfigError> {
        let canonical = dunce::canonicalize(dir).map_err(|error| {
            ConfigError::Environment(format!("{}: cannot trust it: {error}", dir.display()))
        })?;
        Self::update(dirs, |trusted| {
            if !trusted.contains(&canonical) {
                trusted.push(canonical.clone());
            }
        })?;
        Ok(canonical)
    }

    /// Stops trusting `dir` (exactly that directory, as canonical as it can be made); whether it
    /// was trusted.
    ///
    /// # Errors
    /// The file cannot be read or written safely.
    pub fn untrust(dirs: &Dirs, dir: &Path) -> Result<bool, ConfigError> {
        let canonical = dunce_canonical(dir);
        let mut removed = false;
        Self::update(dirs, |trusted| {
            let before = trusted.len();
            trusted.retain(|path| *path != canonical && *path != dir);
            removed = trusted.len() != before;
        })?;
        Ok(removed)
    }

    /// Reads, changes and writes the file under a lock, so that two processes never lose each
    /// other's changes.
    fn update(dirs: &Dirs, change: impl FnOnce(&mut Vec<PathBuf>)) -> Result<(), ConfigError> {
        let config = dirs.config_dir()?;
        let _lock = FileLock::acquire(&config.join(format!("{TRUST_FILE}.lock")))?;
        let path = config.join(TRUST_FILE);
        let mut trusted = match read_private(&path, MAX_TRUST_FILE_BYTES)? {
            Some(bytes) => parse(&path, &bytes)?,
            None => Vec::new(),
        };
        change(&mut trusted);
        let mut document = DocumentMut::new();
        let mut array = Array::new();
        for dir in &trusted {
            array.push(dir.to_string_lossy().into_owned());
        }
        document["trusted"] = value(array);
        let text = format!(
            "# Directories whose project skills (.agents/skills) and project configuration are\n# loaded. Written by `skills trust` and `skills untrust`.\n{document}"
        );
        write_private(&path, text.as_bytes())?;
        Ok(())
    }
}

fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<PathBuf>, ConfigError> {
    let invalid = |message: String| ConfigError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let text = std::str::from_utf8(bytes).map_err(|error| invalid(error.to_string()))?;
    let document: DocumentMut = text
        .parse()
        .map_err(|error: toml_edit::TomlError| invalid(error.to_string()))?;
    let Some(item) = document.get("trusted") else {
        return Ok(Vec::new());
    };
    let array = item
        .as_array()
        .ok_or_else(|| invalid("`trusted` must be a list of directories".to_owned()))?;
    array
        .iter()
        .map(|entry| {
            entry
                .as_str()
                .map(PathBuf::from)
                .ok_or_else(|| invalid("`trusted` must list directories as strings".to_owned()))
        })
        .collect()
}
