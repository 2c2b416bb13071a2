use std::collections::HashSet;
use std::sync::Arc;

use async_trait::async_trait;
use skillful_core::{Skill, SkillError, SkillsSource, SourceContext};

/// The skills of an inner source with duplicate names removed: the first of each name wins, names
/// compared ignoring case, and every skill left out is logged as a warning.
#[derive(Debug, Clone)]
pub struct DedupingSource {
    inner: Arc<dyn SkillsSource>,
}

impl DedupingSource {
    /// Removes duplicate names from `inner`'s skills.
    pub fn new(inner: Arc<dyn SkillsSource>) -> Self {
        Self { inner }
    }
}

#[async_trait]
impl SkillsSource for DedupingSource {
    async fn skills(&self, context: &SourceContext) -> Result<Vec<Arc<dyn Skill>>, SkillError> {
        let mut skills = self.inner.skills(context).await?;
        let mut seen = HashSet::new();
        skills.retain(|skill| {
            let name = skill.name();
            let first = seen.insert(name.to_lowercase());
            if !first {
                tracing::warn!(
                    skill = %name,
                    origin = %skill.origin(),
                    "duplicate skill name: this one is skipped in favour of the first"
                );
            }
            first
        });
        Ok(skills)
    }
}
