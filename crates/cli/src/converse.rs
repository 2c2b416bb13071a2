//! `skills run` and `skills chat`: the agent over the skills, against an OpenAI-compatible
//! server, with approvals answered on the terminal.
//!
//! The terminal shows text, never control sequences: everything that comes from skills, models,
//! servers and scripts goes through `for_terminal`/`one_line`. And content cannot pass for our
//! prompts: model text is indented, tool calls and results follow our `>>`/`<<` markers on their
//! line, so a line starting with `??` (an approval question) or `>`/`<<`/`>>` is always ours.

use std::io::{self, BufRead, IsTerminal};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use skillful_agent::{
    Agent, AgentError, AgentResponse, Aids, ApprovalQuestion, ApprovalRules, ApprovalsStore,
    Author, AutoApprove, Input, RunOptions, RunReport, Session, SessionFile, SessionFileError,
};
use skillful_chat::{
    ApprovalRequest, ApprovalResponse, ChatError, ChatOptions, Content, DEFAULT_BASE_URL,
    FunctionCall, OpenAiClient, Remember,
};
use skillful_core::RiskTier;
use skillful_core::text::{for_terminal, one_line};
use skillful_engine::{Engine, EngineGuard};
use skillful_scripts::ProcessRunner;

use crate::audit::AuditFlags;
use crate::compose::{ListingFlags, SkillsFlags};
use crate::sandbox::{ScriptFlags, not_isolated_line};
use crate::telemetry::TelemetryFlags;
use crate::{Outcome, UsageError, output};

/// The most characters of a tool result the transcript shows.
const SHOWN_RESULT_CHARS: usize = 200;

/// The most tokens a model call may generate unless `--max-tokens` says otherwise: a small local
/// model left unbounded can generate for minutes.
pub(crate) const DEFAULT_MAX_TOKENS: u32 = 1024;

/// How long one model call may take unless `--call-timeout` says otherwise, in seconds.
pub(crate) const DEFAULT_CALL_TIMEOUT: u64 = 300;

/// Which skill tools run without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Approve {
    /// `load_skill` and `read_skill_resource` run; scripts ask.
    ReadOnly,
    /// All three tools run (destructive scripts are still refused; scripts only where they run
    /// in the sandbox of their tier).
    All,
    /// Every call asks.
    Ask,
}

impl From<Approve> for AutoApprove {
    fn from(approve: Approve) -> Self {
        match approve {
            Approve::ReadOnly => AutoApprove::ReadOnly,
            Approve::All => AutoApprove::All,
            Approve::Ask => AutoApprove::None,
        }
    }
}

/// Whether a small-model aid is applied: `auto` (its condition decides), or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum When {
    /// Apply the aid where its condition holds.
    Auto,
    /// Leave it to the model.
    Off,
}

/// The server to talk to: `endpoint` as given; without one, what [`EngineGuard::ensure`] finds
/// or starts (`model` when it names a model of the engine's catalogue), kept until the guard is
/// dropped.
pub(crate) async fn model_server(
    endpoint: Option<&str>,
    model: Option<&str>,
) -> anyhow::Result<(String, Option<EngineGuard>)> {
    if let Some(endpoint) = endpoint {
        return Ok((endpoint.to_owned(), None));
    }
    let engine = Engine::from_env()?;
    let model = skillful_engine::model_or_default(model);
    let guard = EngineGuard::ensure(&engine, DEFAULT_BASE_URL, model)
        .await
        .with_context(|| {
            format!(
                "nothing answers at {DEFAULT_BASE_URL} and the embedded engine cannot start \
                 (or pass --endpoint URL)"
            )
        })?;
    if let Some(note) = guard.note() {
        writeln!(output::stderr(), "skills: {}", one_line(&note.to_string()))?;
    }
    Ok((guard.endpoint(), Some(guard)))
}

/// Which model server to ask, and how: the options `run`, `chat` and `eval` share.
#[derive(Debug, clap::Args)]
pub(crate) struct ModelArgs {
    /// The server's base URL (OpenAI-compatible, up to `/v1`). Without it: the server at
    /// http://127.0.0.1:1234/v1 if one answers, else a running `skills engine`, else the
    /// embedded engine started for this command.
    // `--help` would print the variable's value, credentials included.
    #[arg(long, env = "SKILLS_ENDPOINT", hide_env_values = true)]
    pub(crate) endpoint: Option<String>,
    /// The model to ask for; without it, local servers use the model they have loaded. A model
    /// of `skills engine models` is also the one the embedded engine starts with.
    #[arg(long, env = "SKILLS_MODEL")]
    pub(crate) model: Option<String>,
    /// The environment variable holding the API key (local servers need none).
    #[arg(long, value_name = "VAR", default_value = "SKILLS_API_KEY")]
    pub(crate) api_key_env: String,
    /// Sampling temperature (default: the server's; 0: the most likely tokens, the same answer
    /// each time).
    #[arg(long, env = "SKILLS_TEMPERATURE")]
    pub(crate) temperature: Option<f32>,
    /// A sampling seed, for servers that make sampling repeatable with one.
    #[arg(long, env = "SKILLS_SEED")]
    pub(crate) seed: Option<u64>,
    /// The most tokens the model may generate per call.
    #[arg(long, value_name = "N", env = "SKILLS_MAX_TOKENS", default_value_t = DEFAULT_MAX_TOKENS)]
    pub(crate) max_tokens: u32,
    /// The most seconds one model call may take.
    #[arg(
        long,
        value_name = "SECS",
        env = "SKILLS_CALL_TIMEOUT",
        default_value_t = DEFAULT_CALL_TIMEOUT,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub(crate) call_timeout: u64,
}

impl ModelArgs {
    /// The server to talk to: `--endpoint` (or `SKILLS_ENDPOINT`), else the embedded engine's
    /// fallback ([`model_server`]), kept until the guard is dropped.
    pub(crate) async fn server(&self) -> anyhow::Result<(String, Option<EngineGuard>)> {
        let server = model_server(self.endpoint.as_deref(), self.model.as_deref()).await?;
        if self.endpoint.is_none() && self.key_variable().is_some() {
            writeln!(
                output::stderr(),
                "skills: {} is not sent to {}, which was not named; pass --endpoint URL (or set SKILLS_ENDPOINT) to send it",
                self.api_key_env,
                server.0
            )?;
        }
        Ok(server)
    }

    /// The API key, from the variable `--api-key-env` names (unset or empty: none); only for
    /// an endpoint the user named (`--endpoint`, `SKILLS_ENDPOINT`), never for the implicit
    /// default or an engine, whoever may hold their port.
    pub(crate) fn api_key(&self) -> Option<String> {
        self.endpoint.as_ref().and(self.key_variable())
    }

    fn key_variable(&self) -> Option<String> {
        std::env::var(&self.api_key_env)
            .ok()
            .filter(|key| !key.is_empty())
    }
}

/// How to reach the model and which skills to offer it.
#[derive(Debug, clap::Args)]
pub(crate) struct AgentArgs {
    /// Skill roots. Default: the project's `.agents/skills`, then `~/.agents/skills`.
    #[arg(long = "skills", value_name = "ROOT", num_args = 1..)]
    skills: Vec<PathBuf>,
    #[command(flatten)]
    model: ModelArgs,
    /// Which skill tools run without asking; the others are asked on the terminal (y/n/a).
    #[arg(long, value_enum, default_value_t = Approve::Ask)]
    approve: Approve,
    /// Also run scripts up to this risk tier without asking (read, write-low, write-high), where
    /// scripts run in the sandbox of their tier; elsewhere every script asks.
    #[arg(long, value_name = "TIER")]
    approve_up_to: Option<RiskTier>,
    /// Do not run tool calls the model writes as text (a JSON block or `<tool_call>` tags)
    /// instead of as structured calls; show such text as the answer.
    #[arg(long)]
    no_text_tool_calls: bool,
    /// Load the skill a request matches confidently before the model's first call (`auto`), or
    /// not (`off`). Default: `auto` for the embedded engine and other servers on this machine
    /// (small models), `off` for remote ones.
    #[arg(long, value_enum, value_name = "WHEN")]
    activate: Option<When>,
    /// While a skill is active, declare the resource and script tools with that skill's names
    /// as the only values (`auto`), or keep them open (`off`, the default: measured, it did not
    /// help the default model). It changes the tool list mid-run.
    #[arg(long, value_enum, value_name = "WHEN")]
    focus: Option<When>,
    /// Keep the conversation in FILE (JSON): read it if it exists, write it after every turn
    /// (atomically, mode 0600). A run stopped with an approval pending resumes from it. Another
    /// process on the same FILE waits for this one to finish.
    #[arg(long, value_name = "FILE")]
    session: Option<PathBuf>,
    #[command(flatten)]
    audit: AuditFlags,
    #[command(flatten)]
    telemetry: TelemetryFlags,
    #[command(flatten)]
    sandbox: ScriptFlags,
    #[command(flatten)]
    flags: SkillsFlags,
    #[command(flatten)]
    listing: ListingFlags,
}

#[derive(Debug, clap::Args)]
pub(crate) struct RunArgs {
    /// What to ask. May be left out with `--session FILE` to answer a pending approval.
    prompt: Option<String>,
    /// Load this skill for the prompt before the model's first call (repeatable).
    #[arg(long = "skill", value_name = "NAME")]
    invoke: Vec<String>,
    /// Print one JSON object on stdout instead of the transcript: the answer, every step (tool,
    /// arguments, result, who made it, approval), tokens and time (approval questions go to
    /// stderr).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    agent: AgentArgs,
}

#[derive(Debug, clap::Args)]
pub(crate) struct ChatArgs {
    #[command(flatten)]
    agent: AgentArgs,
}

impl AgentArgs {
    /// The script runner of the sandbox flags; when it does not isolate scripts, says so first
    /// (every script then asks).
    fn runner(&self) -> anyhow::Result<ProcessRunner> {
        let runner = self.sandbox.runner(ProcessRunner::builder())?;
        let then = "every script asks before it runs, whatever --approve and --approve-up-to say";
        if let Some(line) = not_isolated_line(&runner, then) {
            writeln!(output::stderr(), "{line}")?;
        }
        Ok(runner)
    }

    /// The agent, its scripts run by `runner`; with `live`, its file skills are watched and
    /// reloaded when they change, each reload said on stderr.
    async fn agent(
        &self,
        endpoint: &str,
        live: bool,
        runner: &ProcessRunner,
    ) -> anyhow::Result<Agent> {
        let host = if live { "skills chat" } else { "skills run" };
        let composition =
            self.flags
                .compose(&self.skills, false, Some(Arc::new(runner.clone())))?;
        if live {
            let watched = composition.watch().await;
            tokio::spawn(say_reloads(watched.reloads()));
        }
        let provider = Arc::new(self.listing.provider(composition.source())?);
        let model = &self.model;
        let mut client =
            OpenAiClient::builder(endpoint).timeout(Duration::from_secs(model.call_timeout));
        if let Some(key) = model.api_key() {
            client = client.api_key(key);
        }
        let mut options = ChatOptions::default();
        options.model = model.model.clone();
        options.temperature = model.temperature;
        options.seed = model.seed;
        options.max_tokens = Some(model.max_tokens);
        let mut rules = ApprovalRules::new(self.approve.into()).scripts_isolated(runner.isolates());
        if let Some(tier) = self.approve_up_to {
            rules = rules.approve_up_to(tier);
        }
        let store = ApprovalsStore::per_user()
            .context("cannot use the per-user store of approvals given for good")?;
        let mut err = output::stderr();
        for note in store.notes() {
            writeln!(err, "skills: {note}")?;
        }
        let client = client.build()?;
        let local = client.is_loopback();
        let on = |when: Option<When>| when.map_or(local, |when| when == When::Auto);
        Ok(Agent::builder(client)
            .skills(provider)
            .approval(rules)
            .approvals(Arc::new(store))
            .options(options)
            .aids(
                Aids::new()
                    .activation(on(self.activate))
                    .focused_tools(self.focus == Some(When::Auto))
                    .text_tool_calls(!self.no_text_tool_calls),
            )
            .audit(self.audit.settings(host)?)
            .name("skills")
            .capture_content(self.telemetry.capture())
            .build())
    }

    /// The session: read from `--session FILE`, held (locked) until the command ends; waits,
    /// saying so, while another process holds it. A new session without `--session`.
    async fn session(&self) -> anyhow::Result<(Option<SessionFile>, Session)> {
        let Some(path) = &self.session else {
            return Ok((None, Session::new()));
        };
        let (file, session) = match SessionFile::try_open(path) {
            Err(SessionFileError::Busy { .. }) => {
                writeln!(
                    output::stderr(),
                    "skills: waiting for another process using the session {}",
                    one_line(&path.display().to_string())
                )?;
                let path = path.clone();
                skillful_state::blocking::run("waiting for the session", move || {
                    SessionFile::open(path)
                })
                .await??
            }
            opened => opened?,
        };
        Ok((Some(file), session.unwrap_or_default()))
    }
}

/// One exchange with the terminal: the transcript goes to stdout, answers come from stdin.
///
/// Stdin is read on a thread of its own, so that the runtime keeps running while the user
/// types: the skills watcher reloads (and says so) between turns.
struct Terminal {
    lines: Option<tokio::sync::mpsc::UnboundedReceiver<io::Result<String>>>,
    out: output::Writer<Box<dyn io::Write>>,
    /// Whether the transcript is shown (not with `--json`, whose questions go to stderr).
    transcript: bool,
}

impl Terminal {
    fn new(json: bool) -> Self {
        Self {
            lines: None,
            out: output::stdout_or_stderr(json),
            transcript: !json,
        }
    }

    async fn read_line(&mut self) -> io::Result<Option<String>> {
        let lines = self.lines.get_or_insert_with(|| {
            let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
            std::thread::spawn(move || {
                for line in io::stdin().lock().lines() {
                    if sender.send(line).is_err() {
                        return;
                    }
                }
            });
            receiver
        });
        lines.recv().await.transpose()
    }

    /// Reads a line answering a prompt; shown after it when stdin is not a terminal (which
    /// would have echoed it), so the transcript reads the same.
    async fn read_answer(&mut self) -> io::Result<Option<String>> {
        let line = self.read_line().await?;
        if !io::stdin().is_terminal() {
            match &line {
                Some(line) => writeln!(self.out, "{}", one_line(line))?,
                None => writeln!(self.out)?,
            }
        }
        Ok(line)
    }

    fn show(&mut self, response: &AgentResponse) -> io::Result<()> {
        if !self.transcript {
            return Ok(());
        }
        for (message, author) in response.messages.iter().zip(&response.authors) {
            if *author == Author::AnswerStep {
                writeln!(
                    self.out,
                    ">> answer step: the model was asked again, with the results and no tools"
                )?;
            }
            for content in &message.contents {
                match content {
                    // Indented: a line of the model's can never start like one of ours.
                    Content::Text { text } if !text.trim().is_empty() => {
                        for line in for_terminal(text.trim_end()).lines() {
                            writeln!(self.out, "  {line}")?;
                        }
                    }
                    Content::FunctionCall(call)
                    | Content::ApprovalRequest(ApprovalRequest { call })
                        if matches!(author, Author::Activation | Author::Invocation) =>
                    {
                        let skill = call.arguments["skillName"].as_str().unwrap_or_default();
                        let why = if *author == Author::Activation {
                            "it matches the request"
                        } else {
                            "you asked for it"
                        };
                        writeln!(self.out, ">> activated {}: {why}", one_line(skill))?;
                    }
                    Content::FunctionCall(call)
                    | Content::ApprovalRequest(ApprovalRequest { call }) => writeln!(
                        self.out,
                        ">> calling tool {}({})",
                        one_line(&call.name),
                        one_line(&call.arguments.to_string())
                    )?,
                    Content::FunctionResult(result) => writeln!(
                        self.out,
                        "<< tool result: {}",
                        one_line(&shorten(&result.result))
                    )?,
                    _ => {}
                }
            }
        }
        self.out.flush()
    }

    /// Asks about each pending call (`questions`: what each names, as the skills are now);
    /// `None` when stdin closes before every call is answered.
    async fn ask(
        &mut self,
        pending: &[ApprovalRequest],
        questions: &[Option<ApprovalQuestion>],
    ) -> io::Result<Option<Vec<ApprovalResponse>>> {
        let mut answers = Vec::new();
        for (ApprovalRequest { call }, question) in pending.iter().zip(questions) {
            let (lines, prompt, always) = ask_about(call, question.as_ref());
            loop {
                for line in &lines {
                    writeln!(self.out, "{line}")?;
                }
                write!(self.out, "{prompt}")?;
                self.out.flush()?;
                let Some(line) = self.read_answer().await? else {
                    return Ok(None);
                };
                let answer = match line.trim().to_ascii_lowercase().as_str() {
                    "y" | "yes" => ApprovalResponse::approve(&call.call_id),
                    "a" | "always" if always => {
                        ApprovalResponse::approve(&call.call_id).remembering(Remember::Tool)
                    }
                    "n" | "no" => {
                        ApprovalResponse::reject(&call.call_id, Some("the user said no".to_owned()))
                    }
                    _ => continue,
                };
                answers.push(answer);
                break;
            }
        }
        Ok(Some(answers))
    }
}

/// The question about one call, as the terminal shows it: its lines (the call; the skill,
/// script, risk tier and origin; the declared capabilities; the sandbox profile), the answer
/// prompt (no newline), and
/// whether "always" is offered (the skill can be bound to its content).
fn ask_about(
    call: &FunctionCall,
    question: Option<&ApprovalQuestion>,
) -> (Vec<String>, String, bool) {
    let mut lines = vec![format!(
        "?? approve {}({})",
        one_line(&call.name),
        one_line(&call.arguments.to_string())
    )];
    let Some(question) = question else {
        lines.push("?? names no skill (or script) of this agent; it fails if run".to_owned());
        return (lines, "?? [y]es / [n]o: ".to_owned(), false);
    };
    let subject = &question.subject;
    let origin = subject.skill.origin();
    let script = subject
        .script_name()
        .map(|script| format!(" · script {}", one_line(script)))
        .unwrap_or_default();
    lines.push(format!(
        "?? skill {}{script} · risk {} · from {} ({} scope)",
        one_line(subject.skill_name()),
        subject.risk,
        one_line(&origin.to_string()),
        origin.scope
    ));
    if !question.capabilities.is_empty() {
        lines.push(format!(
            "?? declares {} (never more than the sandbox allows)",
            one_line(&question.capabilities.to_string())
        ));
    }
    if let Some(sandbox) = &question.sandbox {
        lines.push(format!("?? sandbox: {}", one_line(sandbox)));
    }
    let what = if subject.script_name().is_some() {
        "this tool for this skill and script"
    } else {
        "this tool for this skill"
    };
    match &question.coverage {
        Ok(coverage) => (
            lines,
            format!(
                "?? [y]es / [n]o / [a]lways ({what}, until anything in {} changes): ",
                one_line(&coverage.to_string())
            ),
            true,
        ),
        Err(reason) => {
            lines.push(format!("?? no [a]lways: {}", one_line(reason)));
            (lines, "?? [y]es / [n]o: ".to_owned(), false)
        }
    }
}

/// A tool result on one line, cut to [`SHOWN_RESULT_CHARS`].
fn shorten(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let kept = skillful_core::text::cut(&line, SHOWN_RESULT_CHARS);
    if kept.len() == line.len() {
        return line;
    }
    format!("{kept}… ({} characters)", text.chars().count())
}

/// A conversation on the terminal: the agent, its session and the terminal, and the engine
/// started for it, if any (stopped when the conversation ends, however it ends).
struct Conversation<'a> {
    agent: Agent,
    args: &'a AgentArgs,
    session: Session,
    /// The session file, locked for as long as the conversation lasts.
    file: Option<SessionFile>,
    terminal: Terminal,
    _engine: Option<EngineGuard>,
}

impl<'a> Conversation<'a> {
    /// A conversation; `live` for one of many turns, whose skills are reloaded when their
    /// files change.
    async fn new(
        args: &'a AgentArgs,
        (file, session): (Option<SessionFile>, Session),
        live: bool,
        json: bool,
    ) -> anyhow::Result<Self> {
        // First: whether scripts are isolated.
        let runner = args.runner()?;
        let (endpoint, engine) = args.model.server().await?;
        Ok(Self {
            agent: args.agent(&endpoint, live, &runner).await?,
            args,
            session,
            file,
            terminal: Terminal::new(json),
            _engine: engine,
        })
    }

    fn save(&self) -> anyhow::Result<()> {
        if let Some(file) = &self.file {
            file.save(&self.session)?;
        }
        Ok(())
    }

    /// The question about each pending call, as the skills are now.
    async fn questions(
        &self,
        pending: &[ApprovalRequest],
    ) -> anyhow::Result<Vec<Option<ApprovalQuestion>>> {
        let mut questions = Vec::with_capacity(pending.len());
        for request in pending {
            questions.push(self.agent.question(&request.call, &self.session).await?);
        }
        Ok(questions)
    }

    /// Asks about the pending calls; `None` when the terminal closed first.
    async fn ask(
        &mut self,
        pending: &[ApprovalRequest],
    ) -> anyhow::Result<Option<Vec<ApprovalResponse>>> {
        let questions = self.questions(pending).await?;
        Ok(self.terminal.ask(pending, &questions).await?)
    }

    /// Runs `input`, then asks about every pending call and resumes, until the model answers or
    /// the terminal closes. The session is saved after every turn. Every response, with the
    /// answers given to it.
    async fn turn(
        &mut self,
        input: Input,
        options: &RunOptions,
    ) -> anyhow::Result<Vec<(AgentResponse, Vec<ApprovalResponse>)>> {
        let mut input = input;
        let mut responses = Vec::new();
        loop {
            let response = self
                .agent
                .run_with(input, &mut self.session, options)
                .await
                .map_err(explain)?;
            self.save()?;
            self.terminal.show(&response)?;
            if response.finish_reason.as_deref() == Some("length") {
                writeln!(
                    output::stderr(),
                    "skills: the model's answer was cut off at the token limit ({} tokens per \
                     call); raise --max-tokens for longer answers",
                    self.args.model.max_tokens
                )?;
            }
            if response.pending.is_empty() {
                responses.push((response, Vec::new()));
                return Ok(responses);
            }
            match self.ask(&response.pending).await? {
                Some(answers) => {
                    responses.push((response, answers.clone()));
                    input = Input::Approvals(answers);
                }
                None => {
                    let resume = match &self.args.session {
                        Some(path) => format!(
                            "; answer it later with `skills run --session {}`",
                            path.display()
                        ),
                        None => "; pass --session FILE to keep it".to_owned(),
                    };
                    writeln!(self.terminal.out, "(approval pending{resume})")?;
                    responses.push((response, Vec::new()));
                    return Ok(responses);
                }
            }
        }
    }
}

/// The most names of each kind a reload's line on stderr shows.
const SHOWN_RELOADED_NAMES: usize = 5;

/// Says each reload of the skills on stderr, as `skills: skills reloaded: added a, b; removed c`
/// (names as one line of text: they come from the skills), until the watcher stops.
async fn say_reloads(mut reloads: tokio::sync::watch::Receiver<skillful_watch::Reload>) {
    while reloads.changed().await.is_ok() {
        let reload = reloads.borrow_and_update().clone();
        let parts: Vec<String> = [
            ("added", &reload.added),
            ("changed", &reload.changed),
            ("removed", &reload.removed),
        ]
        .into_iter()
        .filter(|(_, names)| !names.is_empty())
        .map(|(what, names)| {
            let shown: Vec<String> = names
                .iter()
                .take(SHOWN_RELOADED_NAMES)
                .map(|name| one_line(name).into_owned())
                .collect();
            let more = names.len().saturating_sub(SHOWN_RELOADED_NAMES);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            format!("{what} {}{more}", shown.join(", "))
        })
        .collect();
        let _ = writeln!(
            output::stderr(),
            "skills: skills reloaded: {}",
            parts.join("; ")
        );
    }
}

/// A chat line `/NAME rest of the request`: the skill to load for the turn, and the request
/// (the whole line when nothing follows the name).
fn invoked(line: &str) -> Option<(&str, &str)> {
    let named = line.strip_prefix('/')?;
    let (skill, rest) = named.split_once(char::is_whitespace).unwrap_or((named, ""));
    if skill.is_empty() {
        return None;
    }
    let rest = rest.trim();
    Some((skill, if rest.is_empty() { line } else { rest }))
}

/// An error as one line of text: whatever a server or a skill put in it is shown, not obeyed.
/// Usage errors are ours and keep their type (exit code 2).
fn one_line_error(error: anyhow::Error) -> anyhow::Error {
    if error.is::<UsageError>() {
        return error;
    }
    anyhow::anyhow!("{}", one_line(&format!("{error:#}")))
}

/// A server that is not there, or too slow, gets one line saying what to do.
fn explain(error: AgentError) -> anyhow::Error {
    match error {
        AgentError::Chat(ChatError::Connect { url, reason }) => anyhow::anyhow!(
            "cannot connect to {url} ({reason}); start an OpenAI-compatible server there \
             (LM Studio, `llama-server --port 1234`, Ollama) or pass --endpoint URL; with no \
             --endpoint and no SKILLS_ENDPOINT, the embedded engine is used"
        ),
        error @ AgentError::UnknownSkill { .. } => UsageError(error.to_string()).into(),
        AgentError::Chat(error @ ChatError::Timeout { .. }) => anyhow::anyhow!(
            "{error}; a slow model: allow it more with --call-timeout SECS, or ask for less with \
             --max-tokens N"
        ),
        other => other.into(),
    }
}

pub(crate) async fn run(args: RunArgs) -> anyhow::Result<Outcome> {
    run_turns(args).await.map_err(one_line_error)
}

async fn run_turns(args: RunArgs) -> anyhow::Result<Outcome> {
    // Checked before a model server is looked for (or an engine installed and started).
    let held = args.agent.session().await?;
    if args.prompt.is_none() && held.1.pending_approvals().is_empty() {
        return Err(UsageError(
            "give a PROMPT (or --session FILE holding a pending approval)".to_owned(),
        )
        .into());
    }
    let started = Instant::now();
    let mut conversation = Conversation::new(&args.agent, held, false, args.json).await?;
    let options = args
        .invoke
        .iter()
        .fold(RunOptions::new(), |options, skill| options.skill(skill));
    let responses = match args.prompt {
        Some(prompt) => conversation.turn(prompt.into(), &options).await?,
        None => {
            let pending = conversation.session.pending_approvals();
            match conversation.ask(&pending).await? {
                Some(answers) => {
                    let mut responses = conversation.turn(answers.clone().into(), &options).await?;
                    if let Some((_, first)) = responses.first_mut() {
                        first.splice(0..0, answers);
                    }
                    responses
                }
                None => Vec::new(),
            }
        }
    };
    if args.json {
        let report = RunReport::new(&responses, started.elapsed());
        output::stdout().json(&report)?;
    }
    Ok(Outcome::Ok)
}

pub(crate) async fn chat(args: ChatArgs) -> anyhow::Result<Outcome> {
    chat_turns(args).await.map_err(one_line_error)
}

async fn chat_turns(args: ChatArgs) -> anyhow::Result<Outcome> {
    let held = args.agent.session().await?;
    let mut conversation = Conversation::new(&args.agent, held, true, false).await?;
    loop {
        let terminal = &mut conversation.terminal;
        write!(terminal.out, "> ")?;
        terminal.out.flush()?;
        let Some(line) = terminal.read_answer().await? else {
            return Ok(Outcome::Ok);
        };
        match line.trim() {
            "" => continue,
            "exit" | "quit" => return Ok(Outcome::Ok),
            prompt => {
                let (prompt, options) = match invoked(prompt) {
                    Some((skill, rest)) => (rest, RunOptions::new().skill(skill)),
                    None => (prompt, RunOptions::new()),
                };
                match conversation.turn(prompt.into(), &options).await {
                    // A mistyped `/NAME` ends nothing: the user types the line again.
                    Err(error) if error.is::<UsageError>() => {
                        writeln!(output::stderr(), "skills: {}", one_line(&error.to_string()))?;
                    }
                    other => {
                        other?;
                    }
                }
            }
        }
    }
}
