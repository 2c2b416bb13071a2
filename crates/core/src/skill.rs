use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;

use crate::error::SkillError;
use crate::frontmatter::SkillFrontmatter;
use crate::risk::{DeclaredRisk, RiskTier};

/// A skill: frontmatter for the catalog, content for `load_skill`, and the resources and scripts
/// the model may use.
///
/// Implementations are cheap to list and lazy to read: `frontmatter` is known up front, while
/// `content` and every resource read may do I/O.
#[async_trait]
pub trait Skill: Send + Sync + fmt::Debug {
    /// The skill's frontmatter.
    fn frontmatter(&self) -> &SkillFrontmatter;

    /// Where the skill comes from, for messages and listings.
    fn origin(&self) -> SkillOrigin;

    /// What `load_skill` returns: the instructions followed by the resource and script listings.
    async fn content(&self) -> Result<String, SkillError>;

    /// The resources the skill advertises, in a stable order.
    fn resources(&self) -> Vec<Arc<dyn SkillResource>>;

    /// The scripts the skill advertises, in a stable order.
    fn scripts(&self) -> Vec<Arc<dyn SkillScript>>;

    /// The resource called exactly `name`, if the skill has one.
    ///
    /// The default looks among [`Skill::resources`]; sources whose resources are not all known in
    /// advance (MCP) resolve other names here.
    fn resource(&self, name: &str) -> Option<Arc<dyn SkillResource>> {
        self.resources().into_iter().find(|r| r.name() == name)
    }

    /// The script called exactly `name`, if the skill has one.
    fn script(&self, name: &str) -> Option<Arc<dyn SkillScript>> {
        self.scripts().into_iter().find(|s| s.name() == name)
    }

    /// The risk tier the skill declares for all its scripts, if it declares one: by default its
    /// `metadata` key `risk` (see [`DeclaredRisk`](crate::DeclaredRisk)); `None` when absent or
    /// not a tier. The catalog shows it.
    fn risk_tier(&self) -> Option<RiskTier> {
        DeclaredRisk::from_metadata(&self.frontmatter().metadata)
            .0
            .skill()
    }
}

/// Where a skill was found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkillOrigin {
    /// A directory holding `SKILL.md`.
    Directory(PathBuf),
    /// A skill built in code.
    Inline,
    /// A plugin library.
    Plugin(PathBuf),
    /// A resource URI on a server.
    Uri(String),
}

impl fmt::Display for SkillOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkillOrigin::Directory(path) | SkillOrigin::Plugin(path) => {
                write!(f, "{}", path.display())
            }
            SkillOrigin::Inline => f.write_str("(inline)"),
            SkillOrigin::Uri(uri) => f.write_str(uri),
        }
    }
}

/// What reading a resource gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceContent {
    /// UTF-8 text.
    Text(String),
    /// Bytes, with their MIME type when known.
    Binary {
        /// The raw bytes.
        bytes: Vec<u8>,
        /// The MIME type, e.g. `image/png`.
        mime_type: Option<String>,
    },
}

/// A piece of supplementary content of a skill: a reference document, a template, dynamic data.
#[async_trait]
pub trait SkillResource: Send + Sync + fmt::Debug {
    /// The name the model uses to read it (`references/FAQ.md`).
    fn name(&self) -> &str;

    /// What the resource holds, if said.
    fn description(&self) -> Option<&str> {
        None
    }

    /// Reads the resource afresh.
    async fn read(&self) -> Result<ResourceContent, SkillError>;
}

/// Something a skill can run on the model's request.
#[async_trait]
pub trait SkillScript: Send + Sync + fmt::Debug {
    /// The name the model uses to run it (`scripts/convert.py`).
    fn name(&self) -> &str;

    /// What the script does, if said.
    fn description(&self) -> Option<&str> {
        None
    }

    /// The JSON schema of the arguments the script takes.
    fn parameters_schema(&self) -> Option<&serde_json::Value> {
        None
    }

    /// How much harm running the script can do; approval policies decide by it.
    /// Scripts that declare nothing are [`RiskTier::SCRIPT_DEFAULT`].
    fn risk_tier(&self) -> RiskTier {
        RiskTier::SCRIPT_DEFAULT
    }

    /// Runs the script with the model's arguments and returns what the model is shown.
    async fn run(&self, arguments: serde_json::Value) -> Result<String, SkillError>;
}
