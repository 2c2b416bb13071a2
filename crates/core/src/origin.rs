//! Where a skill comes from: data (a kind, a scope, a label), whatever backend produced it.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::text::one_line;

/// What kind of source produced a skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum OriginKind {
    /// A directory holding `SKILL.md`.
    Files,
    /// A skill built in code by the host.
    Inline,
    /// A class skill from a plugin library.
    Plugin,
    /// A skill an MCP server lists.
    Mcp,
}

impl OriginKind {
    /// `files`, `inline`, `plugin` or `mcp`.
    pub fn as_str(self) -> &'static str {
        match self {
            OriginKind::Files => "files",
            OriginKind::Inline => "inline",
            OriginKind::Plugin => "plugin",
            OriginKind::Mcp => "mcp",
        }
    }
}

impl fmt::Display for OriginKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who put a skill where it was found, highest precedence first: a name defined in two scopes
/// means the skill of the higher one.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Named by the user for this run or in code (`--skills ROOT`, `--plugins`, `--mcp-*`, inline
    /// skills).
    #[default]
    Explicit,
    /// Found by walking up from the working directory to the repository root (`.agents/skills`).
    Project,
    /// The user's own (`~/.agents/skills`, the user's config directory).
    User,
    /// Installed for every user of the machine (`/etc/...`).
    Admin,
}

impl Scope {
    /// `explicit`, `project`, `user` or `admin`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Explicit => "explicit",
            Scope::Project => "project",
            Scope::User => "user",
            Scope::Admin => "admin",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a skill comes from: its kind, its scope, a label naming the source (a root directory,
/// a plugin file, a server's label), and where the skill itself is within it (its directory, a
/// `skill://` URI), for messages and listings.
///
/// # Example
/// ```
/// use skillful_core::{OriginKind, Scope, SkillOrigin};
///
/// let origin = SkillOrigin::new(OriginKind::Mcp, "docs-server")
///     .with_location("skill://pdf/SKILL.md");
/// assert_eq!(origin.scope, Scope::Explicit);
/// assert_eq!(origin.to_string(), "mcp docs-server: skill://pdf/SKILL.md");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct SkillOrigin {
    /// The kind of source.
    pub kind: OriginKind,
    /// Who put the skill there.
    pub scope: Scope,
    /// The source: a root directory, a plugin file, a server label, `inline`.
    pub label: String,
    /// The skill within the source: its directory, plugin file or URI, when it has one.
    pub location: Option<String>,
}

impl SkillOrigin {
    /// An origin of `kind` from the source called `label`, in the [`Scope::Explicit`] scope.
    pub fn new(kind: OriginKind, label: impl Into<String>) -> Self {
        Self {
            kind,
            scope: Scope::Explicit,
            label: label.into(),
            location: None,
        }
    }

    /// The origin of a skill built in code.
    pub fn inline() -> Self {
        Self::new(OriginKind::Inline, "inline")
    }

    /// The same origin in `scope`.
    pub fn with_scope(mut self, scope: Scope) -> Self {
        self.scope = scope;
        self
    }

    /// The same origin, the skill at `location` within it.
    pub fn with_location(mut self, location: impl Into<String>) -> Self {
        self.location = Some(location.into());
        self
    }
}

impl fmt::Display for SkillOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind, one_line(&self.label))?;
        if let Some(location) = &self.location {
            write!(f, ": {}", one_line(location))?;
        }
        Ok(())
    }
}
