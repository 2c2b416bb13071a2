//! The system-prompt text that advertises the skills.

use std::sync::Arc;

use skillful_core::{RiskTier, Skill};

use crate::render::escape_xml;

/// The placeholder a prompt template must contain; the skills catalog replaces it.
pub const SKILLS_PLACEHOLDER: &str = "{skills}";

/// The Microsoft Agent Framework's default prompt, verbatim.
pub const DEFAULT_PROMPT_TEMPLATE: &str = "\
You have access to skills containing domain-specific knowledge and capabilities.
Each skill provides specialized instructions, reference documents, and assets for specific tasks.

<available_skills>
{skills}
</available_skills>

When a task aligns with a skill's domain, follow these steps in exact order:
- Use `load_skill` to retrieve the skill's instructions.
- Follow the provided guidance.
- Use `read_skill_resource` to read any referenced resources, using the name exactly as listed
   (e.g. `\"style-guide\"` not `\"style-guide.md\"`, `\"references/FAQ.md\"` not `\"FAQ.md\"`).
- Use `run_skill_script` to run referenced scripts, using the name exactly as listed.
Only load what is needed, when it is needed.";

/// `template` with every `{skills}` replaced by the catalog of `skills`: one
/// `<skill>` element per skill, sorted by name (then description) in byte order, so that the same
/// skills always give the same bytes.
///
/// A skill that declares a risk tier for its scripts ([`Skill::risk_tier`], the `metadata` key
/// `risk`) has a `<risk>` line after its description; the others are written exactly as the
/// reference writes them.
pub(crate) fn instructions(template: &str, skills: &[Arc<dyn Skill>]) -> String {
    let mut entries: Vec<(&str, &str, Option<RiskTier>)> = skills
        .iter()
        .map(|skill| {
            let frontmatter = skill.frontmatter();
            (
                frontmatter.name.as_str(),
                frontmatter.description.as_str(),
                skill.risk_tier(),
            )
        })
        .collect();
    entries.sort_unstable();
    let catalog = entries
        .iter()
        .map(|(name, description, risk)| {
            let risk = risk
                .map(|tier| format!("    <risk>{tier}</risk>\n"))
                .unwrap_or_default();
            format!(
                "  <skill>\n    <name>{}</name>\n    <description>{}</description>\n{risk}  </skill>",
                escape_xml(name),
                escape_xml(description)
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    template.replace(SKILLS_PLACEHOLDER, &catalog)
}
