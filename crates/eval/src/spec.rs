//! What a skill's author writes: `evals/evals.json` (test cases with expectations) and
//! `evals/triggers.json` (queries that should or should not make a model load the skill), read
//! with bounds and checked before anything runs.

use std::collections::HashSet;
use std::fmt;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use regex::{Regex, RegexBuilder};

use crate::error::EvalError;
use crate::files::{read_bounded, resolve_inside};

/// The most bytes `evals/evals.json` or `evals/triggers.json` may have.
pub const MAX_SPEC_BYTES: u64 = 1024 * 1024;

/// The most characters of an eval's directory name after `eval-`.
const MAX_SLUG_CHARS: usize = 60;

/// A skill's `evals/evals.json`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct EvalSet {
    /// The skill the evals are for (its frontmatter name).
    pub skill_name: String,
    /// The test cases, in order.
    pub evals: Vec<EvalCase>,
}

/// One test case.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct EvalCase {
    /// Its identity: a number or a string, unique in the set.
    pub id: EvalId,
    /// A realistic user message.
    pub prompt: String,
    /// What success looks like, for a person (and the judge).
    #[serde(default)]
    pub expected_output: String,
    /// Input files, relative to the skill's directory, copied into the run's working directory.
    #[serde(default)]
    pub files: Vec<String>,
    /// What the answer must show.
    #[serde(default)]
    pub expectations: Vec<Expectation>,
}

/// An eval's identity as written: `1` or `"top-months-chart"`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum EvalId {
    /// A number.
    Number(u64),
    /// A name.
    Name(String),
}

impl EvalId {
    /// The eval's directory in an iteration: `eval-<id>` for a number, `eval-<slug>` for a name
    /// (lower-case letters, digits and `-` only, so it is always one safe path segment).
    pub fn dir_name(&self) -> Option<String> {
        let slug = match self {
            EvalId::Number(number) => number.to_string(),
            EvalId::Name(name) => slug(name),
        };
        (!slug.is_empty()).then(|| format!("eval-{slug}"))
    }
}

impl fmt::Display for EvalId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalId::Number(number) => write!(f, "{number}"),
            EvalId::Name(name) => f.write_str(name),
        }
    }
}

/// `name` as lower-case ASCII letters and digits joined by single `-`, cut to
/// [`MAX_SLUG_CHARS`].
fn slug(name: &str) -> String {
    let mut slug = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if slug.len() == MAX_SLUG_CHARS {
                break;
            }
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') && slug.len() < MAX_SLUG_CHARS {
            slug.push('-');
        }
    }
    slug.trim_end_matches('-').to_owned()
}

/// One expectation: a statement a judge model grades, or a check done by code.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Expectation {
    /// A statement about the output, graded by a judge model.
    Judged(String),
    /// The answer contains this text.
    Contains {
        /// The text.
        contains: String,
    },
    /// The answer matches this regular expression (Rust `regex` syntax).
    Regex {
        /// The pattern.
        regex: String,
    },
    /// The answer is JSON (the whole answer, or its first fenced `json` block), and the value at
    /// this JSONPath (RFC 9535) equals `equals`.
    JsonPath {
        /// The path, e.g. `$.result`.
        json_path: String,
        /// The value expected there.
        equals: Value,
    },
    /// A script of the skill's (`evals/check.py`), run with the run's output directory as its
    /// argument: exit code 0 passes, its output is the evidence.
    Script {
        /// The script, relative to the skill's directory.
        script: String,
    },
}

impl Expectation {
    /// How the expectation reads in `grading.json`.
    pub fn text(&self) -> String {
        match self {
            Expectation::Judged(text) => text.clone(),
            Expectation::Contains { contains } => format!("the answer contains {contains:?}"),
            Expectation::Regex { regex } => format!("the answer matches /{regex}/"),
            Expectation::JsonPath { json_path, equals } => {
                format!("the answer's JSON at {json_path} equals {equals}")
            }
            Expectation::Script { script } => format!("the check {script} passes"),
        }
    }
}

/// One query of `evals/triggers.json`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[non_exhaustive]
pub struct TriggerQuery {
    /// What the user asks.
    pub query: String,
    /// Whether a model should load the skill for it.
    pub should_trigger: bool,
}

/// Reads and checks `dir/evals/evals.json`: unique, non-empty ids whose directory names differ,
/// non-empty prompts, files and scripts that are relative names inside the skill's directory,
/// regular expressions and JSONPaths that compile.
///
/// # Errors
/// [`EvalError::Spec`] naming the file and what is wrong; [`EvalError::Io`] when it cannot be
/// read.
pub(crate) fn read_evals(dir: &Path) -> Result<EvalSet, EvalError> {
    let path = dir.join("evals").join("evals.json");
    let bytes = read_bounded(&path, MAX_SPEC_BYTES)?;
    let set: EvalSet = serde_json::from_slice(&bytes).map_err(|error| EvalError::Spec {
        path: path.clone(),
        reason: format!(
            "{error}; expected {{\"skill_name\": ..., \"evals\": [{{\"id\", \"prompt\", \
             \"expected_output\", \"files\", \"expectations\"}}]}}"
        ),
    })?;
    let invalid = |reason: String| EvalError::Spec {
        path: path.clone(),
        reason,
    };
    if set.evals.is_empty() {
        return Err(invalid(
            "it lists no evals; add test cases: {\"id\": 1, \"prompt\": ..., \"expected_output\": ..., \"expectations\": [...]}"
                .to_owned(),
        ));
    }
    let mut seen = HashSet::new();
    for case in &set.evals {
        let name = case
            .id
            .dir_name()
            .ok_or_else(|| invalid(format!("eval id {:?} has no letter or digit", case.id)))?;
        if !seen.insert(name.clone()) {
            return Err(invalid(format!(
                "eval id {} is not unique (its directory would be {name})",
                case.id
            )));
        }
        if case.prompt.trim().is_empty() {
            return Err(invalid(format!("eval {} has an empty prompt", case.id)));
        }
        for file in &case.files {
            resolve_inside(dir, file)
                .map_err(|reason| invalid(format!("eval {}: file {file:?}: {reason}", case.id)))?;
        }
        for expectation in &case.expectations {
            check_expectation(dir, expectation)
                .map_err(|reason| invalid(format!("eval {}: {reason}", case.id)))?;
        }
    }
    Ok(set)
}

/// The most bytes a compiled `regex` expectation may take (patterns are the skill author's).
const MAX_REGEX_BYTES: usize = 1024 * 1024;

/// Compiles a `regex` expectation, bounded in size.
pub(crate) fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .size_limit(MAX_REGEX_BYTES)
        .dfa_size_limit(MAX_REGEX_BYTES)
        .build()
}

fn check_expectation(dir: &Path, expectation: &Expectation) -> Result<(), String> {
    match expectation {
        Expectation::Judged(text) if text.trim().is_empty() => {
            Err("an expectation is an empty string".to_owned())
        }
        Expectation::Judged(_) | Expectation::Contains { .. } => Ok(()),
        Expectation::Regex { regex } => compile(regex)
            .map(drop)
            .map_err(|error| format!("regex {regex:?} does not compile: {error}")),
        Expectation::JsonPath { json_path, .. } => serde_json_path::JsonPath::parse(json_path)
            .map(drop)
            .map_err(|error| format!("json_path {json_path:?} is not a JSONPath: {error}")),
        Expectation::Script { script } => resolve_inside(dir, script)
            .map(drop)
            .map_err(|reason| format!("script {script:?}: {reason}")),
    }
}

/// Reads `dir/evals/triggers.json` when it exists: `[{"query", "should_trigger"}]`.
///
/// # Errors
/// [`EvalError::Spec`] naming the file and what is wrong; [`EvalError::Io`] when it exists and
/// cannot be read.
pub(crate) fn read_triggers(dir: &Path) -> Result<Vec<TriggerQuery>, EvalError> {
    let path = dir.join("evals").join("triggers.json");
    if !path.exists() {
        return Ok(Vec::new());
    }
    let bytes = read_bounded(&path, MAX_SPEC_BYTES)?;
    let queries: Vec<TriggerQuery> =
        serde_json::from_slice(&bytes).map_err(|error| EvalError::Spec {
            path: path.clone(),
            reason: format!("{error}; expected [{{\"query\": ..., \"should_trigger\": true}}]"),
        })?;
    if let Some(empty) = queries.iter().position(|q| q.query.trim().is_empty()) {
        return Err(EvalError::Spec {
            path,
            reason: format!("query {} is empty", empty + 1),
        });
    }
    Ok(queries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_become_single_safe_directory_names() {
        assert_eq!(EvalId::Number(7).dir_name().unwrap(), "eval-7");
        assert_eq!(
            EvalId::Name("Top months: chart!".into())
                .dir_name()
                .unwrap(),
            "eval-top-months-chart"
        );
        assert_eq!(
            EvalId::Name("../../etc/passwd".into()).dir_name().unwrap(),
            "eval-etc-passwd"
        );
        assert_eq!(EvalId::Name("日本".into()).dir_name(), None);
        let long = EvalId::Name("a".repeat(500)).dir_name().unwrap();
        assert_eq!(long.len(), "eval-".len() + MAX_SLUG_CHARS);
    }

    #[test]
    fn expectations_of_every_kind_parse() {
        let parsed: Vec<Expectation> = serde_json::from_str(
            r#"["says hello", {"contains": "42"}, {"regex": "4\\d"},
                {"json_path": "$.a", "equals": 1}, {"script": "evals/check.py"}]"#,
        )
        .unwrap();
        assert!(matches!(parsed[0], Expectation::Judged(_)));
        assert!(matches!(parsed[1], Expectation::Contains { .. }));
        assert!(matches!(parsed[2], Expectation::Regex { .. }));
        assert!(matches!(parsed[3], Expectation::JsonPath { .. }));
        assert!(matches!(parsed[4], Expectation::Script { .. }));
    }
}
