//! Usage per skill, from the audit log (`skills stats`).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use crate::record::{Actor, AuditRecord, EventKind};

/// Usage of one skill over a period.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SkillStats {
    /// `load_skill` calls that ran, and `SKILL.md` reads an MCP client of `skills serve` made, by
    /// who made them (`model`, `user`, `runtime`, `client`).
    pub activations: BTreeMap<String, u64>,
    /// Calls that ran, per tool.
    pub calls: BTreeMap<String, u64>,
    /// Calls that ran and returned an error.
    pub failures: u64,
    /// Calls refused (by the policy or a guard), rejected by a person or left unanswered.
    pub refusals: u64,
    /// The median time a call took, in milliseconds.
    pub median_ms: Option<f64>,
    /// The 95th percentile of the time a call took, in milliseconds.
    pub p95_ms: Option<f64>,
    /// Tokens (input and output) of the agent runs that called the skill.
    pub tokens: u64,
    /// The time of its last record.
    pub last_used: Option<String>,
}

/// Usage per skill over a period, and the known skills not used in it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Stats {
    /// The period's start (`None`: the whole log).
    pub since: Option<String>,
    /// Per skill, by name.
    pub skills: BTreeMap<String, SkillStats>,
    /// The skills given as known that no record of the period names.
    pub unused: Vec<String>,
}

impl Stats {
    /// Counts `records` from `since` on (times as [`format_time`](crate::format_time) writes
    /// them); `known` are the skills that could have been used (the unused ones are listed).
    pub fn from_records<'a>(
        records: impl IntoIterator<Item = &'a AuditRecord>,
        since: Option<&str>,
        known: &[String],
    ) -> Self {
        let mut skills: BTreeMap<String, SkillStats> = BTreeMap::new();
        let mut durations: HashMap<String, Vec<u64>> = HashMap::new();
        // Per session: the skills called since its last `run` record.
        let mut open_runs: HashMap<Option<String>, BTreeSet<String>> = HashMap::new();
        for record in records {
            if since.is_some_and(|since| record.time.as_str() < since) {
                continue;
            }
            let event = &record.event;
            if event.event == EventKind::Run {
                let used = open_runs.remove(&event.session).unwrap_or_default();
                let tokens = event
                    .tokens
                    .map_or(0, |tokens| tokens.input + tokens.output);
                for name in used {
                    skills.entry(name).or_default().tokens += tokens;
                }
                continue;
            }
            let Some(skill) = &event.skill else {
                continue;
            };
            let entry = skills.entry(skill.name.clone()).or_default();
            entry.last_used = Some(record.time.clone());
            open_runs
                .entry(event.session.clone())
                .or_default()
                .insert(skill.name.clone());
            let tool = event.tool.clone().unwrap_or_default();
            match event.event {
                EventKind::ToolCall => {
                    if tool == "load_skill" || event.resource.as_deref() == Some("SKILL.md") {
                        let actor = match event.actor {
                            Actor::Model => "model",
                            Actor::User => "user",
                            Actor::Runtime => "runtime",
                            Actor::Client => "client",
                        };
                        *entry.activations.entry(actor.to_owned()).or_default() += 1;
                    }
                    *entry.calls.entry(tool).or_default() += 1;
                    if event.is_error == Some(true) {
                        entry.failures += 1;
                    }
                    if let Some(duration) = event.duration_us {
                        durations
                            .entry(skill.name.clone())
                            .or_default()
                            .push(duration);
                    }
                }
                EventKind::Refusal | EventKind::ApprovalAnswer => entry.refusals += 1,
                EventKind::ApprovalRequest
                | EventKind::Run
                | EventKind::TornTail
                | EventKind::TaskStarted
                | EventKind::TaskEnded => {}
            }
        }
        for (name, mut times) in durations {
            times.sort_unstable();
            if let Some(entry) = skills.get_mut(&name) {
                entry.median_ms = percentile(&times, 50);
                entry.p95_ms = percentile(&times, 95);
            }
        }
        let unused = known
            .iter()
            .filter(|name| !skills.contains_key(*name))
            .cloned()
            .collect();
        Self {
            since: since.map(str::to_owned),
            skills,
            unused,
        }
    }
}

/// The `percent`th percentile of sorted microseconds, in milliseconds (nearest rank).
fn percentile(sorted: &[u64], percent: usize) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (percent * sorted.len()).div_ceil(100).max(1);
    Some(sorted[rank - 1] as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let times: Vec<u64> = (1..=20).map(|ms| ms * 1000).collect();
        assert_eq!(percentile(&times, 50), Some(10.0));
        assert_eq!(percentile(&times, 95), Some(19.0));
        assert_eq!(percentile(&[7000], 95), Some(7.0));
        assert_eq!(percentile(&[], 50), None);
    }
}
