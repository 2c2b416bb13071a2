//! Skills and sources built in code, for hosts that assemble their skills without files.
//!
//! - [`InlineSkill`]: a skill defined in code (instructions, resources as static text or an async
//!   closure read afresh each time, in-process scripts over a typed argument struct), checked by
//!   the same validator as a `SKILL.md`; [`InlineSkillsSource`] offers a fixed list of skills.
//! - The source pipeline, [`SkillsSourceBuilder`]: aggregate → cache → filter → dedupe over any
//!   [`SkillsSource`](skillful_core::SkillsSource)s (file, plugin, MCP or inline).
//! - [`Precedence`], the one rule of skill names that the pipeline and `skillful-config`'s
//!   composition share: precedence by scope then order, filters before names, the first claim of
//!   a name (ignoring case) wins, and every shadowed skill is warned about once.
//!
//! It is the sibling of `skillful-discovery` (skills from directories): both hand
//! `skillful-provider` a `dyn SkillsSource`. **It knows nothing of files, processes, HTTP, MCP,
//! plugins, prompts or tools.**
//!
//! # Example
//! ```
//! use std::sync::Arc;
//! use skillful_core::{SkillsSource, SourceContext};
//! use skillful_inline::{InlineSkill, InlineSkillsSource, SkillsSourceBuilder};
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
//! let skills = source.skills(&SourceContext::default()).await.unwrap();
//! assert_eq!(skills[0].name(), "style-guide");
//! # });
//! ```

#![forbid(unsafe_code)]

mod pipeline;
mod skill;

pub use pipeline::{
    AggregatingSource, CachingSource, DEFAULT_CACHED_KEYS, DedupingSource, Precedence, Rank,
    Ranking, SkillsSourceBuilder,
};
pub use skill::{
    InlineResource, InlineScript, InlineSkill, InlineSkillBuilder, InlineSkillError,
    InlineSkillsSource,
};

#[cfg(test)]
mod tests {
    /// Of the workspace, inline skills link the core alone: nothing of files, processes, prompts or
    /// tools.
    #[test]
    fn inline_skills_link_the_core_alone() {
        assert_eq!(
            skillful_test_support::skillful_dependencies(include_str!("../Cargo.toml")),
            ["skillful-core"]
        );
    }
}
