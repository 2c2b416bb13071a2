//! `skills untrust`: a directory taken out of the per-user trust store.

use std::path::PathBuf;

use skillful_config::{Environment, TrustStore, shown_path};
use skillful_core::text::one_line;

use crate::{Outcome, UsageError, output};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The directory to stop trusting, as `skills trust --list` shows it.
    #[arg(value_name = "DIR")]
    dir: PathBuf,
}

/// Runs `skills untrust`.
pub(crate) fn run(args: Args) -> anyhow::Result<Outcome> {
    let environment = Environment::from_process()?;
    let dir = one_line(&shown_path(&args.dir)).into_owned();
    if TrustStore::untrust(&environment.dirs, &args.dir)? {
        writeln!(output::stdout(), "no longer trusted: {dir}")?;
        Ok(Outcome::Ok)
    } else {
        Err(UsageError(format!(
            "{dir} was not trusted; `skills trust --list` shows the trusted directories"
        ))
        .into())
    }
}
