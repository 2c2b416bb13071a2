//! The skill of the task tests, which the tasks bench measures too (it includes this file).

use std::sync::Arc;

use serde_json::json;
use skillful_core::SkillFrontmatter;
use skillful_inline::{InlineScript, InlineSkill};
use tokio::sync::Notify;

/// The skill `jobs`: `quick` answers at once, `gated` when `gate` is notified, `forever` never;
/// `forever` is declared long-running.
pub(crate) fn jobs(gate: Arc<Notify>) -> InlineSkill {
    let mut frontmatter = SkillFrontmatter::new("jobs", "Runs jobs.");
    frontmatter
        .metadata
        .insert("long-running".to_owned(), "forever".to_owned());
    InlineSkill::builder_from(frontmatter)
        .instructions("Run them.")
        .add_script(InlineScript::from_json("quick", "", json!({}), |_| async {
            Ok("quick done".to_owned())
        }))
        .add_script(InlineScript::from_json("gated", "", json!({}), move |_| {
            let gate = Arc::clone(&gate);
            async move {
                gate.notified().await;
                Ok("gated done".to_owned())
            }
        }))
        .add_script(InlineScript::from_json(
            "forever",
            "",
            json!({}),
            |_| async {
                std::future::pending::<()>().await;
                Ok(String::new())
            },
        ))
        .build()
        .unwrap()
}
