//! The XML that `load_skill` shows for a skill built in code, and the escaping every prompt fragment
//! of the workspace uses.
//!
//! The layout is the reference's (Microsoft Agent Framework's) byte for byte:
//!
//! ```text
//! <name>N</name>
//! <description>D</description>
//!
//! <instructions>
//! I
//! </instructions>
//!
//! <available_resources>
//!   <resource name="x" description="y"/>
//! </available_resources>
//!
//! <available_scripts>
//!   <script name="s" description="d" risk="write-high">
//!     <parameters_schema>{"type":"object"}</parameters_schema>
//!   </script>
//! </available_scripts>
//! ```
//!
//! An empty category is written self-closing (`<available_scripts />`) so the model knows there
//! is nothing to guess at. File skills put the two `available_*` blocks after their raw `SKILL.md`.
//!
//! One addition to the reference: every `<script>` carries a `risk` attribute, its
//! [`RiskTier`](crate::RiskTier) (`read`, `write-low`, `write-high`, `destructive`), so the model
//! knows which scripts an approval policy will ask about.

use std::sync::Arc;

use crate::frontmatter::SkillFrontmatter;
use crate::skill::{SkillResource, SkillScript};

/// Escapes `& < > " '` as `&amp; &lt; &gt; &quot; &apos;`, as .NET's `SecurityElement.Escape` does.
///
/// Safe for element text and for attribute values alike.
///
/// # Example
/// ```
/// assert_eq!(skillful_core::content::escape_xml(r#"a<b & "c's""#), "a&lt;b &amp; &quot;c&apos;s&quot;");
/// ```
pub fn escape_xml(text: &str) -> String {
    escape(text, true)
}

/// Escapes only `& < >`, leaving quotes readable: for JSON embedded as element text.
fn escape_xml_text(text: &str) -> String {
    escape(text, false)
}

fn escape(text: &str, quotes: bool) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' if quotes => escaped.push_str("&quot;"),
            '\'' if quotes => escaped.push_str("&apos;"),
            other => escaped.push(other),
        }
    }
    escaped
}

/// The full content of a skill built in code: name, description, instructions, then the resources
/// and scripts blocks (resources first), each part separated by a blank line.
///
/// Every text is escaped with [`escape_xml`], the instructions included.
///
/// # Example
/// ```
/// use skillful_core::SkillFrontmatter;
/// use skillful_core::content::inline_skill_content;
///
/// let frontmatter = SkillFrontmatter::new("greeter", "Greets people.");
/// let content = inline_skill_content(&frontmatter, "Say hello.", &[], &[]);
/// assert_eq!(
///     content,
///     "<name>greeter</name>\n<description>Greets people.</description>\n\n\
///      <instructions>\nSay hello.\n</instructions>\n\n\
///      <available_resources />\n\n<available_scripts />"
/// );
/// ```
pub fn inline_skill_content(
    frontmatter: &SkillFrontmatter,
    instructions: &str,
    resources: &[Arc<dyn SkillResource>],
    scripts: &[Arc<dyn SkillScript>],
) -> String {
    format!(
        "<name>{}</name>\n<description>{}</description>\n\n<instructions>\n{}\n</instructions>\n\n{}\n\n{}",
        escape_xml(&frontmatter.name),
        escape_xml(&frontmatter.description),
        escape_xml(instructions),
        available_resources_block(resources),
        available_scripts_block(scripts),
    )
}

/// The `<available_resources>` block: one `<resource name=".." description=".."/>` line per
/// resource, the description only when it is not blank; `<available_resources />` when there are
/// none. No leading or trailing newline.
pub fn available_resources_block(resources: &[Arc<dyn SkillResource>]) -> String {
    if resources.is_empty() {
        return "<available_resources />".to_owned();
    }
    let mut block = String::from("<available_resources>\n");
    for resource in resources {
        block.push_str(&format!(
            "  <resource {}/>\n",
            attributes(resource.name(), resource.description())
        ));
    }
    block.push_str("</available_resources>");
    block
}

/// The `<available_scripts>` block: a script with a parameters schema is an element holding
/// `<parameters_schema>` (the schema as compact JSON, only `& < >` escaped), one without is
/// self-closing; `<available_scripts />` when there are none. Each `<script>` has the attributes
/// `name`, `description` (when not blank) and `risk` (its [`SkillScript::risk_tier`]). No
/// leading or trailing newline.
pub fn available_scripts_block(scripts: &[Arc<dyn SkillScript>]) -> String {
    if scripts.is_empty() {
        return "<available_scripts />".to_owned();
    }
    let mut block = String::from("<available_scripts>\n");
    for script in scripts {
        let attributes = format!(
            "{} risk=\"{}\"",
            attributes(script.name(), script.description()),
            script.risk_tier()
        );
        match script.parameters_schema() {
            Some(schema) => block.push_str(&format!(
                "  <script {attributes}>\n    <parameters_schema>{}</parameters_schema>\n  </script>\n",
                escape_xml_text(&schema.to_string())
            )),
            None => block.push_str(&format!("  <script {attributes}/>\n")),
        }
    }
    block.push_str("</available_scripts>");
    block
}

fn attributes(name: &str, description: Option<&str>) -> String {
    let name = format!("name=\"{}\"", escape_xml(name));
    match description.filter(|text| !text.trim().is_empty()) {
        Some(description) => format!("{name} description=\"{}\"", escape_xml(description)),
        None => name,
    }
}

#[cfg(test)]
mod tests {
    use async_trait::async_trait;

    use super::*;
    use crate::error::SkillError;
    use crate::risk::RiskTier;
    use crate::skill::ResourceContent;

    #[derive(Debug)]
    struct Listed {
        name: &'static str,
        description: Option<&'static str>,
        schema: Option<serde_json::Value>,
        risk: RiskTier,
    }

    #[async_trait]
    impl SkillResource for Listed {
        fn name(&self) -> &str {
            self.name
        }
        fn description(&self) -> Option<&str> {
            self.description
        }
        async fn read(&self) -> Result<ResourceContent, SkillError> {
            Ok(ResourceContent::Text(String::new()))
        }
    }

    #[async_trait]
    impl SkillScript for Listed {
        fn name(&self) -> &str {
            self.name
        }
        fn description(&self) -> Option<&str> {
            self.description
        }
        fn parameters_schema(&self) -> Option<&serde_json::Value> {
            self.schema.as_ref()
        }
        fn risk_tier(&self) -> RiskTier {
            self.risk
        }
        async fn run(&self, _arguments: serde_json::Value) -> Result<String, SkillError> {
            Ok(String::new())
        }
    }

    fn listed(name: &'static str, description: Option<&'static str>) -> Arc<Listed> {
        Arc::new(Listed {
            name,
            description,
            schema: None,
            risk: RiskTier::SCRIPT_DEFAULT,
        })
    }

    #[test]
    fn escape_xml_escapes_all_five_characters_and_nothing_else() {
        assert_eq!(
            escape_xml("<a href=\"x\">Tom & Jerry's</a> é"),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&apos;s&lt;/a&gt; é"
        );
    }

    #[test]
    fn resources_block_writes_descriptions_only_when_not_blank() {
        let resources: Vec<Arc<dyn SkillResource>> = vec![
            listed("x", Some("y")),
            listed("z", None),
            listed("w", Some("   ")),
        ];
        assert_eq!(
            available_resources_block(&resources),
            "<available_resources>\n  <resource name=\"x\" description=\"y\"/>\n  <resource name=\"z\"/>\n  <resource name=\"w\"/>\n</available_resources>"
        );
    }

    #[test]
    fn scripts_block_nests_schemas_escapes_only_angle_brackets_and_ampersands_in_them_and_shows_tiers()
     {
        let with_schema = Arc::new(Listed {
            name: "s",
            description: Some("d & \"e\""),
            schema: Some(serde_json::json!({"type": "object", "description": "<a & 'b'>"})),
            risk: RiskTier::Read,
        });
        let scripts: Vec<Arc<dyn SkillScript>> = vec![with_schema, listed("t", None)];
        assert_eq!(
            available_scripts_block(&scripts),
            "<available_scripts>\n  <script name=\"s\" description=\"d &amp; &quot;e&quot;\" risk=\"read\">\n    \
             <parameters_schema>{\"type\":\"object\",\"description\":\"&lt;a &amp; 'b'&gt;\"}</parameters_schema>\n  \
             </script>\n  <script name=\"t\" risk=\"write-high\"/>\n</available_scripts>"
        );
    }

    #[test]
    fn inline_content_escapes_instructions_and_puts_resources_before_scripts() {
        let frontmatter = SkillFrontmatter::new("a&b", "use <this>");
        let resources: Vec<Arc<dyn SkillResource>> = vec![listed("r", None)];
        let scripts: Vec<Arc<dyn SkillScript>> = vec![listed("s", None)];
        assert_eq!(
            inline_skill_content(&frontmatter, "if a < b", &resources, &scripts),
            "<name>a&amp;b</name>\n<description>use &lt;this&gt;</description>\n\n<instructions>\nif a &lt; b\n</instructions>\n\n\
             <available_resources>\n  <resource name=\"r\"/>\n</available_resources>\n\n\
             <available_scripts>\n  <script name=\"s\" risk=\"write-high\"/>\n</available_scripts>"
        );
    }
}
