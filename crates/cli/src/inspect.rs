//! `skills list`, `show`, `read` and `catalog`: what a model would see of the skills, through
//! the same composition, provider and tools an agent uses.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::json;
use skillful_config::{Composition, ListedSkill, Loaded, Status};
use skillful_core::text::{for_terminal, one_line};
use skillful_core::{Diagnostic, SourceContext};
use skillful_discovery::SharedScriptRunner;
use skillful_plugin_host::PluginError;
use skillful_provider::{SkillsProvider, ToolOutput};

use crate::compose::{ListingFlags, SkillsFlags, process_runner};
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
    /// The composition of these roots and flags; file scripts run with the default runner.
    pub(crate) fn compose(&self) -> anyhow::Result<Composition> {
        self.compose_with(process_runner())
    }

    /// The composition of these roots and flags; file scripts run with `runner`.
    pub(crate) fn compose_with(&self, runner: SharedScriptRunner) -> anyhow::Result<Composition> {
        self.flags.compose(&self.roots, self.strict, Some(runner))
    }
}

#[derive(Debug, clap::Args)]
pub(crate) struct ListArgs {
    /// Print a JSON array with every field of every skill.
    #[arg(long)]
    json: bool,
    /// Also list the skills that are not offered: disabled, or shadowed by a skill of the same
    /// name with higher precedence.
    #[arg(long)]
    all: bool,
    #[command(flatten)]
    roots: Roots,
}

#[derive(Debug, clap::Args)]
pub(crate) struct ShowArgs {
    /// The skill's name (after `--` when it starts with `-`).
    name: String,
    #[command(flatten)]
    roots: Roots,
}

#[derive(Debug, clap::Args)]
pub(crate) struct ReadArgs {
    /// The skill's name.
    name: String,
    /// The resource's name, e.g. `references/FAQ.md`.
    resource: String,
    /// Start at this byte offset (long resources are returned in pages).
    #[arg(long)]
    offset: Option<u64>,
    /// Return at most this many bytes.
    #[arg(long)]
    limit: Option<u64>,
    #[command(flatten)]
    roots: Roots,
}

#[derive(Debug, clap::Args)]
pub(crate) struct CatalogArgs {
    #[command(flatten)]
    roots: Roots,
    #[command(flatten)]
    listing: ListingFlags,
}

/// Prints findings to stderr (skills skipped, plugins refused), one line each.
pub(crate) fn print_findings(
    diagnostics: &[Diagnostic],
    plugin_errors: &[Arc<PluginError>],
) -> io::Result<()> {
    let mut err = output::stderr();
    for diagnostic in diagnostics {
        writeln!(err, "{}", one_line(&diagnostic.to_string()))?;
    }
    for error in plugin_errors {
        writeln!(err, "skills: {}", one_line(&error.to_string()))?;
    }
    Ok(())
}

fn outcome(loaded: &Loaded) -> Outcome {
    if loaded.has_errors() {
        Outcome::Invalid
    } else {
        Outcome::Ok
    }
}

pub(crate) async fn list(args: ListArgs) -> anyhow::Result<Outcome> {
    let composition = args.roots.compose()?;
    let loaded = composition.load(&SourceContext::default()).await?;
    let entries: Vec<_> = loaded
        .entries
        .iter()
        .filter(|entry| args.all || entry.status == Status::Active)
        .collect();
    if loaded.entries.is_empty() {
        say_where_looked(&composition)?;
    }
    let mut out = output::stdout();
    if args.json {
        let listed: Vec<ListedSkill> = entries
            .iter()
            .map(|entry| ListedSkill::from(*entry))
            .collect();
        out.json(&listed)?;
        print_findings(&[], &loaded.plugin_errors)?;
    } else {
        print_findings(&loaded.diagnostics, &loaded.plugin_errors)?;
        let width = entries
            .iter()
            .map(|entry| one_line(entry.skill.name()).chars().count())
            .max()
            .unwrap_or(0);
        for entry in entries {
            let frontmatter = entry.skill.frontmatter();
            let status = match &entry.status {
                Status::Active => String::new(),
                Status::Disabled { by } => format!("[disabled by {} settings] ", by_word(*by)),
                Status::Shadowed { by_name, by } => {
                    format!("[shadowed by {} of {by}] ", one_line(by_name))
                }
                _ => "[not offered] ".to_owned(),
            };
            writeln!(
                out,
                "{:width$}  {status}{}",
                one_line(&frontmatter.name),
                one_line(&frontmatter.description)
            )?;
        }
    }
    Ok(outcome(&loaded))
}

/// On stderr, for a list that came out empty: the roots read and how to get a skill there.
fn say_where_looked(composition: &Composition) -> anyhow::Result<()> {
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

fn by_word(level: skillful_config::SettingsLevel) -> &'static str {
    match level {
        skillful_config::SettingsLevel::User => "the user's",
        skillful_config::SettingsLevel::Project => "the project's",
        _ => "this run's",
    }
}

/// Runs one of the provider's tools as a model would, and prints its text.
async fn call_tool(
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

pub(crate) async fn show(args: ShowArgs) -> anyhow::Result<Outcome> {
    call_tool(&args.roots, "load_skill", json!({ "skillName": args.name })).await
}

pub(crate) async fn read(args: ReadArgs) -> anyhow::Result<Outcome> {
    let mut arguments = json!({ "skillName": args.name, "resourceName": args.resource });
    if let Some(offset) = args.offset {
        arguments["offset"] = offset.into();
    }
    if let Some(limit) = args.limit {
        arguments["limit"] = limit.into();
    }
    call_tool(&args.roots, "read_skill_resource", arguments).await
}

pub(crate) async fn catalog(args: CatalogArgs) -> anyhow::Result<Outcome> {
    let provider = args.listing.provider(args.roots.compose()?.source())?;
    let run = provider.context(&SourceContext::default()).await?;
    if let Some(instructions) = run.instructions() {
        writeln!(output::stdout(), "{}", for_terminal(instructions))?;
    }
    Ok(Outcome::Ok)
}
