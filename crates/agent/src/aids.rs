//! The small-model aids: what the runtime does for a model that cannot (yet) drive the skills
//! protocol alone. Each is switchable ([`Aids`]); the agent applies them around the tool loop.
//!
//! - **Answer step**: when the tool loop's guard stops a run (a repeated call, a repeated
//!   failure, the round limit) after at least one call succeeded, the model is asked once more in
//!   a clean request (the user's question and the successful calls' results, no tools, no
//!   tool-call history); its reply is the run's answer, marked [`Author::AnswerStep`].

use std::collections::HashMap;

use skillful_chat::{ChatOptions, ChatRequest, Content, Message, Role};

/// Which aids an [`Agent`](crate::Agent) applies. The default: all on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Aids {
    /// Ask for the answer in a clean request when a loop guard stops a run that has results.
    pub answer_step: bool,
}

impl Default for Aids {
    fn default() -> Self {
        Self { answer_step: true }
    }
}

impl Aids {
    /// Every aid on.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every aid off: the tool loop as the generic decorators run it.
    pub fn none() -> Self {
        Self { answer_step: false }
    }

    /// The same aids, with the answer step on or off.
    pub fn answer_step(mut self, on: bool) -> Self {
        self.answer_step = on;
        self
    }
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
    let mut results = Vec::new();
    for message in since.iter().filter(|message| message.role == Role::Tool) {
        for content in &message.contents {
            if let Content::FunctionResult(result) = content
                && !result.is_error
                && let Some(call) = calls.get(result.call_id.as_str())
            {
                let text: String = result.result.chars().take(MAX_RESULT_CHARS).collect();
                results.push(format!(
                    "Result of {}({}):\n{}",
                    call.name,
                    call.arguments,
                    text.trim_end()
                ));
            }
        }
    }
    if results.is_empty() {
        return None;
    }
    let prompt = format!(
        "{question}\n\nThe tools already gave these results for this question:\n\n{}\n\nAnswer \
         the question from these results, in plain words. Do not call tools.",
        results.join("\n\n")
    );
    let mut options = options.clone();
    options.conversation_id = None;
    options.tool_choice = None;
    Some(ChatRequest::new(vec![Message::user(prompt)]).with_options(options))
}
