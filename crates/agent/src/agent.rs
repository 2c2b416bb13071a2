//! The agent: the decorated chat client, its context providers, approvals and audit, built by
//! [`AgentBuilder`], and the calls it makes itself. How a run goes is `run.rs`'s.

use std::fmt;
use std::sync::Arc;

use skillful_chat::{
    ApprovalRequest, ApprovalResponse, ChatClient, ChatOptions, Content, FunctionCall, Message,
    Role, SharedTool, Usage,
};
use skillful_core::SourceContext;
use skillful_decorators::{
    ApprovalPolicy, CallActor, CallEnd, CallObserver, CallRunner, EnsureUserMessageLayer,
    FunctionInvocationLayer, Layer, Limits, TracingLayer,
};
use skillful_provider::{CallSubject, SkillsProvider, TaskEvent, TaskRecord};

use crate::aids::{AidedModel, Aids, EarlyAnswers};
use crate::approvals::ApprovalsStore;
use crate::audit::{AuditSettings, Auditor};
use crate::context::ContextProvider;
use crate::error::AgentError;
use crate::mode::{GuidedOptions, Mode};
use crate::policy::{ApprovalRules, SkillsApprovalPolicy};
use crate::run_options::RunOptions;
use crate::session::{Author, Session};
use crate::session_approvals::SessionApprovals;
use crate::session_tasks::EndedTasks;
use crate::stages::StageRecord;

/// What a run is given: a prompt, or the answers to pending approvals.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// A new prompt. Calls still waiting for approval are answered as not approved.
    Text(String),
    /// Answers to the calls waiting for approval; the run resumes.
    Approvals(Vec<ApprovalResponse>),
    /// The script tasks that ended ([`Agent::wait_for_tasks`]): their results continue the
    /// conversation as a new turn, and each is reported once.
    Tasks(Vec<TaskRecord>),
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
    /// How the run drove the model: [`Mode::Guided`] or [`Mode::Tools`].
    pub mode: Mode,
    /// What the run's strategy did, stage by stage, with its time and tokens.
    pub stages: Vec<StageRecord>,
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
    /// The model behind the tool loop and its per-call aids (`FunctionInvocation → AidedModel →
    /// model`).
    pub(crate) tool_loop: Box<dyn ChatClient>,
    /// The conversations whose loop the aids answered by the answer step.
    pub(crate) early: Arc<EarlyAnswers>,
    /// The model alone (`EnsureUserMessage → Tracing → client`), for the requests the agent
    /// makes itself: the guided strategy's decisions, the answer step.
    pub(crate) model: Arc<dyn ChatClient>,
    /// What decides, runs and records calls: the loop's, and the ones the agent makes itself.
    pub(crate) calls: CallRunner,
    pub(crate) instructions: Option<String>,
    pub(crate) providers: Vec<Provided>,
    pub(crate) skills: Vec<Arc<SkillsProvider>>,
    policy: Arc<SkillsApprovalPolicy>,
    pub(crate) options: ChatOptions,
    pub(crate) auditor: Option<Arc<Auditor>>,
    pub(crate) aids: Aids,
    pub(crate) name: String,
    /// The mode asked for, and whether the server is on this machine (to resolve
    /// [`Mode::Auto`]).
    mode: Mode,
    local: Option<bool>,
    pub(crate) guided: GuidedOptions,
    /// The approvals given for a session ([`ApprovalDecision::ForSession`](crate::ApprovalDecision::ForSession)).
    pub(crate) for_session: SessionApprovals,
    /// The skills providers' task events, until the first run starts auditing them.
    pub(crate) task_events:
        std::sync::Mutex<Option<Vec<tokio::sync::broadcast::Receiver<TaskEvent>>>>,
    /// The tasks whose end was audited, for a wait to return only once it is.
    pub(crate) ended_tasks: Arc<EndedTasks>,
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
            mode: Mode::default(),
            guided: GuidedOptions::default(),
        }
    }

    /// Whether the model's server is on this machine, as the client said when the agent was
    /// built ([`ChatClient::server_is_local`]); what [`Mode::Auto`] goes by.
    pub fn server_is_local(&self) -> Option<bool> {
        self.local
    }

    /// The mode a run with `run` uses: the run's, else the agent's, [`Mode::Auto`] resolved by
    /// where the server is.
    pub fn mode(&self, run: &RunOptions) -> Mode {
        run.mode.unwrap_or(self.mode).resolve(self.local)
    }

    /// Records the calls a new prompt left unanswered, when auditing.
    pub(crate) async fn audit_unanswered(
        &self,
        unanswered: &[(FunctionCall, Option<CallSubject>)],
        session_id: &str,
    ) {
        if let Some(auditor) = &self.auditor {
            auditor.unanswered(unanswered, session_id).await;
        }
    }

    /// A call the agent makes itself (an activation, an invocation, a guided strategy's call),
    /// decided, run and recorded as the loop's calls are ([`CallRunner`]), `actor` naming who
    /// chose it: its messages (approved, the call and its result; refused, the call and the
    /// refusal; to be asked, the call as an approval request, which the person's answer
    /// resumes like any other) and what became of it.
    pub(crate) async fn own_call(
        &self,
        tools: &[SharedTool],
        call: FunctionCall,
        actor: CallActor,
        session_id: &str,
    ) -> (Vec<Message>, CallEnd) {
        let end = self
            .calls
            .calls(tools, Some(session_id), actor)
            .call(&call)
            .await;
        let messages = match &end {
            CallEnd::Held => vec![Message::new(
                Role::Assistant,
                vec![Content::ApprovalRequest(ApprovalRequest { call })],
            )],
            CallEnd::Ran(result) | CallEnd::Refused(result) => vec![
                Message::new(Role::Assistant, vec![Content::FunctionCall(call)]),
                Message::new(Role::Tool, vec![Content::FunctionResult(result.clone())]),
            ],
        };
        (messages, end)
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
            .field("client", &self.tool_loop)
            .field("mode", &self.mode)
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
pub(crate) enum Provided {
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
    mode: Mode,
    guided: GuidedOptions,
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

    /// The small-model aids the tool loop applies (default: [`Aids::default`]).
    pub fn aids(mut self, aids: Aids) -> Self {
        self.aids = aids;
        self
    }

    /// How runs drive the model (default: [`Mode::Tools`], the free tool loop);
    /// [`Mode::Auto`] picks the guided strategy when the client's server is on this machine
    /// ([`ChatClient::server_is_local`]). A run's [`RunOptions::mode`] overrides it.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// The guided strategy's settings (default: [`GuidedOptions::default`]).
    pub fn guided(mut self, options: GuidedOptions) -> Self {
        self.guided = options;
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
    /// client` for the tool loop; the guided strategy and the answer step ask
    /// `EnsureUserMessage → Tracing → client`, and their calls go through the loop's
    /// [`CallRunner`] (the same approvals, spans and audit records).
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
        let local = self.client.server_is_local();
        let tracing = TracingLayer::new().capture_content(self.capture);
        let model: Arc<dyn ChatClient> =
            Arc::new(EnsureUserMessageLayer.layer(tracing.layer(self.client)));
        let early = Arc::new(EarlyAnswers::default());
        let tool_loop = invocation.layer(AidedModel {
            inner: Arc::clone(&model),
            aids: self.aids,
            early: Arc::clone(&early),
        });
        let task_events = self
            .skills
            .iter()
            .filter_map(|provider| provider.tasks())
            .map(|tasks| tasks.subscribe())
            .collect();
        Agent {
            tool_loop: Box::new(tool_loop),
            early,
            model,
            calls: invocation.runner().clone(),
            instructions: self.instructions,
            providers: self.providers,
            skills: self.skills,
            policy,
            options: self.options,
            auditor,
            aids: self.aids,
            name: self.name,
            mode: self.mode,
            local,
            guided: self.guided,
            for_session: SessionApprovals::default(),
            task_events: std::sync::Mutex::new(Some(task_events)),
            ended_tasks: Arc::default(),
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
