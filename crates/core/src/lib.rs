//! The shared model of skillful: what a skill's frontmatter holds, the values it may carry,
//! the diagnostics that validation reports, and the [`Skill`] traits every source implements.
//!
//! Every other crate of the workspace speaks these types. This crate owns no I/O:
//! **it knows nothing of files, HTTP, MCP or plugins**, and it never parses text.
//!
//! # Example
//! ```
//! use skillful_core::{SkillFrontmatter, Value};
//!
//! let mut frontmatter = SkillFrontmatter::new("unit-converter", "Converts units.");
//! frontmatter.metadata.insert("risk".into(), "read".into());
//! frontmatter.extra.insert("version".into(), Value::Integer(2));
//! assert_eq!(frontmatter.name, "unit-converter");
//! ```

pub mod content;
mod diagnostic;
mod error;
mod frontmatter;
mod risk;
mod schema;
mod skill;
mod source;
mod value;

pub use diagnostic::{Diagnostic, Severity};
pub use error::SkillError;
pub use frontmatter::{SPEC_FIELDS, SkillFrontmatter};
pub use risk::{DeclaredRisk, RISK_KEY, RiskTier, SCRIPT_RISK_PREFIX, UnknownRiskTier};
pub use schema::arguments_schema;
pub use skill::{ResourceContent, Skill, SkillOrigin, SkillResource, SkillScript};
pub use source::{
    FileScriptRequest, FileScriptRunner, SharedScriptRunner, SkillsSource, SourceContext,
};
pub use value::{Mapping, Value};
