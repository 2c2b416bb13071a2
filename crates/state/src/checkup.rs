//! What `skills doctor` reports: a list of checks of this machine and of skillful's own state,
//! each with how it came out. The checks ask several crates (the sandbox, the trust store, the
//! engine); the report's shape lives here, beside [`PathState`](crate::PathState), whose
//! inspections are most of it, so that the command only prints it: as lines, or as one JSON
//! document with `--json` (its JSON Schema, the `schema` feature, is committed under
//! `docs/src/reference/schemas/`).

use serde::Serialize;

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum CheckStatus {
    /// As it should be.
    Ok,
    /// Worth knowing; nothing to do.
    Notice,
    /// Something works less well than it could (the sandbox missing, a file others may read).
    Warning,
    /// Another user could plant or replace skillful's state: the command exits 1.
    Unsafe,
}

/// A line under a [`Check`] (the trusted directories counted, one that trusts too much).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CheckDetail {
    /// How it came out.
    pub status: CheckStatus,
    /// What it says.
    pub message: String,
}

/// One check: what was looked at, where, and what was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Check {
    /// What was checked (`landlock`, `config directory`, `git`).
    pub topic: String,
    /// The file or directory looked at, when it is one.
    pub path: Option<String>,
    /// How it came out.
    pub status: CheckStatus,
    /// What was found.
    pub message: String,
    /// What was found inside it.
    pub details: Vec<CheckDetail>,
}

/// The whole report: every check, in the order they ran.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Checkup {
    /// The checks.
    pub checks: Vec<Check>,
}

impl Checkup {
    /// How many checks and details are [`CheckStatus::Unsafe`].
    pub fn unsafe_count(&self) -> usize {
        self.checks
            .iter()
            .map(|check| {
                usize::from(check.status == CheckStatus::Unsafe)
                    + check
                        .details
                        .iter()
                        .filter(|detail| detail.status == CheckStatus::Unsafe)
                        .count()
            })
            .sum()
    }
}
