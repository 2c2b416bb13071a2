//! `cargo xtask llm-server`: the embedded engine of `skillful-engine` (llama.cpp and a small
//! model from PyPI, on 127.0.0.1), started to keep running or stopped.
//!
//! A port that already answers is never given a second server: an engine of the same state
//! directory with the same model and template is reused (its endpoint and pid are printed
//! again); anything else is an error.

use std::path::PathBuf;

use anyhow::{Context, bail};
use skillful_engine::{
    DEFAULT_MODEL, DEFAULT_PORT, Engine, EngineDirs, StartOptions, model, template,
};

/// What `llm-server` was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Options {
    port: u16,
    model: String,
    template: Option<&'static str>,
    /// The engine's directories; `None`: the per-user ones.
    state: Option<PathBuf>,
    stop: bool,
}

/// `cargo xtask llm-server ARGS`.
pub(crate) fn server(args: &[String]) -> anyhow::Result<()> {
    let options = parse(args)?;
    let engine = match &options.state {
        Some(dir) => Engine::new(EngineDirs::under(dir)),
        None => Engine::from_env()?,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        if options.stop {
            let stopped = engine.stop(Some(options.port)).await?;
            match stopped.first() {
                Some(record) => println!(
                    "stopped the engine on port {} (pid {})",
                    record.port, record.pid
                ),
                None => println!("no engine is running on port {}", options.port),
            }
            return Ok(());
        }
        let mut start = StartOptions::new(model(&options.model)?).port(options.port);
        if let Some(name) = options.template {
            start = start.template(template(name)?);
        }
        let running = engine.start(&start).await?;
        let how = if running.reused() {
            "already running, reused"
        } else {
            "started"
        };
        let record = running.detach();
        println!(
            "llama.cpp server {how}: {} (pid {}, model {}, template {})",
            record.endpoint(),
            record.pid,
            record.model,
            record.template
        );
        println!("  log:  {}", record.log.display());
        let state = options
            .state
            .as_ref()
            .map(|dir| format!(" --state {}", dir.display()))
            .unwrap_or_default();
        println!(
            "  stop: cargo xtask llm-server --stop --port {}{state}   (or skills engine stop)",
            record.port
        );
        Ok(())
    })
}

fn parse(args: &[String]) -> anyhow::Result<Options> {
    let mut options = Options {
        port: DEFAULT_PORT,
        model: DEFAULT_MODEL.to_owned(),
        template: None,
        state: None,
        stop: false,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .with_context(|| format!("{arg} needs a value\n\n{}", crate::TASKS))
        };
        match arg.as_str() {
            "--port" => {
                let port = value()?;
                options.port = port
                    .parse()
                    .ok()
                    .filter(|port| *port != 0)
                    .with_context(|| format!("--port {port}: not a port number (1-65535)"))?;
            }
            "--model" => options.model = value()?.clone(),
            "--require-user" => options.template = Some("qwen25-fenced-json-require-user"),
            "--state" => options.state = Some(std::path::absolute(value()?)?),
            "--stop" => options.stop = true,
            other => bail!("unexpected argument `{other}`\n\n{}", crate::TASKS),
        }
    }
    Ok(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_parsed_and_checked() {
        let args = |list: &[&str]| list.iter().map(|arg| (*arg).to_owned()).collect::<Vec<_>>();
        let options = parse(&args(&["--port", "9001", "--require-user"])).unwrap();
        assert_eq!(
            (options.port, options.template, options.stop, options.state),
            (9001, Some("qwen25-fenced-json-require-user"), false, None)
        );
        assert_eq!(options.model, DEFAULT_MODEL);
        let options = parse(&args(&["--stop", "--state", "/tmp/s", "--model", "m"])).unwrap();
        assert_eq!((options.port, options.stop), (DEFAULT_PORT, true));
        assert_eq!(options.state, Some(PathBuf::from("/tmp/s")));
        assert_eq!(options.model, "m");
        assert!(parse(&args(&["--port", "0"])).is_err());
        assert!(parse(&args(&["--port"])).is_err());
        assert!(parse(&args(&["--threads", "2"])).is_err());
    }
}
