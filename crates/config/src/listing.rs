//! The one shape of a skill in a listing (`skills list --json`), whatever its source.

use indexmap::IndexMap;
use serde::Serialize;
use skillful_core::{Capabilities, Lifecycle, Mapping, OriginKind, RiskTier, SkillOrigin};

use crate::compose::{Entry, Status};

/// A skill as `skills list --json` shows it: its frontmatter, where it comes from, what it offers,
/// what was found wrong with it, and whether it is offered.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct ListedSkill {
    /// The name the model uses (`label:name` for an MCP skill whose name is taken).
    pub name: String,
    /// The name in the skill's own frontmatter.
    pub own_name: String,
    /// The description.
    pub description: String,
    /// `license`.
    pub license: Option<String>,
    /// `compatibility`.
    pub compatibility: Option<String>,
    /// `allowed-tools`.
    pub allowed_tools: Option<Vec<String>>,
    /// `metadata`, each value as text.
    pub metadata: IndexMap<String, String>,
    /// Every other top-level key.
    pub extra: Mapping,
    /// Where it comes from: `kind` (`files`, `plugin`, `inline`, `mcp`), `scope`, `label` (the
    /// root, plugin file or server label) and `location` (its directory, file or URI).
    pub origin: SkillOrigin,
    /// Its directory (file skills) or library (plugin skills).
    pub path: Option<String>,
    /// Its `SKILL.md` URI (MCP skills).
    pub uri: Option<String>,
    /// The digest of its `SKILL.md` (`sha256:…`) as the source listed it: an MCP server's
    /// `skills/list` manifest, or a draft index entry's `digest`. `None` for a skill whose
    /// source lists no digest (files, plugins, inline skills, `"dynamic"` MCP skills, draft
    /// index entries without one).
    pub digest: Option<String>,
    /// The resources' names.
    pub resources: Vec<String>,
    /// The scripts' names.
    pub scripts: Vec<String>,
    /// The tier the skill declares for all its scripts (`metadata.risk`), if any.
    pub risk: Option<RiskTier>,
    /// Each script's tier, as an approval policy sees it.
    pub script_risks: IndexMap<String, RiskTier>,
    /// What the skill declares its scripts need (`metadata.capabilities.network`,
    /// `metadata.capabilities.writes`): `{"network": "any" | [hosts], "writes": [paths]}`, each
    /// left out when not declared.
    pub capabilities: Capabilities,
    /// What it says of its own life (`metadata.version`, `owner`, `domain`, `triggers`,
    /// `anti-triggers`), each left out when not declared.
    pub lifecycle: Lifecycle,
    /// Warnings found loading it, as `field: message`.
    pub warnings: Vec<String>,
    /// `active`, `disabled` (with `disabled_by`: `user`, `project` or `run`), `modified` (its
    /// files differ from its lock: `modified_files`, and `offered`, false when locked) or
    /// `shadowed` (with `shadowed_by`, the origin of the skill offered instead, and
    /// `shadowed_by_name`).
    #[serde(flatten)]
    pub status: Status,
}

impl From<&Entry> for ListedSkill {
    fn from(entry: &Entry) -> Self {
        let skill = entry.skill.as_ref();
        let frontmatter = skill.frontmatter();
        let origin = skill.origin().clone();
        let (path, uri) = match origin.kind {
            OriginKind::Mcp => (None, origin.location.clone()),
            _ => (origin.location.clone(), None),
        };
        let scripts = skill.scripts();
        Self {
            name: frontmatter.name.clone(),
            own_name: entry.own_name.clone(),
            description: frontmatter.description.clone(),
            license: frontmatter.license.clone(),
            compatibility: frontmatter.compatibility.clone(),
            allowed_tools: frontmatter.allowed_tools.clone(),
            metadata: frontmatter.metadata.clone(),
            extra: frontmatter.extra.clone(),
            origin,
            path,
            uri,
            digest: skill.listed_digest().map(str::to_owned),
            resources: skill
                .resources()
                .iter()
                .map(|resource| resource.name().to_owned())
                .collect(),
            scripts: scripts
                .iter()
                .map(|script| script.name().to_owned())
                .collect(),
            risk: skill.risk_tier(),
            script_risks: scripts
                .iter()
                .map(|script| (script.name().to_owned(), script.risk_tier()))
                .collect(),
            capabilities: skill.capabilities(),
            lifecycle: skill.lifecycle(),
            warnings: skill
                .diagnostics()
                .iter()
                .map(|diagnostic| format!("{}: {}", diagnostic.field, diagnostic.message))
                .collect(),
            status: entry.status.clone(),
        }
    }
}
