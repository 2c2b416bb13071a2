//! `skills stale`: the skills not used for a while (the audit logs), never evaluated, or whose
//! last evaluation regressed (the record of evaluations); `--disable-stale` disables them.

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use skillful_audit::{AuditLog, UserLog};

use skillful_config::{Environment, Settings, SettingsLevel};
use skillful_core::text::one_line;
use skillful_eval::EvalRecord;
use skillful_report::{StaleSkill, Staleness, stale_skills};

use crate::audit::known_skills;
use crate::inspect::Roots;
use crate::{Outcome, output};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// A skill not named by the audit logs for this many days is unused.
    #[arg(long, value_name = "N", default_value_t = 30)]
    days: u64,
    /// Only these reasons (repeatable): unused, never-evaluated, regressed.
    #[arg(long, value_enum, value_name = "REASON")]
    only: Vec<Reason>,
    /// Record each stale skill as disabled in the user's settings (as `skills disable`; nothing
    /// is deleted, `skills enable NAME` brings one back). Not `--disable`: that is the
    /// `--disable NAME` (for this run) of every command that reads skills.
    #[arg(long)]
    disable_stale: bool,
    /// Print a JSON array of `{name, reasons}` (schema: stale.schema.json in the book).
    #[arg(long)]
    json: bool,
    /// The skills considered are those under these roots (as `skills list`).
    #[command(flatten)]
    roots: Roots,
}

/// `--only`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Reason {
    Unused,
    NeverEvaluated,
    Regressed,
}

impl Reason {
    fn of(staleness: &Staleness) -> Option<Self> {
        match staleness {
            Staleness::Unused { .. } => Some(Self::Unused),
            Staleness::NeverEvaluated => Some(Self::NeverEvaluated),
            Staleness::Regressed { .. } => Some(Self::Regressed),
            _ => None,
        }
    }
}

/// Runs `skills stale`: exit 1 when any skill is stale (0 once `--disable-stale` disabled them).
pub(crate) async fn run(args: Args) -> anyhow::Result<Outcome> {
    let known = known_skills(&args.roots).await?;
    // Both logs: a skill used through `skills serve` is used.
    let mut last_used: HashMap<String, String> = HashMap::new();
    for log in UserLog::ALL {
        for (skill, time) in AuditLog::per_user_log(log)?.last_uses()? {
            match last_used.get_mut(&skill) {
                Some(known) if *known >= time => {}
                Some(known) => *known = time,
                None => {
                    last_used.insert(skill, time);
                }
            }
        }
    }
    let evaluations = EvalRecord::per_user()?.summaries()?;
    let mut stale = stale_skills(
        &last_used,
        &evaluations,
        &known,
        Duration::from_secs(args.days.saturating_mul(86_400)),
        SystemTime::now(),
    );
    if !args.only.is_empty() {
        for skill in &mut stale {
            skill
                .reasons
                .retain(|reason| Reason::of(reason).is_some_and(|kind| args.only.contains(&kind)));
        }
        stale.retain(|skill| !skill.reasons.is_empty());
    }
    let mut out = output::stdout();
    if args.json {
        out.json(&stale)?;
    } else if stale.is_empty() {
        writeln!(out, "no stale skill among {}", known.len())?;
    }
    if !args.json {
        for skill in &stale {
            writeln!(out, "{}", one_line(&line(skill, args.days)))?;
        }
    }
    if args.disable_stale && !stale.is_empty() {
        let environment = Environment::from_process()?;
        let path = environment.user_config_file();
        for skill in &stale {
            Settings::set_enabled(
                &environment.dirs,
                &path,
                SettingsLevel::User,
                &skill.name,
                false,
            )?;
            writeln!(
                output::stderr(),
                "skills: disabled {} in {}",
                one_line(&skill.name),
                one_line(&path.to_string_lossy())
            )?;
        }
        return Ok(Outcome::Ok);
    }
    Ok(if stale.is_empty() {
        Outcome::Ok
    } else {
        Outcome::Invalid
    })
}

/// `loan-payment: not used in 30 days (last 2026-10-01) · never evaluated · regressed 90% -> 50% (2026-12-01)`.
fn line(skill: &StaleSkill, days: u64) -> String {
    let percent =
        |rate: Option<f64>| rate.map_or("–".to_owned(), |rate| format!("{:.0}%", rate * 100.0));
    let reasons: Vec<String> = skill
        .reasons
        .iter()
        .map(|reason| match reason {
            Staleness::Unused {
                last_used: Some(last),
            } => format!(
                "not used in {days} days (last {})",
                &last[..last.len().min(10)]
            ),
            Staleness::Unused { last_used: None } => "never used".to_owned(),
            Staleness::NeverEvaluated => "never evaluated".to_owned(),
            Staleness::Regressed { before, after, at } => format!(
                "regressed {} -> {} ({})",
                percent(*before),
                percent(*after),
                &at[..at.len().min(10)]
            ),
            _ => "stale".to_owned(),
        })
        .collect();
    format!("{}: {}", skill.name, reasons.join(" · "))
}
