//! An MCP skill offered under another name.

use std::sync::Arc;

use async_trait::async_trait;
use skillful_core::{
    Diagnostic, Skill, SkillDocument, SkillError, SkillFrontmatter, SkillOrigin, SkillResource,
    SkillScript,
};

/// A skill offered under another name (an MCP skill whose name was taken).
#[derive(Debug)]
pub(super) struct Renamed {
    inner: Arc<dyn Skill>,
    frontmatter: SkillFrontmatter,
}

impl Renamed {
    pub(super) fn new(inner: Arc<dyn Skill>, name: String) -> Self {
        let mut frontmatter = inner.frontmatter().clone();
        frontmatter.name = name;
        Self { inner, frontmatter }
    }
}

#[async_trait]
impl Skill for Renamed {
    fn frontmatter(&self) -> &SkillFrontmatter {
        &self.frontmatter
    }

    fn origin(&self) -> &SkillOrigin {
        self.inner.origin()
    }

    async fn document(&self) -> Result<SkillDocument, SkillError> {
        self.inner.document().await
    }

    fn resources(&self) -> Vec<Arc<dyn SkillResource>> {
        self.inner.resources()
    }

    fn scripts(&self) -> Vec<Arc<dyn SkillScript>> {
        self.inner.scripts()
    }

    fn resource(&self, name: &str) -> Option<Arc<dyn SkillResource>> {
        self.inner.resource(name)
    }

    fn script(&self, name: &str) -> Option<Arc<dyn SkillScript>> {
        self.inner.script(name)
    }

    fn risk_tier(&self) -> Option<skillful_core::RiskTier> {
        self.inner.risk_tier()
    }

    fn diagnostics(&self) -> &[Diagnostic] {
        self.inner.diagnostics()
    }

    fn listed_digest(&self) -> Option<&str> {
        self.inner.listed_digest()
    }
}
