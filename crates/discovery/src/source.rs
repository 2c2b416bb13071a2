use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use futures_util::future::try_join_all;
use skillful_core::{Diagnostic, Skill, SkillError, SkillsSource, SourceContext, blocking};

use crate::builder::{Config, FileSkillsSourceBuilder};
use crate::skill::FileSkill;
use crate::walk;

/// Fewer directories than this are not worth a batch of their own.
const MIN_BATCH: usize = 64;

/// The skills found in directory trees: every directory holding a `SKILL.md`, at most two
/// levels below a configured root.
///
/// Built with [`FileSkillsSource::builder`]. Every call to [`FileSkillsSource::discover`] (or
/// [`SkillsSource::skills`]) walks the roots afresh on tokio's blocking pool.
#[derive(Clone)]
pub struct FileSkillsSource {
    config: Arc<Config>,
}

impl fmt::Debug for FileSkillsSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.config.fmt(f)
    }
}

/// What one discovery run found.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Discovery {
    /// The skills loaded, in discovery order: roots in the order given, entries by file name.
    pub skills: Vec<Arc<FileSkill>>,
    /// Why skills or files were skipped, and the warnings of the skills loaded; each names its
    /// file.
    pub diagnostics: Vec<Diagnostic>,
}

impl FileSkillsSource {
    /// A builder with the defaults: no roots, search depth 2, the default extensions, lenient
    /// validation, no script runner, scripts runnable.
    pub fn builder() -> FileSkillsSourceBuilder {
        FileSkillsSourceBuilder::default()
    }

    pub(crate) fn from_config(config: Config) -> Self {
        Self {
            config: Arc::new(config),
        }
    }

    /// Walks the roots and loads every skill found, with the diagnostics of the run.
    ///
    /// One unreadable, oversized or invalid skill is skipped (with a warning and a diagnostic);
    /// it never hides the others. The walk runs on tokio's blocking pool; the skills found are
    /// then loaded there in a few parallel batches.
    ///
    /// # Panics
    /// Outside a tokio runtime.
    ///
    /// # Cancel safety
    /// Dropping the future lets the work already started finish in the background and discards
    /// its result.
    pub async fn discover(&self) -> Discovery {
        match self.try_discover().await {
            Ok(found) => found,
            Err(error) => {
                tracing::warn!("skill discovery did not run: {error}");
                Discovery {
                    skills: Vec::new(),
                    diagnostics: vec![Diagnostic::error(
                        "path",
                        format!("skill discovery did not run: {error}"),
                    )],
                }
            }
        }
    }

    async fn try_discover(&self) -> Result<Discovery, SkillError> {
        let config = self.config.clone();
        let steps = blocking::run("planning discovery", move || Ok(walk::plan(&config))).await?;
        let batch_size = steps.len().div_ceil(self.config.parallelism).max(MIN_BATCH);
        let mut batches = Vec::new();
        let mut steps = steps.into_iter();
        loop {
            let batch: Vec<_> = steps.by_ref().take(batch_size).collect();
            if batch.is_empty() {
                break;
            }
            let config = self.config.clone();
            // Each batch starts on the blocking pool when first polled; `try_join_all` polls them
            // all at once, so they run in parallel.
            batches.push(blocking::run("discovering skills", move || {
                Ok(batch
                    .into_iter()
                    .flat_map(|step| walk::run(&config, step))
                    .collect::<Vec<_>>())
            }));
        }
        let events = try_join_all(batches).await?.into_iter().flatten();
        Ok(walk::assemble(&self.config, events))
    }
}

#[async_trait]
impl SkillsSource for FileSkillsSource {
    async fn skills(&self, _context: &SourceContext) -> Result<Vec<Arc<dyn Skill>>, SkillError> {
        Ok(self
            .discover()
            .await
            .skills
            .into_iter()
            .map(|skill| skill as Arc<dyn Skill>)
            .collect())
    }
}
