//! `skills show`: a skill's instructions as `load_skill` gives them to a model.

use serde_json::json;

use crate::Outcome;
use crate::inspect::{Roots, call_tool};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The skill's name (after `--` when it starts with `-`).
    name: String,
    #[command(flatten)]
    roots: Roots,
}

/// Runs `skills show`.
pub(crate) async fn run(args: Args) -> anyhow::Result<Outcome> {
    call_tool(&args.roots, "load_skill", json!({ "skillName": args.name })).await
}
