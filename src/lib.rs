//! Agent Skills for Rust: packaged know-how (`SKILL.md` instructions, reference files, scripts)
//! that an AI agent discovers and loads only when it needs it.
//!
//! This facade re-exports the workspace's crates; cargo features choose which are linked.
//!
//! | feature | default | brings |
//! |---|---|---|
//! | `frontmatter` | yes | [`frontmatter`]: the `SKILL.md` parser and spec validation |
//! | `discovery` | yes | [`discovery`]: file skills found under skill roots |
//! | `provider` | yes | [`provider`]: the catalog and the tools (`load_skill`, `read_skill_resource`, `run_skill_script`, `search_skills`) |
//! | `inline` | yes | [`inline`]: skills built in code, and the source pipeline (aggregate, cache, filter, dedupe) |
//! | `scripts` | no | [`scripts`]: the safe subprocess runner for the scripts of file skills |
//! | `plugins` | no | [`plugins`]: class skills loaded from plugin libraries (links `abi_stable`) |
//! | `mcp` | no | [`mcp`]: skills from MCP servers (stdio, streamable HTTP; `skill-md` and archive entries), and a skills directory served over MCP |
//! | `config` | no | [`config`]: the composition every host needs — roots by scope (explicit, project, user, admin) with precedence, trust of project folders, enable/disable settings, files + inline in one source, checked against their `skills-lock.json` (MCP servers with `mcp`, plugins with `plugins`, live reload with `watch`; no installer, scanner or ICU linked) |
//! | `watch` | no | [`watch`]: live reload of file skills (a debounced file watcher on the roots, `notify`); with `config`, `Composition::watch` too |
//! | `agent` | no | [`chat`]: the chat client for OpenAI-compatible servers; [`decorators`]: ensure-user-message, the tool loop with approval, tracing; [`agent`]: the agent and its session (no ICU linked: url's IDNA on unicode-rs) |
//! | `otel` | no | [`telemetry`]: OTLP export of the spans (the standard `OTEL_*` variables), as a `tracing` layer |
//!
//! # Example
//! ```
//! # #[cfg(all(feature = "discovery", feature = "provider"))]
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! use std::sync::Arc;
//! use skillful::core::SourceContext;
//! use skillful::discovery::FileSkillsSource;
//! use skillful::provider::SkillsProvider;
//! use serde_json::json;
//!
//! let root = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/skills");
//! let source = FileSkillsSource::builder().root(root).build().unwrap();
//! let provider = SkillsProvider::new(Arc::new(source));
//!
//! // On every agent run: the catalog for the system prompt, and the three tools.
//! let run = provider.context(&SourceContext::default()).await.unwrap();
//! assert!(run.instructions().unwrap().contains("<name>unit-converter</name>"));
//! let names: Vec<_> = run.tools().iter().map(|tool| tool.name()).collect();
//! assert_eq!(names, ["load_skill", "read_skill_resource", "run_skill_script"]);
//!
//! // The model calls a tool with JSON arguments; it gets text back.
//! let read = run.tool("read_skill_resource").unwrap();
//! let table = read
//!     .invoke(json!({"skillName": "unit-converter", "resourceName": "references/conversion-table.md"}))
//!     .await
//!     .into_model_text();
//! assert!(table.contains("1.609344"));
//! # });
//! ```
//!

#![forbid(unsafe_code)]
// The book's "Use it from Rust" chapter includes this file (mdBook's `{{#include}}`), so that its
// code is a tested doctest.
#![cfg_attr(
    all(feature = "discovery", feature = "provider"),
    doc = concat!("# Use it from Rust\n\n", include_str!("use-it-from-rust.md"))
)]

pub use skillful_core as core;
pub use skillful_core::{Diagnostic, Severity, SkillFrontmatter, Value};

#[cfg(feature = "agent")]
pub use skillful_agent as agent;
#[cfg(feature = "agent")]
pub use skillful_chat as chat;
#[cfg(feature = "config")]
pub use skillful_config as config;
#[cfg(feature = "config")]
pub use skillful_config::{Composition, SkillsConfig};
#[cfg(feature = "agent")]
pub use skillful_decorators as decorators;
#[cfg(feature = "discovery")]
pub use skillful_discovery as discovery;
#[cfg(feature = "frontmatter")]
pub use skillful_frontmatter as frontmatter;
#[cfg(feature = "inline")]
pub use skillful_inline as inline;
#[cfg(feature = "mcp")]
pub use skillful_mcp as mcp;
#[cfg(feature = "plugins")]
pub use skillful_plugin_host as plugins;
#[cfg(feature = "provider")]
pub use skillful_provider as provider;
#[cfg(feature = "scripts")]
pub use skillful_scripts as scripts;
/// OTLP export of the spans (`Telemetry::from_env`, its `tracing` layer): the `otel` feature.
#[cfg(feature = "otel")]
pub use skillful_telemetry as telemetry;
#[cfg(feature = "watch")]
pub use skillful_watch as watch;

// Every Rust code block of the README and of the book compiles (and runs, where it has a `main`)
// as a doctest: the chapters with Rust code are listed here.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

#[cfg(doctest)]
mod book {
    #[doc = include_str!("../docs/src/guide/large-libraries.md")]
    struct GuideLargeLibraries;
    #[doc = include_str!("../docs/src/guide/scripts.md")]
    struct GuideScripts;
    #[doc = include_str!("../docs/src/library/plugins.md")]
    struct LibraryPlugins;
    #[doc = include_str!("../docs/src/library/use-from-rust.md")]
    struct LibraryUseFromRust;
    #[doc = include_str!("../docs/src/reference/frontmatter.md")]
    struct ReferenceFrontmatter;
}
