//! Measures whether a skill helps a model, as the agentskills.io guide "Evaluating skills" lays
//! it out: each test case of the skill's `evals/evals.json` runs with the skill (offered through
//! the skills provider) and without it (no skills offered), each run in a fresh session; the
//! answers are graded against the expectations; the workspace gets
//! `iteration-N/eval-<id>/{with_skill,without_skill}/{outputs/,timing.json,grading.json}` and
//! `iteration-N/benchmark.json` (pass rate, time and tokens: mean, standard deviation and
//! delta). The queries of `evals/triggers.json` measure whether the model loads the skill when
//! it should (precision and recall).
//!
//! - **Expectations**: a string is a statement a judge model grades, asked for concrete evidence
//!   ("ungraded" without a judge); an object is checked by code: `{"contains": "..."}`,
//!   `{"regex": "..."}`, `{"json_path": "$.x", "equals": ...}` on a JSON answer, or
//!   `{"script": "evals/check.py"}` run by the script runner in the run's output directory, which
//!   is also its argument (exit code 0 passes; its output is the evidence).
//! - **Runs**: the eval's input files are copied into the run's working directory (its
//!   `outputs/`), where the skill's scripts run; the final answer (`answer.md`) and the
//!   transcript (`transcript.json`) are saved beside what the scripts wrote. Nobody is there to
//!   approve calls: those the approval rules do not let through are refused, and the refusal is
//!   in the transcript.
//! - **The workspace** defaults to `eval/<name>-<key>` in the user's state directory
//!   ([`SkillUnderTest::default_workspace`]). It, and every directory on the way to it, is
//!   refused when another user could tamper with it (owned by them, writable by others and not
//!   sticky, or a link that is not the user's or root's; the workspace itself may not be a link);
//!   everything below is created 0700 and written through directory handles
//!   ([`skillful_state::VerifiedDir`]), so that a link planted meanwhile is never followed.
//! - **Untrusted input**: the skill's files and the model's answers are untrusted. Files named by
//!   the evals must be regular files inside the skill's directory; eval ids become directory
//!   names of letters, digits and `-` only; the workspace may not lie inside the skill; what is
//!   read is bounded; evidence is quoted in bounded, one-line excerpts. The skill's own `evals/`
//!   directory is never offered to the model (discovery skips it).
//! - **Read back**: [`History`] reads a workspace's iterations (their `benchmark.json`) for
//!   reports.
//!
//! It owns the evaluation: the file formats, running, grading, statistics. It knows nothing of
//! terminals or command lines, and does not find or start a model server: it is given one.
//!
//! # Example
//! ```no_run
//! use skillful_eval::{EvalSettings, Evaluator, SkillUnderTest};
//!
//! # async fn demo() -> Result<(), skillful_eval::EvalError> {
//! let skill = SkillUnderTest::load("examples/skills/unit-converter").await?;
//! let mut settings = EvalSettings::new("http://127.0.0.1:1234/v1");
//! settings.runs = 3;
//! settings.seed = Some(1);
//! let evaluator = Evaluator::new(settings)?;
//! let workspace = skill.default_workspace()?;
//! let report = evaluator
//!     .evaluate(&skill, std::slice::from_ref(&skill), &workspace, &|_| {})
//!     .await?;
//! println!("{:?}", report.benchmark.run_summary.delta.pass_rate);
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]

mod benchmark;
mod compare;
mod error;
mod evaluate;
mod files;
mod grade;
mod history;
mod record;
mod spec;
mod totals;
mod workspace;

pub use benchmark::{
    Benchmark, Configuration, ConfigurationSummary, Delta, Grading, GradingSummary, Metadata,
    RunRecord, RunResult, RunSummary, Stat, Timing, TriggerResult, TriggerSummary,
};
pub use compare::{
    COMPARISON_FILE, CONFIDENCE, Comparison, Figure, Verdict, Version, fisher_exact,
    permutation_test, wilson,
};
pub use error::EvalError;
pub use evaluate::{EvalSettings, Evaluator, JudgeSettings, Progress, Report, SkillUnderTest};
pub use files::MAX_INPUT_FILE_BYTES;
pub use grade::Graded;
pub use history::{History, Iteration};
pub use record::{
    EVAL_RECORD_FILE, EvalRecord, EvalSummary, MAX_EVAL_SUMMARIES, PASSING_RATE, regressions,
};
pub use spec::{EvalCase, EvalId, EvalSet, Expectation, MAX_SPEC_BYTES, TriggerQuery};
pub use totals::{EvalTotals, Tally};
