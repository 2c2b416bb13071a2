//! `skills catalog`: the instructions and catalog a model is shown before any skill is loaded.

use skillful_core::SourceContext;
use skillful_core::text::for_terminal;

use crate::compose::ListingFlags;
use crate::inspect::{Roots, say_where_looked};
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
    let composition = args.roots.compose()?;
    let provider = args.listing.provider(composition.source())?;
    let run = provider.context(&SourceContext::default()).await?;
    match run.instructions() {
        Some(instructions) => writeln!(output::stdout(), "{}", for_terminal(instructions))?,
        None => {
            say_where_looked(&composition)?;
            if args.roots.named() {
                return Ok(Outcome::Invalid);
            }
        }
    }
    Ok(Outcome::Ok)
}
