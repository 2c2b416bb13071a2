//! `skills read`: one of a skill's resources as `read_skill_resource` gives it to a model.

use serde_json::json;

use crate::Outcome;
use crate::inspect::{Roots, call_tool};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The skill's name.
    name: String,
    /// The resource's name, e.g. `references/FAQ.md`.
    resource: String,
    /// Start at this byte offset (long resources are returned in pages).
    #[arg(long)]
    offset: Option<u64>,
    /// Return at most this many bytes.
    #[arg(long)]
    limit: Option<u64>,
    #[command(flatten)]
    roots: Roots,
}

/// Runs `skills read`.
pub(crate) async fn run(args: Args) -> anyhow::Result<Outcome> {
    let mut arguments = json!({ "skillName": args.name, "resourceName": args.resource });
    if let Some(offset) = args.offset {
        arguments["offset"] = offset.into();
    }
    if let Some(limit) = args.limit {
        arguments["limit"] = limit.into();
    }
    call_tool(&args.roots, "read_skill_resource", arguments).await
}
