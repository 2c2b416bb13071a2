//! Agent Skills for Rust: packaged know-how (`SKILL.md` instructions, reference files, scripts)
//! that an AI agent discovers and loads only when it needs it.
//!
//! This facade re-exports the workspace's crates; cargo features choose which are linked.
//!
//! | feature | default | brings |
//! |---|---|---|
//! | `frontmatter` | yes | [`frontmatter`]: the `SKILL.md` parser and spec validation |
//!
//! # Example
//! ```
//! # #[cfg(feature = "frontmatter")] {
//! use agent_skills::frontmatter::{FrontmatterLoader, ValidationMode};
//!
//! let text = "---\nname: unit-converter\ndescription: Converts units.\n---\n# Steps\n";
//! let loader = FrontmatterLoader::new(ValidationMode::Strict);
//! let loaded = loader.load(text, Some("unit-converter")).unwrap();
//! assert_eq!(loaded.frontmatter.description, "Converts units.");
//! # }
//! ```
#![deny(missing_docs)]

pub use skills_core as core;
pub use skills_core::{Diagnostic, Severity, SkillFrontmatter, Value};

#[cfg(feature = "frontmatter")]
pub use skills_frontmatter as frontmatter;
