//! Loading a composition: every source in precedence order, then each name given to one skill,
//! with what was disabled, shadowed or modified kept and said.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use skillful_core::{OriginKind, Skill, SkillError, SourceContext};
use skillful_inline::{Precedence, Rank, Ranking};

use super::mcp::mcp_names;
use super::renamed::Renamed;
use super::{Composition, Entry, Loaded, Status};
use crate::locked::Drift;

impl Composition {
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
        // Gathered here rather than by an `AggregatingSource`, since the parts say more than
        // their skills (diagnostics, plugin errors, each MCP skill's server); ordered by the same
        // rule: files by scope (explicit, project, user, admin), then plugins, inline and MCP
        // skills, which are explicit, each source's own order kept.
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
            let skills = part.listed().await.map_err(|error| {
                SkillError::Other(format!("MCP server '{}': {error}", part.label))
            })?;
            found.extend(
                skills
                    .iter()
                    .map(|skill| (Arc::clone(skill), Some(part.label.as_str()))),
            );
        }
        Precedence::sort(&mut found, |(skill, _)| skill.as_ref());
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
        let mut ranking = self.inner.precedence.ranking();
        let mut entries = Vec::with_capacity(found.len());
        let mut mcp: Vec<(Arc<dyn Skill>, &str)> = Vec::new();
        for (skill, label) in found {
            match label {
                Some(label) => mcp.push((skill, label)),
                None => entries.push(self.local_entry(skill, &mut ranking, drifted)),
            }
        }
        for (skill, own_name, shown) in mcp_names(mcp, &ranking) {
            entries.push(self.mcp_entry(skill, own_name, shown, &mut ranking));
        }
        entries
    }

    /// A skill of files, a plugin or an inline skill, under its own name.
    fn local_entry(
        &self,
        skill: Arc<dyn Skill>,
        ranking: &mut Ranking<'_>,
        drifted: &HashMap<String, Drift>,
    ) -> Entry {
        let name = skill.name().to_owned();
        let enabled = self.inner.enablement.check(&name);
        let status = match ranking.rank(&skill, &name, enabled) {
            // A modified skill keeps its name even when it is not offered: no other skill stands
            // in for it unnoticed.
            Rank::Offered => match self.drift_of(&skill, drifted) {
                Some(files) => Status::Modified {
                    files,
                    offered: !self.inner.locked,
                },
                None => Status::Active,
            },
            rank => Status::ranked(rank),
        };
        Entry {
            skill,
            own_name: name,
            status,
        }
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
}

impl Composition {
    /// An MCP skill, shown as `shown`; disabling either name disables it.
    pub(super) fn mcp_entry(
        &self,
        skill: Arc<dyn Skill>,
        own_name: String,
        shown: String,
        ranking: &mut Ranking<'_>,
    ) -> Entry {
        let enablement = &self.inner.enablement;
        let enabled = enablement
            .check(&shown)
            .and_then(|()| enablement.check(&own_name));
        let status = Status::ranked(ranking.rank(&skill, &shown, enabled));
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
}
