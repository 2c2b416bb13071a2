//! The user's and the project's settings files: which skills are enabled, and which plugin
//! directories are configured.
//!
//! ```toml
//! [skills]
//! disabled = ["pdf-tools"]          # never offered
//! enabled = ["unit-converter"]      # allow-list mode: only these are offered
//! locked = true                     # a skill whose files differ from its lock is not offered
//! agents = ["claude-code"]           # also read these hosts' skills directories, each a scope
//!                                   # below the default ones (`skills add --agent` names)
//!
//! [skill."draft-notes"]             # one skill's own setting, which wins over the lists
//! enabled = true
//!
//! [plugins]
//! dirs = ["/opt/skill-plugins"]     # plugin directories to load (checked before loading)
//!
//! [sandbox]
//! allow_write = ["/home/me/notes"]  # write-high scripts may write here too (user settings only)
//!
//! [agent]
//! mode = "auto"                     # guided, tools or auto: how `run`, `chat` and `eval` drive
//!                                   # the model (user settings only)
//! ```

use std::path::{Path, PathBuf};

use skillful_discovery::hosts::Host;
use skillful_fs::{FileLock, read_bounded, write_atomic};
use skillful_state::{Dirs, private_dir, read_private, write_private};
use toml_edit::{Array, DocumentMut, Item, Table, value};

use crate::error::ConfigError;

/// The largest settings file read.
const MAX_SETTINGS_BYTES: u64 = 1024 * 1024;

/// One settings file, as read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Settings {
    /// `[skills] disabled`.
    pub disabled: Vec<String>,
    /// `[skills] enabled`: when present, only these are enabled (by this file).
    pub enabled: Option<Vec<String>>,
    /// `[skill.NAME] enabled`, per skill.
    pub overrides: Vec<(String, bool)>,
    /// `[plugins] dirs`, relative paths resolved against the file's directory.
    pub plugin_dirs: Vec<PathBuf>,
    /// `[skills] locked`: skills whose files differ from the lock they were installed with
    /// (`skills-lock.json`) are not offered.
    pub locked: bool,
    /// `[sandbox] allow_write`: directories `write-high` scripts may write under, as
    /// `--allow-write` names them, relative paths resolved against the file's directory. Hosts
    /// honour the user's file only: a project cannot widen the sandbox.
    pub allow_write: Vec<PathBuf>,
    /// `[agent] mode`: `guided`, `tools` or `auto` ([`AGENT_MODES`]), as `--mode` takes it.
    /// Hosts honour the user's file only.
    pub agent_mode: Option<String>,
    /// `[skills] agents`: the agent hosts (`claude-code`, `gemini-cli`, ...) whose skills
    /// directories are read too, each below the default roots of its scope.
    pub agents: Vec<&'static Host>,
}

/// The values `[agent] mode` takes.
pub const AGENT_MODES: [&str; 3] = ["guided", "tools", "auto"];

/// Where a setting was made, for messages and for `skills list --all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum SettingsLevel {
    /// The user's configuration file.
    User,
    /// The project's `.agents/skillful.toml` (read only when the project is trusted).
    Project,
    /// A flag of this run (`--disable`).
    Run,
}

impl Settings {
    /// Reads `path` (a user's file must be the user's own; a project's need not be); empty
    /// settings when it does not exist.
    ///
    /// # Errors
    /// The file is unsafe, too large, not TOML, or a key has the wrong type.
    pub fn load(path: &Path, level: SettingsLevel) -> Result<Self, ConfigError> {
        let Some(bytes) = read_settings(path, level == SettingsLevel::User)? else {
            return Ok(Self::default());
        };
        let document = parse(path, &bytes)?;
        let invalid = |message: &str| ConfigError::Invalid {
            path: path.to_path_buf(),
            message: message.to_owned(),
        };
        let names = |item: Option<&Item>, key: &str| -> Result<Option<Vec<String>>, ConfigError> {
            let Some(item) = item else {
                return Ok(None);
            };
            let what = if key == "skills.agents" {
                "agent names"
            } else if key.starts_with("skills.") {
                "skill names"
            } else {
                "directories"
            };
            let message = format!("`{key}` must be a list of {what}");
            let array = item.as_array().ok_or_else(|| invalid(&message))?;
            array
                .iter()
                .map(|entry| {
                    entry
                        .as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| invalid(&message))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some)
        };
        let skills = document.get("skills");
        let disabled = names(skills.and_then(|s| s.get("disabled")), "skills.disabled")?;
        let enabled = names(skills.and_then(|s| s.get("enabled")), "skills.enabled")?;
        let agents = names(skills.and_then(|s| s.get("agents")), "skills.agents")?
            .unwrap_or_default()
            .iter()
            .map(|name| {
                Host::named(name).map_err(|unknown| invalid(&format!("`skills.agents`: {unknown}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let locked = match skills.and_then(|s| s.get("locked")) {
            None => false,
            Some(item) => item
                .as_bool()
                .ok_or_else(|| invalid("`skills.locked` must be true or false"))?,
        };
        let mut overrides = Vec::new();
        if let Some(table) = document.get("skill") {
            let table = table
                .as_table_like()
                .ok_or_else(|| invalid("`[skill.NAME]` must be tables"))?;
            for (name, item) in table.iter() {
                let enabled = item
                    .get("enabled")
                    .and_then(Item::as_bool)
                    .ok_or_else(|| invalid("`[skill.NAME] enabled` must be true or false"))?;
                overrides.push((name.to_owned(), enabled));
            }
        }
        let base = path.parent().unwrap_or(Path::new("."));
        let dirs = |table: &str, key: &str| -> Result<Vec<PathBuf>, ConfigError> {
            Ok(names(
                document.get(table).and_then(|t| t.get(key)),
                &format!("{table}.{key}"),
            )?
            .unwrap_or_default()
            .into_iter()
            .map(|dir| base.join(dir))
            .collect())
        };
        let plugin_dirs = dirs("plugins", "dirs")?;
        let allow_write = dirs("sandbox", "allow_write")?;
        let agent_mode = match document.get("agent").and_then(|agent| agent.get("mode")) {
            None => None,
            Some(item) => Some(
                item.as_str()
                    .filter(|mode| AGENT_MODES.contains(mode))
                    .map(str::to_owned)
                    .ok_or_else(|| {
                        invalid("`agent.mode` must be \"guided\", \"tools\" or \"auto\"")
                    })?,
            ),
        };
        Ok(Self {
            disabled: disabled.unwrap_or_default(),
            enabled,
            overrides,
            plugin_dirs,
            locked,
            allow_write,
            agent_mode,
            agents,
        })
    }

    /// What this file says about the skill called `name` (compared ignoring case): its own
    /// setting, else disabled when listed in `disabled`, else whether it is in `enabled` when
    /// that list exists, else nothing.
    pub fn says(&self, name: &str) -> Option<bool> {
        let same = |other: &String| other.eq_ignore_ascii_case(name);
        if let Some((_, enabled)) = self.overrides.iter().rev().find(|(n, _)| same(n)) {
            return Some(*enabled);
        }
        if self.disabled.iter().any(same) {
            return Some(false);
        }
        self.enabled.as_ref().map(|list| list.iter().any(same))
    }

    /// Enables or disables `name` in the file at `path` (created if missing), keeping the rest
    /// of the file (comments included) as it is: the name leaves or joins `disabled`, joins or
    /// leaves an existing `enabled` list, and a contrary `[skill.NAME]` setting is removed.
    /// Enabling at the project level also writes `[skill.NAME] enabled = true`, so that it
    /// overrides the user's settings.
    ///
    /// Every change is made under a lock, so concurrent changes are all kept: the user's file is
    /// locked beside it, a project's with a lock file in the user's state directory (`dirs`),
    /// named after the project's settings directory, so that nothing is added to the project.
    ///
    /// # Errors
    /// The name is empty or holds control characters; the file is unsafe, too large or not
    /// TOML; it cannot be written.
    pub fn set_enabled(
        dirs: &Dirs,
        path: &Path,
        level: SettingsLevel,
        name: &str,
        enabled: bool,
    ) -> Result<(), ConfigError> {
        check_name(name)?;
        let user = level == SettingsLevel::User;
        let _lock = FileLock::acquire(&settings_lock(dirs, path, user)?)?;
        let mut document = match read_settings(path, user)? {
            Some(bytes) => parse(path, &bytes)?,
            None => DocumentMut::new(),
        };
        let skills = table(&mut document, "skills", path)?;
        if enabled {
            leave_list(skills, "disabled", name);
            if let Some(list) = skills.get_mut("enabled").and_then(Item::as_array_mut) {
                join_list(list, name);
            }
        } else {
            let list = skills
                .entry("disabled")
                .or_insert_with(|| value(Array::new()))
                .as_array_mut()
                .ok_or_else(|| ConfigError::Invalid {
                    path: path.to_path_buf(),
                    message: "`skills.disabled` must be a list of skill names".to_owned(),
                })?;
            join_list(list, name);
            leave_list(skills, "enabled", name);
        }
        remove_contrary_overrides(&mut document, name, enabled);
        if enabled && !user {
            override_lower_levels(&mut document, path, name)?;
        }
        if user {
            write_private(path, document.to_string().as_bytes())?;
        } else {
            write_atomic(path, document.to_string().as_bytes(), 0o644)?;
        }
        Ok(())
    }
}

/// The lock for changes to the settings file at `path`: the user's beside it (its directory is
/// made private), a project's in the user's state directory (see [`project_lock`]).
/// A settings file's bytes: a user's must be the user's own (private state), a project's is
/// read as any file someone else may have put there.
fn read_settings(path: &Path, user: bool) -> Result<Option<Vec<u8>>, ConfigError> {
    Ok(if user {
        read_private(path, MAX_SETTINGS_BYTES)?
    } else {
        read_bounded(path, MAX_SETTINGS_BYTES)?
    })
}

fn settings_lock(dirs: &Dirs, path: &Path, user: bool) -> Result<PathBuf, ConfigError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    if user {
        private_dir(dir)?;
        return Ok(dir.join(".skillful-settings.lock"));
    }
    std::fs::create_dir_all(dir)
        .map_err(|error| ConfigError::Environment(format!("{}: {error}", dir.display())))?;
    project_lock(dirs, dir)
}

/// Whether `entry` names the skill `name` (ignoring case, as [`Settings::says`] compares).
fn names(entry: &toml_edit::Value, name: &str) -> bool {
    entry.as_str().is_some_and(|n| n.eq_ignore_ascii_case(name))
}

/// Adds `name` to `list` unless it is there already.
fn join_list(list: &mut Array, name: &str) {
    if !list.iter().any(|entry| names(entry, name)) {
        list.push(name);
    }
}

/// Takes `name` out of the list `key` of `skills`, if that list exists.
fn leave_list(skills: &mut Table, key: &str, name: &str) {
    if let Some(list) = skills.get_mut(key).and_then(Item::as_array_mut) {
        list.retain(|entry| !names(entry, name));
    }
}

/// Removes the `[skill.NAME]` settings that say the opposite of `enabled`: they would win over
/// the lists.
fn remove_contrary_overrides(document: &mut DocumentMut, name: &str, enabled: bool) {
    let Some(overrides) = document.get_mut("skill").and_then(Item::as_table_like_mut) else {
        return;
    };
    let contrary: Vec<String> = overrides
        .iter()
        .filter(|(key, item)| {
            key.eq_ignore_ascii_case(name)
                && item.get("enabled").and_then(Item::as_bool) != Some(enabled)
        })
        .map(|(key, _)| key.to_owned())
        .collect();
    for key in contrary {
        overrides.remove(&key);
    }
}

/// Writes `[skill.NAME] enabled = true` into a project's file without an `enabled` list: leaving
/// this file's `disabled` list does not undo a lower level's, so a project that enables a skill
/// the user disabled says so explicitly.
fn override_lower_levels(
    document: &mut DocumentMut,
    path: &Path,
    name: &str,
) -> Result<(), ConfigError> {
    let has_enabled_list = document
        .get("skills")
        .and_then(|skills| skills.get("enabled"))
        .is_some();
    if has_enabled_list {
        return Ok(());
    }
    let overrides = document
        .entry("skill")
        .or_insert_with(|| {
            let mut table = Table::new();
            table.set_implicit(true);
            Item::Table(table)
        })
        .as_table_like_mut()
        .ok_or_else(|| ConfigError::Invalid {
            path: path.to_path_buf(),
            message: "`skill` must be a table of per-skill settings (`[skill.NAME]`)".to_owned(),
        })?;
    if !overrides
        .iter()
        .any(|(key, _)| key.eq_ignore_ascii_case(name))
    {
        let mut entry = Table::new();
        entry.insert("enabled", value(true));
        overrides.insert(name, Item::Table(entry));
    }
    Ok(())
}

/// Refuses a name no skill can have in a settings file: empty, or holding control characters
/// (a newline would end the line it is written on).
fn check_name(name: &str) -> Result<(), ConfigError> {
    let reason = if name.trim().is_empty() {
        "it is empty"
    } else if name.chars().any(char::is_control) {
        "it holds control characters"
    } else {
        return Ok(());
    };
    Err(ConfigError::InvalidName {
        name: name.escape_debug().to_string(),
        reason,
    })
}

/// The lock file for the project settings directory `dir`: in the user's state directory, named
/// after `dir`'s canonical path (FNV-1a, stable across builds, so every `skills` agrees).
fn project_lock(dirs: &Dirs, dir: &Path) -> Result<PathBuf, ConfigError> {
    let canonical = dunce::canonicalize(dir)
        .map_err(|error| ConfigError::Environment(format!("{}: {error}", dir.display())))?;
    let locks = dirs.state_dir()?.join("settings-locks");
    private_dir(&locks)?;
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in canonical.as_os_str().as_encoded_bytes() {
        hash = (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
    }
    Ok(locks.join(format!("{hash:016x}.lock")))
}

fn parse(path: &Path, bytes: &[u8]) -> Result<DocumentMut, ConfigError> {
    let invalid = |message: String| ConfigError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    std::str::from_utf8(bytes)
        .map_err(|error| invalid(error.to_string()))?
        .parse()
        .map_err(|error: toml_edit::TomlError| invalid(error.to_string()))
}

fn table<'a>(
    document: &'a mut DocumentMut,
    key: &str,
    path: &Path,
) -> Result<&'a mut Table, ConfigError> {
    document
        .entry(key)
        .or_insert_with(|| Item::Table(Table::new()))
        .as_table_mut()
        .ok_or_else(|| ConfigError::Invalid {
            path: path.to_path_buf(),
            message: format!("`{key}` must be a table (`[{key}]`)"),
        })
}

/// Which skills are enabled, from every level's settings, later levels winning: the user's
/// file, the project's (when trusted), this run's flags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Enablement {
    levels: Vec<(SettingsLevel, Settings)>,
}

impl Enablement {
    /// Adds a level's settings; later levels win.
    pub fn level(mut self, level: SettingsLevel, settings: Settings) -> Self {
        self.levels.push((level, settings));
        self
    }

    /// Whether `name` is enabled.
    ///
    /// # Errors
    /// The level whose settings disabled it, when it is not enabled.
    pub fn check(&self, name: &str) -> Result<(), SettingsLevel> {
        let mut verdict = Ok(());
        for (level, settings) in &self.levels {
            match settings.says(name) {
                Some(true) => verdict = Ok(()),
                Some(false) => verdict = Err(*level),
                None => {}
            }
        }
        verdict
    }
}
