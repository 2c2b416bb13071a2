//! Tool calls per day per skill, from the audit log.

use std::collections::BTreeMap;

use serde::Serialize;
use skillful_audit::{AuditRecord, EventKind};

/// The most days the usage chart shows (the latest ones).
pub const MAX_DAYS: usize = 366;

/// One skill's calls, a count per day of [`Usage::days`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillUsage {
    /// The skill's name.
    pub name: String,
    /// Its tool calls that ran, per day.
    pub calls: Vec<u64>,
}

/// Tool calls per day per skill over a period.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// Every day (`YYYY-MM-DD`, UTC) from the period's start (or the first record's day) to
    /// the report's day, at most the last [`MAX_DAYS`].
    pub days: Vec<String>,
    /// The skills with a call in the period, by name.
    pub skills: Vec<SkillUsage>,
}

impl Usage {
    /// Counts the `tool_call` records naming a skill, from `since` on, per day up to `until`
    /// (a `YYYY-MM-DD` day).
    pub fn from_records(records: &[AuditRecord], since: Option<&str>, until: &str) -> Self {
        let mut per_skill: BTreeMap<&str, BTreeMap<&str, u64>> = BTreeMap::new();
        let mut first: Option<&str> = None;
        for record in records {
            if since.is_some_and(|since| record.time.as_str() < since) {
                continue;
            }
            let (EventKind::ToolCall, Some(skill)) = (record.event.event, &record.event.skill)
            else {
                continue;
            };
            let Some(day) = record.time.get(..10) else {
                continue;
            };
            first = Some(first.map_or(day, |first| first.min(day)));
            *per_skill
                .entry(skill.name.as_str())
                .or_default()
                .entry(day)
                .or_default() += 1;
        }
        let start = since.and_then(|since| since.get(..10)).or(first);
        let Some(start) = start else {
            return Self::default();
        };
        let mut days = days_between(start, until);
        if days.len() > MAX_DAYS {
            days.drain(..days.len() - MAX_DAYS);
        }
        let skills = per_skill
            .into_iter()
            .map(|(name, counts)| SkillUsage {
                name: name.to_owned(),
                calls: days
                    .iter()
                    .map(|day| counts.get(day.as_str()).copied().unwrap_or(0))
                    .collect(),
            })
            .collect();
        Self { days, skills }
    }
}

/// Every day from `start` to `end` (`YYYY-MM-DD`, both included); none when either is not a day
/// or `end` is before `start`.
fn days_between(start: &str, end: &str) -> Vec<String> {
    let (Ok(mut day), Ok(last)) = (
        start.parse::<jiff::civil::Date>(),
        end.parse::<jiff::civil::Date>(),
    ) else {
        return Vec::new();
    };
    let mut days = Vec::new();
    while day <= last {
        days.push(day.to_string());
        let Ok(next) = day.tomorrow() else { break };
        day = next;
    }
    days
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_run_across_months_and_leap_days() {
        assert_eq!(
            days_between("2028-02-27", "2028-03-01"),
            ["2028-02-27", "2028-02-28", "2028-02-29", "2028-03-01"]
        );
        assert_eq!(days_between("2026-12-31", "2027-01-01").len(), 2);
        assert!(days_between("2026-12-02", "2026-12-01").is_empty());
        assert!(days_between("yesterday", "2026-12-01").is_empty());
        assert_eq!(days_between("1970-01-01", "1970-01-01"), ["1970-01-01"]);
    }
}
