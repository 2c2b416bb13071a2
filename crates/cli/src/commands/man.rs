//! `skills man`: the man pages of `skills` and of each command (roff), generated from the same
//! argument definitions the command parses.

use std::path::PathBuf;

use clap::CommandFactory;

use crate::{Cli, Outcome, output};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Write `skills.1` and one `skills-COMMAND.1` per command into DIR (created if missing);
    /// without it, `skills.1` is printed.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// Runs `skills man`.
pub(crate) fn run(args: &Args) -> anyhow::Result<Outcome> {
    let command = Cli::command();
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
