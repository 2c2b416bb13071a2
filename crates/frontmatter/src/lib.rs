//! Reads the YAML frontmatter of `SKILL.md` files and validates it against the Agent Skills
//! specification.
//!
//! The parser is hand-written and linear in its input: no YAML library, no backtracking. It reads
//! the subset of YAML 1.2 that real skills use (plain, quoted and block scalars with every
//! chomping mode, block and flow collections, comments, CRLF, a BOM) exactly as a YAML parser
//! does, keeps every key it does not know in [`SkillFrontmatter::extra`], and repairs one common
//! mistake as Codex does: an unquoted value containing `: ` is read as one string. Size limits and
//! a deadline turn hostile input into a [`ParseError`], never a hang or a panic.
//!
//! This crate knows text, not files: callers read `SKILL.md` and attach paths to diagnostics.
//!
//! # Example
//! ```
//! use skillful_frontmatter::{FrontmatterLoader, ValidationMode};
//!
//! let text = "---\nname: pdf\ndescription: >-\n  Fill PDF forms.\n  Extract tables.\nversion: 2\n---\n";
//! let loaded = FrontmatterLoader::new(ValidationMode::Lenient).load(text, Some("pdf")).unwrap();
//! assert_eq!(loaded.frontmatter.description, "Fill PDF forms. Extract tables.");
//! // `version` is not a spec field: kept, and warned about.
//! assert_eq!(loaded.frontmatter.extra["version"], skillful_core::Value::Integer(2));
//! assert_eq!(loaded.diagnostics.len(), 1);
//! ```

#![forbid(unsafe_code)]

mod document;
mod error;
mod load;
mod parser;

pub use document::{Document, ParseOptions, parse};
pub use error::ParseError;
pub use load::FrontmatterLoader;
pub use skillful_core::validate::{
    MAX_COMPATIBILITY_CHARS, MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS, Validated, ValidationMode,
};
pub use skillful_core::{Diagnostic, Mapping, Severity, SkillFrontmatter, Value};
