//! A run's record for scripts and evaluations (`skills run --json`): the answer, every step, the
//! tokens and the time, in a stable shape ([`RunReport`]).

use std::collections::HashMap;
use std::time::Duration;

use serde::Serialize;
use skillful_chat::{ApprovalResponse, Content, FunctionCall, Role, Usage};

use crate::agent::AgentResponse;
use crate::session::Author;
use crate::stages::StageRecord;

/// The most characters of a tool result a step keeps.
pub const REPORT_RESULT_CHARS: usize = 2_000;

/// The shape's version; it changes only when a field changes meaning or goes away (fields may
/// be added).
pub const REPORT_VERSION: u32 = 1;

/// One tool call of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Step {
    /// The tool called.
    pub tool: String,
    /// Its arguments, as called.
    pub arguments: serde_json::Value,
    /// Its result, cut to [`REPORT_RESULT_CHARS`] characters; `null` while it waits for
    /// approval.
    pub result: Option<String>,
    /// The result was an error (the tool failed, or the call was refused, rejected or not run).
    pub is_error: bool,
    /// Who made the call: `model`, `activation` (the runtime, the request matched the skill),
    /// `invocation` (the runtime, the user named the skill), or in guided mode `selection`
    /// (the skill the model chose), `disclosure` (a resource the skill's body names, read by
    /// the runtime) or `decision` (a call the model chose in a constrained decision).
    pub by: &'static str,
    /// How it was approved: `auto` (by the rules or an approval given for good; a refusal shows
    /// in the result), `user` (the person said yes), `rejected` (the person said no), `pending`
    /// (still waiting).
    pub approval: &'static str,
}

/// What `skills run --json` prints: one object.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RunReport {
    /// [`REPORT_VERSION`].
    pub version: u32,
    /// How the run drove the model: `guided` or `tools`.
    pub mode: &'static str,
    /// The run's answer: the last assistant text.
    pub answer: String,
    /// Who gave the answer: `model`, `answer_step` (asked again without tools after a loop
    /// guard stopped the run) or `answer` (the guided strategy's); see [`Author::as_str`].
    pub answer_by: &'static str,
    /// Every tool call, in order.
    pub steps: Vec<Step>,
    /// What the strategy did, stage by stage: guided `select`, `disclose`, `decide`, `run`,
    /// `read`, `answer`; tools `activate`, `tool_loop`, `answer_step`.
    pub stages: Vec<StageReport>,
    /// Tokens over every model call, when the server reports them.
    pub usage: Option<UsageReport>,
    /// The run's wall-clock time, in milliseconds (approvals waited for included).
    pub duration_ms: u64,
    /// How many calls still wait for approval (the run stopped there).
    pub pending: usize,
}

/// One stage of a run ([`StageRecord`]), as the report shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StageReport {
    /// The stage's name ([`Stage::as_str`](crate::Stage::as_str)).
    pub stage: &'static str,
    /// What it chose or did.
    pub detail: String,
    /// How long it took, in milliseconds.
    pub duration_ms: u64,
    /// The model calls it made.
    pub model_calls: u32,
    /// Tokens over its model calls, when the server reports them.
    pub usage: Option<UsageReport>,
    /// What went otherwise than asked.
    pub notes: Vec<String>,
    /// The decision that did not fit its schema, if one ended the stage.
    pub error: Option<String>,
}

impl StageReport {
    fn of(record: &StageRecord) -> Self {
        Self {
            stage: record.stage.as_str(),
            detail: record.detail.clone(),
            duration_ms: u64::try_from(record.duration.as_millis()).unwrap_or(u64::MAX),
            model_calls: record.model_calls,
            usage: record.usage.map(UsageReport::of),
            notes: record.notes.clone(),
            error: record.error.as_ref().map(ToString::to_string),
        }
    }
}

/// Tokens used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct UsageReport {
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Generated tokens.
    pub completion_tokens: u64,
}

impl UsageReport {
    fn of(usage: Usage) -> Self {
        Self {
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
        }
    }
}

impl RunReport {
    /// The record of one turn: its responses, in order (a prompt, then each resumption), with
    /// the person's answers to approvals between them, and how long it all took.
    pub fn new(responses: &[(AgentResponse, Vec<ApprovalResponse>)], duration: Duration) -> Self {
        let answers: HashMap<&str, bool> = responses
            .iter()
            .flat_map(|(_, answers)| answers)
            .map(|answer| (answer.call_id.as_str(), answer.approved))
            .collect();
        let mut steps: Vec<Step> = Vec::new();
        let mut at: HashMap<String, usize> = HashMap::new();
        let mut usage: Option<Usage> = None;
        let mut answer_by = "model";
        let stages = responses
            .iter()
            .flat_map(|(response, _)| &response.stages)
            .map(StageReport::of)
            .collect();
        for (response, _) in responses {
            if let Some(used) = response.usage {
                usage.get_or_insert_with(Usage::default).add(used);
            }
            for (message, author) in response.messages.iter().zip(&response.authors) {
                if message.role == Role::Assistant && !message.joined_text().trim().is_empty() {
                    answer_by = author.as_str();
                }
                for content in &message.contents {
                    match content {
                        Content::FunctionCall(call) => {
                            push_step(&mut steps, &mut at, call, *author, &answers);
                        }
                        Content::ApprovalRequest(request) => {
                            push_step(&mut steps, &mut at, &request.call, *author, &answers);
                        }
                        Content::FunctionResult(result) => {
                            if let Some(&index) = at.get(&result.call_id) {
                                let step = &mut steps[index];
                                step.result = Some(
                                    skillful_core::text::cut(&result.result, REPORT_RESULT_CHARS)
                                        .to_owned(),
                                );
                                step.is_error = result.is_error;
                                if step.approval == "pending" {
                                    step.approval = "auto";
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        let last = responses.last().map(|(response, _)| response);
        Self {
            version: REPORT_VERSION,
            mode: last.map_or("tools", |response| response.mode.as_str()),
            stages,
            answer: last.map(AgentResponse::text).unwrap_or_default(),
            answer_by,
            steps,
            usage: usage.map(UsageReport::of),
            duration_ms: u64::try_from(duration.as_millis()).unwrap_or(u64::MAX),
            pending: last.map_or(0, |response| response.pending.len()),
        }
    }
}

/// Adds the step of `call` (once: a call held for approval and run later is one step).
fn push_step(
    steps: &mut Vec<Step>,
    at: &mut HashMap<String, usize>,
    call: &FunctionCall,
    author: Author,
    answers: &HashMap<&str, bool>,
) {
    if at.contains_key(&call.call_id) {
        return;
    }
    let approval = match answers.get(call.call_id.as_str()) {
        Some(true) => "user",
        Some(false) => "rejected",
        None => "pending",
    };
    at.insert(call.call_id.clone(), steps.len());
    steps.push(Step {
        tool: call.name.clone(),
        arguments: call.arguments.clone(),
        result: None,
        is_error: false,
        by: author.as_str(),
        approval,
    });
}
