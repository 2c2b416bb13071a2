//! `cargo xtask demo`: `skills run` on the example skills against a model, in one command.
//!
//! The server at `SKILLS_ENDPOINT` (default LM Studio's `http://127.0.0.1:1234/v1`) is used when
//! something answers there; otherwise the local engine of `llm-server` is started on a free port
//! for the demo and stopped after it (also when the demo fails; Ctrl-C reaches it too, as it
//! shares the terminal's process group).

use std::io::Write;
use std::process::{Command, Stdio};

use anyhow::{Context, bail};

use crate::llm::{self, Engine, Probe, Settings, Template};

/// The server `skills run` talks to by default (LM Studio).
const DEFAULT_ENDPOINT: &str = "http://127.0.0.1:1234/v1";
const PROMPT: &str = "Use the unit-converter skill: a marathon is 26.2 miles, how many km?";
/// Answers to the approval questions: yes, as often as a model may ask.
const ANSWERS: &str = "y\ny\ny\ny\ny\ny\ny\ny\n";

/// `cargo xtask demo`.
pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    if let Some(arg) = args.first() {
        bail!("unexpected argument `{arg}`\n\n{}", crate::TASKS);
    }
    let configured = std::env::var("SKILLS_ENDPOINT")
        .ok()
        .filter(|endpoint| !endpoint.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_ENDPOINT.to_owned());
    // Keeps the engine it starts until the demo ends, however it ends.
    let mut engine = None;
    let endpoint = if answers(&configured) {
        println!("demo: using the server at {configured}");
        configured
    } else {
        let settings = Settings {
            port: llm::free_port()?,
            template: Template::Plain,
            state: Settings::default_state(),
        };
        println!(
            "demo: nothing answers at {configured}; starting the local engine on port {} (the \
             first time, this installs it and its model, about 600 MB, into {})",
            settings.port,
            settings.state.display()
        );
        let started = Engine::start(&settings)?;
        println!("demo: local engine up (pid {})", started.pid());
        engine = Some(started);
        llm::endpoint(settings.port)
    };

    let examples = crate::workspace_root().join("examples/skills");
    let examples = examples.to_string_lossy();
    let skills_args = [
        "run",
        PROMPT,
        "--skills",
        &examples,
        "--endpoint",
        &endpoint,
        "--approve",
        "ask",
        "--temperature",
        "0",
        "--max-tokens",
        "512",
    ];
    println!(
        "demo: skills {} (answering y to each approval)\n",
        quoted(&skills_args)
    );
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut skills = Command::new(cargo)
        .args(["run", "--quiet", "--package", "skillful-cli", "--"])
        .args(skills_args)
        .current_dir(crate::workspace_root())
        .stdin(Stdio::piped())
        .spawn()
        .context("cannot run `cargo run --package skillful-cli`")?;
    // A model that stops asking leaves answers unread: the pipe may close early.
    let _ = skills
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(ANSWERS.as_bytes());
    let status = skills.wait()?;
    if let Some(engine) = &engine {
        println!("\ndemo: stopping the local engine (pid {})", engine.pid());
    }
    drop(engine);
    if !status.success() {
        bail!("`skills run` failed ({status})");
    }
    Ok(())
}

/// Whether an HTTP server answers at `endpoint` (`GET {endpoint}/models`). An `https` endpoint is
/// taken as answering: the demo speaks no TLS, and `skills run` says clearly if it does not.
fn answers(endpoint: &str) -> bool {
    let Some(rest) = endpoint.strip_prefix("http://") else {
        return endpoint.starts_with("https://");
    };
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) => match port.parse() {
            Ok(port) => (host, port),
            Err(_) => return false,
        },
        None => (authority, 80),
    };
    let path = match path.trim_matches('/') {
        "" => "/models".to_owned(),
        base => format!("/{base}/models"),
    };
    matches!(llm::probe(host, port, &path), Probe::Http { .. })
}

/// The arguments as a shell would need them.
fn quoted(args: &[&str]) -> String {
    args.iter()
        .map(|arg| {
            if arg.contains(|c: char| c.is_whitespace() || c == '"' || c == '\'') {
                format!("\"{}\"", arg.replace('"', "\\\""))
            } else {
                (*arg).to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_answering_http_at_the_endpoint_is_used() {
        let (port, requests) = llm::tests::serve("HTTP/1.1 200 OK\r\n\r\n{}");
        assert!(answers(&format!("http://127.0.0.1:{port}/v1/")));
        let request = requests.recv().unwrap();
        assert!(
            request.starts_with("GET /v1/models HTTP/1.0\r\n"),
            "{request}"
        );

        assert!(!answers(&format!(
            "http://127.0.0.1:{}/v1",
            llm::free_port().unwrap()
        )));
        assert!(!answers("http://127.0.0.1:notaport/v1"));
        assert!(answers("https://api.openai.com/v1"));
    }

    #[test]
    fn arguments_are_shown_as_a_shell_takes_them() {
        assert_eq!(
            quoted(&["run", "a b", "--x", "say \"hi\""]),
            r#"run "a b" --x "say \"hi\"""#
        );
    }
}
