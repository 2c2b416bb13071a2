use std::sync::Arc;

use async_trait::async_trait;
use skillful_core::{Skill, SkillError, SkillsSource, SourceContext};

use super::Precedence;

/// The skills of several sources in the order of precedence ([`Precedence::sort`]): by scope,
/// then in registration order (each source's own order kept).
///
/// A failing source fails the whole: a partial list would be taken for the full one (and cached).
#[derive(Debug, Clone, Default)]
pub struct AggregatingSource {
    sources: Vec<Arc<dyn SkillsSource>>,
}

impl AggregatingSource {
    /// Aggregates `sources`, asked in this order.
    pub fn new(sources: impl IntoIterator<Item = Arc<dyn SkillsSource>>) -> Self {
        Self {
            sources: sources.into_iter().collect(),
        }
    }
}

#[async_trait]
impl SkillsSource for AggregatingSource {
    async fn skills(&self, context: &SourceContext) -> Result<Vec<Arc<dyn Skill>>, SkillError> {
        let mut all = Vec::new();
        for source in &self.sources {
            all.extend(source.skills(context).await?);
        }
        Precedence::sort(&mut all, |skill| skill.as_ref());
        Ok(all)
    }
}
