//! The composition: every source in precedence order, then one list of skills in which each
//! name means one skill, with what was disabled, shadowed or renamed kept and said.

mod composition;
mod entries;
mod load;
mod mcp;
mod notes;
mod renamed;
mod scopes;

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use skillful_core::validate::ValidationMode;
use skillful_core::{Scope, Skill};
use skillful_discovery::hosts::Host;
use skillful_discovery::{FileSkillsSource, SharedScriptRunner};
use skillful_frontmatter::FrontmatterLoader;
use skillful_inline::Precedence;

#[cfg(feature = "mcp")]
use crate::mcp::McpServer;
#[cfg(feature = "plugins")]
use skillful_plugin_host::PluginSkillsSource;
#[cfg(feature = "watch")]
use tokio::sync::OnceCell;

use crate::environment::Environment;
use crate::error::ConfigError;

pub use composition::Composition;
use composition::Inner;
pub use entries::{Entry, Loaded, Status};
#[cfg(feature = "mcp")]
use mcp::McpPart;
pub use notes::{Note, require_trusted};

/// What a host composes its skills from, built up with its methods and turned into a
/// [`Composition`] by [`SkillsConfig::build`].
///
/// Roots come in scopes, highest precedence first: explicit roots (in the order given), the
/// project's `.agents/skills` (found by walking up from the working directory to the repository
/// root; loaded only when the user trusts the project), the user's (`~/.agents/skills`, then
/// `skills/` in the user's configuration directory) and the machine's (`/etc/agent-skills/skills`
/// or `SKILLS_ADMIN_DIR`). The agent hosts named with [`SkillsConfig::host`] or in a settings
/// file's `[skills] agents` add their own directories, each below the default root of its scope
/// (a trusted project's `.claude/skills` after its `.agents/skills`, `~/.claude/skills` after
/// the user's roots). With explicit roots or hosts, the default scopes are left out unless
/// [`SkillsConfig::default_scopes`] asks for them too.
///
/// # Example
/// ```
/// use skillful_config::{Environment, SkillsConfig};
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// # let temp = tempfile::tempdir().unwrap();
/// let composition = SkillsConfig::new(Environment::under(temp.path()))
///     .root(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/skills"))
///     .build()
///     .unwrap();
/// let loaded = composition.load(&Default::default()).await.unwrap();
/// assert_eq!(loaded.active()[0].name(), "unit-converter");
/// # });
/// ```
#[must_use]
pub struct SkillsConfig {
    environment: Environment,
    roots: Vec<PathBuf>,
    hosts: Vec<&'static Host>,
    default_scopes: Option<bool>,
    trust_project: bool,
    #[cfg(feature = "plugins")]
    plugins: Vec<PathBuf>,
    #[cfg(feature = "mcp")]
    mcp: Vec<McpServer>,
    inline: Vec<Arc<dyn Skill>>,
    disabled: Vec<String>,
    locked: bool,
    validation: ValidationMode,
    runner: Option<SharedScriptRunner>,
    files: Option<FilesHook>,
}

type FilesHook = Arc<
    dyn Fn(
            skillful_discovery::FileSkillsSourceBuilder,
        ) -> skillful_discovery::FileSkillsSourceBuilder
        + Send
        + Sync,
>;

impl std::fmt::Debug for SkillsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut f = f.debug_struct("SkillsConfig");
        f.field("environment", &self.environment)
            .field("roots", &self.roots)
            .field("hosts", &self.hosts)
            .field("default_scopes", &self.default_scopes)
            .field("trust_project", &self.trust_project);
        #[cfg(feature = "plugins")]
        f.field("plugins", &self.plugins);
        #[cfg(feature = "mcp")]
        f.field("mcp", &self.mcp);
        f.field("inline", &self.inline.len())
            .field("disabled", &self.disabled)
            .field("locked", &self.locked)
            .field("validation", &self.validation)
            .finish_non_exhaustive()
    }
}

impl SkillsConfig {
    /// Nothing yet, in `environment`: the default scopes apply until an explicit root is given.
    pub fn new(environment: Environment) -> Self {
        Self {
            environment,
            roots: Vec::new(),
            hosts: Vec::new(),
            default_scopes: None,
            trust_project: false,
            #[cfg(feature = "plugins")]
            plugins: Vec::new(),
            #[cfg(feature = "mcp")]
            mcp: Vec::new(),
            inline: Vec::new(),
            disabled: Vec::new(),
            locked: false,
            validation: ValidationMode::Lenient,
            runner: None,
            files: None,
        }
    }

    /// Adds an explicit skills root (it must exist).
    pub fn root(mut self, root: impl Into<PathBuf>) -> Self {
        self.roots.push(root.into());
        self
    }

    /// Adds explicit skills roots, in order.
    pub fn roots<I>(self, roots: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<PathBuf>,
    {
        roots.into_iter().fold(self, Self::root)
    }

    /// Reads the skills directories of the agent host `host` (`~/.claude/skills`, and the
    /// trusted project's `.claude/skills`), each in its scope below that scope's default root,
    /// as `--agent` names them; a missing user directory is a [`Note`]. As with an explicit
    /// root, the default scopes are then left out unless [`SkillsConfig::default_scopes`] asks
    /// for them.
    pub fn host(mut self, host: &'static Host) -> Self {
        self.hosts.push(host);
        self
    }

    /// Whether the project, user and admin roots are read too (default: only when no explicit
    /// root or host is given).
    pub fn default_scopes(mut self, read: bool) -> Self {
        self.default_scopes = Some(read);
        self
    }

    /// Trusts the project found from the working directory for this composition only, as
    /// `--trust-project` does; a project refused for its owner or permissions
    /// ([`Verdict::Refused`](crate::Verdict::Refused)) stays refused.
    pub fn trust_project(mut self, trust: bool) -> Self {
        self.trust_project = trust;
        self
    }

    /// Adds a directory of plugin libraries, or one library (it must exist); checked before
    /// anything is opened (see `skillful_plugin_host::check_loadable`). Feature `plugins`.
    #[cfg(feature = "plugins")]
    pub fn plugins(mut self, path: impl Into<PathBuf>) -> Self {
        self.plugins.push(path.into());
        self
    }

    /// Adds an MCP server. Feature `mcp`.
    #[cfg(feature = "mcp")]
    pub fn mcp_server(mut self, server: McpServer) -> Self {
        self.mcp.push(server);
        self
    }

    /// Adds a skill built in code (an [`InlineSkill`](https://docs.rs/skillful-inline) or any
    /// other [`Skill`]).
    pub fn inline(mut self, skill: Arc<dyn Skill>) -> Self {
        self.inline.push(skill);
        self
    }

    /// Disables the skill called `name` for this composition, whatever the settings files say.
    pub fn disable(mut self, name: impl Into<String>) -> Self {
        self.disabled.push(name.into());
        self
    }

    /// Whether a skill whose files differ from the lock it was installed with
    /// (`skills-lock.json` beside its root) is left out of the skills offered (status
    /// `modified`, not offered), as `[skills] locked = true` in a settings file asks too. Without
    /// it such a skill is offered, with a warning naming its files.
    pub fn locked(mut self, locked: bool) -> Self {
        self.locked = locked;
        self
    }

    /// How strictly file skills are validated (default lenient).
    pub fn validation(mut self, mode: ValidationMode) -> Self {
        self.validation = mode;
        self
    }

    /// The runner of file skills' scripts (without one, scripts are listed and fail to run).
    pub fn script_runner(mut self, runner: SharedScriptRunner) -> Self {
        self.runner = Some(runner);
        self
    }

    /// Further configures every file source (extensions, depth, read limits).
    pub fn files(
        mut self,
        configure: impl Fn(
            skillful_discovery::FileSkillsSourceBuilder,
        ) -> skillful_discovery::FileSkillsSourceBuilder
        + Send
        + Sync
        + 'static,
    ) -> Self {
        self.files = Some(Arc::new(configure));
        self
    }

    /// Resolves the roots, the trust and the settings, and builds the sources; nothing is
    /// discovered or loaded yet.
    ///
    /// # Errors
    /// An explicit root or plugin path that does not exist; a settings or trust file that cannot
    /// be read; a file source that cannot be configured.
    pub fn build(self) -> Result<Composition, ConfigError> {
        self.check_paths()?;
        let scopes = self.scopes()?;
        let files = self.file_source(&scopes.roots)?;
        #[cfg(feature = "plugins")]
        let (plugins, has_plugins) = self.plugin_source(&scopes.plugin_dirs);
        let environment = &self.environment;
        Ok(Composition {
            inner: Arc::new(Inner {
                files,
                #[cfg(feature = "plugins")]
                plugins,
                #[cfg(feature = "plugins")]
                has_plugins,
                #[cfg(feature = "mcp")]
                mcp: self
                    .mcp
                    .into_iter()
                    .map(|server| McpPart::new(server, environment))
                    .collect(),
                inline: self.inline,
                enablement: scopes.enablement,
                roots: scopes.roots,
                locked: scopes.locked,
                digest_cache: environment
                    .dirs
                    .cache()
                    .join(crate::locked::DIGEST_CACHE_FILE),
                precedence: Precedence::new().hint("`skills list --all` shows both"),
                warned: Mutex::new(HashSet::new()),
                #[cfg(feature = "watch")]
                watched: OnceCell::new(),
            }),
            notes: scopes.notes,
        })
    }

    /// Fails on an explicit root or plugin path that does not exist: a typo must not read as
    /// "no skills".
    fn check_paths(&self) -> Result<(), ConfigError> {
        if let Some(root) = self.roots.iter().find(|root| !root.exists()) {
            return Err(ConfigError::MissingRoot { path: root.clone() });
        }
        #[cfg(feature = "plugins")]
        if let Some(path) = self.plugins.iter().find(|path| !path.exists()) {
            return Err(ConfigError::MissingPlugins { path: path.clone() });
        }
        Ok(())
    }

    /// One file source over every root, so that precedence and duplicates are decided in one
    /// place.
    fn file_source(&self, roots: &[(PathBuf, Scope)]) -> Result<FileSkillsSource, ConfigError> {
        let mut files = FileSkillsSource::builder()
            .loader(FrontmatterLoader::new(self.validation))
            .keep_duplicates(true);
        if let Some(runner) = &self.runner {
            files = files.script_runner(Arc::clone(runner));
        }
        for (root, scope) in roots {
            files = files.scoped_root(root, *scope);
        }
        if let Some(configure) = &self.files {
            files = configure(files);
        }
        Ok(files.build()?)
    }

    /// The plugins given and those the settings name; whether there are any.
    #[cfg(feature = "plugins")]
    fn plugin_source(&self, plugin_dirs: &[PathBuf]) -> (PluginSkillsSource, bool) {
        let mut plugins = PluginSkillsSource::new();
        for path in self.plugins.iter().chain(plugin_dirs) {
            plugins = if path.is_file() {
                plugins.file(path)
            } else {
                plugins.dir(path)
            };
        }
        (plugins, !self.plugins.is_empty() || !plugin_dirs.is_empty())
    }
}
