//! `skills enable`: a skill recorded as enabled in a settings file.

use crate::Outcome;
use crate::settings::{ToggleArgs, toggle};

/// Runs `skills enable`.
pub(crate) fn run(args: ToggleArgs) -> anyhow::Result<Outcome> {
    toggle(args, true)
}
