use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use skillful_core::{Skill, SkillError, SkillsSource, SourceContext};

use super::{Precedence, Rank};

pub(super) type SkillPredicate = dyn Fn(&dyn Skill) -> bool + Send + Sync;

/// The skills of an inner source that the filters keep, each name once, by the [`Precedence`]
/// rule: a skill a filter leaves out (logged at debug level) claims no name, then the first skill
/// of each name wins, names compared ignoring case, and every later one is left out with a
/// warning (once). The inner source gives the order of precedence (an [`AggregatingSource`]
/// sorts by it).
///
/// [`AggregatingSource`]: super::AggregatingSource
pub struct DedupingSource {
    inner: Arc<dyn SkillsSource>,
    pub(super) filters: Vec<Box<SkillPredicate>>,
    precedence: Precedence,
}

impl DedupingSource {
    /// Removes duplicate names from `inner`'s skills.
    pub fn new(inner: Arc<dyn SkillsSource>) -> Self {
        Self {
            inner,
            filters: Vec::new(),
            precedence: Precedence::new(),
        }
    }

    /// The same source, keeping only the skills for which `predicate` holds (with several
    /// filters, all must hold).
    #[must_use]
    pub fn filter(
        mut self,
        predicate: impl Fn(&dyn Skill) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.filters.push(Box::new(predicate));
        self
    }

    fn verdict(&self, skill: &dyn Skill) -> Result<(), ()> {
        if self.filters.iter().all(|keep| keep(skill)) {
            Ok(())
        } else {
            Err(())
        }
    }
}

impl fmt::Debug for DedupingSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DedupingSource")
            .field("inner", &self.inner)
            .field("filters", &self.filters.len())
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl SkillsSource for DedupingSource {
    async fn skills(&self, context: &SourceContext) -> Result<Vec<Arc<dyn Skill>>, SkillError> {
        let mut skills = self.inner.skills(context).await?;
        let mut ranking = self.precedence.ranking();
        skills.retain(|skill| {
            let verdict = self.verdict(skill.as_ref());
            matches!(ranking.rank(skill, skill.name(), verdict), Rank::Offered)
        });
        Ok(skills)
    }
}
