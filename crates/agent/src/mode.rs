//! How an agent drives the model through the skills: the free tool loop, or the guided strategy.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How an [`Agent`](crate::Agent) drives the model through the skills.
///
/// - [`Mode::Tools`]: the free tool loop. The model sees the catalog and the skill tools, plans,
///   calls tools and stops on its own. What strong models (hosted services, large local models)
///   do best.
/// - [`Mode::Guided`]: the guided strategy. The runtime asks the model one small decision at a
///   time, each constrained by a JSON Schema sent as the server's structured-output parameter:
///   which skill (or none), which script with which arguments (or which resource, or answer),
///   then the answer from the results. What small local models follow reliably.
/// - [`Mode::Auto`]: guided for a server on this machine (the embedded engine, a local
///   llama.cpp, LM Studio or Ollama, typically a small model), the tool loop otherwise.
///
/// # Example
/// ```
/// use skillful_agent::Mode;
///
/// assert_eq!(Mode::Auto.resolve(Some(true)), Mode::Guided);
/// assert_eq!(Mode::Auto.resolve(Some(false)), Mode::Tools);
/// assert_eq!(Mode::Auto.resolve(None), Mode::Tools);
/// assert_eq!(Mode::Guided.resolve(Some(false)), Mode::Guided);
/// assert_eq!("guided".parse::<Mode>().unwrap(), Mode::Guided);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// One schema-constrained decision at a time.
    Guided,
    /// The free tool loop.
    #[default]
    Tools,
    /// Guided for a server on this machine, the tool loop otherwise.
    Auto,
}

impl Mode {
    /// The mode a run uses: [`Mode::Auto`] becomes [`Mode::Guided`] when the server is on this
    /// machine (`local`: `Some(true)`), else [`Mode::Tools`] (a remote server, or one whose
    /// place the client does not know); the others stay as they are.
    pub fn resolve(self, local: Option<bool>) -> Mode {
        match self {
            Mode::Auto if local == Some(true) => Mode::Guided,
            Mode::Auto => Mode::Tools,
            other => other,
        }
    }

    /// Its name: `guided`, `tools`, `auto` (as `--mode` and settings take it).
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Guided => "guided",
            Mode::Tools => "tools",
            Mode::Auto => "auto",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A mode's name that is none of `guided`, `tools`, `auto`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown mode `{0}`; expected guided, tools or auto")]
pub struct UnknownMode(pub String);

impl FromStr for Mode {
    type Err = UnknownMode;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "guided" => Ok(Mode::Guided),
            "tools" => Ok(Mode::Tools),
            "auto" => Ok(Mode::Auto),
            other => Err(UnknownMode(other.to_owned())),
        }
    }
}

/// The guided strategy's settings ([`AgentBuilder::guided`](crate::AgentBuilder::guided)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct GuidedOptions {
    /// The most decisions (a script run or a resource read each) after the skill is disclosed
    /// (default 4).
    pub max_steps: usize,
    /// The most characters of resources disclosed with the skill's body (default 6,000); the
    /// resources the body names that do not fit are listed by name, to be read in a decision.
    pub disclose_budget: usize,
    /// The most skills the selection asks about, in the activation match's order (default 3):
    /// each is one yes-or-no decision, until one fits.
    pub candidates: usize,
}

impl Default for GuidedOptions {
    fn default() -> Self {
        Self {
            max_steps: 4,
            disclose_budget: 6_000,
            candidates: 3,
        }
    }
}

impl GuidedOptions {
    /// The default settings.
    pub fn new() -> Self {
        Self::default()
    }

    /// At most `steps` decisions after the disclosure (at least 1).
    #[must_use]
    pub fn max_steps(mut self, steps: usize) -> Self {
        self.max_steps = steps.max(1);
        self
    }

    /// At most `chars` characters of resources disclosed with the body.
    #[must_use]
    pub fn disclose_budget(mut self, chars: usize) -> Self {
        self.disclose_budget = chars;
        self
    }

    /// At most `skills` candidates for the selection (at least 1).
    #[must_use]
    pub fn candidates(mut self, skills: usize) -> Self {
        self.candidates = skills.max(1);
        self
    }
}
