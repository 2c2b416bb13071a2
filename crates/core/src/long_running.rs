//! Which scripts of a skill say they run long: the `metadata` key `long-running`. A call of such
//! a script is a task from its start (the provider's tasks: the call answers with the task's id
//! at once and the script goes on); other scripts become one only when still running after the
//! provider's threshold.
//!
//! ```yaml
//! metadata:
//!   long-running: "true"                              # every script of the skill
//!   long-running: "scripts/train.py; scripts/sync.sh"  # these scripts
//! ```
//!
//! It is a claim about time only: a task keeps the sandbox, the limits, the approval and the
//! audit of its script.

use indexmap::IndexMap;

use crate::lifecycle::{LONG_RUNNING_KEY, LifecycleError, parse_phrases};

/// What a skill's `metadata.long-running` declares.
///
/// # Example
/// ```
/// use indexmap::IndexMap;
/// use skillful_core::LongRunning;
///
/// let mut metadata = IndexMap::new();
/// metadata.insert("long-running".to_owned(), "scripts/train.py; scripts/sync.sh".to_owned());
/// let declared = LongRunning::from_metadata("trainer", &metadata).unwrap();
/// assert!(declared.covers("scripts/train.py"));
/// assert!(!declared.covers("scripts/plot.py"));
/// metadata.insert("long-running".to_owned(), "true".to_owned());
/// assert!(LongRunning::from_metadata("trainer", &metadata).unwrap().covers("scripts/plot.py"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum LongRunning {
    /// Nothing declared (or `"false"`).
    #[default]
    None,
    /// `"true"`: every script of the skill.
    All,
    /// The scripts named (phrases separated by `;` or line breaks, or a JSON array).
    Scripts(Vec<String>),
}

impl LongRunning {
    /// What `metadata` declares for the skill `skill`.
    ///
    /// # Errors
    /// The value is empty, or a JSON array of something other than strings: a
    /// [`LifecycleError`] naming the skill and the key.
    pub fn from_metadata(
        skill: &str,
        metadata: &IndexMap<String, String>,
    ) -> Result<Self, LifecycleError> {
        let Some(value) = metadata.get(LONG_RUNNING_KEY) else {
            return Ok(Self::None);
        };
        match value.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" => Ok(Self::All),
            "false" | "no" => Ok(Self::None),
            _ => parse_phrases(skill, LONG_RUNNING_KEY, value).map(Self::Scripts),
        }
    }

    /// Whether the script named `script` is declared long-running.
    pub fn covers(&self, script: &str) -> bool {
        match self {
            Self::None => false,
            Self::All => true,
            Self::Scripts(scripts) => scripts.iter().any(|name| name == script),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(value: &str) -> Result<LongRunning, LifecycleError> {
        let mut metadata = IndexMap::new();
        metadata.insert(LONG_RUNNING_KEY.to_owned(), value.to_owned());
        LongRunning::from_metadata("trainer", &metadata)
    }

    #[test]
    fn true_false_and_script_lists_are_read() {
        assert_eq!(declared(" True ").unwrap(), LongRunning::All);
        assert_eq!(declared("false").unwrap(), LongRunning::None);
        assert_eq!(
            declared(r#"["scripts/a.py", "scripts/b.sh"]"#).unwrap(),
            LongRunning::Scripts(vec!["scripts/a.py".into(), "scripts/b.sh".into()])
        );
        assert!(
            declared("scripts/a.py\nscripts/b.sh")
                .unwrap()
                .covers("scripts/b.sh")
        );
        assert!(!LongRunning::None.covers("scripts/a.py"));
    }

    #[test]
    fn an_empty_or_malformed_value_is_an_error_naming_the_key() {
        for value in [" ", "[1, 2]"] {
            let error = declared(value).unwrap_err();
            assert_eq!(error.key(), LONG_RUNNING_KEY, "{value:?}");
            assert!(error.to_string().contains("trainer"), "{error}");
        }
    }
}
