//! The one renderer of what `load_skill` shows, for every source alike, and the XML escaping
//! every prompt fragment uses.
//!
//! A skill is shown as its `SKILL.md` (the format Microsoft Agent Framework uses for file skills,
//! which models already know), then its resources and scripts:
//!
//! ```text
//! ---
//! name: N
//! description: D
//! ---
//! I
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
//! A skill with a `SKILL.md` (files, MCP) shows its frontmatter exactly as written; a skill built
//! in code (inline, plugin) shows its frontmatter written out as YAML. An empty category is
//! written self-closing (`<available_scripts />`) so the model knows there is nothing to guess
//! at. One addition to the reference: every `<script>` carries a `risk` attribute, its
//! [`RiskTier`](skillful_core::RiskTier), so the model knows which scripts an approval policy
//! will ask about.

use std::sync::Arc;

use skillful_core::{Skill, SkillDocument, SkillFrontmatter, SkillResource, SkillScript};

/// Escapes `& < > " '` as `&amp; &lt; &gt; &quot; &apos;`, as .NET's `SecurityElement.Escape` does.
///
/// Safe for element text and for attribute values alike.
///
/// # Example
/// ```
/// assert_eq!(
///     skillful_provider::escape_xml(r#"a<b & "c's""#),
///     "a&lt;b &amp; &quot;c&apos;s&quot;"
/// );
/// ```
pub fn escape_xml(text: &str) -> String {
    escape(text, true)
}

/// Escapes only `& < >`, leaving quotes readable: for JSON embedded as element text.
fn escape_xml_text(text: &str) -> String {
    escape(text, false)
}

fn escape(text: &str, quotes: bool) -> String {
    if !needs_escaping(text) {
        return text.to_owned();
    }
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match entity(character, quotes) {
            Some(entity) => escaped.push_str(entity),
            None => escaped.push(character),
        }
    }
    escaped
}

/// The entity that stands for `character` in escaped text, if it needs one.
fn entity(character: char, quotes: bool) -> Option<&'static str> {
    match character {
        '&' => Some("&amp;"),
        '<' => Some("&lt;"),
        '>' => Some("&gt;"),
        '"' if quotes => Some("&quot;"),
        '\'' if quotes => Some("&apos;"),
        _ => None,
    }
}

/// Whether `text` has a character that [`escape_xml`] (quotes included) writes as an entity:
/// most text has none, and is checked byte by byte (every such character is ASCII).
pub(crate) fn needs_escaping(text: &str) -> bool {
    text.bytes()
        .any(|byte| matches!(byte, b'&' | b'<' | b'>' | b'"' | b'\''))
}

/// How many characters `character` takes once escaped by [`escape_xml`].
pub(crate) fn escaped_chars(character: char) -> usize {
    entity(character, true).map_or(1, str::len)
}

/// What `load_skill` shows for `skill`, whose document is `document`: the `SKILL.md` (its
/// frontmatter as written), the resources and scripts blocks, and, when the skill declares
/// capabilities ([`Skill::capabilities`]), a `<declared_capabilities>` line after them
/// (`network: api.example.com · writes: out`).
///
/// # Example
/// ```
/// use skillful_core::{SkillDocument, SkillFrontmatter};
/// use skillful_inline::InlineSkill;
/// use skillful_provider::render_skill;
///
/// let skill = InlineSkill::builder("greeter", "Greets people.")
///     .instructions("Say hello.")
///     .build()
///     .unwrap();
/// assert_eq!(
///     render_skill(&skill, &SkillDocument::instructions("Say hello.")),
///     "---\nname: greeter\ndescription: Greets people.\n---\nSay hello.\n\n\
///      <available_resources />\n\n<available_scripts />"
/// );
/// ```
pub fn render_skill(skill: &dyn Skill, document: &SkillDocument) -> String {
    let frontmatter = match &document.written_frontmatter {
        Some(written) => written.clone(),
        None => frontmatter_yaml(skill.frontmatter()),
    };
    let separator = if frontmatter.ends_with('\n') || frontmatter.is_empty() {
        ""
    } else {
        "\n"
    };
    let body = &document.body;
    let gap = if body.ends_with('\n') { "\n" } else { "\n\n" };
    let capabilities = skill.capabilities();
    let declared = if capabilities.is_empty() {
        String::new()
    } else {
        format!(
            "\n\n<declared_capabilities>{}</declared_capabilities>",
            escape_xml_text(&capabilities.to_string())
        )
    };
    format!(
        "---\n{frontmatter}{separator}---\n{body}{gap}{}\n\n{}{declared}",
        available_resources_block(&skill.resources()),
        available_scripts_block(&skill.scripts()),
    )
}

/// The frontmatter of a skill built in code, written as the YAML of a `SKILL.md`: the
/// specification's fields in its order, then the other keys; every string double-quoted (JSON
/// string syntax, which YAML reads the same) unless it is plain text that reads back unchanged.
fn frontmatter_yaml(frontmatter: &SkillFrontmatter) -> String {
    let mut yaml = String::new();
    for (key, value) in frontmatter.to_fields() {
        write_yaml_entry(
            &mut yaml,
            &key,
            &serde_json::to_value(&value).unwrap_or_default(),
            0,
        );
    }
    yaml
}

fn write_yaml_entry(yaml: &mut String, key: &str, value: &serde_json::Value, indent: usize) {
    let pad = " ".repeat(indent);
    let key = yaml_scalar(key);
    match value {
        serde_json::Value::Object(entries) if !entries.is_empty() => {
            yaml.push_str(&format!("{pad}{key}:\n"));
            for (inner, value) in entries {
                write_yaml_entry(yaml, inner, value, indent + 2);
            }
        }
        serde_json::Value::String(text) => {
            yaml.push_str(&format!("{pad}{key}: {}\n", yaml_scalar(text)));
        }
        // Numbers, booleans, null, lists and empty maps: their JSON is valid YAML flow syntax.
        other => yaml.push_str(&format!("{pad}{key}: {other}\n")),
    }
}

/// `text` as a YAML scalar: plain when that is unambiguous, else double-quoted.
fn yaml_scalar(text: &str) -> String {
    let plain = text
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.' | ',' | '/' | '(' | ')'))
        && !text.is_empty()
        && !text.starts_with([' ', '-'])
        && !text.ends_with(' ')
        && !matches!(
            text.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "~"
        )
        && text.parse::<f64>().is_err();
    if plain {
        text.to_owned()
    } else {
        serde_json::Value::String(text.to_owned()).to_string()
    }
}

/// The `<available_resources>` block: one `<resource name=".." description=".."/>` line per
/// resource, the description only when it is not blank; `<available_resources />` when there are
/// none. No leading or trailing newline.
fn available_resources_block(resources: &[Arc<dyn SkillResource>]) -> String {
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
/// `name`, `description` (when not blank) and `risk` (its tier). No leading or trailing newline.
fn available_scripts_block(scripts: &[Arc<dyn SkillScript>]) -> String {
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
    use super::*;

    #[test]
    fn escape_xml_escapes_all_five_characters_and_nothing_else() {
        assert_eq!(
            escape_xml("<a href=\"x\">Tom & Jerry's</a> é"),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&apos;s&lt;/a&gt; é"
        );
    }

    #[test]
    fn scalars_are_quoted_whenever_plain_text_would_read_back_differently() {
        for (text, shown) in [
            ("Converts units.", "Converts units."),
            ("true", "\"true\""),
            ("1.5", "\"1.5\""),
            ("a: b", "\"a: b\""),
            ("- item", "\"- item\""),
            ("line\nbreak", "\"line\\nbreak\""),
            ("# hash", "\"# hash\""),
            ("", "\"\""),
        ] {
            assert_eq!(yaml_scalar(text), shown, "{text:?}");
        }
    }
}
