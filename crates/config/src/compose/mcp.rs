//! MCP servers in the composition: each server's source, and the name each of its skills is
//! offered under.

use std::collections::HashMap;
use std::sync::Arc;

use skillful_core::Skill;
#[cfg(feature = "mcp")]
use skillful_core::{SkillError, SkillsSource, SourceContext};
#[cfg(feature = "mcp")]
use skillful_inline::CachingSource;
use skillful_inline::{Precedence, Ranking};
#[cfg(feature = "mcp")]
use skillful_mcp::McpSkillsSource;

#[cfg(feature = "mcp")]
use crate::environment::Environment;
#[cfg(feature = "mcp")]
use crate::mcp::McpServer;

#[cfg(feature = "mcp")]
pub(super) struct McpPart {
    pub(super) label: String,
    /// The server's skills, listed once (the cache asked with one context whatever the run's):
    /// a listing is a network round trip per run otherwise. A failed listing is not kept.
    listing: CachingSource,
}

#[cfg(feature = "mcp")]
impl McpPart {
    /// `server`'s source, caching what it serves in the user's cache directory.
    pub(super) fn new(server: McpServer, environment: &Environment) -> Self {
        let builder = McpSkillsSource::builder(server.endpoint)
            .label(server.label.as_str())
            .cache_dir(environment.dirs.cache().join("mcp"));
        let builder = server
            .env
            .iter()
            .fold(builder, |builder, name| builder.allow_env(name.clone()));
        Self {
            label: server.label.into(),
            listing: CachingSource::new(Arc::new(builder.build())),
        }
    }

    /// The server's skills, from the first listing that succeeded.
    pub(super) async fn listed(&self) -> Result<Vec<Arc<dyn Skill>>, SkillError> {
        self.listing.skills(&SourceContext::default()).await
    }
}

/// The name each MCP skill is shown under, with its own: its own only when no other skill has it;
/// otherwise `label:name`, so that it never silently stands in for a local skill or another
/// server's. The name shown is then claimed like any other, so the first claim wins among
/// renamed ones too.
pub(super) fn mcp_names(
    mcp: Vec<(Arc<dyn Skill>, &str)>,
    ranking: &Ranking<'_>,
) -> Vec<(Arc<dyn Skill>, String, String)> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for (skill, _) in &mcp {
        *counts
            .entry(Precedence::name_key(skill.name()))
            .or_default() += 1;
    }
    mcp.into_iter()
        .map(|(skill, label)| {
            let own_name = skill.name().to_owned();
            let collides = ranking.is_taken(&own_name)
                || counts.get(&Precedence::name_key(&own_name)).copied() > Some(1);
            let shown = if collides {
                format!("{label}:{own_name}")
            } else {
                own_name.clone()
            };
            (skill, own_name, shown)
        })
        .collect()
}
