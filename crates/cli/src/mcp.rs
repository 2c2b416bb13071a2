//! MCP: `skills serve` (a skills directory as an MCP server, in the Skills extension's final
//! form and its draft form), and the `--mcp-stdio` / `--mcp-http` servers the other commands
//! read skills from.

use std::io::{self, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use skillful_core::{Skill, SkillsSource, SourceContext};
use skillful_discovery::FileSkillsSource;
use skillful_mcp::{HTTP_PATH, McpEndpoint, McpSkillsSource, SkillsMcpServer};
use skillful_provider::SkillsSourceBuilder;

use crate::inspect::file_source;
use crate::{Outcome, UsageError};

/// MCP servers to read skills from, besides the skill roots.
#[derive(Debug, Default, clap::Args)]
pub(crate) struct McpSources {
    /// Also read skills from the MCP server this command line starts ("CMD ARGS", spoken to
    /// over its stdin and stdout); repeatable.
    #[arg(
        long = "mcp-stdio",
        value_name = "CMD ARGS",
        allow_hyphen_values = true
    )]
    stdio: Vec<String>,
    /// Also read skills from the MCP server at this streamable HTTP URL
    /// (`http://127.0.0.1:8000/mcp`); repeatable.
    #[arg(long = "mcp-http", value_name = "URL")]
    http: Vec<String>,
    /// Let the `--mcp-stdio` servers inherit this variable of the environment; repeatable. They
    /// get only what scripts get (PATH, HOME, the locale, TZ, TMPDIR) and the variables named
    /// here.
    #[arg(long = "mcp-env", value_name = "VAR")]
    env: Vec<String>,
}

impl McpSources {
    fn sources(&self) -> anyhow::Result<Vec<Arc<dyn SkillsSource>>> {
        let stdio = self.stdio.iter().map(|line| {
            McpEndpoint::command_line(line).map_err(|error| UsageError(error.to_string()))
        });
        let http = self.http.iter().map(|url| Ok(McpEndpoint::http(url)));
        stdio
            .chain(http)
            .map(|endpoint| {
                let builder = self
                    .env
                    .iter()
                    .fold(McpSkillsSource::builder(endpoint?), |builder, name| {
                        builder.allow_env(name)
                    });
                Ok(Arc::new(builder.build()) as Arc<dyn SkillsSource>)
            })
            .collect()
    }

    /// The skills of `files`, then those of these servers (on a repeated name the first wins),
    /// each server's index read once.
    pub(crate) fn compose(&self, files: FileSkillsSource) -> anyhow::Result<Arc<dyn SkillsSource>> {
        let builder = SkillsSourceBuilder::new().source(Arc::new(files));
        Ok(self
            .sources()?
            .into_iter()
            .fold(builder, SkillsSourceBuilder::source)
            .cache()
            .build())
    }

    /// The skills of these servers alone, in order.
    pub(crate) async fn skills(&self) -> anyhow::Result<Vec<Arc<dyn Skill>>> {
        let mut skills = Vec::new();
        for source in self.sources()? {
            skills.extend(source.skills(&SourceContext::default()).await?);
        }
        Ok(skills)
    }
}

#[derive(Debug, clap::Args)]
pub(crate) struct ServeArgs {
    /// Skill roots to serve. Default: the project's `.agents/skills` (searched upward to the
    /// repository root), then `~/.agents/skills`.
    #[arg(value_name = "ROOT")]
    roots: Vec<PathBuf>,
    /// Serve one client over stdin and stdout (the default).
    #[arg(long, conflicts_with = "http")]
    stdio: bool,
    /// Serve streamable HTTP at ADDR (`PORT` or `HOST:PORT`; the host defaults to 127.0.0.1),
    /// at the path `/mcp`.
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// List each skill of the draft index (`skill://index.json`, what Microsoft Agent
    /// Framework reads) as an `archive` entry (a tar.gz of its files) instead of `skill-md`; the
    /// final form (`skills/list`) is unchanged.
    #[arg(long)]
    archives: bool,
    /// Serve only skills that meet the specification strictly (the Skills extension requires
    /// spec-conforming skills; without it, every skill `skills list` loads is served, and those
    /// whose names break the naming rules are left out of `skills/list` only).
    #[arg(long)]
    strict: bool,
}

/// The address `--http` names: a port alone binds to 127.0.0.1.
fn http_address(addr: &str) -> Result<SocketAddr, UsageError> {
    let parsed = match addr.parse::<u16>() {
        Ok(port) => Ok(SocketAddr::from(([127, 0, 0, 1], port))),
        Err(_) => addr.parse::<SocketAddr>(),
    };
    parsed.map_err(|_| {
        UsageError(format!(
            "--http {addr}: give PORT or HOST:PORT, e.g. 8000 or 127.0.0.1:8000"
        ))
    })
}

pub(crate) async fn serve(args: ServeArgs) -> anyhow::Result<Outcome> {
    let server =
        SkillsMcpServer::new(file_source(&args.roots, args.strict)?).with_archives(args.archives);
    match args.http.as_deref().filter(|_| !args.stdio) {
        None => server.serve_stdio().await?,
        Some(addr) => {
            let addr = http_address(addr)?;
            let listener = tokio::net::TcpListener::bind(addr).await?;
            let url = format!("http://{}{HTTP_PATH}", listener.local_addr()?);
            writeln!(io::stderr(), "skills: serving MCP at {url}")?;
            server.serve_http(listener).await?;
        }
    }
    Ok(Outcome::Ok)
}

/// One skill of an MCP server in `skills list --json`.
pub(crate) fn listed(skill: &dyn Skill) -> serde_json::Value {
    let frontmatter = skill.frontmatter();
    serde_json::json!({
        "name": frontmatter.name,
        "description": frontmatter.description,
        "origin": skill.origin().location.clone().unwrap_or_else(|| skill.origin().label.clone()),
        "resources": skill.resources().iter().map(|r| r.name().to_owned()).collect::<Vec<_>>(),
        "scripts": skill.scripts().iter().map(|s| s.name().to_owned()).collect::<Vec<_>>(),
    })
}
