//! The agent: one run of a conversation through the decorated chat client.

use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use skillful_audit::Actor;
use skillful_chat::{
    ApprovalRequest, ApprovalResponse, ChatClient, ChatOptions, ChatRequest, ChatResponse, Content,
    FunctionCall, FunctionResult, Message, Role, SharedTool, Usage,
};
use skillful_core::SourceContext;
use skillful_decorators::{
    ApprovalPolicy, ApprovedBy, CallActor, CallEvent, CallObserver, CallOutcome, Decision,
    EnsureUserMessageLayer, FunctionInvocationLayer, Layer, Limits, RefusedBy, TracingLayer,
    execute_tool_span, not_approved, record_tool_result, refused,
};
use skillful_provider::{CallSubject, SkillsProvider, ToolKind};
use tracing::{Instrument, Span};

use crate::aids::{AidedModel, Aids, RunOptions, answer_request, skills_to_load};
use crate::approvals::ApprovalsStore;
use crate::approver::SessionApprovals;
use crate::audit::{AuditSettings, Auditor};
use crate::context::{ContextProvider, SkillFunction};
use crate::error::AgentError;
use crate::policy::{ApprovalRules, SkillsApprovalPolicy};
use crate::session::{Author, Session};
use crate::spans;

/// What a run is given: a prompt, or the answers to pending approvals.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// A new prompt. Calls still waiting for approval are answered as not approved.
    Text(String),
    /// Answers to the calls waiting for approval; the run resumes.
    Approvals(Vec<ApprovalResponse>),
}

impl From<&str> for Input {
    fn from(text: &str) -> Self {
        Input::Text(text.to_owned())
    }
}

impl From<String> for Input {
    fn from(text: String) -> Self {
        Input::Text(text)
    }
}

impl From<Vec<ApprovalResponse>> for Input {
    fn from(responses: Vec<ApprovalResponse>) -> Self {
        Input::Approvals(responses)
    }
}

/// What a run gives back.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentResponse {
    /// The new messages: the model's tool calls, the tool results, the answer.
    pub messages: Vec<Message>,
    /// Who made each of [`messages`](Self::messages), in the same order: the conversation, or
    /// one of the agent's [`Aids`] (the answer step, an activation).
    pub authors: Vec<Author>,
    /// Calls waiting for approval; answer them with [`Input::Approvals`].
    pub pending: Vec<ApprovalRequest>,
    /// Tokens used over the run's model calls, when the server reports them.
    pub usage: Option<Usage>,
    /// Why the last model call stopped (`stop`, `tool_calls`, `length` when the token limit cut
    /// it off), as the server says.
    pub finish_reason: Option<String>,
}

impl AgentResponse {
    /// The text of the last assistant message.
    pub fn text(&self) -> String {
        Message::last_assistant_text(&self.messages)
    }
}

/// An agent: a chat client wrapped in the decorators (function invocation with approval,
/// ensure-user-message, tracing), instructions, and context providers that add instructions and
/// tools to every run (the skills provider: its catalog and its three tools).
///
/// # Example
/// ```no_run
/// use std::sync::Arc;
/// use skillful_agent::{Agent, ApprovalRules, AutoApprove, Session};
/// use skillful_chat::OpenAiClient;
/// use skillful_inline::{InlineSkill, InlineSkillsSource};
/// use skillful_provider::SkillsProvider;
///
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let skill = InlineSkill::builder("greeter", "Greets people.").instructions("Say hello.").build()?;
/// let provider = Arc::new(SkillsProvider::new(Arc::new(InlineSkillsSource::new([skill]))));
/// let agent = Agent::builder(OpenAiClient::builder("http://127.0.0.1:1234/v1").build()?)
///     .instructions("You are helpful.")
///     .skills(provider)
///     .approval(ApprovalRules::new(AutoApprove::ReadOnly))
///     .build();
/// let mut session = Session::new();
/// let response = agent.run("Greet me.", &mut session).await?;
/// println!("{}", response.text());
/// # Ok(())
/// # }
/// ```
pub struct Agent {
    client: Box<dyn ChatClient>,
    instructions: Option<String>,
    providers: Vec<Provided>,
    skills: Vec<Arc<SkillsProvider>>,
    policy: Arc<SkillsApprovalPolicy>,
    options: ChatOptions,
    auditor: Option<Arc<Auditor>>,
    aids: Aids,
    name: String,
    capture: bool,
    /// The approvals given for a session ([`ApprovalDecision::ForSession`](crate::ApprovalDecision::ForSession)).
    pub(crate) for_session: SessionApprovals,
}

impl Agent {
    /// Starts building an agent over `client` (the model's client, e.g. an
    /// [`OpenAiClient`](skillful_chat::OpenAiClient)); the decorators are added by the builder.
    pub fn builder(client: impl ChatClient + 'static) -> AgentBuilder {
        AgentBuilder {
            client: Box::new(client),
            instructions: None,
            providers: Vec::new(),
            skills: Vec::new(),
            store: None,
            rules: ApprovalRules::default(),
            limits: Limits::default(),
            options: ChatOptions::default(),
            audit: None,
            aids: Aids::default(),
            name: DEFAULT_NAME.to_owned(),
            capture: false,
        }
    }

    /// Runs one turn of `session`: a prompt, or approval answers that resume a held-back run.
    ///
    /// The session gains the input and every new message; on error it is left unchanged.
    ///
    /// # Errors
    /// The model failed ([`AgentError::Chat`]), a context provider failed, or an approval answer
    /// names no pending call.
    pub async fn run(
        &self,
        input: impl Into<Input>,
        session: &mut Session,
    ) -> Result<AgentResponse, AgentError> {
        self.run_with(input, session, &RunOptions::default()).await
    }

    /// [`Agent::run`] with `options`: skills the user named to load for this turn.
    ///
    /// # Errors
    /// As [`Agent::run`]; also [`AgentError::UnknownSkill`] when `options` names a skill that is
    /// not offered (before any model call).
    pub async fn run_with(
        &self,
        input: impl Into<Input>,
        session: &mut Session,
        run: &RunOptions,
    ) -> Result<AgentResponse, AgentError> {
        let span = spans::invoke_agent(&self.name, session.id(), self.options.model.as_deref());
        let response = async {
            let response = self.run_turn(input.into(), session, run).await;
            if let Some(auditor) = &self.auditor {
                auditor.on_disk().await;
            }
            response
        }
        .instrument(span.clone())
        .await;
        spans::record_run(&span, response.as_ref().map(|response| response.usage));
        response
    }

    /// One turn of [`Agent::run_with`], inside its `invoke_agent` span: the input's messages,
    /// the context gathered, the runtime's activations, then the model (unless an activation
    /// waits for approval).
    async fn run_turn(
        &self,
        input: Input,
        session: &mut Session,
        run: &RunOptions,
    ) -> Result<AgentResponse, AgentError> {
        let input = self.input_messages(input, session).await?;
        let gathered = self.gather(session).await?;
        let mut messages = Vec::new();
        if !gathered.instructions.is_empty() {
            messages.push(Message::system(gathered.instructions.join("\n\n")));
        }
        messages.extend(session.messages().iter().cloned());
        messages.extend(input.messages.iter().cloned());
        let aided = match &input.query {
            Some(query) => {
                self.activate(run, query, &gathered, &mut messages, session.id())
                    .await?
            }
            None => Vec::new(),
        };
        let asking = aided
            .iter()
            .any(|(message, _)| message.approval_requests().next().is_some());
        if asking {
            // The runtime's call waits for the person; the model is called once it is answered
            // (the approval answers resume the loop).
            self.audit_unanswered(&input.unanswered, session.id()).await;
            let (made, authors) = aided.into_iter().unzip();
            return Ok(finish(session, input.messages, made, authors, None, None));
        }
        let mut options = self.options.clone();
        options.conversation_id = Some(session.id().to_owned());
        let request = ChatRequest::new(messages.clone())
            .with_tools(gathered.tools)
            .with_options(options);
        let mut response = self.client.get_response(request).await?;
        self.audit_unanswered(&input.unanswered, session.id()).await;
        let (mut made, mut authors): (Vec<Message>, Vec<Author>) = aided.into_iter().unzip();
        authors.extend(response.messages.iter().map(|_| Author::Conversation));
        mark_answer_step(&mut response, &mut authors);
        if response.stopped.is_some() && self.aids.answer_step {
            self.answer_step(messages, &mut response, &mut authors)
                .await?;
        }
        made.extend(response.messages);
        if self.aids.repeated_loads {
            // The session holds what the model was shown.
            crate::aids::repeated_loads(&mut made);
        }
        let (usage, reason) = (response.usage, response.finish_reason);
        let reply = finish(session, input.messages, made, authors, usage, reason);
        if let Some(auditor) = &self.auditor {
            auditor.run_ended(session.id(), usage).await;
        }
        Ok(reply)
    }

    /// What `input` adds to `session`: a new prompt answers the calls still pending as not
    /// approved (those calls, with what they name, are audited as unanswered), then the prompt;
    /// approval answers must each name a pending call.
    async fn input_messages(
        &self,
        input: Input,
        session: &Session,
    ) -> Result<TurnInput, AgentError> {
        let pending = session.pending_approvals();
        let mut turn = TurnInput::default();
        match input {
            Input::Text(text) => {
                if !pending.is_empty() {
                    if self.auditor.is_some() {
                        for request in &pending {
                            let subject = self.describe(&request.call, session).await?;
                            turn.unanswered.push((request.call.clone(), subject));
                        }
                    }
                    let results = pending
                        .iter()
                        .map(|request| Content::FunctionResult(not_approved(&request.call)))
                        .collect();
                    turn.messages.push(Message::new(Role::Tool, results));
                }
                turn.messages.push(Message::user(text.clone()));
                turn.query = Some(text);
            }
            Input::Approvals(responses) => {
                if let Some(unknown) = responses.iter().find(|response| {
                    !pending
                        .iter()
                        .any(|request| request.call.call_id == response.call_id)
                }) {
                    return Err(AgentError::UnknownApproval {
                        call_id: unknown.call_id.clone(),
                    });
                }
                let answers = responses.into_iter().map(Content::ApprovalResponse);
                turn.messages
                    .push(Message::new(Role::User, answers.collect()));
            }
        }
        Ok(turn)
    }

    /// The instructions and tools of every context provider, and each offered skill with the
    /// `load_skill` that loads it.
    async fn gather(&self, session: &Session) -> Result<Gathered, AgentError> {
        let mut gathered = Gathered {
            instructions: self.instructions.iter().cloned().collect(),
            ..Gathered::default()
        };
        for provider in &self.providers {
            match provider {
                Provided::Skills(skills) => {
                    // Isolated by session: one session's idempotency keys never replay
                    // another's results.
                    let context = skills
                        .context(&SourceContext::isolated(session.id()))
                        .await?;
                    gathered
                        .instructions
                        .extend(context.instructions().map(str::to_owned));
                    let functions: Vec<SharedTool> = context
                        .tools()
                        .iter()
                        .map(|tool| Arc::new(SkillFunction(tool.clone())) as SharedTool)
                        .collect();
                    let load = functions
                        .iter()
                        .find(|tool| tool.name() == ToolKind::LoadSkill.name());
                    for skill in context.skills() {
                        if let Some(load) = load {
                            let offered = (skill.name().to_owned(), skill.description().to_owned());
                            gathered.offered.push(offered);
                            gathered.loaders.push(Arc::clone(load));
                        }
                    }
                    gathered.tools.extend(functions);
                }
                Provided::Other(other) => {
                    let context = other.context(session).await?;
                    gathered.instructions.extend(context.instructions);
                    gathered.tools.extend(context.tools);
                }
            }
        }
        Ok(gathered)
    }

    /// Loads the skills `run` names and the activation aid picks for `query` before the model's
    /// first call: their messages, each with its author, also added to `messages`.
    async fn activate(
        &self,
        run: &RunOptions,
        query: &str,
        gathered: &Gathered,
        messages: &mut Vec<Message>,
        session_id: &str,
    ) -> Result<Vec<(Message, Author)>, AgentError> {
        let mut aided = Vec::new();
        for (skill, author) in skills_to_load(self.aids, run, query, &gathered.offered)? {
            let Some(at) = gathered.offered.iter().position(|(name, _)| *name == skill) else {
                continue;
            };
            let load = &gathered.loaders[at];
            let made = self
                .load_for_the_model(load, &skill, messages, session_id)
                .await;
            messages.extend(made.iter().cloned());
            aided.extend(made.into_iter().map(|message| (message, author)));
        }
        Ok(aided)
    }

    /// The answer step: the model, stopped by the loop's guard, is asked again for its answer
    /// with the results and no tools; its answer joins `response`.
    async fn answer_step(
        &self,
        mut messages: Vec<Message>,
        response: &mut ChatResponse,
        authors: &mut Vec<Author>,
    ) -> Result<(), AgentError> {
        messages.extend(response.messages.iter().cloned());
        if let Some(request) = answer_request(&messages, &self.options) {
            let answer = self.client.get_response(request).await?;
            if let Some(usage) = answer.usage {
                response.usage.get_or_insert_with(Usage::default).add(usage);
            }
            response.finish_reason = answer.finish_reason;
            authors.extend(answer.messages.iter().map(|_| Author::AnswerStep));
            response.messages.extend(answer.messages);
        }
        Ok(())
    }

    /// Records the calls a new prompt left unanswered, when auditing.
    async fn audit_unanswered(
        &self,
        unanswered: &[(FunctionCall, Option<CallSubject>)],
        session_id: &str,
    ) {
        if let Some(auditor) = &self.auditor {
            auditor.unanswered(unanswered, session_id).await;
        }
    }

    /// The messages of a `load_skill` call of `skill` the runtime makes through `load`, decided
    /// by the approval policy as the model's calls are: approved, the call and its result;
    /// refused, the call and the refusal (the body is not loaded); to be asked, the call as an
    /// approval request (the person's answer resumes it like any other).
    async fn load_for_the_model(
        &self,
        load: &SharedTool,
        skill: &str,
        conversation: &[Message],
        session_id: &str,
    ) -> Vec<Message> {
        let call = FunctionCall {
            call_id: runtime_call_id(conversation),
            name: load.name().to_owned(),
            arguments: serde_json::json!({"skillName": skill}),
        };
        let result = match self.policy.decide(load.as_ref(), &call.arguments).await {
            Decision::Ask => {
                self.audit_runtime_call(&call, load, session_id, CallOutcome::Held)
                    .await;
                return vec![Message::new(
                    Role::Assistant,
                    vec![Content::ApprovalRequest(ApprovalRequest { call })],
                )];
            }
            Decision::Refuse(reason) => {
                self.audit_runtime_call(
                    &call,
                    load,
                    session_id,
                    CallOutcome::Refused {
                        by: RefusedBy::Policy,
                        reason: &reason,
                    },
                )
                .await;
                refused(&call, &reason)
            }
            Decision::Approve(grounds) => {
                let approver = ApprovedBy::Policy(grounds);
                let span = execute_tool_span(&call, CallActor::Runtime, &approver, self.capture);
                async {
                    let started = Instant::now();
                    let output = load.invoke(call.arguments.clone()).await;
                    let result = FunctionResult {
                        call_id: call.call_id.clone(),
                        is_error: output.is_err(),
                        result: output.unwrap_or_else(|error| error),
                    };
                    record_tool_result(&Span::current(), &result, started, self.capture);
                    self.audit_runtime_call(
                        &call,
                        load,
                        session_id,
                        CallOutcome::Ran {
                            approver: &approver,
                            result: &result,
                            duration: started.elapsed(),
                        },
                    )
                    .await;
                    result
                }
                .instrument(span)
                .await
            }
        };
        vec![
            Message::new(Role::Assistant, vec![Content::FunctionCall(call)]),
            Message::new(Role::Tool, vec![Content::FunctionResult(result)]),
        ]
    }
}

impl Agent {
    /// Records what became of a call the runtime made (an activation), when auditing.
    async fn audit_runtime_call(
        &self,
        call: &FunctionCall,
        tool: &SharedTool,
        session_id: &str,
        outcome: CallOutcome<'_>,
    ) {
        if let Some(auditor) = &self.auditor {
            let event = CallEvent {
                call,
                tool: Some(tool.as_ref()),
                conversation_id: Some(session_id),
                outcome,
            };
            auditor.record(event, Actor::Runtime).await;
        }
    }
}

/// An id for a call the runtime makes that no call, result or answer of `conversation` uses.
fn runtime_call_id(conversation: &[Message]) -> String {
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
struct TurnInput {
    /// The messages: the pending calls answered as not approved and the prompt, or the answers.
    messages: Vec<Message>,
    /// The calls a new prompt left unanswered, with what they name (when auditing).
    unanswered: Vec<(FunctionCall, Option<CallSubject>)>,
    /// The prompt's text, for a new prompt.
    query: Option<String>,
}

/// What the context providers give a turn.
#[derive(Default)]
struct Gathered {
    /// The agent's instructions, then each provider's.
    instructions: Vec<String>,
    /// Every provider's tools.
    tools: Vec<SharedTool>,
    /// Each offered skill's name and description, and (at the same index) the `load_skill`
    /// that loads it.
    offered: Vec<(String, String)>,
    loaders: Vec<SharedTool>,
}

/// When the aids answered a repeated call by the answer step (its finish reason carries the
/// aids' mark), the reply is the last message: it is marked as the answer step's.
fn mark_answer_step(response: &mut ChatResponse, authors: &mut [Author]) {
    if let Some(reason) = response
        .finish_reason
        .as_deref()
        .and_then(|reason| reason.strip_prefix(crate::aids::ANSWER_STEP))
    {
        response.finish_reason = (!reason.is_empty()).then(|| reason.to_owned());
        if let Some(last) = authors.last_mut() {
            *last = Author::AnswerStep;
        }
    }
}

/// Ends a turn: the input's messages (the conversation's), then `made` with its `authors`, join
/// `session`; what the run gives back.
fn finish(
    session: &mut Session,
    input: Vec<Message>,
    made: Vec<Message>,
    authors: Vec<Author>,
    usage: Option<Usage>,
    finish_reason: Option<String>,
) -> AgentResponse {
    session.extend(
        input
            .into_iter()
            .map(|message| (message, Author::Conversation)),
    );
    session.extend(made.iter().cloned().zip(authors.iter().copied()));
    AgentResponse {
        pending: made
            .iter()
            .flat_map(Message::approval_requests)
            .cloned()
            .collect(),
        messages: made,
        authors,
        usage,
        finish_reason,
    }
}

impl Agent {
    /// The store of the approvals given for good this agent consults.
    pub fn approvals(&self) -> &ApprovalsStore {
        &self.policy.store
    }

    /// What a call of `session` (one waiting for approval, say) names, read afresh from the
    /// agent's skills providers: the skill with its origin, the script, the risk tier. For a
    /// person deciding on it. `None` when the call is not to a skills provider's tool or names
    /// no skill (or script) the providers have now.
    ///
    /// # Errors
    /// A skills provider could not list its skills.
    pub async fn describe(
        &self,
        call: &FunctionCall,
        session: &Session,
    ) -> Result<Option<CallSubject>, AgentError> {
        let context = SourceContext::isolated(session.id());
        for provider in &self.skills {
            let run = provider.context(&context).await?;
            if let Some(tool) = run.tools().iter().find(|tool| tool.name() == call.name) {
                return Ok(tool.subject(&call.arguments));
            }
        }
        Ok(None)
    }
}

impl fmt::Debug for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Agent")
            .field("client", &self.client)
            .field("instructions", &self.instructions)
            .field("providers", &self.providers)
            .field("options", &self.options)
            .field("auditor", &self.auditor)
            .finish()
    }
}

/// A source of instructions and tools: a skills provider (whose skills the aids also see), or
/// any other context provider.
#[derive(Debug)]
enum Provided {
    Skills(Arc<SkillsProvider>),
    Other(Arc<dyn ContextProvider>),
}

/// Configures an [`Agent`].
#[must_use]
pub struct AgentBuilder {
    client: Box<dyn ChatClient>,
    instructions: Option<String>,
    providers: Vec<Provided>,
    skills: Vec<Arc<SkillsProvider>>,
    store: Option<Arc<ApprovalsStore>>,
    rules: ApprovalRules,
    limits: Limits,
    options: ChatOptions,
    audit: Option<AuditSettings>,
    aids: Aids,
    name: String,
    capture: bool,
}

/// The agent's name when the builder is given none (`gen_ai.agent.name`).
pub const DEFAULT_NAME: &str = "skillful";

impl AgentBuilder {
    /// The agent's name on its `invoke_agent {name}` spans (`gen_ai.agent.name`; default
    /// [`DEFAULT_NAME`]).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Whether contents are recorded on the spans: the messages of each model call
    /// (`gen_ai.input.messages`, `gen_ai.output.messages`) and each tool call's arguments and
    /// result (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`). Off by default; turn it
    /// on only when the user opted in
    /// (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`, or a flag of the host's).
    pub fn capture_content(mut self, capture: bool) -> Self {
        self.capture = capture;
        self
    }

    /// The agent's own instructions, first in the system prompt.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }

    /// A skills provider: its catalog joins the instructions and its tools the request on every
    /// run, and the approval rules apply to its tools.
    pub fn skills(mut self, provider: Arc<SkillsProvider>) -> Self {
        self.skills.push(Arc::clone(&provider));
        self.providers.push(Provided::Skills(provider));
        self
    }

    /// Another context provider. Its tools always ask for approval.
    pub fn context_provider(mut self, provider: Arc<dyn ContextProvider>) -> Self {
        self.providers.push(Provided::Other(provider));
        self
    }

    /// The approval rules (default: every call asks; destructive calls are refused).
    pub fn approval(mut self, rules: ApprovalRules) -> Self {
        self.rules = rules;
        self
    }

    /// Where approvals given for good ("always") are kept and looked up (default: a store in
    /// memory, forgotten with the agent); [`ApprovalsStore::per_user`] keeps them for the user.
    pub fn approvals(mut self, store: Arc<ApprovalsStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// The tool loop's limits.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The small-model aids to apply (default: [`Aids::default`]).
    pub fn aids(mut self, aids: Aids) -> Self {
        self.aids = aids;
        self
    }

    /// Settings for every model call (model, temperature, max tokens).
    pub fn options(mut self, options: ChatOptions) -> Self {
        self.options = options;
        self
    }

    /// Audits every tool call (run, held back, refused, rejected, unanswered) and every run's
    /// tokens to the settings' sink: the skill with its origin and digest, the script and its
    /// digest, the arguments' digest (and the arguments unless [`AuditSettings::redact`]), the
    /// decision and who made it, the duration, the exit code and the result's digest.
    ///
    /// The record is appended before the call's result goes back to the model (the process
    /// dying loses none), flushed to disk in the background
    /// ([`AuditSink::append`](skillful_audit::AuditSink::append), then
    /// [`AuditSink::sync`](skillful_audit::AuditSink::sync)), and on the disk before the run
    /// returns; a failure to write or flush it is a warning.
    pub fn audit(mut self, settings: AuditSettings) -> Self {
        self.audit = Some(settings);
        self
    }

    /// Builds the agent: `FunctionInvocation → the per-call aids → EnsureUserMessage → Tracing →
    /// client`.
    pub fn build(self) -> Agent {
        let policy = Arc::new(SkillsApprovalPolicy {
            providers: self.skills.iter().map(|provider| provider.id()).collect(),
            rules: self.rules,
            store: self.store.unwrap_or_default(),
        });
        let auditor = self.audit.map(|settings| Arc::new(Auditor::new(settings)));
        let mut invocation = FunctionInvocationLayer::new()
            .limits(self.limits)
            .approval(Arc::clone(&policy) as Arc<dyn ApprovalPolicy>)
            .capture_content(self.capture);
        if let Some(auditor) = &auditor {
            invocation = invocation.observer(Arc::clone(auditor) as Arc<dyn CallObserver>);
        }
        let tracing = TracingLayer::new().capture_content(self.capture);
        let client = invocation.layer(AidedModel {
            inner: EnsureUserMessageLayer.layer(tracing.layer(self.client)),
            aids: self.aids,
        });
        Agent {
            client: Box::new(client),
            instructions: self.instructions,
            providers: self.providers,
            skills: self.skills,
            policy,
            options: self.options,
            auditor,
            aids: self.aids,
            name: self.name,
            capture: self.capture,
            for_session: SessionApprovals::default(),
        }
    }
}

impl fmt::Debug for AgentBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentBuilder")
            .field("client", &self.client)
            .field("rules", &self.rules)
            .finish_non_exhaustive()
    }
}
