//! Deciding, running and recording tool calls in one place: the approval policy, the
//! `execute_tool` span and the [`CallObserver`]. The tool loop ([`FunctionInvocation`]) and every
//! caller that makes calls of its own (a runtime's activation, a guided strategy) go through the
//! same [`Calls`], so a call is approved, traced and audited the same way whoever made it.
//!
//! [`FunctionInvocation`]: crate::FunctionInvocation

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use futures_util::future::join_all;
use skillful_chat::{
    ApprovalRequest, FunctionCall, FunctionResult, Message, Remember, SharedTool, Tool,
};
use tracing::Instrument;

use crate::approval::{ApprovalPolicy, Decision, new_answers, pending_approvals};
use crate::observe::{ApprovedBy, CallActor, CallEvent, CallObserver, CallOutcome, RefusedBy};
use crate::trace::{execute_tool_span, record_tool_result};

/// What decides, runs and records calls: an approval policy (none: every call runs), an
/// observer (an audit log), and whether spans carry the calls' contents. Cheap to clone.
///
/// # Example
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use serde_json::json;
/// use skillful_chat::{FunctionCall, SharedTool, Tool};
/// use skillful_decorators::{CallActor, CallEnd, CallRunner};
///
/// #[derive(Debug)]
/// struct Echo(serde_json::Value);
/// #[async_trait::async_trait]
/// impl Tool for Echo {
///     fn name(&self) -> &str { "echo" }
///     fn description(&self) -> &str { "Echoes." }
///     fn parameters(&self) -> &serde_json::Value { &self.0 }
///     async fn invoke(&self, arguments: serde_json::Value) -> Result<String, String> {
///         Ok(arguments.to_string())
///     }
///     fn as_any(&self) -> &dyn std::any::Any { self }
/// }
///
/// let tools: Vec<SharedTool> = vec![Arc::new(Echo(json!({"type": "object"})))];
/// let runner = CallRunner::new();
/// let calls = runner.calls(&tools, None, CallActor::Runtime);
/// let call = FunctionCall { call_id: "1".into(), name: "echo".into(), arguments: json!({"a": 1}) };
/// let CallEnd::Ran(result) = calls.call(&call).await else { panic!("no policy: it runs") };
/// assert_eq!(result.result, r#"{"a":1}"#);
/// # });
/// ```
#[derive(Clone, Default)]
pub struct CallRunner {
    approval: Option<Arc<dyn ApprovalPolicy>>,
    observer: Option<Arc<dyn CallObserver>>,
    capture: bool,
}

impl CallRunner {
    /// No approval policy (every call runs), no observer, no contents on spans.
    pub fn new() -> Self {
        Self::default()
    }

    /// Calls need approval as `policy` decides.
    #[must_use]
    pub fn approval(mut self, policy: Arc<dyn ApprovalPolicy>) -> Self {
        self.approval = Some(policy);
        self
    }

    /// Tells `observer` what becomes of every call.
    #[must_use]
    pub fn observer(mut self, observer: Arc<dyn CallObserver>) -> Self {
        self.observer = Some(observer);
        self
    }

    /// Whether each call's arguments and result are recorded on its `execute_tool` span: only
    /// when the user opted in.
    #[must_use]
    pub fn capture_content(mut self, capture: bool) -> Self {
        self.capture = capture;
        self
    }

    /// The calls of one request: `tools` are the ones that may be called, `conversation_id`
    /// names the conversation for the observer, `actor` says who makes the calls.
    pub fn calls<'a>(
        &'a self,
        tools: &'a [SharedTool],
        conversation_id: Option<&'a str>,
        actor: CallActor,
    ) -> Calls<'a> {
        Calls {
            runner: self,
            tools,
            conversation_id,
            actor,
        }
    }
}

impl fmt::Debug for CallRunner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallRunner")
            .field("approval", &self.approval)
            .field("observer", &self.observer)
            .field("capture", &self.capture)
            .finish()
    }
}

/// What the policy says about one call, before anything runs.
#[derive(Debug)]
pub enum Verdict {
    /// Run it with this tool; who let it run.
    Run(SharedTool, ApprovedBy),
    /// It is not run; the result the model gets instead, and who refused it.
    Refuse(FunctionResult, RefusedBy),
    /// Hold it back and ask a person.
    Ask,
}

/// What became of one call made through [`Calls::call`].
#[derive(Debug, Clone, PartialEq)]
pub enum CallEnd {
    /// It ran: its result.
    Ran(FunctionResult),
    /// It was refused before anyone was asked: the result saying so.
    Refused(FunctionResult),
    /// It waits for a person's answer.
    Held,
}

/// The calls of one request (see [`CallRunner::calls`]).
#[derive(Debug, Clone, Copy)]
pub struct Calls<'a> {
    runner: &'a CallRunner,
    tools: &'a [SharedTool],
    conversation_id: Option<&'a str>,
    actor: CallActor,
}

impl<'a> Calls<'a> {
    /// The offered tool called `name`.
    pub fn tool(&self, name: &str) -> Option<&'a SharedTool> {
        self.tools.iter().find(|tool| tool.name() == name)
    }

    /// The tools that may be called.
    pub fn tools(&self) -> &'a [SharedTool] {
        self.tools
    }

    /// Whether an approval policy decides (without one every call runs).
    pub fn has_policy(&self) -> bool {
        self.runner.approval.is_some()
    }

    /// What the policy says about `call`: a call of a tool that is not offered is refused.
    pub async fn decide(&self, call: &FunctionCall) -> Verdict {
        let Some(tool) = self.tool(&call.name) else {
            let names: Vec<&str> = self.tools.iter().map(|tool| tool.name()).collect();
            return Verdict::Refuse(
                error_result(
                    call,
                    format!(
                        "Error: there is no tool named '{}'. Available tools: {}.",
                        call.name,
                        names.join(", ")
                    ),
                ),
                RefusedBy::UnknownTool,
            );
        };
        let Some(policy) = &self.runner.approval else {
            return Verdict::Run(Arc::clone(tool), ApprovedBy::NoPolicy);
        };
        match policy.decide(tool.as_ref(), &call.arguments).await {
            Decision::Refuse(reason) => Verdict::Refuse(refused(call, &reason), RefusedBy::Policy),
            Decision::Approve(grounds) => {
                Verdict::Run(Arc::clone(tool), ApprovedBy::Policy(grounds))
            }
            Decision::Ask => Verdict::Ask,
        }
    }

    /// Decides on `call` and carries the verdict out: runs it, or notes its refusal or that it
    /// is held.
    pub async fn call(&self, call: &FunctionCall) -> CallEnd {
        match self.decide(call).await {
            Verdict::Run(tool, approver) => {
                let mut ran = self.execute(vec![(call.clone(), tool, approver)]).await;
                CallEnd::Ran(ran.remove(0))
            }
            Verdict::Refuse(result, by) => {
                let reason = &result.result;
                self.note(call, CallOutcome::Refused { by, reason }).await;
                CallEnd::Refused(result)
            }
            Verdict::Ask => {
                self.note(call, CallOutcome::Held).await;
                CallEnd::Held
            }
        }
    }

    /// Tells the observer, if any, what became of `call`.
    pub async fn note(&self, call: &FunctionCall, outcome: CallOutcome<'_>) {
        let Some(observer) = &self.runner.observer else {
            return;
        };
        let tool = self.tool(&call.name);
        observer
            .observe(CallEvent {
                call,
                tool: tool.map(|tool| tool.as_ref() as &dyn Tool),
                conversation_id: self.conversation_id,
                actor: self.actor,
                outcome,
            })
            .await;
    }

    /// Runs `calls` concurrently, each in its own `execute_tool` span, each observed when it
    /// ends; the results in the same order.
    pub async fn execute(
        &self,
        calls: Vec<(FunctionCall, SharedTool, ApprovedBy)>,
    ) -> Vec<FunctionResult> {
        let capture = self.runner.capture;
        join_all(calls.into_iter().map(|(call, tool, approver)| {
            let span = execute_tool_span(&call, self.actor, &approver, capture);
            let inner = span.clone();
            async move {
                let started = Instant::now();
                let output = tool.invoke(call.arguments.clone()).await;
                let duration = started.elapsed();
                let is_error = output.is_err();
                let result = FunctionResult {
                    call_id: call.call_id.clone(),
                    result: output.unwrap_or_else(|error| error),
                    is_error,
                };
                record_tool_result(&span, &result, started, capture);
                self.note(
                    &call,
                    CallOutcome::Ran {
                        approver: &approver,
                        result: &result,
                        duration,
                    },
                )
                .await;
                result
            }
            .instrument(inner)
        }))
        .await
    }

    /// Answers the approval requests still open in `messages` with the answers its last
    /// message (the user's) carries: approved calls the policy does not refuse now run, the
    /// others get a result saying why not (rejected with the person's reason, unanswered, no
    /// longer offered). An approval for good is handed to the policy to remember. `None` when
    /// nothing was pending.
    pub async fn resume(&self, messages: &[Message]) -> Option<Vec<FunctionResult>> {
        let pending = pending_approvals(messages);
        if pending.is_empty() {
            return None;
        }
        let answers: HashMap<&str, _> = new_answers(messages)
            .map(|response| (response.call_id.as_str(), response))
            .collect();
        let mut results: Vec<Option<FunctionResult>> = Vec::new();
        let mut to_run = Vec::new();
        for ApprovalRequest { call } in pending {
            let tool = self.tool(&call.name);
            let (result, not_run) = match (answers.get(call.call_id.as_str()), tool) {
                (Some(answer), Some(tool)) if answer.approved => {
                    match self.approved_again(tool, &call, answer.remember).await {
                        Ok(()) => {
                            let approver = ApprovedBy::Person(answer.remember);
                            to_run.push((call, Arc::clone(tool), approver));
                            results.push(None);
                            continue;
                        }
                        Err(refusal) => (refusal, NotRun::Refused(RefusedBy::Policy)),
                    }
                }
                (Some(answer), None) if answer.approved => (
                    error_result(
                        &call,
                        format!("Error: the tool '{}' is no longer available.", call.name),
                    ),
                    NotRun::Refused(RefusedBy::UnknownTool),
                ),
                (Some(answer), _) => {
                    let reason = answer
                        .reason
                        .as_deref()
                        .map(|reason| format!(" Reason: {reason}"))
                        .unwrap_or_default();
                    let text = format!(
                        "Rejected: the user did not approve this call of `{}`, so it was not run.{reason}",
                        call.name
                    );
                    (
                        error_result(&call, text),
                        NotRun::Rejected(answer.reason.as_deref()),
                    )
                }
                (None, _) => (not_approved(&call), NotRun::Unanswered),
            };
            let outcome = match not_run {
                NotRun::Refused(by) => CallOutcome::Refused {
                    by,
                    reason: &result.result,
                },
                NotRun::Rejected(reason) => CallOutcome::Rejected { reason },
                NotRun::Unanswered => CallOutcome::Unanswered,
            };
            self.note(&call, outcome).await;
            results.push(Some(result));
        }
        Some(merge(results, self.execute(to_run).await))
    }

    /// A call a person approved, put to the policy again (it may refuse it now: a held-back call
    /// may come from an edited history, and rules may have changed); an approval for good is
    /// handed to the policy to remember.
    async fn approved_again(
        &self,
        tool: &SharedTool,
        call: &FunctionCall,
        remember: Remember,
    ) -> Result<(), FunctionResult> {
        let Some(policy) = &self.runner.approval else {
            return Ok(());
        };
        if let Decision::Refuse(reason) = policy.decide(tool.as_ref(), &call.arguments).await {
            return Err(refused(call, &reason));
        }
        if remember != Remember::Once
            && let Err(error) = policy
                .remember(tool.as_ref(), &call.arguments, remember)
                .await
        {
            tracing::warn!(
                tool = %call.name,
                "the approval given for good cannot be remembered ({error}); the call runs once and later calls ask again"
            );
        }
        Ok(())
    }
}

/// Why a call waiting for approval does not run.
enum NotRun<'a> {
    Refused(RefusedBy),
    Rejected(Option<&'a str>),
    Unanswered,
}

/// The result of a call the approval policy refused (`reason` says why): it was not run.
pub fn refused(call: &FunctionCall, reason: &str) -> FunctionResult {
    error_result(
        call,
        format!("Error: this call was refused and not run: {reason}"),
    )
}

/// The result of a call that waited for approval and got none: it was not run.
pub fn not_approved(call: &FunctionCall) -> FunctionResult {
    error_result(
        call,
        format!(
            "Not run: the user did not approve this call of `{}`.",
            call.name
        ),
    )
}

/// An error result of `call` saying `text`.
pub(crate) fn error_result(call: &FunctionCall, text: String) -> FunctionResult {
    FunctionResult {
        call_id: call.call_id.clone(),
        result: text,
        is_error: true,
    }
}

/// Fills the empty slots of `slots`, in order, with the results of the calls that ran.
pub(crate) fn merge(
    slots: Vec<Option<FunctionResult>>,
    ran: Vec<FunctionResult>,
) -> Vec<FunctionResult> {
    let mut ran = ran.into_iter();
    slots
        .into_iter()
        .filter_map(|slot| slot.or_else(|| ran.next()))
        .collect()
}
