//! `skills serve`: the skills of the roots as an MCP server, in the Skills extension's final
//! form and its draft form.

use std::net::SocketAddr;
use std::path::PathBuf;

use skillful_mcp::{BearerToken, HTTP_PATH, HttpLimits, ServeError, SkillsMcpServer};

use crate::audit::AuditFlags;
use crate::compose::{SkillsFlags, process_runner};
use crate::{Outcome, UsageError, output};

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
    /// at the path `/mcp`. An address other than loopback (such as 0.0.0.0) needs
    /// --auth-token-env.
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// Require every HTTP request to carry `Authorization: Bearer <token>`, the token being the
    /// value of the environment variable VAR (never given on the command line, where other
    /// users could read it). Required to serve an address other than loopback.
    #[arg(long, value_name = "VAR", requires = "http")]
    auth_token_env: Option<String>,
    /// With --http: how many `initialize` sessions are kept at once (one more is answered
    /// 503 until a session ends). Default 64.
    #[arg(long, value_name = "N", requires = "http")]
    max_sessions: Option<usize>,
    /// With --http: how many of those one client address may hold. Default 16.
    #[arg(long, value_name = "N", requires = "http")]
    max_sessions_per_peer: Option<usize>,
    /// With --http: how many connections are served at once (one more is answered 503).
    /// Default 128.
    #[arg(long, value_name = "N", requires = "http")]
    max_connections: Option<usize>,
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
    /// Every request that names a skill (a file read, an archive, `skills/get`) is a record of
    /// the user's audit log (`skills audit`).
    #[command(flatten)]
    audit: AuditFlags,
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
    let composition =
        SkillsFlags::default().compose(&args.roots, args.strict, Some(process_runner()))?;
    // Live reload: the roots are watched; clients are told when the skills change.
    let mut server = SkillsMcpServer::watched(composition.watch().await)
        .with_archives(args.archives)
        .with_audit(
            args.audit
                .settings("skills serve", skillful_audit::UserLog::Serve)?,
        );
    if let Some(var) = &args.auth_token_env {
        let token = BearerToken::from_env(var)
            .map_err(|error| UsageError(format!("--auth-token-env {var}: {error}")))?;
        server = server.with_bearer_token(token);
    }
    let defaults = HttpLimits::default();
    server = server.with_http_limits(HttpLimits {
        max_sessions: args.max_sessions.unwrap_or(defaults.max_sessions),
        max_sessions_per_peer: args
            .max_sessions_per_peer
            .unwrap_or(defaults.max_sessions_per_peer),
        max_connections: args.max_connections.unwrap_or(defaults.max_connections),
        ..defaults
    });
    match args.http.as_deref().filter(|_| !args.stdio) {
        None => server.serve_stdio().await?,
        Some(addr) => {
            let addr = http_address(addr)?;
            server.check_http_address(addr).map_err(|error| match error {
                ServeError::TokenRequired { addr } => UsageError(format!(
                    "--http {addr}: not a loopback address, so every host that can reach it could read the skills; give a bearer token with --auth-token-env VAR (the token is read from the environment variable VAR), or serve 127.0.0.1"
                )),
                other => UsageError(other.to_string()),
            })?;
            let listener = tokio::net::TcpListener::bind(addr).await?;
            let url = format!("http://{}{HTTP_PATH}", listener.local_addr()?);
            writeln!(output::stderr(), "skills: serving MCP at {url}")?;
            server.serve_http(listener).await?;
        }
    }
    Ok(Outcome::Ok)
}
