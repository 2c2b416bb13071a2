//! What the supply-chain commands share (`commands/add.rs`, `install.rs`, `verify.rs`,
//! `remove.rs`, `update.rs`, `outdated.rs`): the scope flags, what a fetched source would
//! install, the question before installing it, and the trust a project's lock needs.

use std::io::{self, BufRead, IsTerminal, Write};
use std::path::Path;

use skillful_config::Environment;
use skillful_core::text::one_line;
use skillful_discovery::hosts::{DEFAULT_HOST, Host};
use skillful_install::{
    FileChange, FileDiff, InstallOutcome, Installation, Installer, Prepared, Replacement,
};
use skillful_manifest::ManifestDiff;
use skillful_scan::Severity;

use crate::compose::hosts_named;
use crate::output::{self, Writer};
use crate::{Outcome, UsageError};

/// Which scope's skills directory and lock, which agent hosts' directories of that scope, and
/// whether the command reports as JSON (each command names its schema in the flag's help, with
/// `#[command(mut_arg("json", ..))]`).
#[derive(Debug, clap::Args)]
pub(crate) struct ScopeArgs {
    /// Print one JSON document on stdout.
    #[arg(long)]
    pub(crate) json: bool,
    /// The user's skills (`~/.agents/skills`, lock `~/.agents/skills-lock.json`): the default.
    #[arg(long, conflicts_with = "project")]
    user: bool,
    /// The project's skills (`.agents/skills`, lock `.agents/skills-lock.json`).
    #[arg(short, long)]
    project: bool,
    /// The skills directory of this agent host instead (`claude-code`: `~/.claude/skills`, with
    /// --project `.claude/skills`; also `codex`, `gemini-cli`, `copilot`, `goose`, and `agents`
    /// for the default), its lock beside it (`~/.claude/skills-lock.json`); repeatable.
    #[arg(long = "agent", value_name = "NAME")]
    agents: Vec<String>,
}

impl ScopeArgs {
    /// The other scope (the project's for the user's, and the reverse), and its flag.
    pub(crate) fn other(&self) -> (ScopeArgs, &'static str) {
        let other = ScopeArgs {
            json: self.json,
            user: self.project,
            project: !self.project,
            agents: self.agents.clone(),
        };
        let flag = if self.project { "--user" } else { "--project" };
        (other, flag)
    }

    /// The user's scope of the default host (`~/.agents/skills`), as a command without scope
    /// flags reads it.
    pub(crate) fn user_scope() -> Self {
        Self {
            json: false,
            user: true,
            project: false,
            agents: Vec::new(),
        }
    }

    /// The installer of the one directory named (a command that takes one `--agent` at most).
    pub(crate) fn installer(&self) -> anyhow::Result<Installer> {
        let mut installers = self.installers()?;
        if installers.len() > 1 {
            return Err(UsageError("this command takes one --agent at a time".to_owned()).into());
        }
        Ok(installers.remove(0))
    }

    /// The installers of every directory named: each `--agent`'s, or the default one.
    pub(crate) fn installers(&self) -> anyhow::Result<Vec<Installer>> {
        let environment = Environment::from_process()?;
        let mut hosts: Vec<&Host> = Vec::new();
        for host in hosts_named(&self.agents)? {
            if !hosts.contains(&host) {
                hosts.push(host);
            }
        }
        if hosts.is_empty() {
            hosts.push(Host::named(DEFAULT_HOST)?);
        }
        let base = if self.project {
            environment.project().map(|project| project.dir).ok_or_else(|| {
                UsageError("no project here (no .agents directory at or above the working directory); create .agents first".to_owned())
            })?
        } else {
            environment
                .home()
                .map(Path::to_path_buf)
                .ok_or_else(|| UsageError("no home directory; set HOME".to_owned()))?
        };
        Ok(hosts
            .into_iter()
            .map(|host| {
                Installer::new(if self.project {
                    host.project_skills(&base)
                } else {
                    host.user_skills(&base)
                })
            })
            .collect())
    }

    /// Refuses `--json` with more than one `--agent`: a report is about one directory.
    pub(crate) fn one_report(&self) -> anyhow::Result<()> {
        if self.json && self.agents.len() > 1 {
            return Err(UsageError(
                "--json reports on one --agent at a time; run once for each".to_owned(),
            )
            .into());
        }
        Ok(())
    }
}

/// Whether to install what a source gives without asking, and despite the scan's findings.
#[derive(Debug, Clone, Copy, clap::Args)]
pub(crate) struct InstallFlags {
    /// Install without asking, scripts included.
    #[arg(short, long)]
    yes: bool,
    /// Install even when the scan has findings at or above high.
    #[arg(long)]
    allow_findings: bool,
    /// Refuse a skill that strict validation finds fault with (its `strict:` lines: a name
    /// that is not a valid one, a directory that does not match it), instead of installing it
    /// under a valid name.
    #[arg(long)]
    strict: bool,
}

impl InstallFlags {
    /// `--yes`: install without asking (and without the picker of `skills add`).
    pub(crate) fn yes(&self) -> bool {
        self.yes
    }
}

/// Whether the scan found anything at or above high in what `prepared` would install: then it
/// is refused unless `--allow-findings`.
pub(crate) fn blocking(prepared: &Prepared) -> bool {
    prepared.candidates.iter().any(|candidate| {
        candidate
            .report
            .at_or_above(Severity::High)
            .next()
            .is_some()
    })
}

/// With `--strict`, refuses what `prepared` would install when strict validation finds fault
/// with any of its skills: one line each on `out` (unless `json`), naming the skill and what is
/// wrong. Whether it refused.
pub(crate) fn refuse_not_strict<W: Write>(
    out: &mut Writer<W>,
    prepared: &Prepared,
    json: bool,
) -> io::Result<bool> {
    let mut refused = false;
    for candidate in prepared.not_strict() {
        refused = true;
        if !json {
            let violations: Vec<String> = candidate
                .diagnostics
                .iter()
                .map(ToString::to_string)
                .collect();
            writeln!(
                out,
                "refused: --strict: {} is not a valid skill: {}",
                one_line(&candidate.declared_name),
                one_line(&violations.join("; "))
            )?;
        }
    }
    Ok(refused)
}

/// The files a change adds, removes and changes, in one line (`added a; changed b, c`), or
/// `no file changes`.
pub(crate) fn changed_files(diff: &ManifestDiff) -> String {
    let named = |kind: &str, paths: &[String]| {
        (!paths.is_empty()).then(|| format!("{kind} {}", one_line(&paths.join(", "))))
    };
    let changes: Vec<String> = [
        named("added", &diff.added),
        named("removed", &diff.removed),
        named("changed", &diff.changed),
    ]
    .into_iter()
    .flatten()
    .collect();
    if changes.is_empty() {
        "no file changes".to_owned()
    } else {
        changes.join("; ")
    }
}

/// Prints how each file of `changes` changes: its unified diff (other people's text, escaped
/// by the writer as everything else), or a line saying why it is not shown.
pub(crate) fn print_file_changes<W: Write>(
    out: &mut Writer<W>,
    changes: &[FileChange],
) -> io::Result<()> {
    for change in changes {
        let path = one_line(&change.path);
        match &change.diff {
            FileDiff::Unified(text) => write!(out, "{text}")?,
            FileDiff::Binary { old, new } => {
                writeln!(out, "{path}: binary, {old} -> {new} byte(s), not shown")?;
            }
            FileDiff::TooLarge { old, new } => {
                writeln!(out, "{path}: {old} -> {new} byte(s), too large to show")?;
            }
            FileDiff::TooLong { added, removed } => {
                writeln!(
                    out,
                    "{path}: {added} line(s) added, {removed} removed, too long to show"
                )?;
            }
            FileDiff::Unavailable => writeln!(
                out,
                "{path}: the installed copy is not as locked (skills verify), not shown"
            )?,
            _ => writeln!(out, "{path}: changed")?,
        }
    }
    Ok(())
}

/// Prints what `prepared` would install.
pub(crate) fn show<W: Write>(out: &mut Writer<W>, prepared: &Prepared) -> io::Result<()> {
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
        writeln!(out, "  scan verdict: {}", candidate.verdict())?;
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
        crate::commands::scan::print_table(out, &candidate.report, false)?;
    }
    Ok(())
}

/// The question before installing.
const QUESTION: &str = "install these skills";

/// Asks on the terminal; `None` without one (nothing to ask on).
fn confirm() -> anyhow::Result<Option<bool>> {
    if !io::stdin().is_terminal() {
        return Ok(None);
    }
    let mut err = output::stderr();
    write!(err, "{QUESTION} [y/N] ")?;
    err.flush()?;
    let mut answer = String::new();
    io::stdin().lock().read_line(&mut answer)?;
    Ok(Some(matches!(answer.trim(), "y" | "Y" | "yes")))
}

/// The error of an install that could not ask (exit 2): after the report, which says
/// `unconfirmed`.
pub(crate) fn unconfirmed() -> anyhow::Error {
    UsageError(format!(
        "{QUESTION}: pass --yes to confirm without a terminal (--json never asks)"
    ))
    .into()
}

/// The exit of an install that ended as `outcome` (after its report is printed).
pub(crate) fn outcome_of(outcome: InstallOutcome) -> anyhow::Result<Outcome> {
    match outcome {
        InstallOutcome::Refused => Ok(Outcome::Invalid),
        InstallOutcome::Unconfirmed => Err(unconfirmed()),
        _ => Ok(Outcome::Ok),
    }
}

/// Shows what `prepared` installs (unless `json`), refuses it with `--strict` when strict
/// validation finds fault with a skill and on high findings unless `--allow-findings`, asks once unless `--yes` (never with `json`: the install is then
/// unconfirmed, as without a terminal), and installs it into every target's directory,
/// replacing there the skills of its replacements. One installation per target, in order.
pub(crate) fn install(
    targets: Vec<(&Installer, Vec<Replacement>)>,
    prepared: &Prepared,
    flags: &InstallFlags,
    json: bool,
) -> anyhow::Result<Vec<Installation>> {
    let InstallFlags {
        yes,
        allow_findings,
        strict,
    } = *flags;
    let mut installations: Vec<(&Installer, Installation)> = targets
        .into_iter()
        .map(|(installer, replaces)| {
            let installation = Installation {
                offer: prepared.offer(),
                outcome: InstallOutcome::Unconfirmed,
                installed: Vec::new(),
                skills_dir: installer.skills_dir().to_owned(),
                replaces,
            };
            (installer, installation)
        })
        .collect();
    let ended = |installations: Vec<(&Installer, Installation)>, outcome: InstallOutcome| {
        installations
            .into_iter()
            .map(|(_, mut installation)| {
                installation.outcome = outcome;
                installation
            })
            .collect()
    };
    let mut out = output::stdout();
    if !json {
        show(&mut out, prepared)?;
    }
    if strict && refuse_not_strict(&mut out, prepared, json)? {
        return Ok(ended(installations, InstallOutcome::Refused));
    }
    if blocking(prepared) && !allow_findings {
        if !json {
            writeln!(
                out,
                "refused: the scan found high or critical findings; pass --allow-findings to install anyway"
            )?;
        }
        return Ok(ended(installations, InstallOutcome::Refused));
    }
    if !yes {
        match if json { None } else { confirm()? } {
            None => return Ok(ended(installations, InstallOutcome::Unconfirmed)),
            Some(false) => {
                writeln!(out, "nothing installed")?;
                return Ok(ended(installations, InstallOutcome::Declined));
            }
            Some(true) => {}
        }
    }
    for (installer, installation) in &mut installations {
        let replace = !installation.replaces.is_empty();
        installation.installed = installer.install(prepared, replace)?;
        installation.outcome = InstallOutcome::Installed;
        if !json {
            for name in &installation.installed {
                writeln!(
                    out,
                    "installed {} in {}",
                    one_line(name),
                    installer.skills_dir().display()
                )?;
            }
        }
    }
    Ok(installations
        .into_iter()
        .map(|(_, installation)| installation)
        .collect())
}

/// With `--project`, refuses an untrusted project: `command` fetches the sources its
/// `skills-lock.json` names.
pub(crate) fn require_trusted_lock(scope: &ScopeArgs, command: &str) -> anyhow::Result<()> {
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
