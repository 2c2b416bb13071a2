//! `skills list`, `show`, `read` and `catalog`: what a model would see of the skills under some
//! roots, through the same provider and tools an agent uses.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use serde_json::json;
use skillful_core::{Diagnostic, RiskTier, Skill, SkillsSource, SourceContext};
use skillful_discovery::SharedScriptRunner;
use skillful_discovery::{Discovery, FileSkill, FileSkillsSource};
use skillful_frontmatter::{FrontmatterLoader, ValidationMode};
use skillful_plugin_host::PluginSkillsSource;
use skillful_provider::{SkillsProvider, SkillsSourceBuilder, ToolOutput};
use skillful_scripts::ProcessRunner;

use crate::mcp::McpSources;
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

/// Where class-skill plugins are loaded from, besides the skill roots.
#[derive(Debug, clap::Args)]
pub(crate) struct Plugins {
    /// A directory of class-skill plugins (`lib<name>.so`, `<name>.dll`, `lib<name>.dylib`), or
    /// one plugin file; repeatable. Without a ROOT, the project's `.agents/plugins` (searched
    /// upward like `.agents/skills`) and `~/.agents/plugins` are loaded too.
    #[arg(long = "plugins", value_name = "DIR")]
    plugins: Vec<PathBuf>,
}

impl Plugins {
    /// The plugins given, and the default plugin directories when the skill roots are the
    /// default ones (`roots` is empty).
    fn source(&self, roots: &[PathBuf]) -> anyhow::Result<PluginSkillsSource> {
        let mut source = PluginSkillsSource::new();
        if roots.is_empty() {
            source = default_dirs("plugins")
                .into_iter()
                .fold(source, PluginSkillsSource::dir);
        }
        for path in &self.plugins {
            source = if path.is_file() {
                source.file(path)
            } else if path.is_dir() {
                source.dir(path)
            } else {
                return Err(UsageError(format!(
                    "{}: no such directory; give a directory of plugins or a plugin file",
                    path.display()
                ))
                .into());
            };
        }
        Ok(source)
    }
}

#[derive(Debug, clap::Args)]
pub(crate) struct ListArgs {
    /// Print a JSON array with every field of every skill.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    roots: Roots,
    #[command(flatten)]
    mcp: McpSources,
    #[command(flatten)]
    plugins: Plugins,
}

#[derive(Debug, clap::Args)]
pub(crate) struct ShowArgs {
    /// The skill's name.
    name: String,
    #[command(flatten)]
    roots: Roots,
    #[command(flatten)]
    mcp: McpSources,
    #[command(flatten)]
    plugins: Plugins,
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
    #[command(flatten)]
    mcp: McpSources,
    #[command(flatten)]
    plugins: Plugins,
}

#[derive(Debug, clap::Args)]
pub(crate) struct CatalogArgs {
    #[command(flatten)]
    roots: Roots,
    #[command(flatten)]
    mcp: McpSources,
    #[command(flatten)]
    plugins: Plugins,
}

impl Roots {
    fn source(&self) -> anyhow::Result<FileSkillsSource> {
        file_source(&self.roots, self.strict)
    }

    fn with_mcp(
        &self,
        mcp: &McpSources,
        plugins: &Plugins,
    ) -> anyhow::Result<Arc<dyn SkillsSource>> {
        all_sources(&self.roots, self.strict, mcp, plugins)
    }

    /// The skills under the roots, their scripts run by `runner`.
    pub(crate) fn source_with(
        &self,
        runner: SharedScriptRunner,
    ) -> anyhow::Result<FileSkillsSource> {
        file_source_with(&self.roots, self.strict, runner)
    }
}

/// The skills under `roots`, then those of the MCP servers, then those of the plugins (on a
/// repeated name the first wins): what every command that offers skills to a model reads.
pub(crate) fn all_sources(
    roots: &[PathBuf],
    strict: bool,
    mcp: &McpSources,
    plugins: &Plugins,
) -> anyhow::Result<Arc<dyn SkillsSource>> {
    let plugins = plugins.source(roots)?;
    Ok(SkillsSourceBuilder::new()
        .source(mcp.compose(file_source(roots, strict)?)?)
        .source(Arc::new(plugins))
        .build())
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
        default_dirs("skills")
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

/// The project's `.agents/KIND` (`skills`, `plugins`), looked for from the current directory up
/// to the repository root, then the user's `~/.agents/KIND`.
fn default_dirs(kind: &str) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    if let Ok(cwd) = std::env::current_dir() {
        for dir in cwd.ancestors() {
            let candidate = dir.join(".agents").join(kind);
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
        roots.push(Path::new(&home).join(".agents").join(kind));
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
    extra: &'a skillful_core::Mapping,
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
    let warnings = skill
        .diagnostics()
        .iter()
        .map(|d| format!("{}: {}", d.field, d.message))
        .collect();
    listed_skill(skill, skill.dir(), warnings)
}

/// The listing of any skill found at `path` (its directory, or its plugin file).
fn listed_skill<'a>(skill: &'a dyn Skill, path: &'a Path, warnings: Vec<String>) -> Listed<'a> {
    let frontmatter = skill.frontmatter();
    Listed {
        name: &frontmatter.name,
        description: &frontmatter.description,
        license: &frontmatter.license,
        compatibility: &frontmatter.compatibility,
        allowed_tools: &frontmatter.allowed_tools,
        metadata: &frontmatter.metadata,
        extra: &frontmatter.extra,
        path,
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
        warnings,
    }
}

pub(crate) async fn list(args: ListArgs) -> anyhow::Result<Outcome> {
    let discovery = args.roots.source()?.discover().await;
    let remote = args.mcp.skills().await?;
    let plugins = args.plugins.source(&args.roots.roots)?;
    let plugins = plugins.load().await?;
    let mut out = io::stdout().lock();
    if args.json {
        let mut skills = Vec::new();
        for skill in &discovery.skills {
            skills.push(serde_json::to_value(listed(skill))?);
        }
        skills.extend(
            remote
                .iter()
                .map(|skill| crate::mcp::listed(skill.as_ref())),
        );
        for skill in &plugins.skills {
            let listed = listed_skill(skill.as_ref(), skill.path(), Vec::new());
            skills.push(serde_json::to_value(listed)?);
        }
        serde_json::to_writer_pretty(&mut out, &skills)?;
        writeln!(out)?;
    } else {
        print_diagnostics(&discovery.diagnostics)?;
        let frontmatters = || {
            let remote = remote.iter().map(|s| s.frontmatter());
            let plugins = plugins.skills.iter().map(|s| s.frontmatter());
            discovery
                .skills
                .iter()
                .map(|s| s.frontmatter())
                .chain(remote)
                .chain(plugins)
        };
        let width = frontmatters()
            .map(|frontmatter| frontmatter.name.chars().count())
            .max()
            .unwrap_or(0);
        for frontmatter in frontmatters() {
            writeln!(
                out,
                "{:width$}  {}",
                frontmatter.name, frontmatter.description
            )?;
        }
    }
    if plugins.errors.is_empty() {
        Ok(outcome(&discovery))
    } else {
        Ok(Outcome::Invalid)
    }
}

/// Runs one of the provider's tools as a model would, and prints its text.
async fn call_tool(
    roots: &Roots,
    mcp: &McpSources,
    plugins: &Plugins,
    tool: &str,
    arguments: serde_json::Value,
) -> anyhow::Result<Outcome> {
    let provider = SkillsProvider::new(roots.with_mcp(mcp, plugins)?);
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
    let arguments = json!({ "skillName": args.name });
    call_tool(
        &args.roots,
        &args.mcp,
        &args.plugins,
        "load_skill",
        arguments,
    )
    .await
}

pub(crate) async fn read(args: ReadArgs) -> anyhow::Result<Outcome> {
    let mut arguments = json!({ "skillName": args.name, "resourceName": args.resource });
    if let Some(offset) = args.offset {
        arguments["offset"] = offset.into();
    }
    if let Some(limit) = args.limit {
        arguments["limit"] = limit.into();
    }
    let (roots, mcp, plugins) = (&args.roots, &args.mcp, &args.plugins);
    call_tool(roots, mcp, plugins, "read_skill_resource", arguments).await
}

pub(crate) async fn catalog(args: CatalogArgs) -> anyhow::Result<Outcome> {
    let provider = SkillsProvider::new(args.roots.with_mcp(&args.mcp, &args.plugins)?);
    let run = provider.context(&SourceContext::default()).await?;
    if let Some(instructions) = run.instructions() {
        writeln!(io::stdout().lock(), "{instructions}")?;
    }
    Ok(Outcome::Ok)
}
