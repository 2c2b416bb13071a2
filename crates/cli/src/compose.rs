//! The flags every command that reads skills shares, turned into a `skillful_config`
//! composition: plugins, MCP servers, trust and enable/disable for this run.

use std::path::PathBuf;
use std::sync::Arc;

use skillful_config::{Composition, Environment, McpError, McpServer, McpServers, SkillsConfig};
use skillful_core::validate::ValidationMode;
use skillful_discovery::SharedScriptRunner;
use skillful_discovery::hosts::Host;
use skillful_provider::{SkillsProvider, SkillsProviderBuilder};

use crate::{UsageError, output};

/// Where skills come from besides the roots, and what this run changes about them.
#[derive(Debug, Default, clap::Args)]
pub(crate) struct SkillsFlags {
    /// A directory of class-skill plugins (`lib<name>.so`, `<name>.dll`, `lib<name>.dylib`), or
    /// one plugin file; repeatable. Plugins are loaded only from directories named here or in a
    /// settings file, and never from a symbolic link or a place others can write.
    #[arg(long = "plugins", value_name = "DIR")]
    plugins: Vec<PathBuf>,
    /// Also read skills from the MCP server this command line starts ("CMD ARGS", spoken to
    /// over its stdin and stdout); repeatable.
    #[arg(
        long = "mcp-stdio",
        value_name = "CMD ARGS",
        allow_hyphen_values = true
    )]
    mcp_stdio: Vec<String>,
    /// Also read skills from the MCP server at this streamable HTTP URL
    /// (`http://127.0.0.1:8000/mcp`); repeatable.
    #[arg(long = "mcp-http", value_name = "URL")]
    mcp_http: Vec<String>,
    /// Send the bearer token held by the environment variable VAR with every request to the
    /// --mcp-http server SERVER (exactly as given there), as a server started with `skills
    /// serve --http ADDR --auth-token-env VAR` requires; repeatable.
    #[arg(long = "mcp-auth-token-env", value_name = "SERVER=VAR")]
    mcp_auth_token_env: Vec<String>,
    /// Call an MCP server NAME: `NAME=SERVER`, SERVER exactly as given to --mcp-stdio or
    /// --mcp-http. Servers without a name are `mcp1`, `mcp2`, ... in the order given. A server's
    /// skill whose name another skill has is offered as `NAME:skill`.
    #[arg(long = "mcp-label", value_name = "NAME=SERVER")]
    mcp_label: Vec<String>,
    /// Let the `--mcp-stdio` servers inherit this variable of the environment; repeatable. They
    /// get only what scripts get (PATH, HOME, the locale, TZ, TMPDIR) and the variables named
    /// here.
    #[arg(long = "mcp-env", value_name = "VAR")]
    mcp_env: Vec<String>,
    /// Trust the project found from the working directory for this run (its .agents/skills,
    /// plugins and settings), as `skills trust` would for good.
    #[arg(long)]
    trust_project: bool,
    /// Do not offer the skill NAME in this run; repeatable.
    #[arg(long = "disable", value_name = "NAME")]
    disable: Vec<String>,
    /// Do not offer skills whose files differ from the lock they were installed with
    /// (skills-lock.json), as `[skills] locked = true` in the settings does.
    #[arg(long)]
    locked: bool,
    /// Also read the project, user and admin skills when roots are given (they are read anyway
    /// when none is).
    #[arg(long)]
    default_roots: bool,
    /// Read the skills directories of this agent host (`claude-code`: `~/.claude/skills`, and
    /// the trusted project's `.claude/skills`; also `codex`, `gemini-cli`, `copilot`, `goose`,
    /// `agents`); repeatable. As with a ROOT, the default roots are then left out unless
    /// --default-roots. `[skills] agents` in the settings reads them always.
    #[arg(long = "agent", value_name = "NAME")]
    agents: Vec<String>,
}

/// The agent hosts `names` name (`--agent`), in order; an unknown name is a usage error naming
/// the nearest known one.
pub(crate) fn hosts_named(names: &[String]) -> Result<Vec<&'static Host>, UsageError> {
    names
        .iter()
        .map(|name| Host::named(name).map_err(|unknown| UsageError(format!("--agent: {unknown}"))))
        .collect()
}

impl SkillsFlags {
    /// The MCP servers named, with their labels and tokens (`skillful_config::McpServers`:
    /// default labels `mcp1`, `mcp2`, ... and the pairing are the library's).
    fn servers(&self) -> anyhow::Result<Vec<McpServer>> {
        let mut servers = McpServers::new();
        for line in &self.mcp_stdio {
            servers = servers
                .stdio(line)
                .map_err(|error| UsageError(error.to_string()))?;
        }
        for url in &self.mcp_http {
            servers = servers.http(url);
        }
        for given in &self.mcp_label {
            let Some((name, server)) = given.split_once('=') else {
                return Err(UsageError(format!(
                    "--mcp-label {given}: give NAME=SERVER, SERVER exactly as given to --mcp-stdio or --mcp-http"
                ))
                .into());
            };
            servers = servers.label(name, server).map_err(|error| {
                UsageError(match error {
                    McpError::InvalidLabel { .. } => {
                        format!("--mcp-label {given}: the name must be a word without ':' or '/'")
                    }
                    _ => format!(
                        "--mcp-label {given}: no --mcp-stdio or --mcp-http was given as `{server}`"
                    ),
                })
            })?;
        }
        for given in &self.mcp_auth_token_env {
            // A variable's name has no `=`; a URL may.
            let Some((server, var)) = given.rsplit_once('=') else {
                return Err(UsageError(format!(
                    "--mcp-auth-token-env {given}: give SERVER=VAR, SERVER exactly as given to --mcp-http"
                ))
                .into());
            };
            servers = servers.bearer_token_env(server, var).map_err(|error| {
                UsageError(match error {
                    McpError::Token(error) => format!("--mcp-auth-token-env {given}: {error}"),
                    _ => format!(
                        "--mcp-auth-token-env {given}: no --mcp-http was given as `{server}`"
                    ),
                })
            })?;
        }
        Ok(self
            .mcp_env
            .iter()
            .fold(servers, |servers, name| servers.allow_env(name.clone()))
            .build())
    }

    /// The composition of `roots` (the default scopes when there are none) and these flags;
    /// every note about it (an untrusted project) goes to stderr.
    pub(crate) fn compose(
        &self,
        roots: &[PathBuf],
        strict: bool,
        runner: Option<SharedScriptRunner>,
    ) -> anyhow::Result<Composition> {
        let mut config = SkillsConfig::new(Environment::from_process()?)
            .roots(roots.iter().cloned())
            .trust_project(self.trust_project)
            .locked(self.locked)
            .validation(if strict {
                ValidationMode::Strict
            } else {
                ValidationMode::Lenient
            });
        if self.default_roots {
            config = config.default_scopes(true);
        }
        if let Some(runner) = runner {
            config = config.script_runner(runner);
        }
        for path in &self.plugins {
            config = config.plugins(path);
        }
        for server in self.servers()? {
            config = config.mcp_server(server);
        }
        for name in &self.disable {
            config = config.disable(name);
        }
        for host in hosts_named(&self.agents)? {
            config = config.host(host);
        }
        let composition = config.build().map_err(|error| match error {
            skillful_config::ConfigError::MissingRoot { .. }
            | skillful_config::ConfigError::MissingPlugins { .. } => {
                anyhow::Error::new(UsageError(error.to_string()))
            }
            other => other.into(),
        })?;
        let mut err = output::stderr();
        for note in composition.notes() {
            writeln!(err, "skills: {note}")?;
        }
        Ok(composition)
    }
}

/// The default script runner of the commands that run scripts.
pub(crate) fn process_runner() -> SharedScriptRunner {
    Arc::new(skillful_scripts::ProcessRunner::new())
}

/// How much of the model's context the skills part of the catalog may take.
#[derive(Debug, Default, clap::Args)]
pub(crate) struct ListingFlags {
    /// The most characters the skill entries of the catalog may take (default 8000):
    /// descriptions are shortened, then skills left out, and the `search_skills` tool finds
    /// those.
    #[arg(long, value_name = "CHARS", conflicts_with = "context_window")]
    listing_budget: Option<usize>,
    /// The model's context window in tokens: the listing budget is 2% of it (at about 4
    /// characters a token).
    #[arg(long, value_name = "TOKENS")]
    context_window: Option<usize>,
}

impl ListingFlags {
    /// A provider of `source` with this listing budget.
    pub(crate) fn provider(
        &self,
        source: Arc<dyn skillful_core::SkillsSource>,
    ) -> anyhow::Result<SkillsProvider> {
        Ok(self.builder(source).build()?)
    }

    /// The provider's builder with these flags, for a command that configures more.
    pub(crate) fn builder(
        &self,
        source: Arc<dyn skillful_core::SkillsSource>,
    ) -> SkillsProviderBuilder {
        let mut builder = SkillsProvider::builder(source);
        if let Some(chars) = self.listing_budget {
            builder = builder.listing_budget(chars);
        }
        if let Some(tokens) = self.context_window {
            builder = builder.context_window(tokens);
        }
        builder
    }
}
