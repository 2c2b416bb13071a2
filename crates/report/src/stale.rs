//! `skills stale`: the skills a library could do without, from the audit log and the record of
//! evaluations: not used for a while, never evaluated, or worse at their last evaluation than at
//! the one before.

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use serde::Serialize;
use skillful_audit::format_time;
use skillful_eval::{EvalSummary, regressions};

/// Why a skill is stale.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "reason", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Staleness {
    /// No record of the audit log names it since the period began.
    Unused {
        /// Its last use (RFC 3339), or `None` when the log never names it.
        last_used: Option<String>,
    },
    /// The record of evaluations has none of it.
    NeverEvaluated,
    /// Its newest evaluation passed fewer evals (or did not pass where the one before did).
    Regressed {
        /// The pass rate with the skill of the evaluation before.
        before: Option<f64>,
        /// And of the newest one.
        after: Option<f64>,
        /// When the newest one ran (RFC 3339).
        at: String,
    },
}

/// One stale skill and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct StaleSkill {
    /// The skill.
    pub name: String,
    /// Each reason, in the order unused, never evaluated, regressed.
    pub reasons: Vec<Staleness>,
}

/// The skills of `known` that are stale at `now`: `last_used` (skill to its newest record's
/// time, as [`skillful_audit::AuditLog::last_uses`] reads it) names none in the last
/// `unused_for`, absent from `evaluations` (the record of evaluations), or whose newest
/// evaluation regressed ([`regressions`]). In the order of `known`.
pub fn stale_skills(
    last_used: &HashMap<String, String>,
    evaluations: &[EvalSummary],
    known: &[String],
    unused_for: Duration,
    now: SystemTime,
) -> Vec<StaleSkill> {
    let since = format_time(
        now.checked_sub(unused_for)
            .unwrap_or(SystemTime::UNIX_EPOCH),
    );
    let evaluated: std::collections::HashSet<&str> = evaluations
        .iter()
        .map(|summary| summary.skill.as_str())
        .collect();
    let regressed: HashMap<&str, (&EvalSummary, &EvalSummary)> = regressions(evaluations)
        .into_iter()
        .map(|(before, last)| (last.skill.as_str(), (before, last)))
        .collect();
    known
        .iter()
        .filter_map(|name| {
            let mut reasons = Vec::new();
            let last = last_used.get(name.as_str()).map(String::as_str);
            if last.is_none_or(|last| last < since.as_str()) {
                reasons.push(Staleness::Unused {
                    last_used: last.map(str::to_owned),
                });
            }
            if !evaluated.contains(name.as_str()) {
                reasons.push(Staleness::NeverEvaluated);
            }
            if let Some((before, last)) = regressed.get(name.as_str()) {
                reasons.push(Staleness::Regressed {
                    before: before.pass_rate,
                    after: last.pass_rate,
                    at: last.time.clone(),
                });
            }
            (!reasons.is_empty()).then(|| StaleSkill {
                name: name.clone(),
                reasons,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evaluated(skill: &str, rate: f64) -> EvalSummary {
        serde_json::from_value(serde_json::json!({
            "time": "2026-12-01T00:00:00Z", "skill": skill, "digest": null, "model": null,
            "mode": "guided", "runs": 1, "pass_rate": rate, "baseline": 0.0,
            "passed": rate >= 0.5,
        }))
        .unwrap()
    }

    #[test]
    fn unused_unevaluated_and_regressed_skills_are_named_with_why() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_765_065_600); // 2025-12-07
        let last_used: HashMap<String, String> = [
            ("fresh", "2025-12-06T10:00:00Z"),
            ("old", "2025-10-01T10:00:00Z"),
        ]
        .map(|(skill, time)| (skill.to_owned(), time.to_owned()))
        .into();
        let evaluations = [
            evaluated("fresh", 0.9),
            evaluated("old", 0.9),
            evaluated("old", 0.5),
        ];
        let known = ["fresh", "old", "idle"].map(str::to_owned);
        let stale = stale_skills(
            &last_used,
            &evaluations,
            &known,
            Duration::from_secs(30 * 86_400),
            now,
        );
        assert_eq!(
            stale,
            [
                StaleSkill {
                    name: "old".to_owned(),
                    reasons: vec![
                        Staleness::Unused {
                            last_used: Some("2025-10-01T10:00:00Z".to_owned())
                        },
                        Staleness::Regressed {
                            before: Some(0.9),
                            after: Some(0.5),
                            at: "2026-12-01T00:00:00Z".to_owned()
                        },
                    ],
                },
                StaleSkill {
                    name: "idle".to_owned(),
                    reasons: vec![
                        Staleness::Unused { last_used: None },
                        Staleness::NeverEvaluated
                    ],
                },
            ]
        );
    }
}
