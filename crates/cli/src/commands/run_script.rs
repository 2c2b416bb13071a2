//! `skills run-script`: runs one script of a skill directly, with the runner and limits an agent
//! uses, and prints what the model would be shown.

use std::sync::Arc;
use std::time::Duration;

use skillful_core::Skill;
use skillful_scripts::ProcessRunner;

use crate::inspect::Roots;
use crate::sandbox::{ScriptFlags, not_isolated_line};
use crate::{Outcome, output};

#[derive(Debug, clap::Args)]
pub(crate) struct RunScriptArgs {
    /// The skill's name.
    name: String,
    /// The script's name, exactly as the skill lists it (e.g. `scripts/convert.py`).
    script: String,
    #[command(flatten)]
    roots: Roots,
    /// Kill the script and its child processes after this many seconds (default 30).
    #[arg(long, value_name = "SECS", value_parser = crate::sandbox::parse_seconds)]
    timeout: Option<Duration>,
    #[command(flatten)]
    sandbox: ScriptFlags,
    /// The script's arguments, after `--`, passed to it exactly as given (no shell).
    #[arg(last = true, value_name = "ARGS")]
    args: Vec<String>,
}

/// Runs the script and prints its rendered output: exit code 0 when it exited with 0, 1 when it
/// failed, timed out or could not start, or the skill or script does not exist.
pub(crate) async fn run_script(args: RunScriptArgs) -> anyhow::Result<Outcome> {
    let mut runner = ProcessRunner::builder();
    if let Some(timeout) = args.timeout {
        runner = runner.timeout(timeout);
    }
    let runner = args.sandbox.runner(runner)?;
    if let Some(line) = not_isolated_line(&runner, "it runs because you asked for it") {
        writeln!(output::stderr(), "{line}")?;
    }
    let discovery = args
        .roots
        .compose_with(Arc::new(runner.clone()))?
        .file_source()
        .discover()
        .await;
    let Some(skill) = discovery
        .skills
        .iter()
        .find(|skill| skill.name() == args.name)
    else {
        anyhow::bail!(
            "no skill named '{}' under the roots; see `skills list` for the names",
            args.name
        );
    };
    let request = skill
        .script_request(&args.script, serde_json::json!(args.args))
        .await?;
    let output = runner.execute(&request).await?;
    let mut out = output::stdout();
    writeln!(out, "{}", output.render())?;
    Ok(if output.succeeded() {
        Outcome::Ok
    } else {
        Outcome::Failed
    })
}
