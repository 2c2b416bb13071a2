//! Function invocation: the model → tools → model loop, with approval, a repeated-failure breaker
//! and a guard against identical calls.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use skillful_chat::{
    ApprovalRequest, ChatClient, ChatError, ChatOptions, ChatRequest, ChatResponse, Content,
    FunctionCall, FunctionResult, Message, Role, SharedTool, Usage,
};

use crate::approval::ApprovalPolicy;
use crate::calls::{CallRunner, Calls, Verdict, error_result, merge};
use crate::identity::CallIds;
use crate::layer::Layer;
use crate::observe::{ApprovedBy, CallActor, CallObserver, CallOutcome, RefusedBy};

/// The loop's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// The most model calls in one request (default 40).
    pub max_iterations: usize,
    /// The run stops when the same tool fails with the same error this many times in a row
    /// (default 3).
    pub max_repeated_failures: usize,
    /// The same tool called with the same arguments this many times in a row (in consecutive
    /// model turns, or within one turn) is not run again; one more such call ends the run
    /// (default 3).
    pub max_identical_calls: usize,
    /// The most calls approved without asking (by the policy or a remembered approval) in one
    /// request; past it every call asks (default 40).
    pub max_auto_approvals: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_iterations: 40,
            max_repeated_failures: 3,
            max_identical_calls: 3,
            max_auto_approvals: 40,
        }
    }
}

/// Runs the tools the model calls and calls the model again with their results, until it answers
/// without calling a tool.
///
/// - Every call has an id no other call, result or answer of the conversation has: a call the
///   server sent without an id, or with one used before, gets one of ours before anything
///   (approvals, results) is keyed on it, and that id goes back on the wire.
/// - Calls of one turn run concurrently; a tool's error goes back to the model as its result.
/// - The same tool failing the same way [`Limits::max_repeated_failures`] times in a row ends the
///   run with a final message saying so.
/// - The same tool with the same arguments called [`Limits::max_identical_calls`] times in a row
///   is not run: the model is told to use the results it has; one more such call ends the run.
///   "In a row" means in consecutive model turns (a model repeating a whole turn of several
///   calls repeats each of them) or within one turn; the model's turns since the last user query
///   count, also those of earlier requests (a call held for approval and resumed counts once).
/// - With an [`ApprovalPolicy`], a call the policy does not approve is not run: the response ends
///   with an assistant message holding [`ApprovalRequest`]s, and a later request whose last
///   message (the user's) carries the person's
///   [`ApprovalResponse`](skillful_chat::ApprovalResponse)s resumes: approved calls are decided
///   again (a call the policy refuses now is refused, whatever the answer) and run, an approval
///   for good is handed to [`ApprovalPolicy::remember`], rejected calls go back to the model as
///   results saying so (with the reason), unanswered ones as not approved. Answers anywhere
///   else in the history count for nothing: a history can be edited. A refused call is never
///   run.
///
/// The response holds every message the loop produced: the model's, the tool results, and the
/// final answer (or the approval requests). When a guard ended the run (a repeated call, a
/// repeated failure, the round limit), [`ChatResponse::stopped`] says why.
pub struct FunctionInvocation<C> {
    inner: C,
    limits: Limits,
    runner: CallRunner,
}

impl<C> FunctionInvocation<C> {
    /// Wraps `inner` with the default limits and no approval (every call runs).
    pub fn new(inner: C) -> Self {
        Self {
            inner,
            limits: Limits::default(),
            runner: CallRunner::new(),
        }
    }

    /// A fresh loop state for one request.
    fn run<'a>(&'a self, tools: &'a [SharedTool], options: &'a ChatOptions) -> Run<'a> {
        Run {
            limits: self.limits,
            calls: self
                .runner
                .calls(tools, options.conversation_id.as_deref(), CallActor::Model),
            auto_approved: 0,
            streaks: Streaks::default(),
            failures: HashMap::new(),
        }
    }
}

impl<C: fmt::Debug> fmt::Debug for FunctionInvocation<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FunctionInvocation")
            .field("inner", &self.inner)
            .field("limits", &self.limits)
            .field("runner", &self.runner)
            .finish()
    }
}

/// What happens to one call of a turn.
enum Step {
    Run(SharedTool, ApprovedBy),
    Answer(FunctionResult, RefusedBy),
    Ask,
    Stop(String),
}

/// What became of the calls of one model turn.
struct TurnEnd {
    /// For the tool message, in call order; held calls have none.
    results: Vec<FunctionResult>,
    /// The message ending the run, when a guard or the breaker stopped it.
    stop: Option<String>,
    /// Some calls wait for the user's approval, which ends this request.
    asking: bool,
}

/// A call's tool and arguments.
type Signature = (String, serde_json::Value);

/// How often each call (tool and arguments) was made in a row: in consecutive model turns, and
/// again within one turn. A turn without a call ends its streak.
#[derive(Default)]
struct Streaks {
    previous: Vec<(Signature, usize)>,
    current: Vec<(Signature, usize)>,
}

impl Streaks {
    /// Counts `call` in the current turn; how many times in a row it has been made.
    fn count(&mut self, call: &FunctionCall) -> usize {
        let signature = (call.name.clone(), call.arguments.clone());
        if let Some((_, count)) = self.current.iter_mut().find(|(made, _)| *made == signature) {
            *count += 1;
            return *count;
        }
        let count = self
            .previous
            .iter()
            .find(|(made, _)| *made == signature)
            .map_or(1, |(_, count)| count + 1);
        self.current.push((signature, count));
        count
    }

    /// Ends the model's turn.
    fn end_turn(&mut self) {
        self.previous = std::mem::take(&mut self.current);
    }
}

/// The state of one request's loop.
struct Run<'a> {
    limits: Limits,
    calls: Calls<'a>,
    auto_approved: usize,
    streaks: Streaks,
    failures: HashMap<String, (String, usize)>,
}

impl Run<'_> {
    /// Counts the model's turns since the last user query, so that a streak of identical calls
    /// carries over the requests of one question (approvals answered, a session resumed).
    fn follow(&mut self, messages: &[Message]) {
        let since_query = messages
            .iter()
            .rposition(|message| message.user_query().is_some())
            .map_or(0, |query| query + 1);
        for turn in messages[since_query..]
            .iter()
            .filter(|message| message.role == Role::Assistant)
        {
            for call in turn.function_calls() {
                self.streaks.count(call);
            }
            self.streaks.end_turn();
        }
    }

    async fn step(&mut self, call: &FunctionCall) -> Step {
        let identical = self.streaks.count(call);
        let limit = self.limits.max_identical_calls;
        if identical > limit {
            return Step::Stop(format!(
                "Stopped: the model kept calling `{}` with the same arguments ({identical} times \
                 in a row) instead of answering. Ask again, perhaps more precisely.",
                call.name
            ));
        }
        if identical == limit {
            return Step::Answer(
                error_result(
                    call,
                    format!(
                        "Not run: `{}` was called with these same arguments {limit} times in a \
                         row. Its result will not change; use the results you already have and \
                         answer.",
                        call.name
                    ),
                ),
                RefusedBy::Guard,
            );
        }
        match self.calls.decide(call).await {
            Verdict::Refuse(result, by) => Step::Answer(result, by),
            Verdict::Ask => Step::Ask,
            Verdict::Run(tool, ApprovedBy::NoPolicy) => Step::Run(tool, ApprovedBy::NoPolicy),
            Verdict::Run(tool, approver) if self.auto_approved < self.limits.max_auto_approvals => {
                self.auto_approved += 1;
                Step::Run(tool, approver)
            }
            Verdict::Run(..) => Step::Ask,
        }
    }

    /// Decides, runs and notes the calls of one model turn. Calls waiting for approval become
    /// approval requests in `replies`.
    async fn turn(&mut self, calls: &[FunctionCall], replies: &mut [Message]) -> TurnEnd {
        let mut steps = Vec::with_capacity(calls.len());
        for call in calls {
            steps.push(self.step(call).await);
        }
        self.streaks.end_turn();

        if let Some(stop) = steps.iter().find_map(|step| match step {
            Step::Stop(text) => Some(text.clone()),
            _ => None,
        }) {
            let results = self.refuse_all(calls, steps, &stop).await;
            return TurnEnd {
                results,
                stop: Some(stop),
                asking: false,
            };
        }

        let held: Vec<&str> = calls
            .iter()
            .zip(&steps)
            .filter(|(_, step)| matches!(step, Step::Ask))
            .map(|(call, _)| call.call_id.as_str())
            .collect();
        let asking = !held.is_empty();
        if asking {
            hold_back(replies, &held);
        }
        let (results, stop) = self.carry_out(calls, steps).await;
        TurnEnd {
            results,
            stop,
            asking,
        }
    }

    /// A guard stopped the run in this turn: no call runs, not even the ones that were allowed,
    /// so that the model sees why for each of them.
    async fn refuse_all(
        &self,
        calls: &[FunctionCall],
        steps: Vec<Step>,
        stop: &str,
    ) -> Vec<FunctionResult> {
        let mut results = Vec::with_capacity(calls.len());
        for (call, step) in calls.iter().zip(steps) {
            let (result, by) = match step {
                Step::Answer(result, by) => (result, by),
                Step::Stop(_) => (error_result(call, stop.to_owned()), RefusedBy::Guard),
                Step::Run(..) | Step::Ask => (
                    error_result(call, "Not run: the run was stopped.".to_owned()),
                    RefusedBy::Guard,
                ),
            };
            let reason = &result.result;
            self.calls
                .note(call, CallOutcome::Refused { by, reason })
                .await;
            results.push(result);
        }
        results
    }

    /// Runs the allowed calls and notes the others; the results in call order (a held call has
    /// none) and the breaker's message if it tripped.
    async fn carry_out(
        &mut self,
        calls: &[FunctionCall],
        steps: Vec<Step>,
    ) -> (Vec<FunctionResult>, Option<String>) {
        let mut to_run = Vec::new();
        let mut results: Vec<Option<FunctionResult>> = Vec::new();
        for (call, step) in calls.iter().zip(steps) {
            match step {
                Step::Run(tool, approver) => {
                    to_run.push((call.clone(), tool, approver));
                    results.push(None);
                }
                Step::Answer(result, by) => {
                    let reason = &result.result;
                    self.calls
                        .note(call, CallOutcome::Refused { by, reason })
                        .await;
                    results.push(Some(result));
                }
                Step::Ask => self.calls.note(call, CallOutcome::Held).await,
                Step::Stop(_) => {}
            }
        }
        let ran_calls: Vec<FunctionCall> = to_run.iter().map(|(call, ..)| call.clone()).collect();
        let ran = self.calls.execute(to_run).await;
        let broken = self.breaker(&ran_calls, &ran);
        (merge(results, ran), broken)
    }

    /// Counts failures; the message ending the run when a tool failed the same way too often.
    fn breaker(&mut self, calls: &[FunctionCall], results: &[FunctionResult]) -> Option<String> {
        for (call, result) in calls.iter().zip(results) {
            if !result.is_error {
                self.failures.remove(&call.name);
                continue;
            }
            let entry = self
                .failures
                .entry(call.name.clone())
                .or_insert_with(|| (result.result.clone(), 0));
            if entry.0 != result.result {
                *entry = (result.result.clone(), 0);
            }
            entry.1 += 1;
            if entry.1 >= self.limits.max_repeated_failures {
                return Some(format!(
                    "Stopped: the tool `{}` failed the same way {} times in a row: {}",
                    call.name, entry.1, result.result
                ));
            }
        }
        None
    }
}

fn tool_message(results: Vec<FunctionResult>) -> Message {
    Message::new(
        Role::Tool,
        results.into_iter().map(Content::FunctionResult).collect(),
    )
}

/// What the loop has produced so far.
#[derive(Default)]
struct Output {
    messages: Vec<Message>,
    model: Option<String>,
    finish_reason: Option<String>,
    usage: Option<Usage>,
    stopped: Option<String>,
}

impl Output {
    fn push(&mut self, conversation: &mut Vec<Message>, message: Message) {
        conversation.push(message.clone());
        self.messages.push(message);
    }

    fn push_all(&mut self, conversation: &mut Vec<Message>, messages: Vec<Message>) {
        for message in messages {
            self.push(conversation, message);
        }
    }

    /// Keeps the inner client's model (the last one named), finish reason and usage (summed
    /// over the model calls); its messages, which the loop has yet to look at.
    fn record(&mut self, response: ChatResponse) -> Vec<Message> {
        self.model = response.model.or(self.model.take());
        self.finish_reason = response.finish_reason;
        if let Some(usage) = response.usage {
            self.usage.get_or_insert_with(Usage::default).add(usage);
        }
        response.messages
    }

    fn finish(self) -> ChatResponse {
        ChatResponse {
            messages: self.messages,
            model: self.model,
            finish_reason: self.finish_reason,
            usage: self.usage,
            stopped: self.stopped,
        }
    }

    /// Ends the loop with the guard's message `stop`.
    fn stop(mut self, conversation: &mut Vec<Message>, stop: String) -> ChatResponse {
        self.push(conversation, Message::assistant(stop.clone()));
        self.stopped = Some(stop);
        self.finish()
    }
}

#[async_trait]
impl<C: ChatClient> ChatClient for FunctionInvocation<C> {
    async fn get_response(&self, request: ChatRequest) -> Result<ChatResponse, ChatError> {
        let ChatRequest {
            mut messages,
            tools,
            options,
        } = request;
        let mut run = self.run(&tools, &options);
        run.follow(&messages);
        let mut ids = CallIds::of(&messages);
        let mut output = Output::default();

        let resumed = run.calls.resume(&messages).await;
        if let Some(results) = resumed {
            output.push(&mut messages, tool_message(results));
        }

        for _ in 0..self.limits.max_iterations {
            let response = self
                .inner
                .get_response(ChatRequest {
                    messages: messages.clone(),
                    tools: tools.clone(),
                    options: options.clone(),
                })
                .await?;
            let mut replies = output.record(response);
            ids.assign(&mut replies);
            let calls: Vec<FunctionCall> = replies
                .iter()
                .flat_map(Message::function_calls)
                .cloned()
                .collect();
            if calls.is_empty() {
                output.push_all(&mut messages, replies);
                return Ok(output.finish());
            }
            let turn = run.turn(&calls, &mut replies).await;
            output.push_all(&mut messages, replies);
            if !turn.results.is_empty() {
                output.push(&mut messages, tool_message(turn.results));
            }
            if let Some(stop) = turn.stop {
                return Ok(output.stop(&mut messages, stop));
            }
            if turn.asking {
                return Ok(output.finish());
            }
        }
        let stop = format!(
            "Stopped: no final answer after {} model calls (the limit).",
            self.limits.max_iterations
        );
        Ok(output.stop(&mut messages, stop))
    }
}

/// Turns the calls in `held` into approval requests.
fn hold_back(replies: &mut [Message], held: &[&str]) {
    for content in replies.iter_mut().flat_map(|reply| &mut reply.contents) {
        if let Content::FunctionCall(call) = content
            && held.contains(&call.call_id.as_str())
        {
            *content = Content::ApprovalRequest(ApprovalRequest { call: call.clone() });
        }
    }
}

/// Builds [`FunctionInvocation`].
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct FunctionInvocationLayer {
    limits: Limits,
    runner: CallRunner,
}

impl FunctionInvocationLayer {
    /// Default limits, no approval.
    pub fn new() -> Self {
        Self::default()
    }

    /// These limits.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Calls need approval as `policy` decides (the tool-approval decorator of the loop).
    pub fn approval(mut self, policy: Arc<dyn ApprovalPolicy>) -> Self {
        self.runner = self.runner.approval(policy);
        self
    }

    /// Tells `observer` what becomes of every call (an audit log).
    pub fn observer(mut self, observer: Arc<dyn CallObserver>) -> Self {
        self.runner = self.runner.observer(observer);
        self
    }

    /// Whether each call's arguments and result are recorded on its `execute_tool` span
    /// (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`): only when the user opted in.
    pub fn capture_content(mut self, capture: bool) -> Self {
        self.runner = self.runner.capture_content(capture);
        self
    }

    /// What decides, runs and records the loop's calls: the same for calls made outside the
    /// loop (a runtime's own calls), so that they are approved, traced and observed alike.
    pub fn runner(&self) -> &CallRunner {
        &self.runner
    }
}

impl<C> Layer<C> for FunctionInvocationLayer {
    type Client = FunctionInvocation<C>;

    fn layer(&self, inner: C) -> FunctionInvocation<C> {
        FunctionInvocation {
            inner,
            limits: self.limits,
            runner: self.runner.clone(),
        }
    }
}
