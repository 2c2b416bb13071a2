//! Per-eval totals: the expectations each eval passed over its runs, with and without the skill
//! (the rows of `skills eval`'s table).

use crate::benchmark::{Benchmark, Configuration, RunRecord};

/// Expectations passed out of those graded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Tally {
    /// Expectations passed.
    pub passed: usize,
    /// Expectations graded.
    pub total: usize,
}

impl std::fmt::Display for Tally {
    /// `passed/total`, as `3/4`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.passed, self.total)
    }
}

/// One eval's expectations over all its runs, with and without the skill.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct EvalTotals {
    /// The eval's directory name (`eval-1`).
    pub eval_name: String,
    /// Over its runs with the skill.
    pub with_skill: Tally,
    /// Over its runs without it.
    pub without_skill: Tally,
}

impl EvalTotals {
    /// The totals of each eval of `runs`, in the order the evals first appear.
    pub fn of(runs: &[RunRecord]) -> Vec<Self> {
        let mut totals: Vec<Self> = Vec::new();
        for run in runs {
            let at = match totals.iter().position(|t| t.eval_name == run.eval_name) {
                Some(at) => at,
                None => {
                    totals.push(Self {
                        eval_name: run.eval_name.clone(),
                        with_skill: Tally::default(),
                        without_skill: Tally::default(),
                    });
                    totals.len() - 1
                }
            };
            let tally = match run.configuration {
                Configuration::WithSkill => &mut totals[at].with_skill,
                Configuration::WithoutSkill => &mut totals[at].without_skill,
            };
            tally.passed += run.result.passed;
            tally.total += run.result.total;
        }
        totals
    }
}

impl Benchmark {
    /// The totals of each eval run ([`EvalTotals::of`] its runs).
    pub fn eval_totals(&self) -> Vec<EvalTotals> {
        EvalTotals::of(&self.runs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmark::RunResult;
    use crate::spec::EvalId;

    fn run(eval: &str, configuration: Configuration, passed: usize, total: usize) -> RunRecord {
        RunRecord {
            eval_id: EvalId::Name(eval.to_owned()),
            eval_name: eval.to_owned(),
            configuration,
            run_number: 1,
            seed: None,
            result: RunResult {
                pass_rate: None,
                passed,
                failed: total - passed,
                total,
                ungraded: 0,
                time_seconds: 1.0,
                tokens: 10,
                tokens_in: 8,
                tokens_out: 2,
                tool_calls: 0,
                failed_tool_calls: 0,
                skill_loaded: false,
                errors: 0,
            },
            expectations: Vec::new(),
            error: None,
        }
    }

    #[test]
    fn each_eval_sums_its_runs_per_configuration_in_the_order_evals_first_appear() {
        let runs = [
            run("eval-2", Configuration::WithSkill, 2, 3),
            run("eval-1", Configuration::WithSkill, 1, 1),
            run("eval-2", Configuration::WithoutSkill, 0, 3),
            run("eval-2", Configuration::WithSkill, 3, 3),
        ];

        let totals = EvalTotals::of(&runs);

        let names: Vec<&str> = totals.iter().map(|t| t.eval_name.as_str()).collect();
        assert_eq!(names, ["eval-2", "eval-1"]);
        assert_eq!(totals[0].with_skill.to_string(), "5/6");
        assert_eq!(totals[0].without_skill.to_string(), "0/3");
        assert_eq!(totals[1].with_skill.to_string(), "1/1");
        assert_eq!(totals[1].without_skill.to_string(), "0/0");
    }
}
