use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;

use crate::error::SkillError;
use crate::skill::Skill;

/// What a [`SkillsSource`] is asked for skills on behalf of.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct SourceContext {
    /// Separates cached results and remembered state (idempotency keys) between tenants, users
    /// or sessions; `None` shares one namespace.
    pub isolation_key: Option<String>,
}

impl SourceContext {
    /// A context whose results are cached under `key`.
    pub fn isolated(key: impl Into<String>) -> Self {
        Self {
            isolation_key: Some(key.into()),
        }
    }
}

/// Anything that yields skills: a directory tree, code, a plugin, a server, or a pipeline of these.
#[async_trait]
pub trait SkillsSource: Send + Sync + fmt::Debug {
    /// The skills this source offers now.
    ///
    /// A source skips (with a `tracing` warning) what it cannot load and returns the rest; an
    /// error means the source as a whole failed.
    ///
    /// # Errors
    /// The source as a whole failed (a server that cannot be reached).
    async fn skills(&self, context: &SourceContext) -> Result<Vec<Arc<dyn Skill>>, SkillError>;
}
