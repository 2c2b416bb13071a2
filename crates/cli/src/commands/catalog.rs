//! `skills catalog`: the instructions and catalog a model is shown before any skill is loaded.

use skillful_core::SourceContext;
use skillful_core::text::for_terminal;

use crate::compose::ListingFlags;
use crate::inspect::{Roots, outcome, print_findings, say_where_looked};
use crate::{Outcome, output};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    roots: Roots,
    #[command(flatten)]
    listing: ListingFlags,
}

/// Runs `skills catalog`.
/// A skill skipped as broken is one line on stderr and exit 1, as with `skills list`.
pub(crate) async fn run(args: Args) -> anyhow::Result<Outcome> {
    let composition = args.roots.compose()?;
    let loaded = composition.load(&SourceContext::default()).await?;
    print_findings(&loaded.diagnostics, &loaded.plugin_errors)?;
    let provider = args.listing.provider(composition.source())?;
    let run = provider.context(&SourceContext::default()).await?;
    match run.instructions() {
        Some(instructions) => writeln!(output::stdout(), "{}", for_terminal(instructions))?,
        None => say_where_looked(&composition)?,
    }
    Ok(outcome(&loaded, &args.roots))
}
