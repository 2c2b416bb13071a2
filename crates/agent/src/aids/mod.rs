//! The small-model aids: what the runtime does for a model that cannot (yet) drive the skills
//! protocol alone. Each is switchable ([`Aids`]); the agent applies them around the tool loop.
//!
//! - **Answer step**: when the tool loop's guard stops a run (a repeated call, a repeated
//!   failure, the round limit) after at least one call succeeded, the model is asked once more in
//!   a clean request (the user's question and the successful calls' results, no tools, no
//!   tool-call history; only the scripts' output when a script ran); its reply is the run's
//!   answer, marked [`Author::AnswerStep`]. The model's first repeat of a script or resource call
//!   that already succeeded is answered this way at once (in the model client, before the loop).
//! - **Repeated loads**: a `load_skill` of a skill already loaded since the last user query is
//!   shown a short note instead of the body again; with the answer step on, the later requests
//!   withhold `load_skill` and require a call, so the model takes the skill's steps.
//! - **Activation**: before a turn's first model call, the request is matched against the offered
//!   skills ([`activation_match`]: a score that depends on the request and the skill alone, not on
//!   the library's size); a confident match is loaded by a `load_skill` call the runtime makes,
//!   decided by the approval policy like the model's own calls, and marked
//!   [`Author::Activation`].
//! - **Text tool calls**: a call the model wrote as text (JSON, `<tool_call>` tags) when its
//!   reply holds no structured call becomes an ordinary call, if it names an offered tool with
//!   arguments that fit its schema ([`text_calls`]).
//! - **Misnamed calls**: a call of a tool that does not exist named like a skill becomes the
//!   `load_skill` call of that skill.
//! - **Invocation** (not an aid one switches: the user asks for it, [`RunOptions::skill`]): the
//!   named skills are loaded the same way, marked [`Author::Invocation`].
//!
//! [`Author::AnswerStep`]: crate::Author::AnswerStep
//! [`Author::Activation`]: crate::Author::Activation
//! [`Author::Invocation`]: crate::Author::Invocation

mod model_call;
pub(crate) mod schema;
mod text_calls;

use std::collections::HashMap;

use serde_json::Value;
use skillful_chat::{ChatOptions, ChatRequest, Content, Message, Role};
use skillful_provider::ToolKind;
use skillful_provider::search::activation_match;

use crate::error::AgentError;
use crate::run_options::RunOptions;
use crate::session::Author;

pub(crate) use model_call::{AidedModel, EarlyAnswers};

/// Which aids an [`Agent`](crate::Agent) applies. The default: the answer step, text tool calls
/// and misnamed calls; [`Aids::all`] (for small local models) adds activation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Aids {
    /// Ask for the answer in a clean request when a loop guard stops a run that has results.
    pub answer_step: bool,
    /// Load the skill a new request matches confidently before the model's first call.
    pub activation: bool,
    /// Run the tool calls a model writes as text (JSON, `<tool_call>` tags) like structured ones;
    /// off, such text is the model's answer like any other.
    pub text_tool_calls: bool,
    /// Turn a call of a tool that does not exist, named like a skill, into the `load_skill` call
    /// of that skill.
    pub misnamed_calls: bool,
    /// Show the model a short note instead of the whole body again when it loads a skill that
    /// is already loaded since the last user query.
    pub repeated_loads: bool,
}

impl Default for Aids {
    fn default() -> Self {
        Self {
            answer_step: true,
            activation: false,
            text_tool_calls: true,
            misnamed_calls: true,
            repeated_loads: true,
        }
    }
}

impl Aids {
    /// The default aids: the answer step.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every aid on: what a small local model needs.
    pub fn all() -> Self {
        Self {
            answer_step: true,
            activation: true,
            text_tool_calls: true,
            misnamed_calls: true,
            repeated_loads: true,
        }
    }

    /// Every aid off: the tool loop as the generic decorators run it.
    pub fn none() -> Self {
        Self {
            answer_step: false,
            activation: false,
            text_tool_calls: false,
            misnamed_calls: false,
            repeated_loads: false,
        }
    }

    /// The same aids, with activation by the runtime on or off.
    pub fn activation(mut self, on: bool) -> Self {
        self.activation = on;
        self
    }

    /// The same aids, with the answer step on or off.
    pub fn answer_step(mut self, on: bool) -> Self {
        self.answer_step = on;
        self
    }

    /// The same aids, with tool calls written as text recovered or not.
    pub fn text_tool_calls(mut self, on: bool) -> Self {
        self.text_tool_calls = on;
        self
    }

    /// The same aids, with misnamed calls corrected or not.
    pub fn misnamed_calls(mut self, on: bool) -> Self {
        self.misnamed_calls = on;
        self
    }

    /// The same aids, with repeated loads of a loaded skill answered by a short note or not.
    pub fn repeated_loads(mut self, on: bool) -> Self {
        self.repeated_loads = on;
        self
    }
}

/// What the model is shown when it loads `skill` again while it is loaded.
fn already_loaded(skill: &str) -> String {
    format!(
        "The skill `{skill}` is already loaded: its instructions are in the earlier \
         `load_skill` result. Do not load it again. Follow its steps now: call \
         `read_skill_resource` or `run_skill_script` as they say, or answer the question."
    )
}

/// Replaces, in `messages`, the result of each `load_skill` call of a skill that a call since
/// the last user query already loaded by a short note ([`already_loaded`]): a small model that
/// loads the active skill again is told so instead of being shown the whole body once more.
/// The same messages always give the same text, so a prompt prefix stays the same from call to
/// call. Returns how many results it replaced.
pub(crate) fn repeated_loads(messages: &mut [Message]) -> usize {
    let from = messages
        .iter()
        .rposition(|message| message.user_query().is_some())
        .map_or(0, |at| at + 1);
    let since = &mut messages[from..];
    let loads: HashMap<String, String> = since
        .iter()
        .flat_map(Message::function_calls)
        .filter(|call| call.name == ToolKind::LoadSkill.name())
        .filter_map(|call| {
            let skill = call.arguments.get("skillName")?.as_str()?;
            Some((call.call_id.clone(), skill.to_owned()))
        })
        .collect();
    let mut loaded: Vec<String> = Vec::new();
    let mut replaced = 0;
    for content in since.iter_mut().flat_map(|message| &mut message.contents) {
        let Content::FunctionResult(result) = content else {
            continue;
        };
        if result.is_error {
            continue;
        }
        let Some(skill) = loads.get(&result.call_id) else {
            continue;
        };
        if loaded.contains(skill) {
            result.result = already_loaded(skill);
            replaced += 1;
        } else {
            loaded.push(skill.clone());
        }
    }
    replaced
}

/// The most characters of one result the answer step's request carries.
const MAX_RESULT_CHARS: usize = 8_000;

/// The clean request of the answer step for `conversation` (the history, the run's messages
/// included): the last user query and the results of the calls that succeeded since, as one
/// user message, no tools. `None` when no call succeeded since the query (the run ends as the
/// guard left it).
pub(crate) fn answer_request(
    conversation: &[Message],
    options: &ChatOptions,
) -> Option<ChatRequest> {
    let at = conversation
        .iter()
        .rposition(|message| message.user_query().is_some())?;
    let question = conversation[at].user_query()?;
    let since = &conversation[at + 1..];
    let calls: HashMap<&str, &skillful_chat::FunctionCall> = since
        .iter()
        .flat_map(Message::function_calls)
        .map(|call| (call.call_id.as_str(), call))
        .collect();
    let mut results: Vec<(bool, String)> = Vec::new();
    for message in since.iter().filter(|message| message.role == Role::Tool) {
        for content in &message.contents {
            if let Content::FunctionResult(result) = content
                && !result.is_error
                && let Some(call) = calls.get(result.call_id.as_str())
            {
                let text = skillful_core::text::cut(&result.result, MAX_RESULT_CHARS);
                let script = call.name == ToolKind::RunSkillScript.name();
                let text = match call.arguments.get("scriptName").and_then(Value::as_str) {
                    Some(name) if script => format!("`{name}` printed:\n{}", text.trim_end()),
                    _ => format!(
                        "Result of {}({}):\n{}",
                        call.name,
                        call.arguments,
                        text.trim_end()
                    ),
                };
                if !results.iter().any(|(_, known)| *known == text) {
                    results.push((script, text));
                }
            }
        }
    }
    if results.is_empty() {
        return None;
    }
    // A script's result is what the question asked for: shown alone, a small model answers from
    // it instead of from the numbers of the skill's own text.
    let scripts = results.iter().any(|(script, _)| *script);
    let results: Vec<String> = results
        .into_iter()
        .filter(|(script, _)| *script || !scripts)
        .map(|(_, text)| text)
        .collect();
    let prompt = if scripts {
        format!(
            "{question}\n\nA skill's script computed this for the question:\n\n{}\n\nAnswer \
             the question with this result, in one or two plain sentences. Do not call tools.",
            results.join("\n\n")
        )
    } else {
        format!(
            "{question}\n\nThe tools already gave these results for this question:\n\n{}\n\n\
             Answer the question from these results, in plain words. Do not call tools.",
            results.join("\n\n")
        )
    };
    let mut options = options.clone();
    options.conversation_id = None;
    options.tool_choice = None;
    Some(ChatRequest::new(vec![Message::user(prompt)]).with_options(options))
}

/// The skills to load before a turn's first model call, each with who asks for it: the skills
/// `options` names (an unknown name is an error naming the closest), else, with activation on,
/// the skill `query` matches confidently. `offered` holds each offered skill's name and
/// description.
pub(crate) fn skills_to_load(
    aids: Aids,
    options: &RunOptions,
    query: &str,
    offered: &[(String, String)],
) -> Result<Vec<(String, Author)>, AgentError> {
    let names: Vec<&str> = offered.iter().map(|(name, _)| name.as_str()).collect();
    if !options.skills.is_empty() {
        let mut chosen: Vec<(String, Author)> = Vec::new();
        for requested in &options.skills {
            let name = skillful_provider::find_name(requested, &names)
                .map(|index| names[index].to_owned())
                .map_err(|closest| AgentError::UnknownSkill {
                    name: requested.clone(),
                    closest,
                })?;
            if !chosen.iter().any(|(known, _)| *known == name) {
                chosen.push((name, Author::Invocation));
            }
        }
        return Ok(chosen);
    }
    if !aids.activation {
        return Ok(Vec::new());
    }
    Ok(activation_match(
        query,
        offered
            .iter()
            .map(|(name, description)| (name.as_str(), description.as_str())),
    )
    .map(|found| (found.name, Author::Activation))
    .into_iter()
    .collect())
}
