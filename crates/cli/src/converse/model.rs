//! Which model server `run`, `chat` and `eval` ask, and how: `--endpoint`, `--model` and the
//! call's limits; without an endpoint, the embedded engine.

use anyhow::Context as _;
use skillful_chat::DEFAULT_BASE_URL;
use skillful_core::text::one_line;
use skillful_engine::EngineGuard;

use crate::output;

/// The most tokens a model call may generate unless `--max-tokens` says otherwise: a small local
/// model left unbounded can generate for minutes.
pub(crate) const DEFAULT_MAX_TOKENS: u32 = 1024;

/// How long one model call may take unless `--call-timeout` says otherwise, in seconds.
pub(crate) const DEFAULT_CALL_TIMEOUT: u64 = 300;

/// The server to talk to: `endpoint` as given; without one, what [`EngineGuard::ensure`] finds
/// or starts (`model` when it names a model of the engine's catalogue), kept until the guard is
/// dropped.
pub(crate) async fn model_server(
    endpoint: Option<&str>,
    model: Option<&str>,
) -> anyhow::Result<(String, Option<EngineGuard>)> {
    if let Some(endpoint) = endpoint {
        return Ok((endpoint.to_owned(), None));
    }
    let engine = crate::commands::engine::from_env()?;
    let model = skillful_engine::model_or_default(model);
    let guard = EngineGuard::ensure(&engine, DEFAULT_BASE_URL, model)
        .await
        .with_context(|| {
            format!(
                "nothing answers at {DEFAULT_BASE_URL} and the embedded engine cannot start \
                 (or pass --endpoint URL)"
            )
        })?;
    if let Some(note) = guard.note() {
        writeln!(output::stderr(), "skills: {}", one_line(&note.to_string()))?;
    }
    Ok((guard.endpoint(), Some(guard)))
}

/// Which model server to ask, and how: the options `run`, `chat` and `eval` share.
#[derive(Debug, clap::Args)]
pub(crate) struct ModelArgs {
    /// The server's base URL (OpenAI-compatible, up to `/v1`). Without it: the server at
    /// http://127.0.0.1:1234/v1 if one answers, else a running `skills engine`, else the
    /// embedded engine started for this command.
    // `--help` would print the variable's value, credentials included.
    #[arg(long, env = "SKILLS_ENDPOINT", hide_env_values = true, value_parser = base_url)]
    pub(crate) endpoint: Option<String>,
    /// The model to ask for; without it, local servers use the model they have loaded. A model
    /// of `skills engine models` is also the one the embedded engine starts with.
    #[arg(long, env = "SKILLS_MODEL")]
    pub(crate) model: Option<String>,
    /// The environment variable holding the API key (local servers need none).
    #[arg(long, value_name = "VAR", default_value = "SKILLS_API_KEY")]
    pub(crate) api_key_env: String,
    /// Sampling temperature (default: the server's; 0: the most likely tokens, the same answer
    /// each time).
    #[arg(long, env = "SKILLS_TEMPERATURE")]
    pub(crate) temperature: Option<f32>,
    /// A sampling seed, for servers that make sampling repeatable with one.
    #[arg(long, env = "SKILLS_SEED")]
    pub(crate) seed: Option<u64>,
    /// The most tokens the model may generate per call.
    #[arg(long, value_name = "N", env = "SKILLS_MAX_TOKENS", default_value_t = DEFAULT_MAX_TOKENS)]
    pub(crate) max_tokens: u32,
    /// The most seconds one model call may take.
    #[arg(
        long,
        value_name = "SECS",
        env = "SKILLS_CALL_TIMEOUT",
        default_value_t = DEFAULT_CALL_TIMEOUT,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub(crate) call_timeout: u64,
}

/// A server's base URL as `--endpoint` takes it: a malformed one is a usage error (exit 2).
pub(crate) fn base_url(text: &str) -> Result<String, String> {
    skillful_chat::check_base_url(text)
        .map(|()| text.to_owned())
        .map_err(|error| error.to_string())
}

impl ModelArgs {
    /// The server to talk to: `--endpoint` (or `SKILLS_ENDPOINT`), else the embedded engine's
    /// fallback ([`model_server`]), kept until the guard is dropped.
    pub(crate) async fn server(&self) -> anyhow::Result<(String, Option<EngineGuard>)> {
        let server = model_server(self.endpoint.as_deref(), self.model.as_deref()).await?;
        if self.endpoint.is_none() && self.key_variable().is_some() {
            writeln!(
                output::stderr(),
                "skills: {} is not sent to {}, which was not named; pass --endpoint URL (or set SKILLS_ENDPOINT) to send it",
                self.api_key_env,
                server.0
            )?;
        }
        Ok(server)
    }

    /// The API key, from the variable `--api-key-env` names (unset or empty: none); only for
    /// an endpoint the user named (`--endpoint`, `SKILLS_ENDPOINT`), never for the implicit
    /// default or an engine, whoever may hold their port.
    pub(crate) fn api_key(&self) -> Option<String> {
        self.endpoint.as_ref().and(self.key_variable())
    }

    fn key_variable(&self) -> Option<String> {
        std::env::var(&self.api_key_env)
            .ok()
            .filter(|key| !key.is_empty())
    }
}
