//! Sources that wrap sources: aggregate, cache, filter and dedupe; a builder composing them; and
//! the rule of names they share with hosts that compose skills themselves.

mod aggregate;
mod cache;
mod dedupe;
mod precedence;

use std::sync::Arc;
use std::time::Duration;

use skillful_core::{Skill, SkillsSource};

pub use aggregate::AggregatingSource;
pub use cache::{CachingSource, DEFAULT_CACHED_KEYS};
pub use dedupe::DedupingSource;
use dedupe::SkillPredicate;
pub use precedence::{Precedence, Rank, Ranking};

/// Composes sources into the pipeline a `skillful_provider::SkillsProvider` reads:
/// aggregate ([`AggregatingSource`]: precedence order, by scope then registration) → cache
/// ([`CachingSource`], when asked for) → filter and dedupe ([`DedupingSource`]: the
/// [`Precedence`] rule, which `skillful-config`'s composition follows too).
///
/// Caching comes before filtering so that a filter change needs no refetch, and a skill the
/// filter leaves out claims no name, so it never hides a later one of the same name.
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use skillful_core::{SkillsSource, SourceContext};
/// use skillful_inline::{InlineSkill, InlineSkillsSource, SkillsSourceBuilder};
///
/// let skill = |name: &str| InlineSkill::builder(name, "Does things.").instructions("Do.").build().unwrap();
/// let source = SkillsSourceBuilder::new()
///     .source(Arc::new(InlineSkillsSource::new([skill("a"), skill("draft-b")])))
///     .source(Arc::new(InlineSkillsSource::new([skill("A")])))
///     .filter(|skill| !skill.frontmatter().name.starts_with("draft-"))
///     .cache()
///     .refresh_every(Duration::from_secs(300))
///     .build();
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// let skills = source.skills(&SourceContext::default()).await.unwrap();
/// let names: Vec<_> = skills.iter().map(|s| s.frontmatter().name.clone()).collect();
/// assert_eq!(names, ["a"]);
/// # });
/// ```
#[derive(Default)]
#[must_use]
pub struct SkillsSourceBuilder {
    sources: Vec<Arc<dyn SkillsSource>>,
    cache: bool,
    refresh_every: Option<Duration>,
    filters: Vec<Box<SkillPredicate>>,
}

impl SkillsSourceBuilder {
    /// An empty pipeline: no sources, no cache, no filter.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a source; sources are asked in the order they are added.
    pub fn source(mut self, source: Arc<dyn SkillsSource>) -> Self {
        self.sources.push(source);
        self
    }

    /// Keeps only the skills for which `predicate` holds; with several filters, all must hold.
    pub fn filter(
        mut self,
        predicate: impl Fn(&dyn Skill) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.filters.push(Box::new(predicate));
        self
    }

    /// Caches the aggregated skills per isolation key (see [`CachingSource`]).
    pub fn cache(mut self) -> Self {
        self.cache = true;
        self
    }

    /// Caches, and fetches afresh once a cached result is `interval` old.
    pub fn refresh_every(mut self, interval: Duration) -> Self {
        self.refresh_every = Some(interval);
        self.cache()
    }

    /// Builds the pipeline.
    pub fn build(self) -> Arc<dyn SkillsSource> {
        // Even one source is aggregated: its skills, too, are put in precedence order.
        let mut source: Arc<dyn SkillsSource> = Arc::new(AggregatingSource::new(self.sources));
        if self.cache {
            let mut cache = CachingSource::new(source);
            if let Some(interval) = self.refresh_every {
                cache = cache.refresh_every(interval);
            }
            source = Arc::new(cache);
        }
        let mut dedupe = DedupingSource::new(source);
        dedupe.filters = self.filters;
        Arc::new(dedupe)
    }
}

impl std::fmt::Debug for SkillsSourceBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillsSourceBuilder")
            .field("sources", &self.sources)
            .field("cache", &self.cache)
            .field("refresh_every", &self.refresh_every)
            .field("filters", &self.filters.len())
            .finish()
    }
}
