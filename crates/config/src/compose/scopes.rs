//! The roots of every scope, in precedence order, with what their settings and the project's
//! trust add up to.

use std::path::{Path, PathBuf};

use skillful_core::Scope;
use skillful_discovery::hosts::Host;

use super::{Note, SkillsConfig};
use crate::environment::{AGENTS_DIR, Project};
use crate::error::ConfigError;
use crate::error::shown_path;
use crate::settings::{Enablement, Settings, SettingsLevel};
use crate::trust::{TrustStore, TrustedPlugins, Verdict, plugin_dir_digest};

impl SkillsConfig {
    /// The roots of every scope read, in precedence order, with what their settings say.
    pub(super) fn scopes(&self) -> Result<Scopes, ConfigError> {
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
}

/// The roots of the scopes read and what their settings add up to.
pub(super) struct Scopes {
    pub(super) roots: Vec<(PathBuf, Scope)>,
    pub(super) notes: Vec<Note>,
    pub(super) plugin_dirs: Vec<PathBuf>,
    pub(super) locked: bool,
    pub(super) enablement: Enablement,
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
