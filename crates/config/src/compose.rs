//! The composition: every source in precedence order, then one list of skills in which each
//! name means one skill, with what was disabled, shadowed or renamed kept and said.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use skillful_core::validate::ValidationMode;
use skillful_core::{
    Diagnostic, OriginKind, Scope, Skill, SkillDocument, SkillError, SkillFrontmatter, SkillOrigin,
    SkillResource, SkillScript, SkillsSource, SourceContext,
};
use skillful_discovery::hosts::Host;
use skillful_discovery::{FileSkillsSource, SharedScriptRunner};
use skillful_frontmatter::FrontmatterLoader;
#[cfg(feature = "mcp")]
use skillful_mcp::McpSkillsSource;

#[cfg(feature = "mcp")]
use crate::mcp::McpServer;
#[cfg(feature = "plugins")]
use skillful_plugin_host::{PluginError, PluginSkillsSource};
#[cfg(feature = "watch")]
use skillful_watch::{WatchedSource, WatchedSourceBuilder};
#[cfg(any(feature = "mcp", feature = "watch"))]
use tokio::sync::OnceCell;

use crate::environment::{AGENTS_DIR, Environment, Project};
use crate::error::ConfigError;
use crate::locked::Drift;
use crate::safety::Risk;
use crate::settings::{Enablement, Settings, SettingsLevel};
use crate::trust::{TrustStore, TrustedPlugins, Verdict, plugin_dir_digest, shown_path};

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

    /// The roots of every scope read, in precedence order, with what their settings say.
    fn scopes(&self) -> Result<Scopes, ConfigError> {
        let environment = &self.environment;
        let user = Settings::load(&environment.user_config_file(), SettingsLevel::User)?;
        let defaults = self
            .default_scopes
            .unwrap_or(self.roots.is_empty() && self.hosts.is_empty());
        // The hosts read: those named here, then (with the default scopes) the settings' ones.
        let mut hosts: Vec<(&'static Host, &'static str)> =
            self.hosts.iter().map(|host| (*host, "--agent")).collect();
        if defaults {
            hosts.extend(user.agents.iter().map(|host| (*host, "[skills] agents")));
        }
        let mut scopes = Scopes {
            roots: self
                .roots
                .iter()
                .map(|root| (root.clone(), Scope::Explicit))
                .collect(),
            notes: Vec::new(),
            plugin_dirs: user.plugin_dirs.clone(),
            locked: self.locked || user.locked,
            enablement: Enablement::default().level(SettingsLevel::User, user),
        };
        if let Some(project) = environment
            .project()
            .filter(|_| defaults || !hosts.is_empty())
            && self.project_scope(&project, defaults, &mut scopes, &mut hosts)?
        {
            for (host, _) in &hosts {
                scopes.push_root(host.project_skills(&project.dir), Scope::Project);
            }
        }
        if defaults {
            for root in environment.user_skills() {
                scopes.push_root(root, Scope::User);
            }
        }
        if let Some(home) = environment.home() {
            for (host, named_by) in &hosts {
                let dir = host.user_skills(home);
                if !dir.is_dir() {
                    scopes.notes.push(Note {
                        message: format!(
                            "{}: no such directory: {} ({named_by} {}) has no user skills here",
                            shown_path(&dir),
                            host.title,
                            host.name
                        ),
                        path: dir.clone(),
                    });
                }
                scopes.push_root(dir, Scope::User);
            }
        }
        if defaults {
            scopes.push_root(environment.admin_skills.clone(), Scope::Admin);
        }
        let run = Settings {
            disabled: self.disabled.clone(),
            ..Settings::default()
        };
        scopes.enablement = std::mem::take(&mut scopes.enablement).level(SettingsLevel::Run, run);
        // Plugin directories named in settings are not silently ignored by a host built without
        // plugins: each is a note.
        #[cfg(not(feature = "plugins"))]
        scopes.notes.extend(scopes.plugin_dirs.iter().map(|dir| Note {
            path: dir.clone(),
            message: format!(
                "{}: plugins not loaded: this host was built without skillful-config's `plugins` feature",
                shown_path(dir)
            ),
        }));
        Ok(scopes)
    }

    /// Whether the user trusts `project`; when so and `defaults` (the default scopes are read),
    /// adds its skills and settings (its settings' hosts to `hosts`); a note saying why not when
    /// it is not trusted and has anything to read.
    fn project_scope(
        &self,
        project: &Project,
        defaults: bool,
        scopes: &mut Scopes,
        hosts: &mut Vec<(&'static Host, &'static str)>,
    ) -> Result<bool, ConfigError> {
        let store = TrustStore::load(&self.environment)?;
        let verdict = store.verdict(project);
        let trusted = match &verdict {
            Verdict::Trusted { .. } => true,
            Verdict::Untrusted | Verdict::Replaced { .. } => self.trust_project,
            Verdict::Refused { .. } => false,
        };
        if !trusted {
            let named = hosts
                .iter()
                .any(|(host, _)| host.project_skills(&project.dir).exists());
            if (defaults && has_project_content(project)) || named {
                scopes.notes.push(Note::not_loaded(project, &verdict));
            }
        } else if defaults {
            scopes.push_root(project.skills(), Scope::Project);
            let settings = Settings::load(&project.config_file(), SettingsLevel::Project)?;
            let recorded = match &verdict {
                Verdict::Trusted { by } => store.recorded_plugins(by),
                _ => &[],
            };
            for dir in &settings.plugin_dirs {
                match recorded_unchanged(dir, recorded) {
                    Ok(true) => scopes.plugin_dirs.push(dir.clone()),
                    Ok(false) => {}
                    Err(why) => scopes.notes.push(Note {
                        path: dir.clone(),
                        message: format!(
                            "{}: project plugins not loaded: {why}; run `skills trust {}` again if they are yours",
                            shown_path(dir),
                            shown_path(&project.dir)
                        ),
                    }),
                }
            }
            scopes.locked |= settings.locked;
            hosts.extend(
                settings
                    .agents
                    .iter()
                    .map(|host| (*host, "[skills] agents")),
            );
            scopes.enablement =
                std::mem::take(&mut scopes.enablement).level(SettingsLevel::Project, settings);
        }
        Ok(trusted)
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

/// The roots of the scopes read and what their settings add up to.
struct Scopes {
    roots: Vec<(PathBuf, Scope)>,
    notes: Vec<Note>,
    plugin_dirs: Vec<PathBuf>,
    locked: bool,
    enablement: Enablement,
}

impl Scopes {
    /// Adds `root` in `scope` unless it is read already (a host whose directory is a default
    /// root, as `agents`'s is, or a host named twice).
    fn push_root(&mut self, root: PathBuf, scope: Scope) {
        if !self.roots.iter().any(|(read, _)| *read == root) {
            self.roots.push((root, scope));
        }
    }
}

/// Whether the project plugin directory `dir` may be loaded: `Ok(true)` when it is one of
/// `recorded` with the same files, `Ok(false)` when it does not exist (nothing to load), else
/// why not.
fn recorded_unchanged(dir: &Path, recorded: &[TrustedPlugins]) -> Result<bool, String> {
    let Ok(canonical) = dunce::canonicalize(dir) else {
        return Ok(false);
    };
    let Some(trusted) = recorded.iter().find(|trusted| trusted.dir == canonical) else {
        return Err("the directory was not recorded when the project was trusted".to_owned());
    };
    match plugin_dir_digest(&canonical) {
        Ok(digest) if digest == trusted.digest => Ok(true),
        Ok(_) => Err("its files changed since the project was trusted".to_owned()),
        Err(error) => Err(error.to_string()),
    }
}

fn has_project_content(project: &Project) -> bool {
    let agents = project.dir.join(AGENTS_DIR);
    [
        crate::environment::SKILLS_DIR,
        crate::environment::PLUGINS_DIR,
        crate::environment::PROJECT_CONFIG_FILE,
    ]
    .iter()
    .any(|name| agents.join(name).exists())
}

/// Something the user should know about how the skills were composed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Note {
    /// The directory the note is about.
    pub path: PathBuf,
    /// One line saying what happened and what to do.
    pub message: String,
}

impl Note {
    /// Why `project`'s skills and settings were not loaded, after `verdict`.
    fn not_loaded(project: &Project, verdict: &Verdict) -> Self {
        let dir = shown_path(&project.dir);
        let message = match verdict {
            Verdict::Refused { risks } => format!(
                "{dir}: project refused: it {}; its skills, settings and plugins are not read (as git refuses a repository of dubious ownership)",
                Risk::describe(risks)
            ),
            Verdict::Replaced { dir: trusted } => {
                let trusted = shown_path(trusted);
                format!(
                    "{dir}: project skills and settings not loaded: {trusted} was trusted, but it has been removed and re-created since; run `skills trust {trusted}` if it is yours"
                )
            }
            Verdict::Trusted { .. } | Verdict::Untrusted => format!(
                "{dir}: project skills and settings not loaded: the project is not trusted; run `skills trust {dir}` to trust it, or pass --trust-project for this run"
            ),
        };
        Self {
            path: project.dir.clone(),
            message,
        }
    }
}

/// Succeeds when the user trusts `project`; `action` says, in the error, what is refused
/// otherwise. For commands that act on what a project's own files name (the sources of its
/// skills lock): a cloned repository must not make them fetch or install before it is trusted.
///
/// # Errors
/// [`ConfigError::UntrustedProject`] saying why and how to trust it; [`ConfigError::State`]
/// when the trust store cannot be read.
pub fn require_trusted(
    environment: &Environment,
    project: &Project,
    action: &str,
) -> Result<(), ConfigError> {
    let dir = shown_path(&project.dir);
    let reason = match TrustStore::load(environment)?.verdict(project) {
        Verdict::Trusted { .. } => return Ok(()),
        Verdict::Untrusted => {
            format!("{dir}: the project is not trusted; run `skills trust {dir}` if it is yours")
        }
        Verdict::Refused { risks } => {
            format!("{dir}: project refused: it {}", Risk::describe(&risks))
        }
        Verdict::Replaced { dir: trusted } => {
            let trusted = shown_path(&trusted);
            format!(
                "{dir}: {trusted} was trusted, but it has been removed and re-created since; run `skills trust {trusted}` if it is yours"
            )
        }
    };
    Err(ConfigError::UntrustedProject {
        path: project.dir.clone(),
        reason,
        action: action.to_owned(),
    })
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&skillful_core::text::one_line(&self.message))
    }
}

/// The skills a [`SkillsConfig`] composes: a [`SkillsSource`] for the provider, and
/// [`Composition::load`] for listings that also show what was left out and why.
#[derive(Debug, Clone)]
pub struct Composition {
    inner: Arc<Inner>,
    notes: Vec<Note>,
}

#[cfg(feature = "mcp")]
struct McpPart {
    label: String,
    source: McpSkillsSource,
    /// The server's skills, listed once: a listing is a network round trip per run otherwise.
    listed: OnceCell<Vec<Arc<dyn Skill>>>,
}

#[cfg(feature = "mcp")]
impl McpPart {
    /// `server`'s source, caching what it serves in the user's cache directory.
    fn new(server: McpServer, environment: &Environment) -> Self {
        let builder = McpSkillsSource::builder(server.endpoint)
            .label(server.label.as_str())
            .cache_dir(environment.dirs.cache().join("mcp"));
        let builder = server
            .env
            .iter()
            .fold(builder, |builder, name| builder.allow_env(name.clone()));
        Self {
            label: server.label.into(),
            source: builder.build(),
            listed: OnceCell::new(),
        }
    }
}

struct Inner {
    files: FileSkillsSource,
    #[cfg(feature = "plugins")]
    plugins: PluginSkillsSource,
    #[cfg(feature = "plugins")]
    has_plugins: bool,
    #[cfg(feature = "mcp")]
    mcp: Vec<McpPart>,
    inline: Vec<Arc<dyn Skill>>,
    enablement: Enablement,
    roots: Vec<(PathBuf, Scope)>,
    /// Whether skills whose files differ from their lock are left out.
    locked: bool,
    /// Where the digests of locked skills' files are cached (the user's cache directory).
    digest_cache: PathBuf,
    /// Shadowed names already warned about, so that a long chat warns once.
    warned: Mutex<HashSet<String>>,
    /// The file skills, watched, once [`Composition::watch`] started watching them.
    #[cfg(feature = "watch")]
    watched: OnceCell<Arc<WatchedSource>>,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut f = f.debug_struct("Composition");
        f.field("files", &self.files);
        #[cfg(feature = "plugins")]
        f.field("plugins", &self.plugins);
        #[cfg(feature = "mcp")]
        f.field(
            "mcp",
            &self.mcp.iter().map(|part| &part.label).collect::<Vec<_>>(),
        );
        f.field("inline", &self.inline.len())
            .field("roots", &self.roots);
        #[cfg(feature = "watch")]
        f.field("watched", &self.watched.initialized());
        f.finish_non_exhaustive()
    }
}

/// Why a skill is not offered, or under which name it is.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "status", rename_all = "lowercase")]
#[non_exhaustive]
pub enum Status {
    /// Offered to the model.
    Active,
    /// Turned off by a setting or a flag.
    Disabled {
        /// Where (`disabled_by` in JSON).
        #[serde(rename = "disabled_by")]
        by: SettingsLevel,
    },
    /// Its files differ from the lock it was installed with (`skills verify` names the
    /// differences, `skills install` restores them); offered unless the composition is locked.
    Modified {
        /// The paths added, removed or changed (`modified_files` in JSON).
        #[serde(rename = "modified_files")]
        files: Vec<String>,
        /// Whether it is offered all the same (`false` under `--locked` or `[skills] locked`).
        offered: bool,
    },
    /// Another skill of the same name, of higher precedence, is offered instead.
    Shadowed {
        /// That skill's name (`shadowed_by_name` in JSON).
        #[serde(rename = "shadowed_by_name")]
        by_name: String,
        /// That skill's origin (`shadowed_by` in JSON).
        #[serde(rename = "shadowed_by")]
        by: SkillOrigin,
    },
}

impl Status {
    /// Whether the skill is offered to the model (active, or modified outside a locked
    /// composition).
    pub fn is_offered(&self) -> bool {
        matches!(self, Self::Active | Self::Modified { offered: true, .. })
    }
}

/// One skill found, offered or not.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Entry {
    /// The skill as offered: renamed `label:name` when an MCP skill's name is taken.
    pub skill: Arc<dyn Skill>,
    /// The name the skill gives itself.
    pub own_name: String,
    /// Whether it is offered.
    pub status: Status,
}

/// What loading a [`Composition`] found.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Loaded {
    /// Every skill found, in precedence order, offered or not.
    pub entries: Vec<Entry>,
    /// What discovery reported (invalid skills, skipped files).
    pub diagnostics: Vec<Diagnostic>,
    /// Plugin files or directories that were refused or failed (feature `plugins`).
    #[cfg(feature = "plugins")]
    pub plugin_errors: Vec<Arc<PluginError>>,
    /// Files read and hashed to check locked skills against their lock: 0 when no file changed
    /// since the last check (their stamps are compared first).
    pub files_hashed: u64,
}

impl Loaded {
    /// The skills offered, in precedence order.
    pub fn active(&self) -> Vec<Arc<dyn Skill>> {
        self.entries
            .iter()
            .filter(|entry| entry.status.is_offered())
            .map(|entry| Arc::clone(&entry.skill))
            .collect()
    }

    /// Whether anything invalid was found (a rejected skill, a plugin that did not load).
    pub fn has_errors(&self) -> bool {
        #[cfg(feature = "plugins")]
        if !self.plugin_errors.is_empty() {
            return true;
        }
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

impl Composition {
    /// The notes made while composing (an untrusted project whose skills were left out).
    pub fn notes(&self) -> &[Note] {
        &self.notes
    }

    /// The file roots read, with their scopes, in precedence order (for watchers and servers).
    pub fn file_roots(&self) -> &[(PathBuf, Scope)] {
        &self.inner.roots
    }

    /// The file source of the composition (every root, scoped), for hosts that serve files.
    pub fn file_source(&self) -> &FileSkillsSource {
        &self.inner.files
    }

    /// The composition as the source a provider reads: the active skills, each name once.
    pub fn source(&self) -> Arc<dyn SkillsSource> {
        Arc::new(self.clone())
    }

    /// Live reload for long-running hosts: starts watching the file roots (once; later calls
    /// return the same watched source) and from then on reads the file skills of this
    /// composition, and of its clones, from the watched source instead of walking the roots on
    /// every [`load`](Self::load). Feature `watch` (links `skillful-watch` and `notify`).
    ///
    /// A skill added, changed or removed takes effect at the next load after the watcher's
    /// debounce; a burst of changes is one reload. The returned source announces each reload
    /// ([`WatchedSource::reloads`]); an MCP server can serve it
    /// (`skillful_mcp::SkillsMcpServer::watched`). Never fails: a root the platform's watcher
    /// cannot watch is polled, with a warning.
    ///
    /// # Panics
    /// Outside a tokio runtime.
    ///
    /// # Example
    /// ```
    /// use skillful_config::{Environment, SkillsConfig};
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// # let temp = tempfile::tempdir().unwrap();
    /// let composition = SkillsConfig::new(Environment::under(temp.path()))
    ///     .root(temp.path())
    ///     .build()
    ///     .unwrap();
    /// let watched = composition.watch().await;
    /// let mut reloads = watched.reloads();
    /// // ... a skill is added under the root ...
    /// # let dir = temp.path().join("greeter");
    /// # std::fs::create_dir(&dir).unwrap();
    /// # std::fs::write(dir.join("SKILL.md"), "---\nname: greeter\ndescription: Greets.\n---\nHi.\n").unwrap();
    /// # tokio::time::timeout(std::time::Duration::from_secs(10), reloads.changed()).await.unwrap().unwrap();
    /// let loaded = composition.load(&Default::default()).await.unwrap();
    /// assert_eq!(loaded.active()[0].name(), "greeter");
    /// # });
    /// ```
    #[cfg(feature = "watch")]
    pub async fn watch(&self) -> Arc<WatchedSource> {
        self.watch_with(|builder| builder).await
    }

    /// [`Composition::watch`], with the watcher configured by `configure` (debounce, polling)
    /// when this call is the one that starts it.
    ///
    /// # Panics
    /// Outside a tokio runtime.
    #[cfg(feature = "watch")]
    pub async fn watch_with(
        &self,
        configure: impl FnOnce(WatchedSourceBuilder) -> WatchedSourceBuilder,
    ) -> Arc<WatchedSource> {
        let files = &self.inner.files;
        Arc::clone(
            self.inner
                .watched
                .get_or_init(|| async {
                    Arc::new(
                        configure(WatchedSource::builder(files.clone()))
                            .start()
                            .await,
                    )
                })
                .await,
        )
    }

    /// Discovers and loads every source and composes them (the file skills as the watcher last
    /// loaded them, after `Composition::watch`).
    ///
    /// # Errors
    /// An MCP server that cannot be reached.
    pub async fn load(&self, context: &SourceContext) -> Result<Loaded, SkillError> {
        let inner = &self.inner;
        #[cfg(feature = "watch")]
        let discovery = match inner.watched.get() {
            Some(watched) => watched.discovery().await,
            None => Arc::new(inner.files.discover().await),
        };
        #[cfg(not(feature = "watch"))]
        let discovery = Arc::new(inner.files.discover().await);
        let mut loaded = Loaded {
            diagnostics: discovery.diagnostics.clone(),
            ..Loaded::default()
        };
        // Precedence: files by scope (explicit, project, user, admin), then plugins, inline and
        // MCP skills, which are explicit; a stable sort keeps each source's own order.
        let mut found: Vec<(Arc<dyn Skill>, Option<&str>)> = Vec::new();
        for skill in &discovery.skills {
            found.push((Arc::clone(skill) as Arc<dyn Skill>, None));
        }
        #[cfg(feature = "plugins")]
        if inner.has_plugins {
            let plugins = inner.plugins.load().await?;
            loaded.plugin_errors.extend(plugins.errors.iter().cloned());
            found.extend(
                plugins
                    .skills
                    .iter()
                    .map(|skill| (Arc::clone(skill) as Arc<dyn Skill>, None)),
            );
        }
        found.extend(inner.inline.iter().map(|skill| (Arc::clone(skill), None)));
        #[cfg(feature = "mcp")]
        for part in &inner.mcp {
            let skills = part
                .listed
                .get_or_try_init(|| async {
                    part.source.load().await.map_err(|error| {
                        SkillError::Other(format!("MCP server '{}': {error}", part.label))
                    })
                })
                .await?;
            found.extend(
                skills
                    .iter()
                    .map(|skill| (Arc::clone(skill), Some(part.label.as_str()))),
            );
        }
        found.sort_by_key(|(skill, _)| skill.scope());
        let roots: Vec<PathBuf> = inner.roots.iter().map(|(root, _)| root.clone()).collect();
        let dirs: Vec<String> = discovery
            .skills
            .iter()
            .filter_map(|skill| skill.origin().location.clone())
            .collect();
        let cache = inner.digest_cache.clone();
        let checked = skillful_fs::blocking::run("checking skills against their lock", move || {
            crate::locked::check(&roots, &dirs, &cache)
        })
        .await
        .map_err(SkillError::other)?;
        loaded.files_hashed = checked.hashed;
        loaded.entries = self.compose(found, &checked.drifted, context);
        Ok(loaded)
    }

    fn compose(
        &self,
        found: Vec<(Arc<dyn Skill>, Option<&str>)>,
        drifted: &HashMap<String, Drift>,
        _context: &SourceContext,
    ) -> Vec<Entry> {
        // Skills that are not from MCP servers claim their names first: those keep them.
        let mut claimed = Claimed::new();
        let mut entries = Vec::with_capacity(found.len());
        let mut mcp: Vec<(Arc<dyn Skill>, &str)> = Vec::new();
        for (skill, label) in found {
            match label {
                Some(label) => mcp.push((skill, label)),
                None => entries.push(self.local_entry(skill, &mut claimed, drifted)),
            }
        }
        for (skill, own_name, shown) in mcp_names(mcp, &claimed) {
            entries.push(self.mcp_entry(skill, own_name, shown, &mut claimed));
        }
        entries
    }

    /// A skill of files, a plugin or an inline skill, under its own name.
    fn local_entry(
        &self,
        skill: Arc<dyn Skill>,
        claimed: &mut Claimed,
        drifted: &HashMap<String, Drift>,
    ) -> Entry {
        let name = skill.name().to_owned();
        let status = match self.inner.enablement.check(&name) {
            Err(by) => Status::Disabled { by },
            // A modified skill keeps its name even when it is not offered: no other skill stands
            // in for it unnoticed.
            Ok(()) => self.claim(claimed, &name, &skill).unwrap_or_else(|| {
                match self.drift_of(&skill, drifted) {
                    Some(files) => Status::Modified {
                        files,
                        offered: !self.inner.locked,
                    },
                    None => Status::Active,
                }
            }),
        };
        Entry {
            skill,
            own_name: name,
            status,
        }
    }

    /// An MCP skill, shown as `shown`; disabling either name disables it.
    fn mcp_entry(
        &self,
        skill: Arc<dyn Skill>,
        own_name: String,
        shown: String,
        claimed: &mut Claimed,
    ) -> Entry {
        let enablement = &self.inner.enablement;
        let status = match enablement
            .check(&shown)
            .and_then(|()| enablement.check(&own_name))
        {
            Err(by) => Status::Disabled { by },
            Ok(()) => self
                .claim(claimed, &shown, &skill)
                .unwrap_or(Status::Active),
        };
        let skill = if shown == own_name {
            skill
        } else {
            Arc::new(Renamed::new(skill, shown)) as Arc<dyn Skill>
        };
        Entry {
            skill,
            own_name,
            status,
        }
    }

    /// Gives `name` to `skill`, unless another skill has it already: then `skill` is shadowed
    /// (and warned about once).
    fn claim(&self, claimed: &mut Claimed, name: &str, skill: &Arc<dyn Skill>) -> Option<Status> {
        let key = name.to_lowercase();
        if let Some((by_name, by)) = claimed.get(&key) {
            self.warn_shadowed(name, skill.origin(), by.origin());
            return Some(Status::Shadowed {
                by_name: by_name.clone(),
                by: by.origin().clone(),
            });
        }
        claimed.insert(key, (name.to_owned(), Arc::clone(skill)));
        None
    }

    /// The files of `skill` (a file skill) that differ from its lock, warned about once.
    fn drift_of(
        &self,
        skill: &Arc<dyn Skill>,
        drifted: &HashMap<String, Drift>,
    ) -> Option<Vec<String>> {
        let origin = skill.origin();
        if origin.kind != OriginKind::Files {
            return None;
        }
        let drift = drifted.get(origin.location.as_deref()?)?;
        let key = format!("modified\u{0}{origin}\u{0}{}", drift.files.join("\u{0}"));
        let first = self
            .inner
            .warned
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key);
        if first {
            let name = skillful_core::text::one_line(skill.name());
            let files = skillful_core::text::one_line(&drift.files.join(", ")).into_owned();
            let what = if self.inner.locked {
                "not offered (locked)"
            } else {
                "offered all the same"
            };
            tracing::warn!(
                "skill `{name}` of {origin} differs from {}: {files}; {what} (`skills verify` shows the differences, `skills install` restores it)",
                drift.lock.display()
            );
        }
        Some(drift.files.clone())
    }

    fn warn_shadowed(&self, name: &str, shadowed: &SkillOrigin, by: &SkillOrigin) {
        let key = format!("{name}\u{0}{shadowed}");
        let mut warned = self
            .inner
            .warned
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !warned.insert(key) {
            return;
        }
        let name = skillful_core::text::one_line(name);
        let why = if shadowed.scope == by.scope {
            "found first"
        } else {
            "higher precedence"
        };
        tracing::warn!(
            "skill `{name}` of {shadowed} is shadowed by the skill of the same name of {by} ({why}); `skills list --all` shows both"
        );
    }
}

/// The names taken so far, lowercased, with the name as written and the skill that took it.
type Claimed = HashMap<String, (String, Arc<dyn Skill>)>;

/// The name each MCP skill is shown under, with its own: its own only when no other skill has it;
/// otherwise `label:name`, so that it never silently stands in for a local skill or another
/// server's. The name shown is then claimed like any other, so the first claim wins among
/// renamed ones too.
fn mcp_names(
    mcp: Vec<(Arc<dyn Skill>, &str)>,
    claimed: &Claimed,
) -> Vec<(Arc<dyn Skill>, String, String)> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for (skill, _) in &mcp {
        *counts.entry(skill.name().to_lowercase()).or_default() += 1;
    }
    mcp.into_iter()
        .map(|(skill, label)| {
            let own_name = skill.name().to_owned();
            let key = own_name.to_lowercase();
            let collides = claimed.contains_key(&key) || counts.get(&key).copied() > Some(1);
            let shown = if collides {
                format!("{label}:{own_name}")
            } else {
                own_name.clone()
            };
            (skill, own_name, shown)
        })
        .collect()
}

#[async_trait]
impl SkillsSource for Composition {
    async fn skills(&self, context: &SourceContext) -> Result<Vec<Arc<dyn Skill>>, SkillError> {
        Ok(self.load(context).await?.active())
    }
}

/// A skill offered under another name (an MCP skill whose name was taken).
#[derive(Debug)]
struct Renamed {
    inner: Arc<dyn Skill>,
    frontmatter: SkillFrontmatter,
}

impl Renamed {
    fn new(inner: Arc<dyn Skill>, name: String) -> Self {
        let mut frontmatter = inner.frontmatter().clone();
        frontmatter.name = name;
        Self { inner, frontmatter }
    }
}

#[async_trait]
impl Skill for Renamed {
    fn frontmatter(&self) -> &SkillFrontmatter {
        &self.frontmatter
    }

    fn origin(&self) -> &SkillOrigin {
        self.inner.origin()
    }

    async fn document(&self) -> Result<SkillDocument, SkillError> {
        self.inner.document().await
    }

    fn resources(&self) -> Vec<Arc<dyn SkillResource>> {
        self.inner.resources()
    }

    fn scripts(&self) -> Vec<Arc<dyn SkillScript>> {
        self.inner.scripts()
    }

    fn resource(&self, name: &str) -> Option<Arc<dyn SkillResource>> {
        self.inner.resource(name)
    }

    fn script(&self, name: &str) -> Option<Arc<dyn SkillScript>> {
        self.inner.script(name)
    }

    fn risk_tier(&self) -> Option<skillful_core::RiskTier> {
        self.inner.risk_tier()
    }

    fn diagnostics(&self) -> &[Diagnostic] {
        self.inner.diagnostics()
    }

    fn listed_digest(&self) -> Option<&str> {
        self.inner.listed_digest()
    }
}
