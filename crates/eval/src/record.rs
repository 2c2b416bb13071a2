//! The user's record of evaluations: one summary per evaluation of a skill, by the digest of its
//! `SKILL.md`, kept in the state directory whatever workspace the evaluation wrote to, so that
//! `skills list` can say when a skill last passed and `skills stale` which regressed.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use skillful_state::Dirs;

use crate::benchmark::Benchmark;
use crate::error::EvalError;
use crate::evaluate::SkillUnderTest;

/// The file in the state directory.
pub const EVAL_RECORD_FILE: &str = "eval-record.jsonl";

/// The most summaries kept (the oldest go first).
pub const MAX_EVAL_SUMMARIES: usize = 10_000;

/// The least pass rate with the skill for an evaluation to pass.
pub const PASSING_RATE: f64 = 0.5;

/// The largest record file read.
const MAX_RECORD_BYTES: u64 = 64 << 20;

/// One evaluation of one skill, summed up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct EvalSummary {
    /// When it finished (RFC 3339, UTC).
    pub time: String,
    /// The skill's name.
    pub skill: String,
    /// The sha256 of the skill's `SKILL.md` when it was evaluated (what the audit log names it
    /// by too).
    pub digest: Option<String>,
    /// The model.
    pub model: Option<String>,
    /// `guided` or `tools`.
    pub mode: String,
    /// Runs of each eval in each configuration.
    pub runs: u32,
    /// The mean pass rate with the skill (`None`: no run graded anything).
    pub pass_rate: Option<f64>,
    /// The mean pass rate without it.
    pub baseline: Option<f64>,
    /// Whether it passed: a pass rate with the skill of at least [`PASSING_RATE`] and no lower
    /// than without it.
    pub passed: bool,
}

impl EvalSummary {
    /// The summary of `benchmark`, an evaluation of `skill`, finished now.
    pub fn of(benchmark: &Benchmark, skill: &SkillUnderTest) -> Self {
        let summary = &benchmark.run_summary;
        let pass_rate = summary.with_skill.pass_rate.map(|stat| stat.mean);
        let baseline = summary.without_skill.pass_rate.map(|stat| stat.mean);
        let passed = pass_rate.is_some_and(|rate| {
            rate >= PASSING_RATE && baseline.is_none_or(|baseline| rate >= baseline)
        });
        let digest = skillful_fs::sha256_file(&skill.dir().join("SKILL.md"), MAX_RECORD_BYTES)
            .ok()
            .flatten()
            .map(|digest| digest.sha256);
        Self {
            time: jiff::Timestamp::now()
                .round(jiff::Unit::Second)
                .map_or_else(
                    |_| jiff::Timestamp::now().to_string(),
                    |time| time.to_string(),
                ),
            skill: benchmark.metadata.skill_name.clone(),
            digest,
            model: benchmark.metadata.executor_model.clone(),
            mode: benchmark.metadata.mode.clone(),
            runs: benchmark.metadata.runs_per_configuration,
            pass_rate,
            baseline,
            passed,
        }
    }
}

/// The user's record of evaluations ([`EVAL_RECORD_FILE`], one JSON line per evaluation, mode
/// 0600 in the private state directory).
#[derive(Debug, Clone)]
pub struct EvalRecord {
    path: PathBuf,
}

impl EvalRecord {
    /// The user's record, in the per-user state directory.
    ///
    /// # Errors
    /// [`EvalError::Files`] when there is no home directory.
    pub fn per_user() -> Result<Self, EvalError> {
        Ok(Self::at(Dirs::per_user()?.state().join(EVAL_RECORD_FILE)))
    }

    /// The record in the file `path`.
    pub fn at(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// Its file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every summary, oldest first (none when the file does not exist); a line that is not a
    /// summary (another version's, or cut short) is left out.
    ///
    /// # Errors
    /// [`EvalError::Files`] when the file cannot be read safely.
    pub fn summaries(&self) -> Result<Vec<EvalSummary>, EvalError> {
        let Some(bytes) = skillful_state::read_private(&self.path, MAX_RECORD_BYTES)? else {
            return Ok(Vec::new());
        };
        Ok(bytes
            .split(|byte| *byte == b'\n')
            .filter_map(|line| serde_json::from_slice(line).ok())
            .collect())
    }

    /// The summaries of `skill`, oldest first.
    ///
    /// # Errors
    /// As [`EvalRecord::summaries`].
    pub fn of_skill(&self, skill: &str) -> Result<Vec<EvalSummary>, EvalError> {
        let mut summaries = self.summaries()?;
        summaries.retain(|summary| summary.skill == skill);
        Ok(summaries)
    }

    /// Adds `summary` (the oldest are dropped past [`MAX_EVAL_SUMMARIES`]); the file is
    /// rewritten whole, atomically.
    ///
    /// # Errors
    /// [`EvalError::Files`] when the file cannot be read or written safely.
    pub fn append(&self, summary: &EvalSummary) -> Result<(), EvalError> {
        let mut summaries = self.summaries()?;
        summaries.push(summary.clone());
        let skip = summaries.len().saturating_sub(MAX_EVAL_SUMMARIES);
        let mut text = String::new();
        for summary in &summaries[skip..] {
            text.push_str(&serde_json::to_string(summary).expect("a summary serializes"));
            text.push('\n');
        }
        if let Some(dir) = self.path.parent() {
            skillful_state::private_dir(dir)?;
        }
        skillful_state::write_private(&self.path, text.as_bytes())?;
        Ok(())
    }
}

/// The newest summary of each skill that regressed: its pass rate with the skill is lower than
/// the evaluation's before it, or it passed before and does not now.
pub fn regressions(summaries: &[EvalSummary]) -> Vec<(&EvalSummary, &EvalSummary)> {
    let mut skills: Vec<&str> = summaries.iter().map(|s| s.skill.as_str()).collect();
    skills.sort_unstable();
    skills.dedup();
    skills
        .into_iter()
        .filter_map(|skill| {
            let mut of_skill = summaries.iter().filter(|s| s.skill == skill).rev();
            let (last, before) = (of_skill.next()?, of_skill.next()?);
            let lower =
                matches!((last.pass_rate, before.pass_rate), (Some(now), Some(then)) if now < then);
            (lower || (before.passed && !last.passed)).then_some((before, last))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(skill: &str, pass_rate: f64, passed: bool) -> EvalSummary {
        EvalSummary {
            time: "2026-12-07T10:00:00Z".to_owned(),
            skill: skill.to_owned(),
            digest: None,
            model: None,
            mode: "guided".to_owned(),
            runs: 1,
            pass_rate: Some(pass_rate),
            baseline: Some(0.0),
            passed,
        }
    }

    #[test]
    fn summaries_are_kept_in_order_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let record = EvalRecord::at(dir.path().join("state/eval-record.jsonl"));
        assert!(record.summaries().unwrap().is_empty());
        record.append(&summary("a", 0.5, true)).unwrap();
        record.append(&summary("b", 1.0, true)).unwrap();
        record.append(&summary("a", 0.75, true)).unwrap();
        let rates: Vec<f64> = record
            .of_skill("a")
            .unwrap()
            .iter()
            .filter_map(|s| s.pass_rate)
            .collect();
        assert_eq!(rates, [0.5, 0.75]);
    }

    #[test]
    fn a_lower_pass_rate_than_the_evaluation_before_is_a_regression() {
        let summaries = [
            summary("steady", 0.8, true),
            summary("falling", 0.9, true),
            summary("steady", 0.8, true),
            summary("falling", 0.6, true),
            summary("once", 0.2, false),
        ];
        let regressed: Vec<(&str, f64, f64)> = regressions(&summaries)
            .into_iter()
            .map(|(before, last)| {
                (
                    last.skill.as_str(),
                    before.pass_rate.unwrap(),
                    last.pass_rate.unwrap(),
                )
            })
            .collect();
        assert_eq!(regressed, [("falling", 0.9, 0.6)]);
    }
}
