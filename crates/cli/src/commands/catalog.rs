//! `skills catalog`: the instructions and catalog a model is shown before any skill is loaded.

use skillful_core::SourceContext;
use skillful_core::text::for_terminal;

use crate::compose::ListingFlags;
use crate::inspect::Roots;
use crate::{Outcome, output};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    roots: Roots,
    #[command(flatten)]
    listing: ListingFlags,
}

/// Runs `skills catalog`.
pub(crate) async fn run(args: Args) -> anyhow::Result<Outcome> {
    let provider = args.listing.provider(args.roots.compose()?.source())?;
    let run = provider.context(&SourceContext::default()).await?;
    if let Some(instructions) = run.instructions() {
        writeln!(output::stdout(), "{}", for_terminal(instructions))?;
    }
    Ok(Outcome::Ok)
}
