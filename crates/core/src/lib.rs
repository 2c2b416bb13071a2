//! The shared model of skillful: what a skill's frontmatter holds, the values it may carry, the
//! one validator of the specification's rules, the diagnostics it reports, where a skill comes
//! from, and the [`Skill`] traits every source implements.
//!
//! Every other crate of the workspace speaks these types. This crate owns no I/O: **it knows
//! nothing of files, processes, HTTP, MCP or plugins**, and it never parses text. It also holds
//! the workspace's pure rules that every source shares: which relative names are safe
//! ([`names`]), and how untrusted text is shown ([`text`]).
//!
//! # Example
//! ```
//! use skillful_core::{SkillFrontmatter, Value};
//! use skillful_core::validate::{ValidationMode, validate_frontmatter};
//!
//! let mut frontmatter = SkillFrontmatter::new("unit-converter", "Converts units.");
//! frontmatter.metadata.insert("risk".into(), "read".into());
//! frontmatter.extra.insert("version".into(), Value::Integer(2));
//! let validated = validate_frontmatter(&frontmatter, ValidationMode::Lenient).unwrap();
//! assert_eq!(validated.diagnostics[0].field, "version");
//! ```

#![forbid(unsafe_code)]

mod capability;
mod diagnostic;
mod error;
mod frontmatter;
mod lifecycle;
mod long_running;
pub mod names;
mod origin;
mod risk;
#[cfg(feature = "schema")]
mod schema;
mod skill;
mod source;
pub mod text;
pub mod validate;
mod value;

pub use capability::{
    CAPABILITY_PREFIX, Capabilities, CapabilityError, NETWORK_KEY, NetworkNeed, WRITES_KEY,
};
pub use diagnostic::{Diagnostic, Severity};
pub use error::SkillError;
pub use frontmatter::{SPEC_FIELDS, SkillFrontmatter};
pub use lifecycle::LONG_RUNNING_KEY;
pub use lifecycle::{
    ANTI_TRIGGERS_KEY, AUTHOR_KEY, DOMAIN_KEY, Lifecycle, LifecycleError, MAX_LIFECYCLE_CHARS,
    OWNER_KEY, TRIGGERS_KEY, VERSION_KEY,
};
pub use long_running::LongRunning;
pub use origin::{OriginKind, Scope, SkillOrigin};
pub use risk::{DeclaredRisk, RISK_KEY, RiskTier, SCRIPT_RISK_PREFIX, UnknownRiskTier};
#[cfg(feature = "schema")]
pub use schema::arguments_schema;
pub use skill::{
    DEFAULT_SCRIPT_TIMEOUT, OutputStream, ResourceContent, ResourceRange, ScriptMonitor, Skill,
    SkillDocument, SkillResource, SkillScript, StopRequest,
};
pub use source::{SkillsSource, SourceContext};
pub use value::{Mapping, Value};
