//! `skills completions`: the shell completion script, generated from the same argument
//! definitions the command parses.

use clap::CommandFactory;
use clap_complete::Shell;

use crate::{Cli, Outcome, output};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The shell to complete for.
    #[arg(value_name = "SHELL")]
    shell: Shell,
}

/// Runs `skills completions`.
pub(crate) fn run(args: &Args) -> anyhow::Result<Outcome> {
    let mut command = Cli::command();
    let name = command.get_name().to_owned();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, name, &mut script);
    write!(output::stdout(), "{}", String::from_utf8(script)?)?;
    Ok(Outcome::Ok)
}
