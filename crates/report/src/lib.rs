//! `skills report`: one self-contained HTML page a person reads at a glance: usage per skill
//! over time (tool calls per day, from the audit log, with the `skills stats` table) and the
//! latest evaluations per skill (the pass rate with and without the skill per iteration, from
//! the eval workspaces, with their tables), and each skill's history from the user's record of
//! evaluations.
//!
//! The page needs no network to be viewed: its style and script are inline, its charts SVG drawn
//! by that script from the data embedded in the page as JSON, and a Content Security Policy lets
//! nothing else load or run (no other origin; only the page's own script and style, by hash).
//! The tables are plain HTML and readable without the script.
//!
//! Everything from skills, the audit log and the eval workspaces is text, never markup: it is
//! HTML-escaped in the tables, escaped in the embedded JSON so that it cannot end its `<script>`
//! element, and set with `textContent` by the script.
//!
//! [`stale_skills`] (`skills stale`) reads the same: the skills not used for a while, never
//! evaluated, or regressed.
//!
//! It knows records and benchmarks, not files or terminals: the caller reads the audit log
//! ([`skillful_audit::AuditLog`]) and the workspaces ([`skillful_eval::History`]) and writes the
//! page where it wants.
//!
//! # Example
//! ```
//! use std::time::SystemTime;
//! use skillful_report::Report;
//!
//! let report = Report::new(&[], None, &["unit-converter".to_owned()], &[], SystemTime::now());
//! let html = report.html();
//! assert!(html.starts_with("<!DOCTYPE html>"));
//! assert!(html.contains("unit-converter"));
//! ```

#![forbid(unsafe_code)]

mod html;
mod stale;
mod usage;

use std::time::SystemTime;

use serde::Serialize;
use skillful_audit::{AuditRecord, Stats, format_time};
use skillful_eval::{Comparison, EvalSummary, History};

pub use stale::{StaleSkill, Staleness, stale_skills};
pub use usage::{MAX_DAYS, SkillUsage, Usage};

/// One iteration's pass rates, as the eval chart draws them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct EvalPoint {
    /// `N` of `iteration-N`.
    pub number: u32,
    /// The mean pass rate with the skill; `None` when nothing was graded.
    pub with: Option<f64>,
    /// The mean pass rate without it.
    pub without: Option<f64>,
}

/// What a report shows.
#[derive(Debug, Clone)]
pub struct Report {
    /// When it was made (RFC 3339, UTC).
    pub generated: String,
    /// Usage per skill over the period, as `skills stats` counts it.
    pub stats: Stats,
    /// Tool calls per day per skill.
    pub usage: Usage,
    /// The eval workspaces, each with its iterations.
    pub evals: Vec<History>,
    /// The user's record of evaluations ([`skillful_eval::EvalRecord`]), oldest first: every
    /// evaluation of each skill, whatever workspace it wrote to.
    pub record: Vec<EvalSummary>,
    /// Comparisons of two versions of a skill (`skills eval --compare`).
    pub comparisons: Vec<Comparison>,
}

impl Report {
    /// The report of `records` from `since` on (a time as [`skillful_audit::parse_since`] gives
    /// it; `None`: the whole log), `known` the skills that could have been used, `evals` the
    /// eval workspaces read back, made at `now` (the usage chart runs to its day).
    pub fn new(
        records: &[AuditRecord],
        since: Option<&str>,
        known: &[String],
        evals: &[History],
        now: SystemTime,
    ) -> Self {
        let generated = format_time(now);
        Self {
            stats: Stats::from_records(records, since, known),
            usage: Usage::from_records(records, since, &generated[..10]),
            evals: evals.to_vec(),
            record: Vec::new(),
            comparisons: Vec::new(),
            generated,
        }
    }

    /// The same report, also drawing each skill's history from `record` (oldest first).
    #[must_use]
    pub fn with_record(mut self, record: Vec<EvalSummary>) -> Self {
        self.record = record;
        self
    }

    /// The same report, also showing `comparisons` (a chart of the shares and a table each).
    #[must_use]
    pub fn with_comparisons(mut self, comparisons: Vec<Comparison>) -> Self {
        self.comparisons = comparisons;
        self
    }

    /// The skills of the record, each with its evaluations, oldest first.
    pub fn recorded(&self) -> Vec<(&str, Vec<&EvalSummary>)> {
        let mut skills: Vec<(&str, Vec<&EvalSummary>)> = Vec::new();
        for summary in &self.record {
            match skills.iter_mut().find(|(skill, _)| *skill == summary.skill) {
                Some((_, summaries)) => summaries.push(summary),
                None => skills.push((summary.skill.as_str(), vec![summary])),
            }
        }
        skills.sort_by(|a, b| a.0.cmp(b.0));
        skills
    }

    /// The pass rates per iteration of each eval workspace, by skill name; then each skill's
    /// evaluations of the record, numbered from 1 (`NAME (every evaluation)`).
    pub fn eval_points(&self) -> Vec<(String, Vec<EvalPoint>)> {
        let recorded = self.recorded().into_iter().map(|(skill, summaries)| {
            let points = (1..)
                .zip(summaries)
                .map(|(number, summary)| EvalPoint {
                    number,
                    with: summary.pass_rate,
                    without: summary.baseline,
                })
                .collect();
            (format!("{skill} (every evaluation)"), points)
        });
        self.evals
            .iter()
            .filter_map(|history| {
                let points = history
                    .iterations
                    .iter()
                    .map(|iteration| {
                        let summary = &iteration.benchmark.run_summary;
                        EvalPoint {
                            number: iteration.number,
                            with: summary.with_skill.pass_rate.map(|stat| stat.mean),
                            without: summary.without_skill.pass_rate.map(|stat| stat.mean),
                        }
                    })
                    .collect();
                Some((history.skill_name()?.to_owned(), points))
            })
            .chain(recorded)
            .collect()
    }

    /// How many data points the page's charts draw: a bar per day per skill of the usage chart,
    /// and a dot per graded pass rate (with and without) per iteration of the eval charts.
    pub fn data_points(&self) -> usize {
        let bars = self.usage.days.len() * self.usage.skills.len();
        let dots: usize = self
            .eval_points()
            .iter()
            .flat_map(|(_, points)| points)
            .map(|point| usize::from(point.with.is_some()) + usize::from(point.without.is_some()))
            .sum();
        bars + dots
    }

    /// The page.
    pub fn html(&self) -> String {
        html::page(self)
    }
}
