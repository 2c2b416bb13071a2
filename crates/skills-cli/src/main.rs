//! The `skills` command: validates, lists and inspects Agent Skills.
//!
//! A thin binary: it parses arguments, calls the library crates and prints. Every failure is one
//! line on stderr; exit codes are 0 (ok), 1 (validation errors) and 2 (usage errors).

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod validate;

#[derive(Debug, Parser)]
#[command(
    name = "skills",
    version,
    about = "Validate, list and inspect Agent Skills"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check SKILL.md files against the Agent Skills specification.
    Validate(validate::Args),
}

/// What a command reports back to `main`.
enum Outcome {
    /// Done, nothing wrong.
    Ok,
    /// Done, and the input has errors.
    Invalid,
}

/// A mistake in how the command was called, as opposed to a problem in the skills.
#[derive(Debug)]
struct UsageError(String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let result = match cli.command {
        Command::Validate(args) => validate::run(args),
    };
    match result {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::Invalid) => ExitCode::from(1),
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(io::stderr(), "skills: {error:#}");
            if error.is::<UsageError>() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// A closed pipe (`skills validate | head`) is not an error worth reporting.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .downcast_ref::<io::Error>()
        .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
}
