//! `skills remove`: a skill removed from the scope's skills directory and its lock.

use skillful_core::text::one_line;

use crate::supply::ScopeArgs;
use crate::{Outcome, output};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The skill to remove.
    name: String,
    #[command(flatten)]
    scope: ScopeArgs,
}

/// Runs `skills remove`.
pub(crate) fn run(args: Args) -> anyhow::Result<Outcome> {
    let installer = args.scope.installer()?;
    installer.remove(&args.name)?;
    writeln!(output::stdout(), "removed {}", one_line(&args.name))?;
    Ok(Outcome::Ok)
}
