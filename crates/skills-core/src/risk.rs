use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How much harm running something can do; an approval policy decides per tier whether to run it,
/// ask, or refuse.
///
/// Tiers are ordered from harmless to dangerous, so a policy can say "up to `WriteLow`".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
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
