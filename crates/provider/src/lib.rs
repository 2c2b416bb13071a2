//! Serves skills to a model as the Microsoft Agent Framework's `AgentSkillsProvider` does: the
//! skills catalog in the system prompt, and three tools (`load_skill`, `read_skill_resource`,
//! `run_skill_script`) that disclose a skill's instructions, resources and scripts on demand.
//! For large libraries, the catalog's listing stays within a budget and a fourth tool,
//! `search_skills`, finds the skills it shortened or left out (see [`SkillsProvider`]).
//!
//! It owns the prompt text, the tools (plain data with an async `invoke`, usable by any chat
//! client) and the errors they return to the model. Skills built in code and the source pipeline
//! (aggregate → cache → filter → dedupe) are `skillful-inline`'s.
//!
//! **It knows nothing of files, HTTP, MCP or plugins**: it works on `dyn Skill` and
//! `dyn SkillsSource` from `skillful-core`, whoever implements them.
//!
//! Beyond the reference, the tools forgive the names models get wrong (case, a dropped extension
//! or directory: `FAQ` for `references/FAQ.md`) when exactly one name fits, suggest the closest
//! names when none does, and return long resources in pages instead of whole. `run_skill_script`
//! takes an optional `idempotencyKey`: a retry with the same key returns the first result instead
//! of running the script again (see [`SkillsProvider`]).
//!
//! # Output budget
//! `read_skill_resource` returns at most [`DEFAULT_MAX_RESOURCE_BYTES`] (64 KiB, configurable
//! with [`SkillsProviderBuilder::max_resource_bytes`]) of a resource per call. Its optional
//! `offset` and `limit` count UTF-8 bytes, and a page never splits a character (an offset inside
//! one starts at it). A page that is not the whole resource ends with a note such as
//! `[truncated: showing bytes 0-65536 of 200000; call read_skill_resource again with offset=65536
//! to continue]`. A binary resource is shown as a one-line description followed by its base64
//! encoding, paged the same way (its offsets count base64 characters).
//!
//! # Example
//! ```
//! use std::sync::Arc;
//! use skillful_core::SourceContext;
//! use skillful_inline::{InlineSkill, InlineSkillsSource, SkillsSourceBuilder};
//! use skillful_provider::SkillsProvider;
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let skill = InlineSkill::builder("style-guide", "House style for reports.")
//!     .instructions("Read references/FAQ.md first.")
//!     .resource("references/FAQ.md", "Use British spelling.")
//!     .build()
//!     .unwrap();
//! let source = SkillsSourceBuilder::new()
//!     .source(Arc::new(InlineSkillsSource::new([skill])))
//!     .cache()
//!     .build();
//! let provider = SkillsProvider::builder(source).build().unwrap();
//!
//! let run = provider.context(&SourceContext::default()).await.unwrap();
//! assert!(run.instructions().unwrap().contains("<name>style-guide</name>"));
//! let read = run.tool("read_skill_resource").unwrap();
//! let output = read
//!     .invoke(serde_json::json!({"skillName": "style-guide", "resourceName": "FAQ"}))
//!     .await;
//! assert!(output.into_model_text().starts_with("Use British spelling."));
//! # });
//! ```

#![forbid(unsafe_code)]

mod calls;
mod idempotency;
mod kind;
mod lookup;
mod paging;
mod prompt;
mod provider;
mod render;
pub mod search;
mod search_cache;
pub mod tasks;
mod timeout;
mod tool_error;
mod tools;

pub use idempotency::DEFAULT_IDEMPOTENCY_KEYS;
pub use kind::{CallSubject, ToolKind};
pub use lookup::find_name;
pub use prompt::{
    DEFAULT_LISTING_BUDGET, DEFAULT_PROMPT_TEMPLATE, Listing, MIN_DESCRIPTION_CHARS,
    SKILLS_PLACEHOLDER, listing_budget_for_context_window,
};
pub use provider::{
    DEFAULT_MAX_RESOURCE_BYTES, ProviderError, RunContext, SkillsProvider, SkillsProviderBuilder,
};
pub use render::{escape_xml, render_skill};
pub use tasks::{
    DEFAULT_MAX_RUNNING, DEFAULT_POLL_AFTER, DEFAULT_TASK_AFTER, DEFAULT_TASK_LIMIT,
    InMemoryTaskStore, TaskEvent, TaskId, TaskRecord, TaskSettings, TaskStatus, TaskStore,
    TaskStoreError, Tasks,
};
pub use timeout::{run_script, run_script_monitored, script_limit};
pub use tool_error::{ToolError, ToolErrorCode};
pub use tools::{MAX_ENUM_NAMES, ProviderId, SkillTool, ToolId, ToolOutput};

#[cfg(test)]
mod tests {
    /// The provider works on `dyn Skill` and `dyn SkillsSource`: of the workspace it links the core
    /// and `skillful-state` (for `blocking`), no crate of files, HTTP, MCP or plugins.
    #[test]
    fn the_provider_links_the_core_and_the_blocking_helper_alone() {
        assert_eq!(
            skillful_test_support::skillful_dependencies(include_str!("../Cargo.toml")),
            ["skillful-core", "skillful-fs"]
        );
    }
}
