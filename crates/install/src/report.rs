//! What the supply-chain commands report: the documents `skills add`, `install`, `update`,
//! `verify`, `outdated` and `remove` print with `--json`. They are built here, from the data this
//! crate owns, so that the command only prints them and a script reads the same facts the
//! command's lines say. Their JSON Schemas (the `schema` feature) are committed under
//! `docs/src/reference/schemas/`; a change of shape is a change of the command's stable output.

use std::path::PathBuf;

use serde::Serialize;
use skillful_manifest::ManifestDiff;

use crate::{Candidate, LockedAction, LockedPlan, Outdated, Prepared, Verified};

/// One skill a fetched source offers, as `skills add` shows it before installing: what it is,
/// how big, what it may run, and what validation and the scan say of it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Offered {
    /// The name it is installed under.
    pub name: String,
    /// The name its frontmatter gives (differs when it is not a valid name).
    pub declared_name: String,
    /// Its directory inside the source (`.` for the source's root).
    pub path: String,
    /// Its frontmatter's description.
    pub description: String,
    /// How many files it has.
    pub files: usize,
    /// Their total size in bytes.
    pub bytes: u64,
    /// vercel-labs/skills' `computedHash` of it.
    pub computed_hash: String,
    /// Its scripts and their declared risk tiers.
    pub scripts: Vec<OfferedScript>,
    /// What strict validation says (installing goes on).
    pub diagnostics: Vec<String>,
    /// The scan's most severe finding (`low` to `critical`), or `clean`.
    pub verdict: &'static str,
    /// The scan's report, as `skills scan --json` prints it but for the `suppressed` count.
    pub scan: skillful_scan::Report,
}

impl Offered {
    fn of(candidate: &Candidate) -> Self {
        Self {
            name: candidate.name.clone(),
            declared_name: candidate.declared_name.clone(),
            path: candidate.path.clone(),
            description: candidate.description.clone(),
            files: candidate.manifest.files().len(),
            bytes: candidate.manifest.total_size(),
            computed_hash: candidate.computed_hash.clone(),
            scripts: candidate
                .scripts
                .iter()
                .map(|(path, tier)| OfferedScript {
                    path: path.clone(),
                    risk: tier.as_str(),
                })
                .collect(),
            diagnostics: candidate
                .diagnostics
                .iter()
                .map(ToString::to_string)
                .collect(),
            verdict: candidate.verdict(),
            scan: candidate.report.clone(),
        }
    }
}

/// A script of an [`Offered`] skill.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OfferedScript {
    /// Its path inside the skill.
    pub path: String,
    /// Its declared risk tier.
    pub risk: &'static str,
}

/// What a fetched source offers: `skills add --list --json`, and the first part of every report
/// of an install.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Offer {
    /// The source, as the lock records it.
    pub source: String,
    /// The commit fetched (git sources).
    pub commit: Option<String>,
    /// Its skills.
    pub skills: Vec<Offered>,
}

impl Prepared {
    /// What it offers, for a report.
    pub fn offer(&self) -> Offer {
        Offer {
            source: self.source.location(),
            commit: self.commit.clone(),
            skills: self.candidates.iter().map(Offered::of).collect(),
        }
    }

    /// The skills strict validation finds fault with (a name that is not a valid one, a
    /// directory that does not match it, a field out of bounds): what `--strict` refuses.
    pub fn not_strict(&self) -> impl Iterator<Item = &Candidate> {
        self.candidates
            .iter()
            .filter(|candidate| !candidate.diagnostics.is_empty())
    }
}

/// An installed skill that an install replaces, and how its files change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Replacement {
    /// The skill.
    pub name: String,
    /// How the new files differ from the locked ones.
    pub changes: ManifestDiff,
}

/// How an install that shows what it installs and asks ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum InstallOutcome {
    /// Installed and locked.
    Installed,
    /// Refused: the scan found high or critical findings (`--allow-findings` installs anyway),
    /// or `--strict` found a skill invalid.
    Refused,
    /// The question was answered no: nothing installed.
    Declined,
    /// Nothing installed: there was no one to ask (`--json`, or no terminal) and no `--yes`.
    Unconfirmed,
}

/// One install from a fetched source: `skills add --json`, and each changed skill of
/// `skills update --json`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Installation {
    /// What was fetched.
    #[serde(flatten)]
    pub offer: Offer,
    /// The installed skills it replaces.
    pub replaces: Vec<Replacement>,
    /// How it ended.
    pub outcome: InstallOutcome,
    /// The skills installed (empty unless `outcome` is `installed`).
    pub installed: Vec<String>,
    /// The scope's skills directory.
    pub skills_dir: PathBuf,
}

/// One locked git skill as `skills update --json` reports it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SkillUpdate {
    /// The skill.
    pub name: String,
    /// The commit installed.
    pub locked: Option<String>,
    /// The commit its ref points at now.
    pub latest: Option<String>,
    /// The install of the new commit; none when it is up to date.
    pub installation: Option<Installation>,
}

/// `skills update --json`: every locked git skill asked for.
#[derive(Debug, Clone, Default, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct UpdateReport {
    /// The skills, in the lock's order.
    pub skills: Vec<SkillUpdate>,
}

/// One installed skill compared with the lock.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct VerifiedSkill {
    /// The skill.
    pub name: String,
    /// How its files compare with the lock.
    #[serde(flatten)]
    pub found: Verified,
}

/// `skills verify --json`: the skills checked and whether every one is as locked.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Verification {
    /// The lock file.
    pub lock: PathBuf,
    /// The skills checked.
    pub skills: Vec<VerifiedSkill>,
    /// Whether every skill checked is intact.
    pub intact: bool,
}

impl Verification {
    /// The report of `results` ([`Installer::verify`](crate::Installer::verify)) against `lock`.
    pub fn new(lock: PathBuf, results: Vec<(String, Verified)>) -> Self {
        let intact = results
            .iter()
            .all(|(_, found)| matches!(found, Verified::Intact));
        Self {
            lock,
            skills: results
                .into_iter()
                .map(|(name, found)| VerifiedSkill { name, found })
                .collect(),
            intact,
        }
    }
}

/// `skills outdated --json`: the locked skills whose ref has moved on.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OutdatedReport {
    /// The lock file.
    pub lock: PathBuf,
    /// The outdated skills (none when all are current).
    pub skills: Vec<Outdated>,
}

/// `skills remove --json`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Removal {
    /// The lock file.
    pub lock: PathBuf,
    /// The skills removed, in the order given.
    pub removed: Vec<String>,
}

/// One locked skill as `skills install --json` found and left it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LockedSkillReport {
    /// The skill.
    pub name: String,
    /// How its files compared with the lock before the install.
    pub found: Verified,
    /// What the install does for it.
    #[serde(flatten)]
    pub action: LockedAction,
    /// What was fetched for it (none when it was kept as it is).
    pub fetched: Option<Offer>,
}

impl LockedSkillReport {
    /// The report of `plan`.
    pub fn of(plan: &LockedPlan) -> Self {
        Self {
            name: plan.name.clone(),
            found: plan.found.clone(),
            action: plan.action.clone(),
            fetched: plan.prepared().map(Prepared::offer),
        }
    }
}

/// How `skills install` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum LockedOutcome {
    /// The installed skills match the lock.
    Done,
    /// Nothing changed: a skill to re-lock has high or critical findings
    /// (`--allow-findings` re-locks anyway), or `--strict` found it invalid.
    Refused,
}

/// `skills install --json`: every locked skill, what was done, and how it ended.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LockedReport {
    /// The lock file.
    pub lock: PathBuf,
    /// Every locked skill.
    pub skills: Vec<LockedSkillReport>,
    /// How it ended.
    pub outcome: LockedOutcome,
}

/// What [`Installer::rollback`](crate::Installer::rollback) did (`skills rollback --json`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RolledBack {
    /// The skill.
    pub name: String,
    /// The version replaced (now the newest of its history): its commit's first 12
    /// characters and its ref, or its digest's for a local source.
    pub from: String,
    /// The version restored, named the same way.
    pub to: String,
}
