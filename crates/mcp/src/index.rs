//! The discovery index `skill://index.json`: its model, a lenient reader and the writer.

use serde::{Deserialize, Serialize};

/// The URI of the discovery index every skills server serves.
pub const INDEX_URI: &str = "skill://index.json";

/// The schema the index declares (Agent Skills discovery 0.2.0).
pub const INDEX_SCHEMA: &str = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

/// The entry type of a skill served as a `SKILL.md` resource with sibling resources.
pub const SKILL_MD_TYPE: &str = "skill-md";

/// The entry type of a skill served as one zip or tar.gz archive.
pub const ARCHIVE_TYPE: &str = "archive";

/// The document at [`INDEX_URI`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SkillIndex {
    /// The schema the document follows, normally [`INDEX_SCHEMA`].
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// The entries, each read on its own: one malformed entry does not spoil the others.
    #[serde(default)]
    pub skills: Vec<serde_json::Value>,
}

/// One skill of the index, as the server wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct IndexEntry {
    /// The skill's name.
    pub name: String,
    /// [`SKILL_MD_TYPE`], [`ARCHIVE_TYPE`] or a type this client does not know.
    #[serde(rename = "type")]
    pub kind: String,
    /// What the skill does and when to use it.
    pub description: String,
    /// The resource URI of the skill's `SKILL.md` or archive.
    pub url: String,
    /// `sha256:` and 64 lowercase hex digits of the resource's bytes, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
}

impl IndexEntry {
    /// An entry without a digest.
    pub fn new(
        name: impl Into<String>,
        kind: impl Into<String>,
        description: impl Into<String>,
        url: impl Into<String>,
    ) -> Self {
        Self {
            name: name.into(),
            kind: kind.into(),
            description: description.into(),
            url: url.into(),
            digest: None,
        }
    }

    /// The same entry with a digest.
    pub fn with_digest(mut self, digest: impl Into<String>) -> Self {
        self.digest = Some(digest.into());
        self
    }
}

impl SkillIndex {
    /// An index of `entries`, declaring [`INDEX_SCHEMA`].
    pub fn new(entries: impl IntoIterator<Item = IndexEntry>) -> Self {
        Self {
            schema: Some(INDEX_SCHEMA.to_owned()),
            skills: entries
                .into_iter()
                .map(|entry| serde_json::to_value(entry).unwrap_or_default())
                .collect(),
        }
    }

    /// Reads an index leniently: `//` and `/* */` comments and trailing commas are accepted, as
    /// .NET's reader accepts them.
    ///
    /// # Errors
    /// The JSON error when the text is not an index even so.
    ///
    /// # Example
    /// ```
    /// use skillful_mcp::SkillIndex;
    ///
    /// let index = SkillIndex::parse(r#"{
    ///     // one skill
    ///     "skills": [{"name": "a", "type": "skill-md", "description": "A.", "url": "skill://a/SKILL.md",},],
    /// }"#).unwrap();
    /// assert_eq!(index.entries().next().unwrap().unwrap().name, "a");
    /// ```
    pub fn parse(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(&strict_json(text))
    }

    /// The entries in order, each read on its own: an entry that is not an object with string
    /// fields `name`, `type`, `description` and `url` is an error naming what is wrong.
    pub fn entries(&self) -> impl Iterator<Item = Result<IndexEntry, String>> + '_ {
        self.skills.iter().map(|value| {
            IndexEntry::deserialize(value).map_err(|error| {
                let name = value
                    .get("name")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or("(unnamed)");
                format!("index entry '{name}' is malformed: {error}")
            })
        })
    }

    /// The index as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// `text` without comments and trailing commas; strings are copied untouched.
fn strict_json(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    // Where a comma was held back: it is written only if a value follows.
    let mut pending_comma = false;
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                flush_comma(&mut out, &mut pending_comma);
                out.push(c);
                let mut escaped = false;
                for c in chars.by_ref() {
                    out.push(c);
                    match c {
                        _ if escaped => escaped = false,
                        '\\' => escaped = true,
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut star = false;
                for c in chars.by_ref() {
                    if star && c == '/' {
                        break;
                    }
                    star = c == '*';
                }
                out.push(' ');
            }
            ',' => {
                flush_comma(&mut out, &mut pending_comma);
                pending_comma = true;
            }
            ']' | '}' => {
                pending_comma = false;
                out.push(c);
            }
            c if c.is_whitespace() => out.push(c),
            c => {
                flush_comma(&mut out, &mut pending_comma);
                out.push(c);
            }
        }
    }
    flush_comma(&mut out, &mut pending_comma);
    out
}

fn flush_comma(out: &mut String, pending: &mut bool) {
    if std::mem::take(pending) {
        out.push(',');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_are_dropped_outside_strings() {
        let text = "{\"a\": \"x//y /* z */,]\", /* c */ \"b\": [1, 2,], // end\n}";
        let value: serde_json::Value = serde_json::from_str(&strict_json(text)).unwrap();
        assert_eq!(
            value,
            serde_json::json!({"a": "x//y /* z */,]", "b": [1, 2]})
        );
    }

    #[test]
    fn escaped_quotes_do_not_end_a_string() {
        let text = r#"{"a": "say \"hi\", // not a comment",}"#;
        let value: serde_json::Value = serde_json::from_str(&strict_json(text)).unwrap();
        assert_eq!(value["a"], "say \"hi\", // not a comment");
    }

    #[test]
    fn malformed_entries_are_errors_of_their_own() {
        let index = SkillIndex::parse(
            r#"{"skills": [{"name": "a", "type": "skill-md", "description": "A.", "url": "u"}, {"name": 3}, "x"]}"#,
        )
        .unwrap();
        let entries: Vec<_> = index.entries().collect();
        assert!(entries[0].is_ok());
        assert!(entries[1].as_ref().unwrap_err().contains("malformed"));
        assert!(entries[2].is_err());
    }
}
