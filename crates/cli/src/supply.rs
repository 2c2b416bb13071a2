//! `skills add`, `install`, `verify`, `remove`, `update` and `outdated`: skills from git repositories and
//! directories, installed into a scope's skills directory and recorded in its `skills-lock.json`
//! (the logic is `skillful-install`'s; this parses, shows, asks and prints).

use std::io::{self, BufRead, IsTerminal, Write};

use anyhow::Context;
use skillful_config::Environment;
use skillful_core::text::one_line;
use skillful_install::{Installer, LockedAction, Prepared, Selection, Source, Verified};
use skillful_scan::Severity;

use crate::output::{self, Writer};
use crate::{Outcome, UsageError};

/// Which scope's skills directory and lock.
#[derive(Debug, clap::Args)]
pub(crate) struct ScopeArgs {
    /// The user's skills (`~/.agents/skills`, lock `~/.agents/skills-lock.json`): the default.
    #[arg(long, conflicts_with = "project")]
    user: bool,
    /// The project's skills (`.agents/skills`, lock `.agents/skills-lock.json`).
    #[arg(long)]
    project: bool,
}

impl ScopeArgs {
    fn installer(&self) -> anyhow::Result<Installer> {
        let environment = Environment::from_process()?;
        let dir = if self.project {
            environment
                .project()
                .map(|project| project.skills())
                .ok_or_else(|| UsageError("no project here (no .agents directory at or above the working directory); create .agents first".to_owned()))?
        } else {
            environment
                .user_skills()
                .into_iter()
                .next()
                .ok_or_else(|| UsageError("no home directory; set HOME".to_owned()))?
        };
        Ok(Installer::new(dir))
    }
}

#[derive(Debug, clap::Args)]
pub(crate) struct AddArgs {
    /// A git URL (https://, ssh://, file://, git@host:path), owner/repo (GitHub) or a
    /// directory; `@REF` pins a tag, branch or commit.
    source: String,
    /// Only the skill of this name (repeatable).
    #[arg(long = "skill", value_name = "NAME")]
    skills: Vec<String>,
    /// Only the skills below this directory of the source.
    #[arg(long, value_name = "SUBDIR")]
    path: Option<String>,
    /// Install without asking, scripts included.
    #[arg(long)]
    yes: bool,
    /// Install even when the scan has findings at or above high.
    #[arg(long)]
    allow_findings: bool,
    #[command(flatten)]
    scope: ScopeArgs,
}

#[derive(Debug, clap::Args)]
pub(crate) struct InstallArgs {
    /// Fail (exit 1, naming the skill and what differs) instead of changing the lock: for CI.
    #[arg(long)]
    frozen: bool,
    /// Re-lock even when the scan of a changed skill has findings at or above high.
    #[arg(long)]
    allow_findings: bool,
    #[command(flatten)]
    scope: ScopeArgs,
}

#[derive(Debug, clap::Args)]
pub(crate) struct VerifyArgs {
    /// The skills to check (all locked skills when none).
    names: Vec<String>,
    #[command(flatten)]
    scope: ScopeArgs,
}

#[derive(Debug, clap::Args)]
pub(crate) struct RemoveArgs {
    /// The skill to remove.
    name: String,
    #[command(flatten)]
    scope: ScopeArgs,
}

#[derive(Debug, clap::Args)]
pub(crate) struct UpdateArgs {
    /// The skills to update (all locked git skills when none).
    names: Vec<String>,
    /// Update without asking.
    #[arg(long)]
    yes: bool,
    /// Update even when the scan has findings at or above high.
    #[arg(long)]
    allow_findings: bool,
    #[command(flatten)]
    scope: ScopeArgs,
}

#[derive(Debug, clap::Args)]
pub(crate) struct OutdatedArgs {
    #[command(flatten)]
    scope: ScopeArgs,
}

/// Prints what `prepared` would install; whether any finding is at or above high.
fn show<W: Write>(out: &mut Writer<W>, prepared: &Prepared) -> io::Result<bool> {
    let mut blocking = false;
    if let Some(commit) = &prepared.commit {
        writeln!(out, "{} at {commit}", one_line(&prepared.source.location()))?;
    }
    for candidate in &prepared.candidates {
        writeln!(
            out,
            "skill {} ({}): {} file(s), {} byte(s)",
            one_line(&candidate.name),
            one_line(&candidate.path),
            candidate.manifest.files().len(),
            candidate.manifest.total_size()
        )?;
        for (script, tier) in &candidate.scripts {
            writeln!(
                out,
                "  script {} (risk: {})",
                one_line(script),
                tier.as_str()
            )?;
        }
        for diagnostic in &candidate.diagnostics {
            writeln!(out, "  strict: {}", one_line(&diagnostic.to_string()))?;
        }
        crate::scan::print_table(out, &candidate.report)?;
        blocking |= candidate
            .report
            .at_or_above(Severity::High)
            .next()
            .is_some();
    }
    Ok(blocking)
}

/// Asks on the terminal; refuses without one.
fn confirm(question: &str) -> anyhow::Result<bool> {
    if !io::stdin().is_terminal() {
        return Err(UsageError(format!(
            "{question}: pass --yes to confirm without a terminal"
        ))
        .into());
    }
    let mut err = output::stderr();
    write!(err, "{question} [y/N] ")?;
    err.flush()?;
    let mut answer = String::new();
    io::stdin().lock().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}

fn install(
    installer: &Installer,
    prepared: &Prepared,
    yes: bool,
    allow_findings: bool,
    replace: bool,
) -> anyhow::Result<Outcome> {
    let mut out = output::stdout();
    let blocking = show(&mut out, prepared)?;
    if blocking && !allow_findings {
        writeln!(
            out,
            "refused: the scan found high or critical findings; pass --allow-findings to install anyway"
        )?;
        return Ok(Outcome::Invalid);
    }
    if !yes && !confirm("install these skills")? {
        writeln!(out, "nothing installed")?;
        return Ok(Outcome::Ok);
    }
    for name in installer.install(prepared, replace)? {
        writeln!(
            out,
            "installed {} in {}",
            one_line(&name),
            installer.skills_dir().display()
        )?;
    }
    Ok(Outcome::Ok)
}

pub(crate) fn add(args: AddArgs) -> anyhow::Result<Outcome> {
    let installer = args.scope.installer()?;
    let source = Source::parse(&args.source).map_err(|e| UsageError(e.to_string()))?;
    let selection = Selection {
        skills: args.skills,
        path: args.path,
    };
    let prepared = installer.prepare(source, &selection)?;
    install(&installer, &prepared, args.yes, args.allow_findings, false)
}

/// With `--project`, refuses an untrusted project: `command` fetches the sources its
/// `skills-lock.json` names.
fn require_trusted_lock(scope: &ScopeArgs, command: &str) -> anyhow::Result<()> {
    if scope.project {
        let environment = Environment::from_process()?;
        if let Some(project) = environment.project() {
            skillful_config::require_trusted(
                &environment,
                &project,
                &format!(
                    "`skills {command} --project` fetches the sources its skills-lock.json names"
                ),
            )?;
        }
    }
    Ok(())
}

pub(crate) fn install_locked(args: InstallArgs) -> anyhow::Result<Outcome> {
    require_trusted_lock(&args.scope, "install")?;
    let installer = args.scope.installer()?;
    let plans = installer.plan_locked()?;
    let mut out = output::stdout();
    if !args.frozen {
        // What re-locking would install is new to the lock: shown and scanned as `add` does.
        let mut blocking = false;
        for plan in &plans {
            if let (LockedAction::Relock(_), Some(prepared)) = (&plan.action, plan.prepared()) {
                blocking |= show(&mut out, prepared)?;
            }
        }
        if blocking && !args.allow_findings {
            writeln!(
                out,
                "refused: the scan found high or critical findings; pass --allow-findings to re-lock anyway"
            )?;
            return Ok(Outcome::Invalid);
        }
    }
    installer.apply_locked(&plans, args.frozen)?;
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

pub(crate) fn verify(args: VerifyArgs) -> anyhow::Result<Outcome> {
    let installer = args.scope.installer()?;
    let results = installer.verify(&args.names)?;
    let mut out = output::stdout();
    let mut differ = false;
    for (name, verified) in &results {
        let name = one_line(name);
        match verified {
            Verified::Intact => {}
            Verified::Missing => {
                differ = true;
                writeln!(out, "{name}: missing")?;
            }
            Verified::Unreadable(reason) => {
                differ = true;
                writeln!(out, "{name}: unreadable: {}", one_line(reason))?;
            }
            Verified::Modified(diff) => {
                differ = true;
                for (what, paths) in [
                    ("added", &diff.added),
                    ("removed", &diff.removed),
                    ("changed", &diff.changed),
                ] {
                    for path in paths {
                        writeln!(out, "{name}: {what} {}", one_line(path))?;
                    }
                }
            }
        }
    }
    writeln!(
        out,
        "{} skill(s) verified against {}: {}",
        results.len(),
        installer.lock_path().display(),
        if differ {
            "differences found"
        } else {
            "all intact"
        }
    )?;
    Ok(if differ {
        Outcome::Invalid
    } else {
        Outcome::Ok
    })
}

pub(crate) fn remove(args: RemoveArgs) -> anyhow::Result<Outcome> {
    let installer = args.scope.installer()?;
    installer.remove(&args.name)?;
    writeln!(output::stdout(), "removed {}", one_line(&args.name))?;
    Ok(Outcome::Ok)
}

pub(crate) fn update(args: UpdateArgs) -> anyhow::Result<Outcome> {
    require_trusted_lock(&args.scope, "update")?;
    let installer = args.scope.installer()?;
    let lock = installer.lock()?;
    let mut outcome = Outcome::Ok;
    for (name, entry) in &lock.skills {
        if entry.source_type != "git" || !(args.names.is_empty() || args.names.contains(name)) {
            continue;
        }
        let source = installer.locked_source(name, entry, false)?;
        let selection = Selection {
            skills: vec![name.clone()],
            path: (entry.path != ".").then(|| entry.path.clone()),
        };
        let prepared = installer
            .prepare(source, &selection)
            .with_context(|| format!("updating {name}"))?;
        if prepared.commit == entry.commit {
            writeln!(output::stdout(), "{}: up to date", one_line(name))?;
            continue;
        }
        if let Some(candidate) = prepared.candidates.first() {
            let diff = candidate.manifest.diff(&entry.files);
            writeln!(
                output::stdout(),
                "{}: {} added, {} removed, {} changed file(s)",
                one_line(name),
                diff.added.len(),
                diff.removed.len(),
                diff.changed.len()
            )?;
        }
        if let Outcome::Invalid =
            install(&installer, &prepared, args.yes, args.allow_findings, true)?
        {
            outcome = Outcome::Invalid;
        }
    }
    Ok(outcome)
}

pub(crate) fn outdated(args: OutdatedArgs) -> anyhow::Result<Outcome> {
    require_trusted_lock(&args.scope, "outdated")?;
    let installer = args.scope.installer()?;
    let outdated = installer.outdated()?;
    let mut out = output::stdout();
    for entry in &outdated {
        writeln!(
            out,
            "{}: {} -> {}",
            one_line(&entry.name),
            entry.locked,
            entry.latest
        )?;
    }
    Ok(if outdated.is_empty() {
        Outcome::Ok
    } else {
        Outcome::Invalid
    })
}
