//! Observing what becomes of each tool call: the decision, who made it, and the result (for an
//! audit log, usage statistics).

use std::fmt;
use std::time::Duration;

use async_trait::async_trait;
use skillful_chat::{FunctionCall, FunctionResult, Remember, Tool};

/// Who made a tool call: the `skillful.call.actor` attribute of its `execute_tool` span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallActor {
    /// The model asked for it.
    Model,
    /// The runtime made it for the model (a skill's activation).
    Runtime,
}

impl CallActor {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            CallActor::Model => "model",
            CallActor::Runtime => "runtime",
        }
    }
}

/// Who let a call run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovedBy {
    /// The loop has no approval policy: every call runs.
    NoPolicy,
    /// The policy, on these grounds (a rule's name, or a remembered approval); see
    /// [`Decision::Approve`](crate::Decision::Approve).
    Policy(String),
    /// A person answered the approval request, for this call or for good.
    Person(Remember),
}

impl ApprovedBy {
    /// Who let the call run, in words: `no policy`, the policy's grounds (a rule's name,
    /// `remembered approval`), `user (once)`, `user (always: tool)`,
    /// `user (always: tool with these arguments)`. The audit record's `decided_by` and the
    /// `skillful.approval.by` span attribute.
    pub fn grounds(&self) -> String {
        match self {
            ApprovedBy::NoPolicy => "no policy".to_owned(),
            ApprovedBy::Policy(grounds) => grounds.clone(),
            ApprovedBy::Person(Remember::Once) => "user (once)".to_owned(),
            ApprovedBy::Person(Remember::Tool) => "user (always: tool)".to_owned(),
            ApprovedBy::Person(Remember::ToolWithArguments) => {
                "user (always: tool with these arguments)".to_owned()
            }
        }
    }
}

/// Why a call was not run before anyone was asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusedBy {
    /// The approval policy refused it.
    Policy,
    /// The loop's guard against identical calls.
    Guard,
    /// No offered tool has the name called.
    UnknownTool,
}

/// What became of one call.
#[derive(Debug, Clone, Copy)]
pub enum CallOutcome<'a> {
    /// It ran: who approved it, its result and how long it took.
    Ran {
        /// Who let it run.
        approver: &'a ApprovedBy,
        /// The result, as the model gets it.
        result: &'a FunctionResult,
        /// How long the tool took.
        duration: Duration,
    },
    /// It waits for a person's answer (an approval request ends the run).
    Held,
    /// It was not run, and no one was asked.
    Refused {
        /// Who refused it.
        by: RefusedBy,
        /// Why, as the model is told.
        reason: &'a str,
    },
    /// A person answered the approval request with no.
    Rejected {
        /// The person's reason, if they gave one.
        reason: Option<&'a str>,
    },
    /// The approval request was never answered (the conversation moved on); it was not run.
    Unanswered,
}

/// One observed call.
#[derive(Debug, Clone, Copy)]
pub struct CallEvent<'a> {
    /// The call (with the id the loop gave it).
    pub call: &'a FunctionCall,
    /// The tool it names; `None` when no offered tool has that name.
    pub tool: Option<&'a dyn Tool>,
    /// The request's conversation id ([`ChatOptions::conversation_id`](skillful_chat::ChatOptions)).
    pub conversation_id: Option<&'a str>,
    /// Who made the call: the model, or the runtime for it.
    pub actor: CallActor,
    /// What became of it.
    pub outcome: CallOutcome<'a>,
}

/// Told what becomes of every call the loop decides on: one event per call run, held back,
/// refused, rejected or left unanswered. The loop waits for [`CallObserver::observe`] before the
/// call's result goes on, so a record of the call exists before the model sees its result.
#[async_trait]
pub trait CallObserver: Send + Sync + fmt::Debug {
    /// Records `event`. Failures are the observer's to report: the run goes on.
    async fn observe(&self, event: CallEvent<'_>);
}
