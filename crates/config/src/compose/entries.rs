//! What loading a composition found: every skill, offered or not, and why.

use std::sync::Arc;

use skillful_core::{Diagnostic, Skill, SkillOrigin};
use skillful_inline::Rank;
#[cfg(feature = "plugins")]
use skillful_plugin_host::PluginError;

use crate::settings::SettingsLevel;

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

    /// The status of a skill ranked by the name rule, disabled by the settings level `by`.
    pub(super) fn ranked(rank: Rank<SettingsLevel>) -> Self {
        match rank {
            Rank::Offered => Self::Active,
            Rank::LeftOut(by) => Self::Disabled { by },
            Rank::Shadowed { by_name, by } => Self::Shadowed {
                by_name,
                by: by.origin().clone(),
            },
        }
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

/// What loading a [`Composition`](super::Composition) found.
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
