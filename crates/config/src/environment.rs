//! Where the default skill roots are: the project found by walking up from the working
//! directory, the user's directories, the machine's.

use std::path::{Path, PathBuf};

use skillful_state::Dirs;

use crate::error::ConfigError;

/// The environment variable that moves the admin (machine-wide) skills root.
pub const ADMIN_SKILLS_VARIABLE: &str = "SKILLS_ADMIN_DIR";

/// The admin (machine-wide) skills root when [`ADMIN_SKILLS_VARIABLE`] is not set.
pub const DEFAULT_ADMIN_SKILLS: &str = "/etc/agent-skills/skills";

/// The directory, inside a project or a home directory, that holds `skills/` and `plugins/`.
pub const AGENTS_DIR: &str = ".agents";

/// The skills directory inside [`AGENTS_DIR`].
pub(crate) const SKILLS_DIR: &str = "skills";

/// The plugins directory inside a project's [`AGENTS_DIR`].
pub(crate) const PLUGINS_DIR: &str = "plugins";

/// The project configuration file, inside [`AGENTS_DIR`].
pub const PROJECT_CONFIG_FILE: &str = "skillful.toml";

/// The user configuration file, inside the user's configuration directory.
pub const USER_CONFIG_FILE: &str = "config.toml";

/// Where one process finds its default roots and keeps its per-user state.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Environment {
    /// Where project discovery starts.
    pub working_dir: PathBuf,
    /// The user's home directory (for `~/.agents/skills`), when known.
    pub home: Option<PathBuf>,
    /// The user's configuration, state and cache directories.
    pub dirs: Dirs,
    /// The machine-wide skills root.
    pub admin_skills: PathBuf,
}

/// A project: the nearest directory at or above the working directory that holds
/// [`AGENTS_DIR`], searched up to the repository root (a directory holding `.git`), below the
/// home directory ([`Environment::project`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Project {
    /// The project directory (canonical): the one holding `.agents`.
    pub dir: PathBuf,
}

impl Project {
    /// `.agents/skills` of the project.
    pub fn skills(&self) -> PathBuf {
        self.dir.join(AGENTS_DIR).join(SKILLS_DIR)
    }

    /// `.agents/skillful.toml` of the project.
    pub fn config_file(&self) -> PathBuf {
        self.dir.join(AGENTS_DIR).join(PROJECT_CONFIG_FILE)
    }
}

impl Environment {
    /// The environment of this process: its working directory, `HOME`, the per-user
    /// directories of `skillful-state`, and [`ADMIN_SKILLS_VARIABLE`] (default
    /// [`DEFAULT_ADMIN_SKILLS`]).
    ///
    /// # Errors
    /// [`ConfigError::Environment`] when the working directory or the per-user directories are
    /// unknown.
    pub fn from_process() -> Result<Self, ConfigError> {
        let working_dir = std::env::current_dir().map_err(|error| {
            ConfigError::Environment(format!("the working directory is unknown: {error}"))
        })?;
        let home = std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .filter(|home| !home.is_empty())
            .map(PathBuf::from);
        let dirs = Dirs::per_user().map_err(|error| ConfigError::Environment(error.to_string()))?;
        let admin_skills = std::env::var_os(ADMIN_SKILLS_VARIABLE)
            .filter(|dir| !dir.is_empty())
            .map_or_else(|| PathBuf::from(DEFAULT_ADMIN_SKILLS), PathBuf::from);
        Ok(Self {
            working_dir,
            home,
            dirs,
            admin_skills,
        })
    }

    /// An environment entirely under `root`, for tests: working directory `root/work`, home
    /// `root/home`, per-user directories under `root/user`, admin skills `root/admin/skills`.
    pub fn under(root: impl AsRef<Path>) -> Self {
        let root = root.as_ref();
        Self {
            working_dir: root.join("work"),
            home: Some(root.join("home")),
            dirs: Dirs::under(root.join("user")),
            admin_skills: root.join("admin").join("skills"),
        }
    }

    /// The same environment, starting project discovery at `dir`.
    pub fn with_working_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.working_dir = dir.into();
        self
    }

    /// The project the working directory is in, if any: the nearest directory at or above it
    /// holding [`AGENTS_DIR`], searched up to the repository root (a directory holding `.git`)
    /// and never up to the home directory: `~/.agents` is the user's own skills root, not a
    /// project, and neither the home directory nor a directory above it is one.
    pub fn project(&self) -> Option<Project> {
        for dir in self.walk() {
            if dir.join(AGENTS_DIR).is_dir() {
                return Some(Project { dir });
            }
            if is_repository(&dir) {
                return None;
            }
        }
        None
    }

    /// The repository the working directory is in: the nearest directory at or above it that
    /// holds `.git`, below the home directory (a home directory under version control is no
    /// project).
    pub fn repository_root(&self) -> Option<PathBuf> {
        self.walk().into_iter().find(|dir| is_repository(dir))
    }

    /// The canonical working directory and the directories above it, up to (not including)
    /// the home directory or a directory above it.
    fn walk(&self) -> Vec<PathBuf> {
        let start = dunce_canonical(&self.working_dir);
        let home = self.home.as_deref().map(dunce_canonical);
        start
            .ancestors()
            .take_while(|dir| home.as_deref().is_none_or(|home| !home.starts_with(dir)))
            .map(Path::to_path_buf)
            .collect()
    }

    /// The user's skills roots, in precedence order: `~/.agents/skills`, then `skills/` in the
    /// user's configuration directory.
    pub fn user_skills(&self) -> Vec<PathBuf> {
        let mut roots = Vec::new();
        if let Some(home) = &self.home {
            roots.push(home.join(AGENTS_DIR).join(SKILLS_DIR));
        }
        roots.push(self.dirs.config().join("skills"));
        roots
    }

    /// The user's home directory, if known.
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// The per-user directories (configuration, state, cache).
    pub fn dirs(&self) -> &Dirs {
        &self.dirs
    }

    /// The user's configuration file.
    pub fn user_config_file(&self) -> PathBuf {
        self.dirs.config().join(USER_CONFIG_FILE)
    }

    /// The directory `skills trust` trusts when given none: the repository root of the working
    /// directory, else the project's directory, else the working directory itself (canonical).
    pub fn trust_target(&self) -> PathBuf {
        self.repository_root()
            .or_else(|| self.project().map(|project| project.dir))
            .unwrap_or_else(|| dunce_canonical(&self.working_dir))
    }
}

/// Whether `dir` is the root of a repository of its own (it holds `.git`).
pub(crate) fn is_repository(dir: &Path) -> bool {
    dir.join(".git").exists()
}

/// `path` made canonical when it exists (else as given).
pub(crate) fn dunce_canonical(path: &Path) -> PathBuf {
    dunce::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}
