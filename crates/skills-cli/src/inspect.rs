//! `skills list`, `show`, `read` and `catalog`: what a model would see of the skills under some
//! roots, through the same provider and tools an agent uses.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use serde_json::json;
use skills_core::{Diagnostic, RiskTier, SharedScriptRunner, Skill, SourceContext};
use skills_discovery::{Discovery, FileSkill, FileSkillsSource};
use skills_frontmatter::{FrontmatterLoader, ValidationMode};
use skills_provider::{SkillsProvider, ToolOutput};
use skills_scripts::ProcessRunner;

use crate::{Outcome, UsageError};

/// Where skills are looked for: the roots given, or the default ones.
#[derive(Debug, clap::Args)]
pub(crate) struct Roots {
    /// Skill roots (directories holding skills, or a skill directory). Default: the project's
    /// `.agents/skills` (searched upward to the repository root), then `~/.agents/skills`.
    #[arg(value_name = "ROOT")]
    roots: Vec<PathBuf>,
    /// Reject skills that break the specification instead of warning about them.
    #[arg(long)]
    strict: bool,
}

#[derive(Debug, clap::Args)]
pub(crate) struct ListArgs {
    /// Print a JSON array with every field of every skill.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    roots: Roots,
}

#[derive(Debug, clap::Args)]
pub(crate) struct ShowArgs {
    /// The skill's name.
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
}

impl Roots {
    fn source(&self) -> anyhow::Result<FileSkillsSource> {
        file_source(&self.roots, self.strict)
    }

    /// The skills under the roots, their scripts run by `runner`.
    pub(crate) fn source_with(
        &self,
        runner: SharedScriptRunner,
    ) -> anyhow::Result<FileSkillsSource> {
        file_source_with(&self.roots, self.strict, runner)
    }
}

/// The file source over `roots` (the default roots when none are given), as every command that
/// reads skills builds it; its scripts run with the default [`ProcessRunner`].
pub(crate) fn file_source(roots: &[PathBuf], strict: bool) -> anyhow::Result<FileSkillsSource> {
    file_source_with(roots, strict, Arc::new(ProcessRunner::new()))
}

/// [`file_source`], its scripts run by `runner`.
pub(crate) fn file_source_with(
    roots: &[PathBuf],
    strict: bool,
    runner: SharedScriptRunner,
) -> anyhow::Result<FileSkillsSource> {
    let roots = if roots.is_empty() {
        default_roots()
    } else {
        for root in roots {
            if !root.exists() {
                return Err(UsageError(format!(
                    "{}: no such directory; give an existing skills root",
                    root.display()
                ))
                .into());
            }
        }
        roots.to_vec()
    };
    let mode = if strict {
        ValidationMode::Strict
    } else {
        ValidationMode::Lenient
    };
    Ok(FileSkillsSource::builder()
        .roots(roots)
        .loader(FrontmatterLoader::new(mode))
        .script_runner(runner)
        .build()?)
}

/// The project's `.agents/skills`, looked for from the current directory up to the repository
/// root, then the user's `~/.agents/skills`.
fn default_roots() -> Vec<PathBuf> {
    let mut roots = Vec::new();
    if let Ok(cwd) = std::env::current_dir() {
        for dir in cwd.ancestors() {
            let candidate = dir.join(".agents").join("skills");
            if candidate.is_dir() {
                roots.push(candidate);
                break;
            }
            if dir.join(".git").exists() {
                break;
            }
        }
    }
    let home = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE"));
    if let Some(home) = home {
        roots.push(Path::new(&home).join(".agents").join("skills"));
    }
    roots
}

fn print_diagnostics(diagnostics: &[Diagnostic]) -> io::Result<()> {
    let mut err = io::stderr().lock();
    for diagnostic in diagnostics {
        writeln!(err, "{diagnostic}")?;
    }
    Ok(())
}

fn outcome(discovery: &Discovery) -> Outcome {
    if discovery.diagnostics.iter().any(Diagnostic::is_error) {
        Outcome::Invalid
    } else {
        Outcome::Ok
    }
}

/// One skill in `skills list --json`.
#[derive(Serialize)]
struct Listed<'a> {
    name: &'a str,
    description: &'a str,
    license: &'a Option<String>,
    compatibility: &'a Option<String>,
    allowed_tools: &'a Option<Vec<String>>,
    metadata: &'a indexmap::IndexMap<String, String>,
    extra: &'a skills_core::Mapping,
    path: &'a Path,
    resources: Vec<String>,
    scripts: Vec<String>,
    /// The tier the skill declares for all its scripts (`metadata.risk`), if any.
    risk: Option<RiskTier>,
    /// Each script's tier, as an approval policy sees it.
    script_risks: indexmap::IndexMap<String, RiskTier>,
    warnings: Vec<String>,
}

fn listed(skill: &FileSkill) -> Listed<'_> {
    let frontmatter = skill.frontmatter();
    Listed {
        name: &frontmatter.name,
        description: &frontmatter.description,
        license: &frontmatter.license,
        compatibility: &frontmatter.compatibility,
        allowed_tools: &frontmatter.allowed_tools,
        metadata: &frontmatter.metadata,
        extra: &frontmatter.extra,
        path: skill.dir(),
        resources: skill
            .resources()
            .iter()
            .map(|r| r.name().to_owned())
            .collect(),
        scripts: skill
            .scripts()
            .iter()
            .map(|s| s.name().to_owned())
            .collect(),
        risk: skill.risk_tier(),
        script_risks: skill
            .scripts()
            .iter()
            .map(|s| (s.name().to_owned(), s.risk_tier()))
            .collect(),
        warnings: skill
            .diagnostics()
            .iter()
            .map(|d| format!("{}: {}", d.field, d.message))
            .collect(),
    }
}

pub(crate) async fn list(args: ListArgs) -> anyhow::Result<Outcome> {
    let discovery = args.roots.source()?.discover().await;
    let mut out = io::stdout().lock();
    if args.json {
        let skills: Vec<Listed<'_>> = discovery.skills.iter().map(|s| listed(s)).collect();
        serde_json::to_writer_pretty(&mut out, &skills)?;
        writeln!(out)?;
    } else {
        print_diagnostics(&discovery.diagnostics)?;
        let width = discovery
            .skills
            .iter()
            .map(|s| s.frontmatter().name.chars().count())
            .max()
            .unwrap_or(0);
        for skill in &discovery.skills {
            let frontmatter = skill.frontmatter();
            writeln!(
                out,
                "{:width$}  {}",
                frontmatter.name, frontmatter.description
            )?;
        }
    }
    Ok(outcome(&discovery))
}

/// Runs one of the provider's tools as a model would, and prints its text.
async fn call_tool(
    roots: &Roots,
    tool: &str,
    arguments: serde_json::Value,
) -> anyhow::Result<Outcome> {
    let provider = SkillsProvider::new(Arc::new(roots.source()?));
    let run = provider.context(&SourceContext::default()).await?;
    let Some(tool) = run.tool(tool) else {
        anyhow::bail!("no skills found; give a ROOT that holds skills (see `skills list`)");
    };
    match tool.invoke(arguments).await {
        ToolOutput::Text(text) => {
            let mut out = io::stdout().lock();
            out.write_all(text.as_bytes())?;
            if !text.ends_with('\n') {
                writeln!(out)?;
            }
            Ok(Outcome::Ok)
        }
        ToolOutput::Error(error) => {
            writeln!(io::stderr(), "skills: {} {}", error.message, error.hint)?;
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
    let source = args.roots.source()?;
    let provider = SkillsProvider::new(Arc::new(source));
    let run = provider.context(&SourceContext::default()).await?;
    if let Some(instructions) = run.instructions() {
        writeln!(io::stdout().lock(), "{instructions}")?;
    }
    Ok(Outcome::Ok)
}
