//! What a skill says of its own life in its `metadata`: its version, its owner, its domain, and
//! the requests it is for and not for (triggers and anti-triggers).
//!
//! The open format allows only text values in `metadata`, so a list of phrases is one text: the
//! phrases separated by semicolons or line breaks (a YAML block scalar), or a JSON array of
//! strings (what a YAML list, which the format does not allow, is kept as).
//!
//! ```yaml
//! metadata:
//!   version: 1.4.0
//!   owner: data-platform@example.com
//!   domain: finance
//!   triggers: monthly loan payment; amortisation schedule
//!   anti-triggers: mortgage advice; credit score
//! ```
//!
//! An anti-trigger is a promise the runtime keeps: a request that holds one of the skill's
//! anti-trigger phrases is never matched to it (activation, the guided selection).

use indexmap::IndexMap;
use serde::Serialize;

/// The `metadata` key of the skill's version (`1.4.0`).
pub const VERSION_KEY: &str = "version";
/// The `metadata` key of who answers for the skill (a team, a person, an address).
pub const OWNER_KEY: &str = "owner";
/// The key the open format's own example names the author by: the owner when `owner` is not
/// given.
pub const AUTHOR_KEY: &str = "author";
/// The `metadata` key of the domain the skill belongs to (`finance`, `travel`).
pub const DOMAIN_KEY: &str = "domain";
/// The `metadata` key of the phrases of requests the skill is for.
pub const TRIGGERS_KEY: &str = "triggers";
/// The `metadata` key of the phrases of requests the skill is not for.
pub const ANTI_TRIGGERS_KEY: &str = "anti-triggers";
/// The `metadata` key naming a skill's long-running scripts (read as a [`LongRunning`]).
///
/// [`LongRunning`]: crate::LongRunning
pub const LONG_RUNNING_KEY: &str = "long-running";

/// The most characters of a version, a domain or one phrase.
pub const MAX_LIFECYCLE_CHARS: usize = 200;

/// A skill's lifecycle metadata (see the module documentation); each field empty when not
/// declared or not valid (a [`LifecycleError`] says why).
///
/// # Example
/// ```
/// use indexmap::IndexMap;
/// use skillful_core::Lifecycle;
///
/// let mut metadata = IndexMap::new();
/// metadata.insert("version".to_owned(), "1.4.0".to_owned());
/// metadata.insert("anti-triggers".to_owned(), "mortgage advice; credit score".to_owned());
/// let (lifecycle, errors) = Lifecycle::from_metadata("loan-payment", &metadata);
/// assert!(errors.is_empty());
/// assert_eq!(lifecycle.version.as_deref(), Some("1.4.0"));
/// assert_eq!(lifecycle.anti_triggers, ["mortgage advice", "credit score"]);
/// assert_eq!(lifecycle.excluded_by("Any MORTGAGE  advice for me?"), Some("mortgage advice"));
/// assert_eq!(lifecycle.excluded_by("Monthly payment of a 10,000 loan?"), None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct Lifecycle {
    /// `metadata.version`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// `metadata.owner`, else `metadata.author`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// `metadata.domain`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// `metadata.triggers`: phrases of requests the skill is for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub triggers: Vec<String>,
    /// `metadata.anti-triggers`: phrases of requests the skill is not for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub anti_triggers: Vec<String>,
}

/// Why a lifecycle key of a skill's `metadata` was not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LifecycleError {
    /// A key with no value.
    #[error("skill '{skill}': metadata.{key}: empty; remove the key or give it a value")]
    Empty {
        /// The skill's name.
        skill: String,
        /// The key.
        key: &'static str,
    },
    /// A value on several lines where one is expected.
    #[error("skill '{skill}': metadata.{key}: must be one line")]
    MultiLine {
        /// The skill's name.
        skill: String,
        /// The key.
        key: &'static str,
    },
    /// A value, or one phrase, longer than [`MAX_LIFECYCLE_CHARS`].
    #[error(
        "skill '{skill}': metadata.{key}: longer than {MAX_LIFECYCLE_CHARS} characters; shorten it"
    )]
    TooLong {
        /// The skill's name.
        skill: String,
        /// The key.
        key: &'static str,
    },
    /// A version with spaces or other characters versions do not have.
    #[error(
        "skill '{skill}': metadata.version: `{version}` is not a version; write one such as \
         `1.4.0` (letters, digits, `.`, `-`, `+`)"
    )]
    BadVersion {
        /// The skill's name.
        skill: String,
        /// The version as written.
        version: String,
    },
    /// A list of phrases written as a JSON array that does not hold only strings.
    #[error(
        "skill '{skill}': metadata.{key}: not a list of {}; separate them with `;` (`{}`)",
        listed(key).0,
        listed(key).1
    )]
    BadPhrases {
        /// The skill's name.
        skill: String,
        /// The key.
        key: &'static str,
    },
}

/// What the list `key` holds, and an example of one.
fn listed(key: &str) -> (&'static str, &'static str) {
    if key == LONG_RUNNING_KEY {
        ("script names", "scripts/train.py; scripts/sync.sh")
    } else {
        ("phrases", "loan payment; amortisation")
    }
}

impl LifecycleError {
    /// The `metadata` key it is about.
    pub fn key(&self) -> &'static str {
        match self {
            Self::Empty { key, .. }
            | Self::MultiLine { key, .. }
            | Self::TooLong { key, .. }
            | Self::BadPhrases { key, .. } => key,
            Self::BadVersion { .. } => VERSION_KEY,
        }
    }
}

impl Lifecycle {
    /// The lifecycle `metadata` of the skill `skill` declares, and an error for each key that
    /// could not be taken (that field is then left empty).
    pub fn from_metadata(
        skill: &str,
        metadata: &IndexMap<String, String>,
    ) -> (Self, Vec<LifecycleError>) {
        let mut lifecycle = Self::default();
        let mut errors = Vec::new();
        let mut one_line = |key: &'static str| -> Option<String> {
            let value = metadata.get(key)?.trim();
            let error = if value.is_empty() {
                LifecycleError::Empty {
                    skill: skill.to_owned(),
                    key,
                }
            } else if value.contains(['\n', '\r']) {
                LifecycleError::MultiLine {
                    skill: skill.to_owned(),
                    key,
                }
            } else if value.chars().count() > MAX_LIFECYCLE_CHARS {
                LifecycleError::TooLong {
                    skill: skill.to_owned(),
                    key,
                }
            } else {
                return Some(value.to_owned());
            };
            errors.push(error);
            None
        };
        lifecycle.version = one_line(VERSION_KEY);
        lifecycle.owner = if metadata.contains_key(OWNER_KEY) {
            one_line(OWNER_KEY)
        } else {
            one_line(AUTHOR_KEY)
        };
        lifecycle.domain = one_line(DOMAIN_KEY);
        if let Some(version) = lifecycle.version.take() {
            if version
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'))
            {
                lifecycle.version = Some(version);
            } else {
                errors.push(LifecycleError::BadVersion {
                    skill: skill.to_owned(),
                    version,
                });
            }
        }
        for (key, phrases) in [
            (TRIGGERS_KEY, &mut lifecycle.triggers),
            (ANTI_TRIGGERS_KEY, &mut lifecycle.anti_triggers),
        ] {
            if let Some(value) = metadata.get(key) {
                match parse_phrases(skill, key, value) {
                    Ok(parsed) => *phrases = parsed,
                    Err(error) => errors.push(error),
                }
            }
        }
        (lifecycle, errors)
    }

    /// The first anti-trigger phrase `request` holds (compared without case, on whole words,
    /// with runs of spaces and punctuation as one space); `None` when it holds none.
    pub fn excluded_by(&self, request: &str) -> Option<&str> {
        let request = format!(" {} ", normalized(request));
        self.anti_triggers
            .iter()
            .find(|phrase| {
                let phrase = normalized(phrase);
                !phrase.is_empty() && request.contains(&format!(" {phrase} "))
            })
            .map(String::as_str)
    }
}

/// The phrases of `value`: a JSON array of strings, or phrases separated by `;` or line breaks.
pub(crate) fn parse_phrases(
    skill: &str,
    key: &'static str,
    value: &str,
) -> Result<Vec<String>, LifecycleError> {
    let value = value.trim();
    let phrases: Vec<String> = if value.starts_with('[') {
        serde_json::from_str::<Vec<String>>(value).map_err(|_| LifecycleError::BadPhrases {
            skill: skill.to_owned(),
            key,
        })?
    } else {
        value.split([';', '\n', '\r']).map(str::to_owned).collect()
    };
    let phrases: Vec<String> = phrases
        .iter()
        .map(|phrase| phrase.trim().to_owned())
        .filter(|phrase| !phrase.is_empty())
        .collect();
    if phrases.is_empty() {
        return Err(LifecycleError::Empty {
            skill: skill.to_owned(),
            key,
        });
    }
    if phrases
        .iter()
        .any(|phrase| phrase.chars().count() > MAX_LIFECYCLE_CHARS)
    {
        return Err(LifecycleError::TooLong {
            skill: skill.to_owned(),
            key,
        });
    }
    Ok(phrases)
}

/// `text` in lower case, its words separated by single spaces (anything not a letter or digit
/// separates words).
fn normalized(text: &str) -> String {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(pairs: &[(&str, &str)]) -> (Lifecycle, Vec<LifecycleError>) {
        let metadata = pairs
            .iter()
            .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
            .collect();
        Lifecycle::from_metadata("demo", &metadata)
    }

    #[test]
    fn every_key_is_read_and_phrases_are_split_as_written() {
        let (lifecycle, errors) = declared(&[
            ("version", "2.0.1-rc.1"),
            ("owner", "Data Platform <data@example.com>"),
            ("domain", "finance"),
            ("triggers", "loan payment\namortisation schedule\n"),
            ("anti-triggers", r#"["mortgage advice", "credit score"]"#),
        ]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(lifecycle.version.as_deref(), Some("2.0.1-rc.1"));
        assert_eq!(
            lifecycle.owner.as_deref(),
            Some("Data Platform <data@example.com>")
        );
        assert_eq!(lifecycle.domain.as_deref(), Some("finance"));
        assert_eq!(
            lifecycle.triggers,
            ["loan payment", "amortisation schedule"]
        );
        assert_eq!(lifecycle.anti_triggers, ["mortgage advice", "credit score"]);
        assert_eq!(declared(&[]).0, Lifecycle::default());
        // The open format's example says `author`; `owner` wins when both are given.
        let (by_author, _) = declared(&[("author", "skillful")]);
        assert_eq!(by_author.owner.as_deref(), Some("skillful"));
        let (both, _) = declared(&[("author", "a"), ("owner", "b")]);
        assert_eq!(both.owner.as_deref(), Some("b"));
    }

    #[test]
    fn a_key_that_cannot_be_taken_is_an_error_naming_it_and_is_left_empty() {
        let (lifecycle, errors) = declared(&[
            ("version", "one point two"),
            ("owner", " "),
            ("domain", "finance\ntravel"),
            ("anti-triggers", "[1, 2]"),
        ]);
        assert_eq!(lifecycle, Lifecycle::default());
        let keys: Vec<&str> = errors.iter().map(LifecycleError::key).collect();
        assert_eq!(keys, ["owner", "domain", "version", "anti-triggers"]);
        assert!(
            errors[2]
                .to_string()
                .contains("`one point two` is not a version")
        );
        let long = "x".repeat(MAX_LIFECYCLE_CHARS + 1);
        let (_, errors) = declared(&[("triggers", &format!("fine; {long}"))]);
        assert!(matches!(
            errors[..],
            [LifecycleError::TooLong {
                key: "triggers",
                ..
            }]
        ));
    }

    #[test]
    fn an_anti_trigger_matches_whole_words_whatever_the_case_and_spacing() {
        let (lifecycle, _) = declared(&[("anti-triggers", "credit score; tax")]);
        assert_eq!(
            lifecycle.excluded_by("What is my Credit-Score?"),
            Some("credit score")
        );
        assert_eq!(lifecycle.excluded_by("tax rates"), Some("tax"));
        // Part of a word is not the word.
        assert_eq!(lifecycle.excluded_by("a taxi to the airport"), None);
        assert_eq!(lifecycle.excluded_by("credit scores"), None);
    }
}
