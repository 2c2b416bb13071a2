//! Skill entries as a host takes them from a server: parsed one at a time, checked against the
//! rules the spec puts on them, resolved and named.

use std::collections::HashMap;

use percent_encoding::percent_decode_str;
use rmcp::model::{SKILL_MD, Skill, SkillResource, SkillResources};
use serde_json::Value;

use super::{MAX_BYTES_PER_SKILL, MAX_FILES_PER_SKILL};
use skillful_core::names::RelativeName;
use skillful_core::text::{is_hazard, one_line};

/// Why a skill entry cannot be loaded. The spec forbids loading an invalid entry; the other
/// entries of the listing are unaffected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EntryProblem {
    /// It is not shaped as a `Skill` entry: `uri`, `frontmatter` (with string `name` and
    /// `description`) or `resources` (an array or `"dynamic"`) is missing or of the wrong type.
    #[error("it is not a skill entry: {0}")]
    Shape(String),
    /// A URI in it holds a space or a control character, which no URI may.
    #[error("the URI {0} holds a space or a control character")]
    UriCharacters(String),
    /// It breaks a rule of the spec: the URI does not end in `/SKILL.md` or not in the
    /// frontmatter `name`, the name breaks the Agent Skills naming rules, or the manifest misses
    /// `SKILL.md`, lists a file twice, lists a file outside the skill or has a malformed digest.
    #[error("{0}")]
    Rule(String),
    /// The manifest lists more files than every host must accept.
    #[error(
        "the manifest lists {files} files, more than the {MAX_FILES_PER_SKILL} every host accepts"
    )]
    TooManyFiles {
        /// How many it lists.
        files: usize,
    },
    /// The manifest's sizes add up to more than every host must accept.
    #[error(
        "the manifest adds up to {bytes} bytes, more than the {MAX_BYTES_PER_SKILL} every host accepts"
    )]
    TooLarge {
        /// The sum of its sizes.
        bytes: u64,
    },
    /// An earlier entry of the same listing has the same URI.
    #[error("the listing has this skill twice")]
    Duplicate,
}

/// An entry of a listing that was not loaded, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RejectedEntry {
    /// Its `uri`, when it has a string one (control characters escaped).
    pub uri: Option<String>,
    /// What is wrong with it.
    pub problem: EntryProblem,
}

/// Reads one entry of a `skills/list` or `skills/get` result and checks it with
/// [`check_entry`].
///
/// # Errors
/// [`RejectedEntry`] naming the entry's URI (when it has one) and what is wrong.
///
/// # Example
/// ```
/// use serde_json::json;
/// use skillful_mcp::final_form::{EntryProblem, parse_entry};
///
/// let entry = json!({
///     "uri": "skill://reports/daily/SKILL.md",
///     "frontmatter": {"name": "daily", "description": "Today's report."},
///     "resources": "dynamic"
/// });
/// assert_eq!(parse_entry(entry).unwrap().frontmatter.name, "daily");
///
/// let no_manifest = json!({
///     "uri": "skill://daily/SKILL.md",
///     "frontmatter": {"name": "daily", "description": "Today's report."}
/// });
/// let rejected = parse_entry(no_manifest).unwrap_err();
/// assert!(matches!(rejected.problem, EntryProblem::Shape(_)));
/// ```
pub fn parse_entry(value: Value) -> Result<Skill, RejectedEntry> {
    let uri = value
        .get("uri")
        .and_then(Value::as_str)
        .map(|uri| one_line(uri).into_owned());
    let reject = |problem| RejectedEntry {
        uri: uri.clone(),
        problem,
    };
    let skill: Skill = serde_json::from_value(value).map_err(|error| {
        reject(EntryProblem::Shape(
            one_line(&error.to_string()).into_owned(),
        ))
    })?;
    check_entry(&skill).map_err(reject)?;
    Ok(skill)
}

/// Checks every rule the spec puts on an entry that can be checked without reading a file:
/// URIs without spaces or control characters, `uri` ending in `/<name>/SKILL.md` where `name`
/// follows the Agent Skills naming rules, and a manifest that lists `SKILL.md`, no file twice,
/// only files inside the skill, well-formed `sha256:` digests, at most
/// [`MAX_FILES_PER_SKILL`] files and [`MAX_BYTES_PER_SKILL`] bytes.
///
/// # Errors
/// The first [`EntryProblem`] found.
pub fn check_entry(skill: &Skill) -> Result<(), EntryProblem> {
    let files = match &skill.resources {
        SkillResources::Files(files) => files.as_slice(),
        _ => &[],
    };
    for uri in std::iter::once(&skill.uri).chain(files.iter().map(|file| &file.uri)) {
        if uri.chars().any(|c| c.is_whitespace() || is_hazard(c)) {
            return Err(EntryProblem::UriCharacters(one_line(uri).into_owned()));
        }
    }
    skill
        .validate()
        .map_err(|error| EntryProblem::Rule(one_line(&error.to_string()).into_owned()))?;
    if files.len() > MAX_FILES_PER_SKILL {
        return Err(EntryProblem::TooManyFiles { files: files.len() });
    }
    let bytes = files
        .iter()
        .fold(0u64, |sum, file| sum.saturating_add(file.size));
    if bytes > MAX_BYTES_PER_SKILL {
        return Err(EntryProblem::TooLarge { bytes });
    }
    Ok(())
}

/// The `<skill-path>` of a `SKILL.md` URI: what lies between the scheme and `/SKILL.md`
/// (`acme/billing/refunds` for `skill://acme/billing/refunds/SKILL.md`).
///
/// ```
/// use skillful_mcp::final_form::skill_path;
///
/// assert_eq!(skill_path("skill://acme/billing/refunds/SKILL.md"), Some("acme/billing/refunds"));
/// assert_eq!(skill_path("github://o/r/refunds/SKILL.md"), Some("o/r/refunds"));
/// assert_eq!(skill_path("skill://refunds/guide.md"), None);
/// ```
pub fn skill_path(uri: &str) -> Option<&str> {
    let root = uri.strip_suffix(SKILL_MD)?.strip_suffix('/')?;
    let path = match root.split_once("://") {
        Some((_, path)) => path,
        None => root.split_once(':')?.1,
    };
    (!path.is_empty()).then_some(path)
}

/// A name for each entry that no other entry of the same listing shares, in the same order.
///
/// A unique `name` is kept as is. Entries that share a name are told apart by their path:
/// each gets the shortest tail of its `<skill-path>` that no other entry of that name ends
/// with (`billing/refunds` and `support/refunds`), and an entry whose whole path another
/// entry shares (the same path under another scheme) gets its full URI. Nothing is dropped.
/// Control characters are escaped.
///
/// ```
/// use serde_json::json;
/// use skillful_mcp::final_form::{disambiguated_names, parse_entry};
///
/// let entry = |uri: &str, name: &str| {
///     parse_entry(json!({
///         "uri": uri,
///         "frontmatter": {"name": name, "description": "x"},
///         "resources": "dynamic"
///     }))
///     .unwrap()
/// };
/// let skills = [
///     entry("skill://acme/billing/refunds/SKILL.md", "refunds"),
///     entry("skill://acme/support/refunds/SKILL.md", "refunds"),
///     entry("skill://git-workflow/SKILL.md", "git-workflow"),
/// ];
/// assert_eq!(
///     disambiguated_names(&skills),
///     ["billing/refunds", "support/refunds", "git-workflow"]
/// );
/// ```
pub fn disambiguated_names(skills: &[Skill]) -> Vec<String> {
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (index, skill) in skills.iter().enumerate() {
        by_name
            .entry(skill.frontmatter.name.as_str())
            .or_default()
            .push(index);
    }
    // Each path's segments, last first, with the frontmatter name standing for the last one
    // (which the entry check made equal to it).
    let segments: Vec<Vec<&str>> = skills
        .iter()
        .map(|skill| {
            let mut reversed: Vec<&str> = skill_path(&skill.uri)
                .unwrap_or_default()
                .rsplit('/')
                .skip(1)
                .collect();
            reversed.insert(0, &skill.frontmatter.name);
            reversed
        })
        .collect();
    skills
        .iter()
        .enumerate()
        .map(|(index, skill)| {
            let group = &by_name[skill.frontmatter.name.as_str()];
            if group.len() == 1 {
                return one_line(&skill.frontmatter.name).into_owned();
            }
            let own = &segments[index];
            let tail = (1..=own.len()).find(|&length| {
                group
                    .iter()
                    .filter(|&&other| other != index)
                    .all(|&other| segments[other].get(..length) != own.get(..length))
            });
            match tail {
                Some(length) => {
                    let mut parts: Vec<&str> = own[..length].to_vec();
                    parts.reverse();
                    one_line(&parts.join("/")).into_owned()
                }
                _ => one_line(&skill.uri).into_owned(),
            }
        })
        .collect()
}

/// The manifest's entry for the file at `uri` (the URI exactly as the manifest gives it);
/// `None` for an unlisted file or a `"dynamic"` skill.
pub fn manifest_file<'a>(skill: &'a Skill, uri: &str) -> Option<&'a SkillResource> {
    match &skill.resources {
        SkillResources::Files(files) => files.iter().find(|file| file.uri == uri),
        _ => None,
    }
}

/// The URI to read for a path relative to the skill's root (`references/GUIDE.md`), as its
/// `SKILL.md` would reference it.
///
/// For a skill with a manifest this is the URI of the manifest's file at that path (compared
/// percent-decoded, so `a b.md` finds `.../a%20b.md`); for a `"dynamic"` skill, the root joined
/// with the path. Absolute paths, URIs, `..`, backslashes and control characters are refused
/// however they are encoded.
///
/// # Errors
/// Why the path cannot be read: it could leave the skill, or it is not in the manifest.
///
/// ```
/// use serde_json::json;
/// use skillful_mcp::final_form::{parse_entry, resolve_relative, sha256_digest};
///
/// let skill = parse_entry(json!({
///     "uri": "skill://refunds/SKILL.md",
///     "frontmatter": {"name": "refunds", "description": "x"},
///     "resources": [
///         {"uri": "skill://refunds/SKILL.md", "digest": sha256_digest(b""), "size": 0},
///         {"uri": "skill://refunds/email%20template.md", "digest": sha256_digest(b""), "size": 0}
///     ]
/// }))
/// .unwrap();
/// assert_eq!(
///     resolve_relative(&skill, "email template.md").unwrap(),
///     "skill://refunds/email%20template.md"
/// );
/// assert!(resolve_relative(&skill, "../other/SKILL.md").is_err());
/// assert!(resolve_relative(&skill, "missing.md").is_err());
/// ```
pub fn resolve_relative(skill: &Skill, relative: &str) -> Result<String, String> {
    if let Err(refused) = RelativeName::new(relative) {
        return Err(refused.reason.to_owned());
    }
    let root = skill.uri.strip_suffix(SKILL_MD).unwrap_or(&skill.uri);
    let SkillResources::Files(files) = &skill.resources else {
        return Ok(format!("{root}{relative}"));
    };
    let wanted = percent_decode_str(relative).decode_utf8_lossy();
    files
        .iter()
        .find(|file| {
            file.uri
                .strip_prefix(root)
                .is_some_and(|path| percent_decode_str(path).decode_utf8_lossy() == wanted)
        })
        .map(|file| file.uri.clone())
        .ok_or_else(|| {
            format!(
                "{} is not a file of the skill's manifest",
                one_line(relative).into_owned()
            )
        })
}

#[cfg(test)]
mod tests {
    use rmcp::model::sha256_digest;
    use serde_json::json;

    use super::*;

    fn file(uri: &str, bytes: &[u8]) -> Value {
        json!({"uri": uri, "digest": sha256_digest(bytes), "size": bytes.len()})
    }

    fn entry(uri: &str, name: &str, resources: Value) -> Value {
        json!({"uri": uri, "frontmatter": {"name": name, "description": "A skill."}, "resources": resources})
    }

    /// The parsed entry of the skill `name` at `uri` listing `files`, each an empty file.
    fn listing(uri: &str, name: &str, files: &[&str]) -> Skill {
        let files: Vec<Value> = files.iter().map(|file_uri| file(file_uri, b"")).collect();
        parse_entry(entry(uri, name, Value::Array(files))).unwrap()
    }

    fn problem(value: Value) -> EntryProblem {
        parse_entry(value).unwrap_err().problem
    }

    #[test]
    fn a_conforming_entry_passes() {
        let skill = listing(
            "skill://acme/billing/refunds/SKILL.md",
            "refunds",
            &[
                "skill://acme/billing/refunds/SKILL.md",
                "skill://acme/billing/refunds/examples/email.md",
            ],
        );
        assert_eq!(skill_path(&skill.uri), Some("acme/billing/refunds"));
    }

    #[test]
    fn resources_must_be_a_list_or_dynamic() {
        for resources in [json!("static"), json!(null), json!({"uri": "x"}), json!(7)] {
            let value = entry("skill://a/SKILL.md", "a", resources.clone());
            assert!(
                matches!(problem(value), EntryProblem::Shape(_)),
                "{resources}"
            );
        }
        let mut missing = entry("skill://a/SKILL.md", "a", json!("dynamic"));
        missing.as_object_mut().unwrap().remove("resources");
        assert!(matches!(problem(missing), EntryProblem::Shape(_)));
    }

    #[test]
    fn frontmatter_needs_string_name_and_description() {
        for frontmatter in [
            json!({"name": "a"}),
            json!({"name": "a", "description": 3}),
            json!("name: a"),
        ] {
            let value = json!({"uri": "skill://a/SKILL.md", "frontmatter": frontmatter, "resources": "dynamic"});
            assert!(matches!(problem(value), EntryProblem::Shape(_)));
        }
    }

    #[test]
    fn the_rules_of_the_spec_are_enforced() {
        let skill_md = file("skill://a/SKILL.md", b"x");
        for (value, why) in [
            (
                entry("skill://a/README.md", "a", json!("dynamic")),
                "not SKILL.md",
            ),
            (
                entry("skill://b/SKILL.md", "a", json!("dynamic")),
                "name differs",
            ),
            (
                entry("skill://Big/SKILL.md", "Big", json!("dynamic")),
                "bad name",
            ),
            (
                entry("skill://a/SKILL.md", "a", json!([])),
                "SKILL.md unlisted",
            ),
            (
                entry("skill://a/SKILL.md", "a", json!([skill_md, skill_md])),
                "listed twice",
            ),
            (
                entry(
                    "skill://a/SKILL.md",
                    "a",
                    json!([skill_md, file("skill://b/x.md", b"")]),
                ),
                "outside the skill",
            ),
            (
                entry(
                    "skill://a/SKILL.md",
                    "a",
                    json!([skill_md, file("skill://a/../b/x.md", b"")]),
                ),
                "dot segments",
            ),
            (
                entry(
                    "skill://a/SKILL.md",
                    "a",
                    json!([{"uri": "skill://a/SKILL.md", "digest": "sha256:ABC", "size": 1}]),
                ),
                "malformed digest",
            ),
        ] {
            assert!(matches!(problem(value), EntryProblem::Rule(_)), "{why}");
        }
    }

    #[test]
    fn uris_with_control_characters_are_refused_and_escaped() {
        let value = entry("skill://a\u{1b}[2J/a/SKILL.md", "a", json!("dynamic"));
        let rejected = parse_entry(value).unwrap_err();
        assert_eq!(
            rejected.uri.as_deref(),
            Some("skill://a\\u{1b}[2J/a/SKILL.md")
        );
        assert!(matches!(rejected.problem, EntryProblem::UriCharacters(_)));
        assert!(!rejected.problem.to_string().contains('\u{1b}'));
    }

    #[test]
    fn the_limits_are_counted_from_the_manifest() {
        let mut files = vec![file("skill://a/SKILL.md", b"x")];
        files.extend((0..MAX_FILES_PER_SKILL).map(|i| file(&format!("skill://a/f{i}"), b"")));
        assert_eq!(
            problem(entry("skill://a/SKILL.md", "a", Value::Array(files))),
            EntryProblem::TooManyFiles {
                files: MAX_FILES_PER_SKILL + 1
            }
        );

        let digest = sha256_digest(b"");
        let big = json!([
            {"uri": "skill://a/SKILL.md", "digest": digest, "size": 1},
            {"uri": "skill://a/big.bin", "digest": digest, "size": MAX_BYTES_PER_SKILL},
        ]);
        assert_eq!(
            problem(entry("skill://a/SKILL.md", "a", big)),
            EntryProblem::TooLarge {
                bytes: MAX_BYTES_PER_SKILL + 1
            }
        );

        let at_limit = json!([
            {"uri": "skill://a/SKILL.md", "digest": digest, "size": 1},
            {"uri": "skill://a/big.bin", "digest": digest, "size": MAX_BYTES_PER_SKILL - 1},
        ]);
        assert!(parse_entry(entry("skill://a/SKILL.md", "a", at_limit)).is_ok());
    }

    #[test]
    fn a_percent_encoded_name_matches_its_frontmatter() {
        let value = entry(
            "skill://team/r%C3%A9sum%C3%A9/SKILL.md",
            "résumé",
            json!("dynamic"),
        );
        assert!(parse_entry(value).is_ok());
    }

    #[test]
    fn same_names_are_told_apart_by_their_paths() {
        let skills: Vec<Skill> = [
            ("skill://acme/billing/refunds/SKILL.md", "refunds"),
            ("skill://other/billing/refunds/SKILL.md", "refunds"),
            ("skill://acme/support/refunds/SKILL.md", "refunds"),
            ("skill://refunds/SKILL.md", "refunds"),
            ("github://refunds/SKILL.md", "refunds"),
            ("skill://pdf/SKILL.md", "pdf"),
        ]
        .into_iter()
        .map(|(uri, name)| parse_entry(entry(uri, name, json!("dynamic"))).unwrap())
        .collect();
        let names = disambiguated_names(&skills);
        assert_eq!(
            names,
            [
                "acme/billing/refunds",
                "other/billing/refunds",
                "support/refunds",
                "skill://refunds/SKILL.md",
                "github://refunds/SKILL.md",
                "pdf",
            ]
        );
        let unique: std::collections::HashSet<_> = names.iter().collect();
        assert_eq!(unique.len(), names.len());
    }

    #[test]
    fn relative_paths_resolve_only_to_listed_files() {
        let skill = listing(
            "skill://acme/pdf/SKILL.md",
            "pdf",
            &[
                "skill://acme/pdf/SKILL.md",
                "skill://acme/pdf/templates/invoice.md",
            ],
        );
        assert_eq!(
            resolve_relative(&skill, "templates/invoice.md").unwrap(),
            "skill://acme/pdf/templates/invoice.md"
        );
        assert_eq!(
            resolve_relative(&skill, "templates%2Finvoice.md").unwrap(),
            "skill://acme/pdf/templates/invoice.md"
        );
        for path in [
            "templates/credit-note.md",
            "../pdf/SKILL.md",
            "/etc/passwd",
            "skill://x/y",
        ] {
            assert!(resolve_relative(&skill, path).is_err(), "{path}");
        }

        let dynamic = parse_entry(entry(
            "skill://reports/daily/SKILL.md",
            "daily",
            json!("dynamic"),
        ))
        .unwrap();
        assert_eq!(
            resolve_relative(&dynamic, "data/today.md").unwrap(),
            "skill://reports/daily/data/today.md"
        );
        assert!(resolve_relative(&dynamic, "%2e%2e/x").is_err());
    }
}
