//! `skills disable`: a skill recorded as disabled in a settings file (left out of every catalog
//! and tool until enabled again).

use crate::Outcome;
use crate::settings::{ToggleArgs, toggle};

/// Runs `skills disable`.
pub(crate) fn run(args: ToggleArgs) -> anyhow::Result<Outcome> {
    toggle(args, false)
}
