//! What a turn hands the mode's strategy and what the strategy hands back: the input's
//! messages ([`TurnInput`]), the context gathered ([`Gathered`]), and what it made ([`Made`]).

use std::sync::Arc;

use skillful_chat::{ApprovalRequest, Content, FunctionCall, Message, SharedTool, Usage};
use skillful_core::Skill;
use skillful_provider::{CallSubject, TaskId};

use crate::session::Author;
use crate::stages::StageRecord;

/// An id for a call the runtime makes that no call, result or answer of `conversation` uses.
pub(crate) fn runtime_call_id(conversation: &[Message]) -> String {
    let used = |id: &str| {
        conversation
            .iter()
            .flat_map(|m| &m.contents)
            .any(|content| match content {
                Content::FunctionCall(call)
                | Content::ApprovalRequest(ApprovalRequest { call }) => call.call_id == id,
                Content::FunctionResult(result) => result.call_id == id,
                Content::ApprovalResponse(answer) => answer.call_id == id,
                Content::Text { .. } => false,
            })
    };
    (1..)
        .map(|n| format!("runtime-{n}"))
        .find(|id| !used(id))
        .unwrap_or_default()
}

/// What a turn's input adds to the conversation.
#[derive(Default)]
pub(crate) struct TurnInput {
    /// The messages: the pending calls answered as not approved and the prompt, or the answers.
    pub(crate) messages: Vec<Message>,
    /// The calls a new prompt left unanswered, with what they name (when auditing).
    pub(crate) unanswered: Vec<(FunctionCall, Option<CallSubject>)>,
    /// The prompt's text, for a new prompt.
    pub(crate) query: Option<String>,
    /// The tasks whose results the input gives the model.
    pub(crate) reported: Vec<TaskId>,
}

/// What the context providers give a turn.
#[derive(Default)]
pub(crate) struct Gathered {
    /// The agent's instructions, then each provider's.
    pub(crate) instructions: Vec<String>,
    /// Every provider's tools.
    pub(crate) tools: Vec<SharedTool>,
    /// Every offered skill, with its provider's tools.
    pub(crate) offered: Vec<Offered>,
}

/// The offered skills a request may be matched to ([`Gathered::matchable`]).
#[derive(Default)]
pub(crate) struct Matchable<'a> {
    /// Name and description of each.
    pub(crate) skills: Vec<(&'a str, &'a str)>,
    /// Each skill left out, with the anti-trigger phrase the request holds.
    pub(crate) excluded: Vec<(&'a str, String)>,
}

/// A skill a skills provider offers this turn, with that provider's tools.
pub(crate) struct Offered {
    pub(crate) skill: Arc<dyn Skill>,
    /// The provider's tools (`load_skill`, `read_skill_resource`, `run_skill_script`, ...).
    pub(crate) tools: Vec<SharedTool>,
    /// Its `load_skill`.
    pub(crate) load: SharedTool,
}

impl Gathered {
    /// Each offered skill's name and description.
    pub(crate) fn names_and_descriptions(&self) -> Vec<(&str, &str)> {
        self.offered
            .iter()
            .map(|offered| (offered.skill.name(), offered.skill.description()))
            .collect()
    }

    /// Each offered skill's name and description that `request` may be matched to: all but
    /// those whose anti-triggers (`metadata.anti-triggers`) it holds, which are left out with
    /// the phrase that left each out.
    pub(crate) fn matchable(&self, request: &str) -> Matchable<'_> {
        let mut matchable = Matchable::default();
        for offered in &self.offered {
            let skill = &offered.skill;
            match skill.lifecycle().excluded_by(request) {
                Some(phrase) => matchable.excluded.push((skill.name(), phrase.to_owned())),
                None => matchable.skills.push((skill.name(), skill.description())),
            }
        }
        matchable
    }

    /// The offered skill called exactly `name`.
    pub(crate) fn skill(&self, name: &str) -> Option<&Offered> {
        self.offered
            .iter()
            .find(|offered| offered.skill.name() == name)
    }
}

/// What a mode's strategy made of a turn: the new messages with their authors, the tokens,
/// the last finish reason and the stages.
#[derive(Default)]
pub(crate) struct Made {
    pub(crate) messages: Vec<Message>,
    pub(crate) authors: Vec<Author>,
    pub(crate) usage: Option<Usage>,
    pub(crate) finish_reason: Option<String>,
    pub(crate) stages: Vec<StageRecord>,
}

impl Made {
    /// Adds `messages`, each made by `author`.
    pub(crate) fn push(&mut self, messages: Vec<Message>, author: Author) {
        self.authors.extend(messages.iter().map(|_| author));
        self.messages.extend(messages);
    }

    /// Adds a model call's tokens.
    pub(crate) fn add_usage(&mut self, usage: Option<Usage>) {
        if let Some(usage) = usage {
            self.usage.get_or_insert_with(Usage::default).add(usage);
        }
    }
}
