//! Two versions of one skill, run on the same evals and seeds, side by side: each figure with a
//! verdict (better, worse, or no difference at 95% confidence) and the test that gave it.
//!
//! The runs are few (a handful of evals, a few runs each), so the tests are exact or
//! distribution-free: Fisher's exact test for shares (expectations passed, queries that loaded
//! the skill), and a permutation test on the difference of the means for per-run figures (tokens,
//! seconds) and per-eval ones (consistency). A verdict is "no difference" whenever the test
//! cannot tell the versions apart at 95%: a version that only rewords its skill, or too few runs
//! to see a real change, both say so.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::benchmark::{Benchmark, Configuration, RunRecord, TriggerSummary};
use crate::error::EvalError;
use crate::evaluate::{Evaluator, Progress, SkillUnderTest};

/// The confidence of the verdicts.
pub const CONFIDENCE: f64 = 0.95;

/// The most relabellings a permutation test draws (it enumerates them all when there are
/// fewer).
const MAX_PERMUTATIONS: usize = 20_000;

/// One version of the skill and its evaluation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct Version {
    /// How it was named (`./skill-v1`, `loan-payment@v1.2`).
    pub label: String,
    /// The sha256 of its `SKILL.md`.
    pub digest: Option<String>,
    /// Its evaluation.
    pub benchmark: Benchmark,
}

impl Version {
    /// `label`'s evaluation `benchmark`, its `SKILL.md` digest `digest`.
    pub fn new(label: impl Into<String>, digest: Option<String>, benchmark: Benchmark) -> Self {
        Self {
            label: label.into(),
            digest,
            benchmark,
        }
    }
}

/// What a figure says of B against A.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// B is better, at [`CONFIDENCE`].
    Better,
    /// B is worse.
    Worse,
    /// The test cannot tell them apart.
    NoDifference,
    /// One side has nothing to measure (no graded run, no trigger query).
    NotMeasured,
}

/// One figure of both versions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct Figure {
    /// `pass rate`, `tokens in`, `tokens out`, `seconds`, `consistency`, `trigger precision`,
    /// `trigger recall`, `over-triggering`.
    pub name: String,
    /// Version A's value.
    pub a: Option<f64>,
    /// Version B's value.
    pub b: Option<f64>,
    /// A's 95% interval, where the figure is a share (Wilson's score interval).
    pub a_interval: Option<(f64, f64)>,
    /// B's.
    pub b_interval: Option<(f64, f64)>,
    /// Whether more is better (pass rate) or less (tokens).
    pub higher_is_better: bool,
    /// The test's two-sided p-value.
    pub p_value: Option<f64>,
    /// B against A.
    pub verdict: Verdict,
    /// The test that gave the verdict.
    pub test: String,
}

/// Two versions side by side (`comparison.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct Comparison {
    /// The skill.
    pub skill: String,
    /// The version compared against (the old one).
    pub a: Version,
    /// The version compared (the new one).
    pub b: Version,
    /// The figures, in the order of [`Figure::name`]'s list.
    pub figures: Vec<Figure>,
}

impl Comparison {
    /// The comparison of `b` against `a`.
    pub fn of(a: Version, b: Version) -> Self {
        let runs = |version: &Version| -> Vec<RunRecord> {
            version
                .benchmark
                .runs
                .iter()
                .filter(|run| run.configuration == Configuration::WithSkill && run.error.is_none())
                .cloned()
                .collect()
        };
        let (runs_a, runs_b) = (runs(&a), runs(&b));
        let mut figures = vec![pass_rate(&runs_a, &runs_b)];
        for (name, of) in [
            (
                "tokens in",
                (|run: &RunRecord| run.result.tokens_in as f64) as fn(&RunRecord) -> f64,
            ),
            ("tokens out", |run| run.result.tokens_out as f64),
            ("seconds", |run| run.result.time_seconds),
        ] {
            let values = |runs: &[RunRecord]| runs.iter().map(of).collect::<Vec<f64>>();
            figures.push(means(name, &values(&runs_a), &values(&runs_b), false));
        }
        figures.push(means(
            "consistency",
            &consistency(&runs_a),
            &consistency(&runs_b),
            true,
        ));
        let triggers = |version: &Version| version.benchmark.triggers;
        figures.extend(trigger_figures(triggers(&a), triggers(&b)));
        Self {
            skill: b.benchmark.metadata.skill_name.clone(),
            a,
            b,
            figures,
        }
    }
}

impl Evaluator {
    /// Evaluates version `a` (named `a_label`) then `b` of one skill on the same evals, runs and
    /// seeds, each into a workspace of its own below `workspace` (`a/`, `b/`), and compares
    /// them; writes the comparison to `workspace/comparison.json`. Each version is offered alone
    /// (its trigger queries too). Make the evaluator with [`EvalSettings::baseline`](crate::EvalSettings::baseline) off unless
    /// the runs without the skill are wanted as well.
    ///
    /// # Errors
    /// As [`Evaluator::evaluate`]; [`EvalError::Files`] when the comparison cannot be written.
    pub async fn compare(
        &self,
        (a_label, a): (&str, &SkillUnderTest),
        (b_label, b): (&str, &SkillUnderTest),
        workspace: &Path,
        progress: &dyn Fn(Progress<'_>),
    ) -> Result<Comparison, EvalError> {
        let mut versions = Vec::new();
        for (label, skill, dir) in [(a_label, a, "a"), (b_label, b, "b")] {
            let report = self
                .evaluate(
                    skill,
                    std::slice::from_ref(skill),
                    &workspace.join(dir),
                    progress,
                )
                .await?;
            let digest = skillful_fs::sha256_file(&skill.dir().join("SKILL.md"), 16 << 20)
                .ok()
                .flatten()
                .map(|digest| digest.sha256);
            versions.push(Version::new(label, digest, report.benchmark));
        }
        let b = versions.pop().expect("two versions");
        let a = versions.pop().expect("two versions");
        let comparison = Comparison::of(a, b);
        let mut text = serde_json::to_string_pretty(&comparison).expect("a comparison serializes");
        text.push('\n');
        // Through the verified handle, as every file of a workspace.
        skillful_state::VerifiedDir::open_or_create(workspace)?
            .write(COMPARISON_FILE, text.as_bytes())?;
        Ok(comparison)
    }
}

/// The file a comparison is written to, in its workspace.
pub const COMPARISON_FILE: &str = "comparison.json";

impl Comparison {
    /// The comparisons `skills eval --compare` wrote in the workspaces directly in `dir` (as
    /// [`History::all_in`](crate::History::all_in) finds them: `WORKSPACE/compare/comparison.json`),
    /// and in `dir` itself when it is one; a file that is not a comparison is left out.
    ///
    /// # Errors
    /// [`EvalError::Io`] when a directory cannot be listed.
    pub fn all_in(dir: &Path) -> Result<Vec<Self>, EvalError> {
        let mut workspaces = vec![dir.to_path_buf()];
        match std::fs::read_dir(dir) {
            Ok(entries) => {
                for entry in entries.flatten() {
                    if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                        workspaces.push(entry.path());
                    }
                }
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(EvalError::Io {
                    action: "list",
                    path: dir.to_path_buf(),
                    source,
                });
            }
        }
        workspaces.sort();
        Ok(workspaces
            .into_iter()
            .filter_map(|workspace| {
                let path = workspace.join("compare").join(COMPARISON_FILE);
                let bytes = skillful_state::read_private(&path, 64 << 20).ok()??;
                serde_json::from_slice(&bytes).ok()
            })
            .collect())
    }
}

/// Expectations passed over graded, of every run with the skill.
fn pass_rate(a: &[RunRecord], b: &[RunRecord]) -> Figure {
    let count = |runs: &[RunRecord]| {
        runs.iter().fold((0, 0), |(passed, total), run| {
            (passed + run.result.passed, total + run.result.total)
        })
    };
    shares("pass rate", count(a), count(b), true)
}

/// The figures of the trigger queries: precision, recall and over-triggering (the share of the
/// queries that should not load the skill that did).
fn trigger_figures(a: Option<TriggerSummary>, b: Option<TriggerSummary>) -> Vec<Figure> {
    type Counts = fn(&TriggerSummary) -> (usize, usize);
    let figures: [(&str, Counts, bool); 3] = [
        (
            "trigger precision",
            |t| (t.true_positives, t.true_positives + t.false_positives),
            true,
        ),
        (
            "trigger recall",
            |t| (t.true_positives, t.true_positives + t.false_negatives),
            true,
        ),
        (
            "over-triggering",
            |t| (t.false_positives, t.false_positives + t.true_negatives),
            false,
        ),
    ];
    figures
        .into_iter()
        .map(|(name, counts, higher)| {
            shares(
                name,
                a.as_ref().map_or((0, 0), counts),
                b.as_ref().map_or((0, 0), counts),
                higher,
            )
        })
        .collect()
}

/// A share of each side (`(successes, trials)`), with Wilson intervals and Fisher's exact test.
fn shares(name: &str, a: (usize, usize), b: (usize, usize), higher_is_better: bool) -> Figure {
    let share = |(successes, trials): (usize, usize)| {
        (trials > 0).then(|| successes as f64 / trials as f64)
    };
    let interval =
        |(successes, trials): (usize, usize)| (trials > 0).then(|| wilson(successes, trials));
    let p_value = (a.1 > 0 && b.1 > 0).then(|| fisher_exact(a.0, a.1 - a.0, b.0, b.1 - b.0));
    Figure {
        name: name.to_owned(),
        a: share(a),
        b: share(b),
        a_interval: interval(a),
        b_interval: interval(b),
        higher_is_better,
        p_value,
        verdict: verdict(share(a), share(b), p_value, higher_is_better),
        test: "Fisher's exact test, two-sided, 95%".to_owned(),
    }
}

/// The mean of each side's values, with a permutation test on the difference of the means.
fn means(name: &str, a: &[f64], b: &[f64], higher_is_better: bool) -> Figure {
    let mean = |values: &[f64]| {
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    };
    let p_value = (!a.is_empty() && !b.is_empty()).then(|| permutation_test(a, b));
    Figure {
        name: name.to_owned(),
        a: mean(a),
        b: mean(b),
        a_interval: None,
        b_interval: None,
        higher_is_better,
        p_value,
        verdict: verdict(mean(a), mean(b), p_value, higher_is_better),
        test: "permutation test on the difference of the means, two-sided, 95%".to_owned(),
    }
}

fn verdict(a: Option<f64>, b: Option<f64>, p_value: Option<f64>, higher: bool) -> Verdict {
    let (Some(a), Some(b), Some(p_value)) = (a, b, p_value) else {
        return Verdict::NotMeasured;
    };
    if p_value >= 1.0 - CONFIDENCE || a == b {
        return Verdict::NoDifference;
    }
    if (b > a) == higher {
        Verdict::Better
    } else {
        Verdict::Worse
    }
}

/// Per eval, how often its runs agree: the share of its runs whose outcome (every graded
/// expectation passed, or not) is the eval's most frequent one. Evals with one run say nothing
/// and are left out.
fn consistency(runs: &[RunRecord]) -> Vec<f64> {
    let mut evals: Vec<&str> = runs.iter().map(|run| run.eval_name.as_str()).collect();
    evals.sort_unstable();
    evals.dedup();
    evals
        .into_iter()
        .filter_map(|eval| {
            let outcomes: Vec<bool> = runs
                .iter()
                .filter(|run| run.eval_name == eval)
                .map(|run| run.result.total > 0 && run.result.passed == run.result.total)
                .collect();
            let passed = outcomes.iter().filter(|passed| **passed).count();
            (outcomes.len() > 1)
                .then(|| passed.max(outcomes.len() - passed) as f64 / outcomes.len() as f64)
        })
        .collect()
}

/// Wilson's score interval of `successes` in `trials` at 95%.
pub fn wilson(successes: usize, trials: usize) -> (f64, f64) {
    const Z: f64 = 1.959_963_984_540_054;
    let n = trials as f64;
    let p = successes as f64 / n;
    let denominator = 1.0 + Z * Z / n;
    let centre = (p + Z * Z / (2.0 * n)) / denominator;
    let half = Z * (p * (1.0 - p) / n + Z * Z / (4.0 * n * n)).sqrt() / denominator;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Fisher's exact test, two-sided, of the table `[[a, b], [c, d]]` (A's successes and failures,
/// B's): the probability, with the margins fixed, of a table as or less likely than this one.
pub fn fisher_exact(a: usize, b: usize, c: usize, d: usize) -> f64 {
    let ln_factorial = |n: usize| (1..=n).map(|k| (k as f64).ln()).sum::<f64>();
    let (row1, row2, col1) = (a + b, c + d, a + c);
    let n = row1 + row2;
    let ln_probability = |x: usize| {
        ln_factorial(row1) + ln_factorial(row2) + ln_factorial(col1) + ln_factorial(n - col1)
            - ln_factorial(n)
            - ln_factorial(x)
            - ln_factorial(row1 - x)
            - ln_factorial(col1 - x)
            - ln_factorial(row2 + x - col1)
    };
    let low = col1.saturating_sub(row2);
    let high = row1.min(col1);
    let observed = ln_probability(a);
    let p: f64 = (low..=high)
        .map(ln_probability)
        .filter(|ln| *ln <= observed + 1e-7)
        .map(f64::exp)
        .sum();
    p.min(1.0)
}

/// A two-sided permutation test of the difference of the means of `a` and `b`: the share of
/// the relabellings of the pooled values whose difference is at least as large. Every
/// relabelling when there are at most 20,000, else that many drawn with a fixed
/// seed (the same figures give the same p-value).
pub fn permutation_test(a: &[f64], b: &[f64]) -> f64 {
    let pooled: Vec<f64> = a.iter().chain(b).copied().collect();
    let total: f64 = pooled.iter().sum();
    let (n, k) = (pooled.len(), a.len());
    let difference = |sum_a: f64| (sum_a / k as f64 - (total - sum_a) / (n - k) as f64).abs();
    let observed = difference(a.iter().sum()) - 1e-9;
    let mut extreme = 0usize;
    let mut tried = 0usize;
    if binomial(n, k).is_some_and(|count| count <= MAX_PERMUTATIONS) {
        let mut chosen: Vec<usize> = (0..k).collect();
        loop {
            tried += 1;
            let sum: f64 = chosen.iter().map(|&i| pooled[i]).sum();
            if difference(sum) >= observed {
                extreme += 1;
            }
            // The next combination of k indices out of n, in lexicographic order.
            let Some(at) = (0..k).rev().find(|&i| chosen[i] < n - k + i) else {
                break;
            };
            chosen[at] += 1;
            for i in at + 1..k {
                chosen[i] = chosen[i - 1] + 1;
            }
        }
    } else {
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut indices: Vec<usize> = (0..n).collect();
        for _ in 0..MAX_PERMUTATIONS {
            // A partial Fisher–Yates shuffle choosing k of the n, with xorshift64.
            for i in 0..k {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let j = i + (state % (n - i) as u64) as usize;
                indices.swap(i, j);
            }
            tried += 1;
            let sum: f64 = indices[..k].iter().map(|&i| pooled[i]).sum();
            if difference(sum) >= observed {
                extreme += 1;
            }
        }
    }
    extreme as f64 / tried as f64
}

/// `n` choose `k`, or `None` when it does not fit a `usize`.
fn binomial(n: usize, k: usize) -> Option<usize> {
    let k = k.min(n - k);
    (0..k).try_fold(1usize, |count, i| {
        count.checked_mul(n - i).map(|count| count / (i + 1))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fisher_s_exact_test_gives_the_textbook_values() {
        // The lady tasting tea: 3 of 4 right each way, two-sided p = 0.486.
        assert!((fisher_exact(3, 1, 1, 3) - 0.485_714).abs() < 1e-5);
        // 12 of 12 against 3 of 12.
        assert!(fisher_exact(12, 0, 3, 9) < 0.001);
        assert!((fisher_exact(5, 5, 5, 5) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn wilson_s_interval_stays_inside_zero_and_one() {
        let (low, high) = wilson(10, 10);
        assert!(
            (high - 1.0).abs() < 1e-12 && (low - 0.722_5).abs() < 1e-3,
            "{low} {high}"
        );
        let (low, high) = wilson(0, 4);
        assert_eq!(low, 0.0);
        assert!((high - 0.489_9).abs() < 1e-3, "{high}");
    }

    #[test]
    fn a_verdict_follows_the_figures_direction_and_the_test() {
        // More over-triggering is worse; fewer tokens are better.
        let over = shares("over-triggering", (0, 10), (8, 10), false);
        assert_eq!(over.verdict, Verdict::Worse);
        let tokens = means(
            "tokens in",
            &[900.0, 910.0, 905.0, 920.0, 915.0],
            &[400.0, 410.0, 405.0, 420.0, 415.0],
            false,
        );
        assert_eq!(tokens.verdict, Verdict::Better, "{tokens:?}");
        // Three runs a side cannot show a difference at 95% (the smallest p is 2/20).
        let few = means("seconds", &[1.0, 1.1, 1.2], &[3.0, 3.1, 3.2], false);
        assert_eq!(few.verdict, Verdict::NoDifference, "{few:?}");
        assert_eq!(
            shares("pass rate", (0, 0), (3, 4), true).verdict,
            Verdict::NotMeasured
        );
    }

    #[test]
    fn a_permutation_test_tells_separate_groups_apart_and_equal_ones_not() {
        let apart = permutation_test(
            &[10.0, 11.0, 12.0, 13.0, 14.0],
            &[20.0, 21.0, 22.0, 23.0, 24.0],
        );
        // Only the two extreme relabellings of C(10, 5) = 252 are as far apart.
        assert!((apart - 2.0 / 252.0).abs() < 1e-12, "{apart}");
        assert_eq!(permutation_test(&[5.0, 5.0, 5.0], &[5.0, 5.0, 5.0]), 1.0);
        // Too many to enumerate: drawn, deterministically.
        let many_a: Vec<f64> = (0..30).map(f64::from).collect();
        let many_b: Vec<f64> = (0..30).map(|x| f64::from(x) + 100.0).collect();
        let drawn = permutation_test(&many_a, &many_b);
        assert!(drawn < 0.001);
        assert_eq!(drawn, permutation_test(&many_a, &many_b));
    }
}
