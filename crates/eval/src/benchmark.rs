//! What an evaluation writes, reports and reads back: `timing.json`, `grading.json` and `benchmark.json`
//! as the agentskills.io guide lays them out (with a few more fields), and the statistics
//! behind them.

use serde::{Deserialize, Serialize};

use crate::grade::Graded;
use crate::spec::{EvalId, TriggerQuery};

/// `timing.json` of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Timing {
    /// Prompt and completion tokens over the run's model calls, as the server reported them.
    pub total_tokens: u64,
    /// Wall-clock time of the run, in milliseconds.
    pub duration_ms: u64,
}

/// The `summary` of `grading.json`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GradingSummary {
    /// Expectations that passed.
    pub passed: usize,
    /// Expectations that failed.
    pub failed: usize,
    /// Graded expectations (`passed + failed`).
    pub total: usize,
    /// `passed / total`; `None` when nothing was graded.
    pub pass_rate: Option<f64>,
    /// Expectations no judge could grade (not in `total`).
    pub ungraded: usize,
}

impl GradingSummary {
    /// The summary of `expectations`.
    pub fn of(expectations: &[Graded]) -> Self {
        let passed = expectations
            .iter()
            .filter(|e| e.passed == Some(true))
            .count();
        let failed = expectations
            .iter()
            .filter(|e| e.passed == Some(false))
            .count();
        let total = passed + failed;
        Self {
            passed,
            failed,
            total,
            pass_rate: (total > 0).then(|| passed as f64 / total as f64),
            ungraded: expectations.len() - total,
        }
    }
}

/// `grading.json` of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Grading {
    /// Each expectation with its verdict and evidence.
    pub expectations: Vec<Graded>,
    /// The counts.
    pub summary: GradingSummary,
}

/// With or without the skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Configuration {
    /// The skill offered through the provider.
    WithSkill,
    /// No skills offered.
    WithoutSkill,
}

impl Configuration {
    /// Both, in the order they run.
    pub const BOTH: [Configuration; 2] = [Configuration::WithSkill, Configuration::WithoutSkill];

    /// The directory name and JSON name: `with_skill`, `without_skill`.
    pub fn name(self) -> &'static str {
        match self {
            Configuration::WithSkill => "with_skill",
            Configuration::WithoutSkill => "without_skill",
        }
    }
}

/// The numbers of one run, as `benchmark.json`'s `runs[].result`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct RunResult {
    /// As in `grading.json`; `None` for a run that ended with an error (see `errors`).
    pub pass_rate: Option<f64>,
    /// Expectations passed.
    pub passed: usize,
    /// Expectations failed.
    pub failed: usize,
    /// Expectations graded.
    pub total: usize,
    /// Expectations not graded.
    pub ungraded: usize,
    /// Wall-clock seconds.
    pub time_seconds: f64,
    /// Tokens.
    pub tokens: u64,
    /// Of those, the prompts' (0 in benchmarks written before they were counted apart).
    #[serde(default)]
    pub tokens_in: u64,
    /// And the completions'.
    #[serde(default)]
    pub tokens_out: u64,
    /// Tool calls the model made (structured or written as text and recovered).
    pub tool_calls: usize,
    /// Of those, the ones that failed: an unknown skill, resource or script, bad arguments, a
    /// script that failed, or a call refused.
    pub failed_tool_calls: usize,
    /// Whether the model loaded the skill under evaluation.
    pub skill_loaded: bool,
    /// 1 when the run ended with an error (the model server failed or timed out), else 0.
    pub errors: usize,
}

/// One run in `benchmark.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct RunRecord {
    /// The eval's id.
    pub eval_id: EvalId,
    /// The eval's directory name (`eval-1`).
    pub eval_name: String,
    /// With or without the skill.
    pub configuration: Configuration,
    /// 1-based.
    pub run_number: u32,
    /// The seed sent with every model call of the run, if any.
    pub seed: Option<u64>,
    /// The numbers.
    pub result: RunResult,
    /// The graded expectations.
    pub expectations: Vec<Graded>,
    /// Why the run ended early, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A mean and a sample standard deviation (0 for fewer than two values).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct Stat {
    /// The mean.
    pub mean: f64,
    /// The sample standard deviation.
    pub stddev: f64,
}

impl Stat {
    /// The statistics of `values`; `None` when there are none.
    pub fn of(values: &[f64]) -> Option<Self> {
        if values.is_empty() {
            return None;
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let stddev = if values.len() < 2 {
            0.0
        } else {
            (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
        };
        Some(Self { mean, stddev })
    }
}

/// The summary of one configuration over its runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct ConfigurationSummary {
    /// Over the runs that graded anything and did not end with an error.
    pub pass_rate: Option<Stat>,
    /// Wall-clock seconds per run.
    pub time_seconds: Option<Stat>,
    /// Tokens per run.
    pub tokens: Option<Stat>,
    /// How many runs.
    pub runs: usize,
    /// Of the model's tool calls, the share that did not fail; `None` with no tool calls.
    pub tool_call_validity: Option<f64>,
    /// In how many runs the model loaded the skill under evaluation.
    pub skill_loaded: usize,
    /// How many runs ended with an error.
    pub errors: usize,
}

impl ConfigurationSummary {
    /// The summary of `runs`.
    pub fn of<'a>(runs: impl IntoIterator<Item = &'a RunResult>) -> Self {
        let runs: Vec<&RunResult> = runs.into_iter().collect();
        let collect = |f: fn(&RunResult) -> Option<f64>| -> Vec<f64> {
            runs.iter().filter_map(|run| f(run)).collect()
        };
        let calls: usize = runs.iter().map(|run| run.tool_calls).sum();
        let failed: usize = runs.iter().map(|run| run.failed_tool_calls).sum();
        Self {
            pass_rate: Stat::of(&collect(|run| run.pass_rate)),
            time_seconds: Stat::of(&collect(|run| Some(run.time_seconds))),
            tokens: Stat::of(&collect(|run| Some(run.tokens as f64))),
            runs: runs.len(),
            tool_call_validity: (calls > 0).then(|| (calls - failed) as f64 / calls as f64),
            skill_loaded: runs.iter().filter(|run| run.skill_loaded).count(),
            errors: runs.iter().map(|run| run.errors).sum(),
        }
    }
}

/// With-skill means minus without-skill means: what the skill buys and what it costs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct Delta {
    /// Pass rate.
    pub pass_rate: Option<f64>,
    /// Seconds.
    pub time_seconds: Option<f64>,
    /// Tokens.
    pub tokens: Option<f64>,
}

impl Delta {
    /// `with - without`, field by field.
    pub fn between(with: &ConfigurationSummary, without: &ConfigurationSummary) -> Self {
        let minus = |a: Option<Stat>, b: Option<Stat>| Some(a?.mean - b?.mean);
        Self {
            pass_rate: minus(with.pass_rate, without.pass_rate),
            time_seconds: minus(with.time_seconds, without.time_seconds),
            tokens: minus(with.tokens, without.tokens),
        }
    }
}

/// `benchmark.json`'s `run_summary`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct RunSummary {
    /// The runs with the skill.
    pub with_skill: ConfigurationSummary,
    /// The runs without it.
    pub without_skill: ConfigurationSummary,
    /// With minus without.
    pub delta: Delta,
}

impl RunSummary {
    /// The summary of `runs`.
    pub fn of(runs: &[RunRecord]) -> Self {
        let of = |configuration| {
            ConfigurationSummary::of(
                runs.iter()
                    .filter(|run| run.configuration == configuration)
                    .map(|run| &run.result),
            )
        };
        let with_skill = of(Configuration::WithSkill);
        let without_skill = of(Configuration::WithoutSkill);
        let delta = Delta::between(&with_skill, &without_skill);
        Self {
            with_skill,
            without_skill,
            delta,
        }
    }
}

/// Whether one trigger query made the model load the skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TriggerResult {
    /// The query and whether it should trigger.
    #[serde(flatten)]
    pub query: TriggerQuery,
    /// Whether the model called `load_skill` for the skill in its first answer.
    pub triggered: bool,
    /// 1-based.
    pub run_number: u32,
    /// Why the query could not be asked, if it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `benchmark.json`'s `triggers`: how well the skill's description makes a model load it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct TriggerSummary {
    /// Queries asked (over all runs).
    pub queries: usize,
    /// Should trigger, did.
    pub true_positives: usize,
    /// Should not, did.
    pub false_positives: usize,
    /// Should not, did not.
    pub true_negatives: usize,
    /// Should, did not.
    pub false_negatives: usize,
    /// Of the loads, the share that should have happened; `None` when nothing loaded the skill.
    pub precision: Option<f64>,
    /// Of the queries that should load it, the share that did; `None` when none should.
    pub recall: Option<f64>,
}

impl TriggerSummary {
    /// The counts, precision and recall of `results`.
    pub fn of(results: &[TriggerResult]) -> Self {
        let count = |should: bool, did: bool| {
            results
                .iter()
                .filter(|r| r.query.should_trigger == should && r.triggered == did)
                .count()
        };
        let true_positives = count(true, true);
        let false_positives = count(false, true);
        let true_negatives = count(false, false);
        let false_negatives = count(true, false);
        let ratio = |part: usize, whole: usize| (whole > 0).then(|| part as f64 / whole as f64);
        Self {
            queries: results.len(),
            true_positives,
            false_positives,
            true_negatives,
            false_negatives,
            precision: ratio(true_positives, true_positives + false_positives),
            recall: ratio(true_positives, true_positives + false_negatives),
        }
    }
}

/// What the benchmark was run with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct Metadata {
    /// The skill's name.
    pub skill_name: String,
    /// The skill's directory.
    pub skill_path: String,
    /// The model asked for (`--model`), or the one the server said answered.
    pub executor_model: Option<String>,
    /// When the benchmark was written (HTTP date).
    pub timestamp: String,
    /// The evals' ids.
    pub evals_run: Vec<EvalId>,
    /// Runs of each eval in each configuration.
    pub runs_per_configuration: u32,
    /// The seed of the first run (run `k` uses `seed + k - 1`).
    pub seed: Option<u64>,
    /// The sampling temperature asked for.
    pub temperature: Option<f32>,
    /// How the agents drove the model: `guided` or `tools` (absent in benchmarks written
    /// before modes existed: `tools`).
    #[serde(default = "tools_mode")]
    pub mode: String,
}

fn tools_mode() -> String {
    "tools".to_owned()
}

/// `benchmark.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct Benchmark {
    /// What it was run with.
    pub metadata: Metadata,
    /// Every run.
    pub runs: Vec<RunRecord>,
    /// The statistics.
    pub run_summary: RunSummary,
    /// Trigger precision and recall; `None` when the skill has no `evals/triggers.json`.
    pub triggers: Option<TriggerSummary>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trigger(should: bool, did: bool) -> TriggerResult {
        TriggerResult {
            query: TriggerQuery {
                query: "q".into(),
                should_trigger: should,
            },
            triggered: did,
            run_number: 1,
            error: None,
        }
    }

    #[test]
    fn precision_and_recall_count_each_cell() {
        // 3 true positives, 1 false negative, 1 false positive, 2 true negatives.
        let results = [
            trigger(true, true),
            trigger(true, true),
            trigger(true, true),
            trigger(true, false),
            trigger(false, true),
            trigger(false, false),
            trigger(false, false),
        ];
        let summary = TriggerSummary::of(&results);
        assert_eq!(
            (
                summary.true_positives,
                summary.false_negatives,
                summary.false_positives,
                summary.true_negatives
            ),
            (3, 1, 1, 2)
        );
        assert_eq!(summary.precision, Some(0.75));
        assert_eq!(summary.recall, Some(0.75));
        assert_eq!(summary.queries, 7);
    }

    #[test]
    fn precision_and_recall_are_undefined_without_their_denominators() {
        let nothing_loaded = TriggerSummary::of(&[trigger(true, false), trigger(false, false)]);
        assert_eq!(nothing_loaded.precision, None);
        assert_eq!(nothing_loaded.recall, Some(0.0));
        let none_should = TriggerSummary::of(&[trigger(false, true)]);
        assert_eq!(none_should.precision, Some(0.0));
        assert_eq!(none_should.recall, None);
    }

    #[test]
    fn stat_is_the_mean_and_sample_standard_deviation() {
        let stat = Stat::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(stat.mean, 5.0);
        assert!((stat.stddev - 2.138_089_935).abs() < 1e-9);
        assert_eq!(Stat::of(&[3.0]).unwrap().stddev, 0.0);
        assert_eq!(Stat::of(&[]), None);
    }

    #[test]
    fn a_summary_leaves_out_what_was_not_graded() {
        let graded = |passed| Graded {
            text: "t".into(),
            passed,
            evidence: String::new(),
        };
        let summary = GradingSummary::of(&[graded(Some(true)), graded(Some(false)), graded(None)]);
        assert_eq!((summary.passed, summary.failed, summary.total), (1, 1, 2));
        assert_eq!(summary.ungraded, 1);
        assert_eq!(summary.pass_rate, Some(0.5));
        assert_eq!(GradingSummary::of(&[graded(None)]).pass_rate, None);
    }
}
