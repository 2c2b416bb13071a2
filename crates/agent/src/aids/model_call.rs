//! The aids applied to every model call inside the tool loop: a client between the generic loop
//! (`skillful_decorators::FunctionInvocation`) and the model, so the loop itself stays generic.
//! On each reply, tool calls written as text are recovered
//! ([`text_calls`](super::text_calls)) and a call of a skill by its name becomes the
//! `load_skill` call it meant, before the loop sees the reply (and so before the approval policy
//! decides on its calls).

use std::collections::HashSet;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use serde_json::Value;
use skillful_chat::{
    ChatClient, ChatError, ChatRequest, ChatResponse, Content, Message, Role, SharedTool,
    ToolChoice,
};
use skillful_provider::ToolKind;

use super::Aids;
use super::text_calls::{self, Offered};
use crate::context::SkillFunction;

/// `inner` with the per-call [`Aids`] applied: repeated loads to its requests, text tool calls
/// and misnamed calls to its replies.
pub(crate) struct AidedModel<C> {
    pub(crate) inner: C,
    pub(crate) aids: Aids,
    /// Where it notes the conversations whose reply it got by the answer step.
    pub(crate) early: Arc<EarlyAnswers>,
}

/// The conversations (by [`ChatOptions::conversation_id`](skillful_chat::ChatOptions)) whose
/// last reply the aids got by the answer step, because the model asked again for a result it
/// had: the agent marks that reply [`Author::AnswerStep`](crate::Author::AnswerStep).
#[derive(Debug, Default)]
pub(crate) struct EarlyAnswers(Mutex<HashSet<String>>);

impl EarlyAnswers {
    fn note(&self, conversation: &str) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(conversation.to_owned());
    }

    /// Whether the last reply of `conversation` was the answer step's (and forgets it).
    pub(crate) fn take(&self, conversation: &str) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(conversation)
    }
}

impl<C: fmt::Debug> fmt::Debug for AidedModel<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AidedModel")
            .field("inner", &self.inner)
            .field("aids", &self.aids)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl<C: ChatClient> ChatClient for AidedModel<C> {
    async fn get_response(&self, mut request: ChatRequest) -> Result<ChatResponse, ChatError> {
        let tools = request.tools.clone();
        if self.aids.repeated_loads && super::repeated_loads(&mut request.messages) > 0 {
            tracing::debug!("the model loaded a loaded skill again: shown a note");
            if self.aids.answer_step {
                // It loops on `load_skill`: the next calls must be the skill's steps (the answer
                // step answers when those repeat).
                let steps: Vec<SharedTool> = tools
                    .iter()
                    .filter(|tool| tool.name() != ToolKind::LoadSkill.name())
                    .cloned()
                    .collect();
                if !steps.is_empty() && request.options.tool_choice != Some(ToolChoice::None) {
                    request.tools = steps;
                    request.options.tool_choice = Some(ToolChoice::Required);
                }
            }
        }
        let recover =
            self.aids.text_tool_calls && request.options.tool_choice != Some(ToolChoice::None);
        let conversation = self.aids.answer_step.then(|| request.messages.clone());
        let options = request.options.clone();
        let mut response = self.inner.get_response(request).await?;
        let misnamed = self.aids.misnamed_calls;
        if recover {
            let claimed = |name: &str| misnamed && claimed(&tools, name).is_some();
            recover_text_calls(
                &mut response.messages,
                &Offered {
                    tools: &tools,
                    claimed: &claimed,
                },
            );
        }
        if misnamed {
            correct_misnamed_calls(&mut response.messages, &tools);
        }
        if let Some(conversation) = conversation
            && repeats_a_result(&conversation, &response.messages)
            && let Some(clean) = super::answer_request(&conversation, &options)
        {
            // The model asks again for a result it has: the answer step answers now, instead
            // of the loop guard after more such calls.
            tracing::debug!("the model repeated a call that succeeded: the answer step answers");
            let answer = self.inner.get_response(clean).await?;
            let mut usage = response.usage;
            if let Some(more) = answer.usage {
                usage.get_or_insert_with(Default::default).add(more);
            }
            if let Some(conversation) = &options.conversation_id {
                self.early.note(conversation);
            }
            return Ok(ChatResponse {
                messages: answer.messages,
                model: answer.model.or(response.model),
                finish_reason: answer.finish_reason,
                usage,
                stopped: None,
            });
        }
        Ok(response)
    }
}

/// Whether `replies` call tools, and every call is a script or resource call that already
/// succeeded with the same arguments since the conversation's last user query (an
/// `idempotencyKey` aside): the model asks for a result it has been given.
fn repeats_a_result(conversation: &[Message], replies: &[Message]) -> bool {
    let since = since_last_query(conversation);
    let succeeded = succeeded_calls(since);
    let done: Vec<(&str, Value)> = since
        .iter()
        .flat_map(Message::function_calls)
        .filter(|call| succeeded.contains(call.call_id.as_str()))
        .map(|call| (call.name.as_str(), without_key(&call.arguments)))
        .collect();
    let mut calls = replies.iter().flat_map(Message::function_calls).peekable();
    calls.peek().is_some()
        && calls.all(|call| {
            call.name != ToolKind::LoadSkill.name()
                && done.iter().any(|(name, arguments)| {
                    *name == call.name && *arguments == without_key(&call.arguments)
                })
        })
}

/// The messages after the conversation's last user query (all of them when it has none).
fn since_last_query(messages: &[Message]) -> &[Message] {
    messages
        .iter()
        .rposition(|message| message.user_query().is_some())
        .map_or(messages, |at| &messages[at + 1..])
}

/// The call ids whose results in `messages` are no error.
fn succeeded_calls(messages: &[Message]) -> HashSet<&str> {
    messages
        .iter()
        .filter(|message| message.role == Role::Tool)
        .flat_map(|message| &message.contents)
        .filter_map(|content| match content {
            Content::FunctionResult(result) if !result.is_error => Some(result.call_id.as_str()),
            _ => None,
        })
        .collect()
}

/// `arguments` without an `idempotencyKey` (a model that repeats a call may give a new one).
fn without_key(arguments: &Value) -> Value {
    let mut arguments = arguments.clone();
    if let Some(object) = arguments.as_object_mut() {
        object.remove("idempotencyKey");
    }
    arguments
}

/// Recovers the tool calls written as text in `replies`, when they hold no structured call.
fn recover_text_calls(replies: &mut [Message], offered: &Offered<'_>) {
    if replies
        .iter()
        .any(|reply| reply.function_calls().next().is_some())
    {
        return;
    }
    let recovered: usize = replies
        .iter_mut()
        .map(|reply| text_calls::recover(reply, offered))
        .sum();
    if recovered > 0 {
        tracing::debug!(calls = recovered, "recovered tool calls written as text");
    }
}

/// The offered skills tool that takes a call of `name`, a tool that does not exist, and the
/// arguments it takes for it: `load_skill` with the skill `name` finds
/// ([`SkillTool::arguments_for_misnamed_call`](skillful_provider::SkillTool::arguments_for_misnamed_call)).
fn claimed<'a>(tools: &'a [SharedTool], name: &str) -> Option<(&'a SharedTool, Value)> {
    if tools.iter().any(|tool| tool.name() == name) {
        return None;
    }
    tools.iter().find_map(|tool| {
        let skill_tool = tool.as_any().downcast_ref::<SkillFunction>()?;
        let arguments = skill_tool.0.arguments_for_misnamed_call(name)?;
        Some((tool, arguments))
    })
}

/// Turns each call of a tool that does not exist into a call of the tool that claims its name,
/// with the arguments that tool gives: a model that called a skill by its name calls
/// `load_skill` with it. The history then holds the call that ran, so the model sees how to call
/// it; the loop decides on it as on any call.
fn correct_misnamed_calls(replies: &mut [Message], tools: &[SharedTool]) {
    for content in replies.iter_mut().flat_map(|reply| &mut reply.contents) {
        let Content::FunctionCall(call) = content else {
            continue;
        };
        let Some((tool, arguments)) = claimed(tools, &call.name) else {
            continue;
        };
        tracing::info!(
            called = %call.name,
            tool = %tool.name(),
            %arguments,
            "the model called a tool that does not exist by what a tool acts on; running that tool"
        );
        call.name = tool.name().to_owned();
        call.arguments = arguments;
    }
}
