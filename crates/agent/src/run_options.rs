//! What one run is asked to do besides its input.

use crate::mode::Mode;

/// What one run is asked to do besides its input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunOptions {
    /// Skills to load for this turn before the model is asked, as the user named them.
    pub skills: Vec<String>,
    /// How this run drives the model, instead of the agent's mode
    /// ([`AgentBuilder::mode`](crate::AgentBuilder::mode)).
    pub mode: Option<Mode>,
}

impl RunOptions {
    /// Nothing besides the input.
    pub fn new() -> Self {
        Self::default()
    }

    /// Also loads the skill `name` (found as `load_skill` finds a name) before the model is
    /// asked in this turn; the user asked for it. Only for a new prompt. The guided strategy
    /// follows the first skill named, without a selection.
    pub fn skill(mut self, name: impl Into<String>) -> Self {
        self.skills.push(name.into());
        self
    }

    /// Drives the model as `mode` says in this run.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = Some(mode);
        self
    }
}
