//! Skills of `skill-md` index entries: frontmatter from the index, everything else read from
//! the server when first asked for.

use std::sync::Arc;

use async_trait::async_trait;
use skillful_core::names::check_relative_name;
use skillful_core::{
    OriginKind, ResourceContent, Skill, SkillDocument, SkillError, SkillFrontmatter, SkillOrigin,
    SkillResource, SkillScript,
};
use skillful_frontmatter::{ParseOptions, parse};
use tokio::sync::OnceCell;

use crate::connection::Connection;

/// A skill whose `SKILL.md` and resources live on an MCP server.
///
/// Its frontmatter is the index's name and description. [`Skill::document`] reads `SKILL.md`
/// with `resources/read` on the first call and keeps it. [`Skill::resource`] resolves a
/// relative name against the skill's root URI (the `SKILL.md` URI without `SKILL.md`) and
/// refuses absolute names, URIs, `..` segments, backslashes and control characters, also when
/// percent-encoded (any number of times over), before any request is sent. It has no scripts.
#[derive(Debug)]
pub struct McpSkill {
    frontmatter: SkillFrontmatter,
    origin: SkillOrigin,
    skill_md_uri: String,
    root_uri: String,
    connection: Arc<Connection>,
    document: OnceCell<SkillDocument>,
}

impl McpSkill {
    pub(crate) fn new(
        frontmatter: SkillFrontmatter,
        skill_md_uri: String,
        connection: Arc<Connection>,
    ) -> Self {
        let root_uri = match skill_md_uri.strip_suffix(rmcp::model::SKILL_MD) {
            Some(root) => root.to_owned(),
            None if skill_md_uri.ends_with('/') => skill_md_uri.clone(),
            None => format!("{skill_md_uri}/"),
        };
        let origin = SkillOrigin::new(OriginKind::Mcp, connection.server())
            .with_location(skill_md_uri.clone());
        Self {
            frontmatter,
            origin,
            skill_md_uri,
            root_uri,
            connection,
            document: OnceCell::new(),
        }
    }

    /// The URI of the skill's `SKILL.md`.
    pub fn skill_md_uri(&self) -> &str {
        &self.skill_md_uri
    }

    /// The URI resource names are resolved against (ends with `/`).
    pub fn root_uri(&self) -> &str {
        &self.root_uri
    }
}

fn skill_error(error: impl std::fmt::Display) -> SkillError {
    SkillError::Other(error.to_string())
}

#[async_trait]
impl Skill for McpSkill {
    fn frontmatter(&self) -> &SkillFrontmatter {
        &self.frontmatter
    }

    fn origin(&self) -> &SkillOrigin {
        &self.origin
    }

    /// The `SKILL.md` the server sends, split at its frontmatter; read once and then kept.
    async fn document(&self) -> Result<SkillDocument, SkillError> {
        self.document
            .get_or_try_init(|| async {
                let fetched = self
                    .connection
                    .read(&self.skill_md_uri)
                    .await
                    .map_err(skill_error)?;
                let what = format!(
                    "{} from MCP server {}",
                    self.skill_md_uri,
                    self.connection.server()
                );
                let text = match fetched.content {
                    ResourceContent::Text(text) if !text.is_empty() => text,
                    _ => {
                        return Err(SkillError::Refused {
                            what,
                            reason: "the server sent no text".into(),
                        });
                    }
                };
                let document = parse(&text, &ParseOptions::default()).map_err(|error| {
                    SkillError::Refused {
                        what,
                        reason: format!("it is not a SKILL.md: {error}"),
                    }
                })?;
                Ok(SkillDocument::written(
                    document.frontmatter_text(),
                    document.body(),
                ))
            })
            .await
            .cloned()
    }

    /// None are known in advance: names are resolved by [`Skill::resource`].
    fn resources(&self) -> Vec<Arc<dyn SkillResource>> {
        Vec::new()
    }

    fn scripts(&self) -> Vec<Arc<dyn SkillScript>> {
        Vec::new()
    }

    /// The resource `name` relative to the skill's root URI; `None` (with a warning) for a
    /// name that could leave the skill. Nothing is sent until it is read.
    fn resource(&self, name: &str) -> Option<Arc<dyn SkillResource>> {
        if let Err(refused) = check_relative_name(name) {
            tracing::warn!(skill = %self.frontmatter.name, "resource name refused: {refused}");
            return None;
        }
        Some(Arc::new(McpResource {
            name: name.to_owned(),
            uri: format!("{}{name}", self.root_uri),
            connection: self.connection.clone(),
        }))
    }
}

/// A resource of an [`McpSkill`], read from the server on every [`SkillResource::read`].
#[derive(Debug)]
struct McpResource {
    name: String,
    uri: String,
    connection: Arc<Connection>,
}

#[async_trait]
impl SkillResource for McpResource {
    fn name(&self) -> &str {
        &self.name
    }

    async fn read(&self) -> Result<ResourceContent, SkillError> {
        self.connection
            .read(&self.uri)
            .await
            .map(|fetched| fetched.content)
            .map_err(skill_error)
    }
}
