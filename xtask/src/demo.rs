//! `cargo xtask demo`: `skills run` on the example skills, in one command.
//!
//! `skills run` itself finds the model: the server at `SKILLS_ENDPOINT` when set, else whatever
//! answers at LM Studio's default address, else a running `skills engine`, else the embedded
//! engine started for the run and stopped after it.

use std::io::Write;
use std::process::Stdio;

use anyhow::{Context, bail};

const PROMPT: &str = "Use the unit-converter skill: a marathon is 26.2 miles, how many km?";
/// Answers to the approval questions: yes, as often as a model may ask.
const ANSWERS: &str = "y\ny\ny\ny\ny\ny\ny\ny\n";

/// `cargo xtask demo`.
pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    if let Some(arg) = args.first() {
        bail!("unexpected argument `{arg}`\n\n{}", crate::TASKS);
    }
    let root = crate::workspace_root()?;
    let examples = root.join("examples/skills");
    let examples = examples.to_string_lossy();
    let skills_args = [
        "run",
        PROMPT,
        "--skills",
        &examples,
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
    let mut skills = crate::skills_command()?
        .args(skills_args)
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
    if !status.success() {
        bail!("`skills run` failed ({status})");
    }
    Ok(())
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
    fn arguments_are_shown_as_a_shell_takes_them() {
        assert_eq!(
            quoted(&["run", "a b", "--x", "say \"hi\""]),
            r#"run "a b" --x "say \"hi\"""#
        );
    }
}
