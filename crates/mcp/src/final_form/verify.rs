//! What a host checks before fetched skill content may reach a model: that the file is in the
//! held entry's manifest, has its size and digest, and, for `SKILL.md`, that its frontmatter is
//! the entry's.

use std::collections::BTreeSet;

use rmcp::model::{
    JsonObject, SKILL_MD, Skill, SkillFrontmatter, SkillIntegrityError, SkillResources,
};
use serde_json::Value;
use skillful_frontmatter::{ParseOptions, parse};

use super::MAX_BYTES_PER_SKILL;
use super::entry::manifest_file;
use skillful_core::text::one_line;

/// How far fetched content could be checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Integrity {
    /// It is listed in the entry's manifest and has the listed size and digest.
    Verified,
    /// The entry's `resources` is `"dynamic"`: there was nothing to check it against.
    Unverifiable,
}

/// Fetched content that must not be used: the spec treats each of these as a digest mismatch.
///
/// Every variant names the server (the host's label for it) and the URI. The cure is the same
/// for all of them: fetch the skill's current entry with `skills/get` (the skill may have changed
/// since it was listed), which revokes any approval bound to the old manifest.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VerificationError {
    /// The file is not in the manifest of the skill being acted on.
    #[error(
        "MCP server {server}: {uri} is not a file of the skill {skill} as it was listed; fetch the skill again with skills/get before reading it"
    )]
    Unlisted {
        /// The server's label.
        server: String,
        /// The skill's `SKILL.md` URI.
        skill: String,
        /// The file asked for.
        uri: String,
    },
    /// The content has another length than the manifest lists.
    #[error(
        "MCP server {server} sent {actual} bytes for {uri}, but its manifest lists {expected}; the content is not used (fetch the skill again with skills/get)"
    )]
    Size {
        /// The server's label.
        server: String,
        /// The file.
        uri: String,
        /// The manifest's size.
        expected: u64,
        /// The size of what was sent.
        actual: u64,
    },
    /// The content hashes to another digest than the manifest lists.
    #[error(
        "MCP server {server} sent content for {uri} with digest {actual}, but its manifest lists {expected}; the content is not used (fetch the skill again with skills/get)"
    )]
    Digest {
        /// The server's label.
        server: String,
        /// The file.
        uri: String,
        /// The manifest's digest.
        expected: String,
        /// The digest of what was sent.
        actual: String,
    },
    /// The fetched `SKILL.md`'s frontmatter differs from the entry's.
    #[error(
        "MCP server {server}: the frontmatter of {uri} differs from its listing in `{field}`; the skill is not loaded"
    )]
    Frontmatter {
        /// The server's label.
        server: String,
        /// The `SKILL.md` URI.
        uri: String,
        /// The first field that differs, as a path (`metadata.version`, `tags[1]`).
        field: String,
    },
    /// The fetched `SKILL.md` has no frontmatter that can be read.
    #[error(
        "MCP server {server}: {uri} has no readable frontmatter ({message}); the skill is not loaded"
    )]
    NoFrontmatter {
        /// The server's label.
        server: String,
        /// The `SKILL.md` URI.
        uri: String,
        /// What the parser said.
        message: String,
    },
    /// The `resources/read` result does not hold exactly one content for the URI, or a blob is
    /// not base64.
    #[error(
        "MCP server {server} answered resources/read of {uri} with unusable contents: {message}"
    )]
    Contents {
        /// The server's label.
        server: String,
        /// The file.
        uri: String,
        /// What is wrong.
        message: String,
    },
}

/// Checks the bytes read from `uri` against the held entry `skill`: the file must be listed in
/// its manifest (for a `"dynamic"` skill, lie under its root) and have the listed size, then the
/// listed digest. The size is compared first, so a wrong length is caught without hashing.
///
/// # Errors
/// [`VerificationError::Unlisted`], [`VerificationError::Size`] or
/// [`VerificationError::Digest`]; the bytes must then not be used.
///
/// # Example
/// ```
/// use serde_json::json;
/// use skillful_mcp::final_form::{Integrity, VerificationError, parse_entry, sha256_digest, verify_file};
///
/// let skill_md = b"---\nname: notes\ndescription: Notes.\n---\nBody\n";
/// let skill = parse_entry(json!({
///     "uri": "skill://notes/SKILL.md",
///     "frontmatter": {"name": "notes", "description": "Notes."},
///     "resources": [{"uri": "skill://notes/SKILL.md", "digest": sha256_digest(skill_md), "size": skill_md.len()}]
/// }))
/// .unwrap();
/// assert_eq!(verify_file("docs", &skill, "skill://notes/SKILL.md", skill_md), Ok(Integrity::Verified));
///
/// let tampered = b"---\nname: notes\ndescription: Notes.\n---\nBODY\n";
/// let error = verify_file("docs", &skill, "skill://notes/SKILL.md", tampered).unwrap_err();
/// assert!(matches!(error, VerificationError::Digest { .. }));
/// ```
pub fn verify_file(
    server: &str,
    skill: &Skill,
    uri: &str,
    bytes: &[u8],
) -> Result<Integrity, VerificationError> {
    let unlisted = || VerificationError::Unlisted {
        server: server.to_owned(),
        skill: skill.uri.clone(),
        uri: one_line(uri).into_owned(),
    };
    if !matches!(skill.resources, SkillResources::Files(_)) {
        let root = skill.uri.strip_suffix(SKILL_MD).unwrap_or(&skill.uri);
        return if uri.starts_with(root) {
            Ok(Integrity::Unverifiable)
        } else {
            Err(unlisted())
        };
    }
    let file = manifest_file(skill, uri).ok_or_else(unlisted)?;
    file.verify(bytes).map_err(|error| match error {
        SkillIntegrityError::Size {
            expected, actual, ..
        } => VerificationError::Size {
            server: server.to_owned(),
            uri: file.uri.clone(),
            expected,
            actual,
        },
        SkillIntegrityError::Digest {
            expected, actual, ..
        } => VerificationError::Digest {
            server: server.to_owned(),
            uri: file.uri.clone(),
            expected,
            actual,
        },
        other => VerificationError::Contents {
            server: server.to_owned(),
            uri: file.uri.clone(),
            message: other.to_string(),
        },
    })?;
    Ok(Integrity::Verified)
}

/// Checks a fetched `SKILL.md` before the skill is loaded: [`verify_file`], then its frontmatter
/// parsed ([`fetched_frontmatter`]) and compared field by field with the entry's
/// ([`compare_frontmatter`]). Returns the text.
///
/// # Errors
/// What [`verify_file`] returns, [`VerificationError::NoFrontmatter`] for a file that is not
/// UTF-8 or whose frontmatter cannot be read, [`VerificationError::Frontmatter`] naming the
/// first field that differs.
pub fn verify_skill_md(
    server: &str,
    skill: &Skill,
    bytes: &[u8],
) -> Result<(String, Integrity), VerificationError> {
    let integrity = verify_file(server, skill, &skill.uri, bytes)?;
    let no_frontmatter = |message: String| VerificationError::NoFrontmatter {
        server: server.to_owned(),
        uri: skill.uri.clone(),
        message,
    };
    let text = std::str::from_utf8(bytes)
        .map_err(|error| no_frontmatter(format!("it is not UTF-8: {error}")))?;
    let fetched = fetched_frontmatter(text).map_err(no_frontmatter)?;
    compare_frontmatter(&skill.frontmatter, &fetched).map_err(|field| {
        VerificationError::Frontmatter {
            server: server.to_owned(),
            uri: skill.uri.clone(),
            field,
        }
    })?;
    Ok((text.to_owned(), integrity))
}

/// The frontmatter of a `SKILL.md` as the JSON object an entry carries: every key the author
/// wrote, with the types YAML 1.2's core schema gives the values (`2.1` a number, `"2.1"` and
/// `2.1.0` strings, `true` a boolean). Non-finite numbers (`.inf`, `.nan`) have no JSON form and
/// become `null`.
///
/// The file may be as large as a whole skill ([`MAX_BYTES_PER_SKILL`]); the frontmatter is
/// bounded by the parser's own limit (64 KiB).
///
/// # Errors
/// What the parser found wrong, in one line.
pub fn fetched_frontmatter(text: &str) -> Result<JsonObject, String> {
    let options = ParseOptions::default()
        .with_max_file_bytes(usize::try_from(MAX_BYTES_PER_SKILL).unwrap_or(usize::MAX));
    let document =
        parse(text, &options).map_err(|error| one_line(&error.to_string()).into_owned())?;
    match serde_json::to_value(document.fields()) {
        Ok(Value::Object(fields)) => Ok(fields),
        Ok(_) => Err("the frontmatter is not a mapping".to_owned()),
        Err(error) => Err(one_line(&error.to_string()).into_owned()),
    }
}

/// Compares an entry's frontmatter with one parsed from the fetched `SKILL.md`, field by field:
/// the same keys (in any order) with equal values, numbers compared by value (`2` equals `2.0`).
///
/// # Errors
/// The path of the first differing field in key order (`description`, `metadata.version`,
/// `tags[1]`), control characters escaped.
///
/// # Example
/// ```
/// use serde_json::json;
/// use skillful_mcp::final_form::{EntryFrontmatter, compare_frontmatter};
///
/// let listed: EntryFrontmatter = serde_json::from_value(json!({
///     "name": "pdf", "description": "PDFs.", "metadata": {"version": 2.1}
/// }))
/// .unwrap();
/// let fetched = json!({"name": "pdf", "description": "PDFs.", "metadata": {"version": "2.1"}});
/// assert_eq!(
///     compare_frontmatter(&listed, fetched.as_object().unwrap()),
///     Err("metadata.version".to_owned())
/// );
/// ```
pub fn compare_frontmatter(listed: &SkillFrontmatter, fetched: &JsonObject) -> Result<(), String> {
    let listed = match serde_json::to_value(listed) {
        Ok(Value::Object(listed)) => listed,
        _ => return Err("name".to_owned()),
    };
    match first_difference(&listed, fetched) {
        Some(path) => Err(one_line(&path).into_owned()),
        None => Ok(()),
    }
}

fn first_difference(listed: &JsonObject, fetched: &JsonObject) -> Option<String> {
    let keys: BTreeSet<&String> = listed.keys().chain(fetched.keys()).collect();
    keys.into_iter()
        .find_map(|key| match (listed.get(key), fetched.get(key)) {
            (Some(a), Some(b)) => value_difference(a, b).map(|inner| format!("{key}{inner}")),
            _ => Some(key.clone()),
        })
}

/// Where `a` and `b` differ, as a path suffix (`""` for the values themselves).
fn value_difference(a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            first_difference(a, b).map(|path| format!(".{path}"))
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Some(String::new());
            }
            a.iter().zip(b).enumerate().find_map(|(index, (a, b))| {
                value_difference(a, b).map(|inner| format!("[{index}]{inner}"))
            })
        }
        (Value::Number(a), Value::Number(b)) => (!same_number(a, b)).then(String::new),
        (a, b) => (a != b).then(String::new),
    }
}

fn same_number(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    if let (Some(a), Some(b)) = (a.as_i64(), b.as_i64()) {
        return a == b;
    }
    if let (Some(a), Some(b)) = (a.as_u64(), b.as_u64()) {
        return a == b;
    }
    matches!((a.as_f64(), b.as_f64()), (Some(a), Some(b)) if a == b)
}

#[cfg(test)]
mod tests {
    use rmcp::model::sha256_digest;
    use serde_json::json;

    use super::*;
    use crate::final_form::parse_entry;

    const SKILL_MD_TEXT: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: 2.1\n  tags: [pdf, forms]\n  beta: true\n---\n\n# PDF processing\n";

    fn skill(frontmatter: Value) -> Skill {
        parse_entry(json!({
            "uri": "skill://pdf-processing/SKILL.md",
            "frontmatter": frontmatter,
            "resources": [
                {"uri": "skill://pdf-processing/SKILL.md", "digest": sha256_digest(SKILL_MD_TEXT.as_bytes()), "size": SKILL_MD_TEXT.len()},
                {"uri": "skill://pdf-processing/templates/invoice.md", "digest": sha256_digest(b"Invoice"), "size": 7}
            ]
        }))
        .unwrap()
    }

    fn honest() -> Skill {
        skill(json!({
            "name": "pdf-processing",
            "description": "Extract, fill, and assemble PDF documents",
            "metadata": {"version": 2.1, "tags": ["pdf", "forms"], "beta": true}
        }))
    }

    #[test]
    fn listed_bytes_verify() {
        let skill = honest();
        assert_eq!(
            verify_file(
                "docs",
                &skill,
                "skill://pdf-processing/templates/invoice.md",
                b"Invoice"
            ),
            Ok(Integrity::Verified)
        );
    }

    #[test]
    fn a_size_mismatch_is_reported_before_hashing() {
        let error = verify_file(
            "docs",
            &honest(),
            "skill://pdf-processing/templates/invoice.md",
            b"Invoice!",
        )
        .unwrap_err();
        assert_eq!(
            error,
            VerificationError::Size {
                server: "docs".into(),
                uri: "skill://pdf-processing/templates/invoice.md".into(),
                expected: 7,
                actual: 8
            }
        );
    }

    #[test]
    fn a_digest_mismatch_names_server_uri_and_both_digests() {
        let error = verify_file(
            "docs",
            &honest(),
            "skill://pdf-processing/templates/invoice.md",
            b"invoice",
        )
        .unwrap_err();
        let VerificationError::Digest {
            server,
            uri,
            expected,
            actual,
        } = &error
        else {
            panic!("{error}");
        };
        assert_eq!(server, "docs");
        assert_eq!(uri, "skill://pdf-processing/templates/invoice.md");
        assert_eq!(expected, &sha256_digest(b"Invoice"));
        assert_eq!(actual, &sha256_digest(b"invoice"));
        let message = error.to_string();
        assert!(
            message.contains(expected) && message.contains(actual),
            "{message}"
        );
    }

    #[test]
    fn an_unlisted_file_fails_even_with_honest_bytes() {
        let error = verify_file(
            "docs",
            &honest(),
            "skill://pdf-processing/templates/credit-note.md",
            b"",
        )
        .unwrap_err();
        assert!(
            matches!(error, VerificationError::Unlisted { .. }),
            "{error}"
        );
    }

    #[test]
    fn a_dynamic_skill_is_unverifiable_inside_its_root_only() {
        let dynamic = parse_entry(json!({
            "uri": "skill://reports/daily/SKILL.md",
            "frontmatter": {"name": "daily", "description": "Live."},
            "resources": "dynamic"
        }))
        .unwrap();
        assert_eq!(
            verify_file(
                "ops",
                &dynamic,
                "skill://reports/daily/data.md",
                b"anything"
            ),
            Ok(Integrity::Unverifiable)
        );
        assert!(matches!(
            verify_file("ops", &dynamic, "skill://reports/other/data.md", b""),
            Err(VerificationError::Unlisted { .. })
        ));
    }

    #[test]
    fn an_honest_skill_md_loads_with_typed_frontmatter() {
        let (text, integrity) =
            verify_skill_md("docs", &honest(), SKILL_MD_TEXT.as_bytes()).unwrap();
        assert_eq!(text, SKILL_MD_TEXT);
        assert_eq!(integrity, Integrity::Verified);
    }

    #[test]
    fn a_lying_listing_is_caught_even_when_the_digest_matches() {
        for (frontmatter, field) in [
            (
                json!({"name": "pdf-processing", "description": "Harmless helper", "metadata": {"version": 2.1, "tags": ["pdf", "forms"], "beta": true}}),
                "description",
            ),
            (
                json!({"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents", "metadata": {"version": "2.1", "tags": ["pdf", "forms"], "beta": true}}),
                "metadata.version",
            ),
            (
                json!({"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents", "metadata": {"version": 2.1, "tags": ["pdf"], "beta": true}}),
                "metadata.tags",
            ),
            (
                json!({"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents", "metadata": {"version": 2.1, "tags": ["pdf", "form"], "beta": true}}),
                "metadata.tags[1]",
            ),
            (
                json!({"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"}),
                "metadata",
            ),
            (
                json!({"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents", "allowed-tools": "Bash", "metadata": {"version": 2.1, "tags": ["pdf", "forms"], "beta": true}}),
                "allowed-tools",
            ),
        ] {
            let error =
                verify_skill_md("docs", &skill(frontmatter), SKILL_MD_TEXT.as_bytes()).unwrap_err();
            assert_eq!(
                error,
                VerificationError::Frontmatter {
                    server: "docs".into(),
                    uri: "skill://pdf-processing/SKILL.md".into(),
                    field: field.into()
                }
            );
        }
    }

    #[test]
    fn numbers_compare_by_value() {
        let listed: SkillFrontmatter =
            serde_json::from_value(json!({"name": "a", "description": "b", "n": 2})).unwrap();
        let fetched = json!({"name": "a", "description": "b", "n": 2.0});
        assert_eq!(
            compare_frontmatter(&listed, fetched.as_object().unwrap()),
            Ok(())
        );
        let fetched = json!({"name": "a", "description": "b", "n": 2.5});
        assert_eq!(
            compare_frontmatter(&listed, fetched.as_object().unwrap()),
            Err("n".into())
        );
    }

    #[test]
    fn a_skill_md_without_frontmatter_is_not_loaded() {
        let text = b"# No frontmatter\n";
        let skill = parse_entry(json!({
            "uri": "skill://a/SKILL.md",
            "frontmatter": {"name": "a", "description": "b"},
            "resources": [{"uri": "skill://a/SKILL.md", "digest": sha256_digest(text), "size": text.len()}]
        }))
        .unwrap();
        assert!(matches!(
            verify_skill_md("docs", &skill, text),
            Err(VerificationError::NoFrontmatter { .. })
        ));
    }

    #[test]
    fn fetched_frontmatter_keeps_yaml_types() {
        let fields = fetched_frontmatter(
            "---\nname: a\ndescription: b\nversion: 2.1\nquoted: \"2.1\"\nsemver: 2.1.0\ncount: 3\nflag: false\nnothing: ~\n---\n",
        )
        .unwrap();
        assert_eq!(
            Value::Object(fields),
            json!({"name": "a", "description": "b", "version": 2.1, "quoted": "2.1", "semver": "2.1.0", "count": 3, "flag": false, "nothing": null})
        );
    }
}
