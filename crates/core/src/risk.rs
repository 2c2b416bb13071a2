//! Risk tiers: how much harm running a script can do, and the tiers a skill declares in its
//! `metadata`.

use std::fmt;
use std::str::FromStr;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::diagnostic::Diagnostic;

/// How much harm running something can do; an approval policy decides per tier whether to run it,
/// ask, or refuse.
///
/// Tiers are ordered from harmless to dangerous, so a policy can say "up to `WriteLow`".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum RiskTier {
    /// Only reads (`read`).
    Read,
    /// Writes that are easy to undo (`write-low`).
    WriteLow,
    /// Writes that are hard to undo (`write-high`); the default for scripts.
    WriteHigh,
    /// Deletes or overwrites for good (`destructive`).
    Destructive,
}

impl RiskTier {
    /// The tier of a script that declares none.
    pub const SCRIPT_DEFAULT: RiskTier = RiskTier::WriteHigh;

    /// The tier as written in metadata: `read`, `write-low`, `write-high`, `destructive`.
    pub fn as_str(self) -> &'static str {
        match self {
            RiskTier::Read => "read",
            RiskTier::WriteLow => "write-low",
            RiskTier::WriteHigh => "write-high",
            RiskTier::Destructive => "destructive",
        }
    }
}

impl fmt::Display for RiskTier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tier name that is not one of `read`, `write-low`, `write-high`, `destructive`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown risk tier `{0}`; use read, write-low, write-high or destructive")]
pub struct UnknownRiskTier(pub String);

impl FromStr for RiskTier {
    type Err = UnknownRiskTier;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim() {
            "read" => Ok(RiskTier::Read),
            "write-low" => Ok(RiskTier::WriteLow),
            "write-high" => Ok(RiskTier::WriteHigh),
            "destructive" => Ok(RiskTier::Destructive),
            other => Err(UnknownRiskTier(other.to_owned())),
        }
    }
}

/// The `metadata` key that declares the tier of all of a skill's scripts: `risk: read`.
pub const RISK_KEY: &str = "risk";

/// The prefix of a `metadata` key that declares the tier of one script, followed by the script's
/// name exactly as listed: `risk.scripts/convert.py: read`.
pub const SCRIPT_RISK_PREFIX: &str = "risk.";

/// The risk tiers a skill declares in its `metadata` (a flat map of strings, as the
/// specification defines it):
///
/// ```yaml
/// metadata:
///   risk: write-low                  # every script of the skill
///   risk.scripts/convert.py: read    # this one script (the name exactly as listed)
/// ```
///
/// A script's tier is its own declaration, else the skill's, else
/// [`RiskTier::SCRIPT_DEFAULT`]. Keys are matched exactly (lowercase `risk`); values are
/// `read`, `write-low`, `write-high` or `destructive`.
///
/// # Example
/// ```
/// use indexmap::IndexMap;
/// use skillful_core::{DeclaredRisk, RiskTier};
///
/// let mut metadata = IndexMap::new();
/// metadata.insert("risk".to_owned(), "write-low".to_owned());
/// metadata.insert("risk.scripts/convert.py".to_owned(), "read".to_owned());
/// metadata.insert("risk.scripts/wipe.sh".to_owned(), "everything".to_owned());
/// let (declared, warnings) = DeclaredRisk::from_metadata(&metadata);
/// assert_eq!(declared.skill(), Some(RiskTier::WriteLow));
/// assert_eq!(declared.script("scripts/convert.py"), RiskTier::Read);
/// assert_eq!(declared.script("scripts/other.py"), RiskTier::WriteLow);
/// assert_eq!(warnings[0].field, "metadata.risk.scripts/wipe.sh");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeclaredRisk {
    skill: Option<RiskTier>,
    scripts: IndexMap<String, RiskTier>,
}

impl DeclaredRisk {
    /// Reads the tiers declared in `metadata`, with a warning for every value that is not a tier
    /// and every `risk.` key that names no script; those declarations are ignored.
    pub fn from_metadata(metadata: &IndexMap<String, String>) -> (Self, Vec<Diagnostic>) {
        let mut declared = Self::default();
        let mut warnings = Vec::new();
        for (key, value) in metadata {
            let script = match key.strip_prefix(SCRIPT_RISK_PREFIX) {
                Some(script) => Some(script),
                None if key == RISK_KEY => None,
                None => continue,
            };
            if script.is_some_and(|name| name.trim().is_empty()) {
                warnings.push(Diagnostic::warning(
                    format!("metadata.{key}"),
                    format!(
                        "`{key}` names no script; write the script's name after `{SCRIPT_RISK_PREFIX}`, e.g. `{SCRIPT_RISK_PREFIX}scripts/convert.py`"
                    ),
                ));
                continue;
            }
            match (value.parse::<RiskTier>(), script) {
                (Ok(tier), None) => declared.skill = Some(tier),
                (Ok(tier), Some(script)) => {
                    declared.scripts.insert(script.to_owned(), tier);
                }
                (Err(error), _) => warnings.push(Diagnostic::warning(
                    format!("metadata.{key}"),
                    error.to_string(),
                )),
            }
        }
        (declared, warnings)
    }

    /// The tiers `metadata` declares for a skill whose scripts are `scripts`: the one decision
    /// every source makes on bad risk metadata. A value that is not a tier, and a `risk.` key
    /// naming no script of the skill, is a warning and the declaration is ignored (the skill
    /// still loads; the skill's other tiers or [`RiskTier::SCRIPT_DEFAULT`] apply).
    pub fn for_scripts<'a>(
        metadata: &IndexMap<String, String>,
        scripts: impl IntoIterator<Item = &'a str>,
    ) -> (Self, Vec<Diagnostic>) {
        let (mut declared, warnings) = Self::from_metadata(metadata);
        let mut diagnostics: Vec<Diagnostic> = warnings
            .into_iter()
            .map(|warning| {
                let message = format!(
                    "{}; the declaration is ignored, so the skill's other tiers or the default ({}) apply",
                    warning.message,
                    RiskTier::SCRIPT_DEFAULT
                );
                Diagnostic::warning(warning.field, message)
            })
            .collect();
        let scripts: Vec<&str> = scripts.into_iter().collect();
        declared.scripts.retain(|name, _| {
            let known = scripts.contains(&name.as_str());
            if !known {
                diagnostics.push(Diagnostic::warning(
                    format!("metadata.{SCRIPT_RISK_PREFIX}{name}"),
                    format!(
                        "a risk tier is declared for `{name}`, which is not one of the skill's scripts; use a script name exactly as `skills list --json` lists it"
                    ),
                ));
            }
            known
        });
        (declared, diagnostics)
    }

    /// The tier declared for the whole skill (`risk`), if any.
    pub fn skill(&self) -> Option<RiskTier> {
        self.skill
    }

    /// The tier of the script called `name`: its own declaration, else the skill's, else
    /// [`RiskTier::SCRIPT_DEFAULT`].
    pub fn script(&self, name: &str) -> RiskTier {
        self.scripts
            .get(name)
            .copied()
            .or(self.skill)
            .unwrap_or(RiskTier::SCRIPT_DEFAULT)
    }

    /// The names of the scripts that declare a tier of their own, in `metadata` order.
    pub fn script_names(&self) -> impl Iterator<Item = &str> {
        self.scripts.keys().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(pairs: &[(&str, &str)]) -> IndexMap<String, String> {
        pairs
            .iter()
            .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn nothing_declared_gives_the_script_default_and_no_skill_tier() {
        let (declared, warnings) =
            DeclaredRisk::from_metadata(&metadata(&[("author", "x"), ("riskiness", "read")]));
        assert_eq!(declared.skill(), None);
        assert_eq!(declared.script("scripts/a.py"), RiskTier::WriteHigh);
        assert!(warnings.is_empty());
    }

    #[test]
    fn a_script_declaration_wins_over_the_skill_declaration() {
        let (declared, warnings) = DeclaredRisk::from_metadata(&metadata(&[
            ("risk.scripts/wipe.sh", "destructive"),
            ("risk", "read"),
        ]));
        assert_eq!(declared.skill(), Some(RiskTier::Read));
        assert_eq!(declared.script("scripts/wipe.sh"), RiskTier::Destructive);
        assert_eq!(declared.script("scripts/list.sh"), RiskTier::Read);
        assert_eq!(
            declared.script_names().collect::<Vec<_>>(),
            ["scripts/wipe.sh"]
        );
        assert!(warnings.is_empty());
    }

    #[test]
    fn unknown_values_and_nameless_keys_warn_and_are_ignored() {
        let (declared, warnings) = DeclaredRisk::from_metadata(&metadata(&[
            ("risk", "harmless"),
            ("risk.scripts/a.py", "READ"),
            ("risk.", "read"),
        ]));
        assert_eq!(declared, DeclaredRisk::default());
        let fields: Vec<&str> = warnings.iter().map(|w| w.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "metadata.risk",
                "metadata.risk.scripts/a.py",
                "metadata.risk."
            ]
        );
        assert!(warnings[0].message.contains("unknown risk tier `harmless`"));
        assert!(warnings[2].message.contains("names no script"));
        assert!(warnings.iter().all(|w| !w.is_error()));
    }
}
