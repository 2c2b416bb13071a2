//! `skills install`: the scope's skills (or each `--agent`'s) made to match its
//! `skills-lock.json` (missing or changed ones restored, new sources fetched, scanned and shown
//! first); `--frozen` for CI.

use skillful_core::text::one_line;
use skillful_install::{
    Installer, LockedAction, LockedOutcome, LockedReport, LockedSkillReport, Verified,
};

use crate::supply::{ScopeArgs, blocking, refuse_not_strict, require_trusted_lock, show};
use crate::{Outcome, output};

/// The help of `--json`, naming this command's schema.
const JSON_HELP: &str = "Print one JSON document on stdout (schema: install.schema.json in the \
    book).";

#[derive(Debug, clap::Args)]
#[command(mut_arg("json", |json| json.help(JSON_HELP)))]
pub(crate) struct Args {
    /// Fail (exit 1, naming the skill and what differs) instead of changing the lock: for CI.
    #[arg(long)]
    frozen: bool,
    /// Re-lock even when the scan of a changed skill has findings at or above high.
    #[arg(long)]
    allow_findings: bool,
    /// Refuse to re-lock a skill that strict validation finds fault with (a name that is not a
    /// valid one, a directory that does not match it).
    #[arg(long)]
    strict: bool,
    #[command(flatten)]
    scope: ScopeArgs,
}

/// Runs `skills install`: for the scope's directory, or each `--agent`'s in turn (stopping at
/// the first that does not end well).
pub(crate) fn run(args: Args) -> anyhow::Result<Outcome> {
    require_trusted_lock(&args.scope, "install")?;
    args.scope.one_report()?;
    for installer in args.scope.installers()? {
        let outcome = install_one(&installer, &args)?;
        if !matches!(outcome, Outcome::Ok) {
            return Ok(outcome);
        }
    }
    Ok(Outcome::Ok)
}

/// `skills install` for the directory of `installer`.
fn install_one(installer: &Installer, args: &Args) -> anyhow::Result<Outcome> {
    let plans = installer.plan_locked()?;
    let mut out = output::stdout();
    let mut report = LockedReport {
        lock: installer.lock_path().to_owned(),
        skills: plans.iter().map(LockedSkillReport::of).collect(),
        outcome: LockedOutcome::Done,
    };
    if !args.frozen {
        // What re-locking would install is new to the lock: shown and scanned as `add` does.
        let (mut refused, mut not_strict) = (false, false);
        for plan in &plans {
            if let (LockedAction::Relock(_), Some(prepared)) = (&plan.action, plan.prepared()) {
                if !args.scope.json {
                    show(&mut out, prepared)?;
                }
                if args.strict {
                    not_strict |= refuse_not_strict(&mut out, prepared, args.scope.json)?;
                }
                refused |= blocking(prepared);
            }
        }
        if not_strict {
            report.outcome = LockedOutcome::Refused;
            if args.scope.json {
                out.json(&report)?;
            }
            return Ok(Outcome::Invalid);
        }
        if refused && !args.allow_findings {
            report.outcome = LockedOutcome::Refused;
            if args.scope.json {
                out.json(&report)?;
            } else {
                writeln!(
                    out,
                    "refused: the scan found high or critical findings; pass --allow-findings to re-lock anyway"
                )?;
            }
            return Ok(Outcome::Invalid);
        }
    }
    installer.apply_locked(&plans, args.frozen)?;
    if args.scope.json {
        out.json(&report)?;
        return Ok(Outcome::Ok);
    }
    for plan in &plans {
        let name = one_line(&plan.name);
        let was = match &plan.found {
            Verified::Intact => continue,
            Verified::Missing => "missing".to_owned(),
            Verified::Unreadable(reason) => format!("unreadable: {}", one_line(reason)),
            Verified::Modified(diff) => format!(
                "{} added, {} removed, {} changed file(s)",
                diff.added.len(),
                diff.removed.len(),
                diff.changed.len()
            ),
        };
        let done = match plan.action {
            LockedAction::Relock(_) => "installed and re-locked",
            _ => "restored",
        };
        writeln!(out, "{name}: {done} (was {was})")?;
    }
    writeln!(
        out,
        "{} skill(s) match {}",
        plans.len(),
        installer.lock_path().display()
    )?;
    Ok(Outcome::Ok)
}
