//! What a run's strategy did, stage by stage, with its time and tokens: the guided strategy's
//! selection, disclosure, decisions, script runs and answer; the tool loop and its answer step.

use std::time::Duration;

use serde::Serialize;
use skillful_chat::Usage;

/// A decision whose reply did not fit its schema, even after one repair request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecisionError {
    /// The reply is not one JSON object.
    #[error(
        "the model's {decision} reply is not JSON ({reason}) even after a repair request: {reply:?}"
    )]
    NotJson {
        /// Which decision (`selection`, `step`).
        decision: &'static str,
        /// What the JSON parser said.
        reason: String,
        /// The last reply, cut.
        reply: String,
    },
    /// The reply is JSON that does not fit the schema.
    #[error(
        "the model's {decision} reply does not fit its schema even after a repair request: {reply:?}"
    )]
    Unfit {
        /// Which decision (`selection`, `step`).
        decision: &'static str,
        /// The last reply, cut.
        reply: String,
    },
}

/// One stage of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Stage {
    /// Guided: the choice of a skill among the activation match's candidates, or none.
    Select,
    /// Guided: the skill loaded, with the resources its body names.
    Disclose,
    /// Guided: the row of a disclosed table that applies to the question.
    Lookup,
    /// Guided: one constrained decision (run a script, read a resource, or answer).
    Decide,
    /// Guided: a script run a decision asked for.
    Run,
    /// Guided: a resource read a decision asked for.
    Read,
    /// Guided: the answer from the question and the results, without tools.
    Answer,
    /// Tools: the runtime's activation or the user's invocation of a skill.
    Activate,
    /// Tools: the model's tool loop.
    ToolLoop,
    /// Tools: the answer step after a loop guard stopped the run.
    AnswerStep,
}

impl Stage {
    /// Its name: `select`, `disclose`, `lookup`, `decide`, `run`, `read`, `answer`, `activate`,
    /// `tool_loop`, `answer_step`.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Select => "select",
            Stage::Disclose => "disclose",
            Stage::Lookup => "lookup",
            Stage::Decide => "decide",
            Stage::Run => "run",
            Stage::Read => "read",
            Stage::Answer => "answer",
            Stage::Activate => "activate",
            Stage::ToolLoop => "tool_loop",
            Stage::AnswerStep => "answer_step",
        }
    }
}

/// What one stage did.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct StageRecord {
    /// The stage.
    pub stage: Stage,
    /// What it chose or did, in a few words: the skill chosen (`none`), the script and its
    /// arguments, the resources disclosed.
    pub detail: String,
    /// How long it took (approvals waited for excluded: a held call ends the run).
    pub duration: Duration,
    /// The model calls it made.
    pub model_calls: u32,
    /// Tokens over its model calls, when the server reports them.
    pub usage: Option<Usage>,
    /// What went otherwise than asked: a reply repaired, a decision that did not fit, an answer
    /// asked again for numbers found in no result, the script's output quoted instead.
    pub notes: Vec<String>,
    /// A decision whose reply did not fit its schema even after a repair request: the stage
    /// ended with it (the selection then chose no skill; the steps went on to the answer).
    pub error: Option<DecisionError>,
}

impl StageRecord {
    /// A record of `stage` that made no model call yet.
    pub(crate) fn new(stage: Stage, detail: impl Into<String>) -> Self {
        Self {
            stage,
            detail: detail.into(),
            duration: Duration::ZERO,
            model_calls: 0,
            usage: None,
            notes: Vec::new(),
            error: None,
        }
    }

    /// Counts one model call and its tokens.
    pub(crate) fn add_call(&mut self, usage: Option<Usage>) {
        self.model_calls += 1;
        if let Some(usage) = usage {
            self.usage.get_or_insert_with(Usage::default).add(usage);
        }
    }
}
