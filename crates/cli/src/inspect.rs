//! What the commands that show skills as a model sees them share (`commands/list.rs`,
//! `show.rs`, `read.rs`, `catalog.rs`, `search.rs`, and the audit's): the roots and flags that
//! compose the skills, the findings printed, and a provider's tool called as a model calls it.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use skillful_config::{Composition, Loaded};
use skillful_core::text::{for_terminal, one_line};
use skillful_core::{Diagnostic, SourceContext};
use skillful_discovery::SharedScriptRunner;
use skillful_plugin_host::PluginError;
use skillful_provider::{SkillsProvider, ToolOutput};

use crate::compose::{SkillsFlags, process_runner};
use crate::{Outcome, UsageError, output};

/// Where skills are looked for: the roots given, or the default ones.
#[derive(Debug, clap::Args)]
pub(crate) struct Roots {
    /// Skill roots (directories holding skills, or a skill directory). Default: the project's
    /// `.agents/skills` (searched upward to the repository root; only when the project is
    /// trusted), then the user's (`~/.agents/skills`, the config directory's `skills/`), then
    /// the machine's (`/etc/agent-skills/skills`).
    #[arg(value_name = "ROOT")]
    roots: Vec<PathBuf>,
    /// Reject skills that break the specification instead of warning about them.
    #[arg(long)]
    strict: bool,
    #[command(flatten)]
    flags: SkillsFlags,
}

impl Roots {
    /// Whether roots were named on the command line (a command pointed at a tree that holds no
    /// skill fails; the default roots may well be empty).
    pub(crate) fn named(&self) -> bool {
        !self.roots.is_empty()
    }

    /// The composition of these roots and flags; file scripts run with the default runner.
    pub(crate) fn compose(&self) -> anyhow::Result<Composition> {
        self.compose_with(process_runner())
    }

    /// The composition of these roots and flags; file scripts run with `runner`.
    pub(crate) fn compose_with(&self, runner: SharedScriptRunner) -> anyhow::Result<Composition> {
        self.flags.compose(&self.roots, self.strict, Some(runner))
    }
}

/// Prints findings to stderr (skills skipped, plugins refused), one line each; with `--quiet`,
/// errors only.
pub(crate) fn print_findings(
    diagnostics: &[Diagnostic],
    plugin_errors: &[Arc<PluginError>],
) -> io::Result<()> {
    let mut err = output::stderr();
    let shown = diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.is_error() || !output::quiet());
    for diagnostic in shown {
        err.diagnostic(diagnostic)?;
    }
    for error in plugin_errors {
        writeln!(err, "skills: {}", one_line(&error.to_string()))?;
    }
    Ok(())
}

/// The exit of `skills list` and `skills catalog`: 1 when a skill was skipped as broken, or
/// the roots named hold none.
pub(crate) fn outcome(loaded: &Loaded, roots: &Roots) -> Outcome {
    if loaded.has_errors() || (loaded.entries.is_empty() && roots.named()) {
        Outcome::Invalid
    } else {
        Outcome::Ok
    }
}

/// On stderr, for a list that came out empty: the roots read and how to get a skill there.
pub(crate) fn say_where_looked(composition: &Composition) -> anyhow::Result<()> {
    if output::quiet() {
        return Ok(());
    }
    let mut err = output::stderr();
    let roots = composition.file_roots();
    if roots.is_empty() {
        writeln!(err, "skills: no skills found, and no skill root exists")?;
    } else {
        writeln!(err, "skills: no skills found; looked in:")?;
        for (root, scope) in roots {
            writeln!(
                err,
                "  {} ({})",
                one_line(&root.display().to_string()),
                scope.as_str()
            )?;
        }
    }
    writeln!(
        err,
        "add one with `skills add SOURCE` (into ~/.agents/skills), or name a ROOT: `skills list DIR`"
    )?;
    Ok(())
}

/// Runs one of the provider's tools as a model would, and prints its text.
pub(crate) async fn call_tool(
    roots: &Roots,
    tool: &str,
    arguments: serde_json::Value,
) -> anyhow::Result<Outcome> {
    let provider = SkillsProvider::new(roots.compose()?.source());
    let run = provider.context(&SourceContext::default()).await?;
    let Some(tool) = run.tool(tool) else {
        return Err(UsageError(
            "no skills found; give a ROOT that holds skills (see `skills list`)".to_owned(),
        )
        .into());
    };
    match tool.invoke(arguments).await {
        ToolOutput::Text(text) => {
            let mut out = output::stdout();
            write!(out, "{}", for_terminal(&text))?;
            if !text.ends_with('\n') {
                writeln!(out)?;
            }
            Ok(Outcome::Ok)
        }
        ToolOutput::Error(error) => {
            writeln!(
                output::stderr(),
                "skills: {} {}",
                one_line(&error.message),
                one_line(&error.hint)
            )?;
            Ok(Outcome::Invalid)
        }
    }
}
