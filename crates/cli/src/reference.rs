//! `skills completions` and `skills man`: the shell completion scripts and man pages, generated
//! from the same argument definitions the command parses.

use std::path::PathBuf;

use clap::CommandFactory;
use clap_complete::Shell;

use crate::{Cli, Outcome, output};

#[derive(Debug, clap::Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_name = "SHELL")]
    shell: Shell,
}

#[derive(Debug, clap::Args)]
pub(crate) struct ManArgs {
    /// Write `skills.1` and one `skills-COMMAND.1` per command into DIR (created if missing);
    /// without it, `skills.1` is printed.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// The command's name as the shell sees it.
const BIN: &str = "skills";

pub(crate) fn completions(args: &CompletionsArgs) -> anyhow::Result<Outcome> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), BIN, &mut script);
    write!(output::stdout(), "{}", String::from_utf8(script)?)?;
    Ok(Outcome::Ok)
}

pub(crate) fn man(args: &ManArgs) -> anyhow::Result<Outcome> {
    let command = Cli::command().name(BIN);
    match &args.out {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
            clap_mangen::generate_to(command, dir).map_err(|e| {
                anyhow::anyhow!("cannot write man pages into {}: {e}", dir.display())
            })?;
            writeln!(output::stderr(), "man pages written to {}", dir.display())?;
        }
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(command).render(&mut page)?;
            write!(output::stdout(), "{}", String::from_utf8(page)?)?;
        }
    }
    Ok(Outcome::Ok)
}
