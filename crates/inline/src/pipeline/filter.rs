use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use skillful_core::{Skill, SkillError, SkillsSource, SourceContext};

type SkillPredicate = dyn Fn(&dyn Skill) -> bool + Send + Sync;

/// The skills of an inner source for which a predicate holds; the others are left out by the
/// caller's choice (logged at debug level).
pub struct FilteringSource {
    inner: Arc<dyn SkillsSource>,
    predicate: Box<SkillPredicate>,
}

impl FilteringSource {
    /// Keeps the skills of `inner` for which `predicate` is true.
    pub fn new(
        inner: Arc<dyn SkillsSource>,
        predicate: impl Fn(&dyn Skill) -> bool + Send + Sync + 'static,
    ) -> Self {
        Self {
            inner,
            predicate: Box::new(predicate),
        }
    }
}

impl fmt::Debug for FilteringSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FilteringSource")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl SkillsSource for FilteringSource {
    async fn skills(&self, context: &SourceContext) -> Result<Vec<Arc<dyn Skill>>, SkillError> {
        let mut skills = self.inner.skills(context).await?;
        skills.retain(|skill| {
            let keep = (self.predicate)(skill.as_ref());
            if !keep {
                tracing::debug!(skill = %skill.name(), "skill excluded by the filter");
            }
            keep
        });
        Ok(skills)
    }
}
