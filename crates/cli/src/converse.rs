//! `skills run` and `skills chat`: the agent over the skills, against an OpenAI-compatible
//! server, with approvals answered on the terminal.

use std::io::{self, BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context as _;
use skillful_agent::{
    Agent, AgentError, AgentResponse, ApprovalRules, AutoApprove, Input, Session,
};
use skillful_chat::{
    ApprovalRequest, ApprovalResponse, ChatError, ChatOptions, Content, DEFAULT_BASE_URL,
    OpenAiClient, Remember,
};
use skillful_core::RiskTier;
use skillful_provider::SkillsProvider;

use crate::inspect::{Plugins, all_sources};
use crate::mcp::McpSources;
use crate::{Outcome, UsageError};

/// The most characters of a tool result the transcript shows.
const SHOWN_RESULT_CHARS: usize = 200;

/// Which skill tools run without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Approve {
    /// `load_skill` and `read_skill_resource` run; scripts ask.
    ReadOnly,
    /// All three tools run (destructive scripts are still refused).
    All,
    /// Every call asks.
    Ask,
}

/// How to reach the model and which skills to offer it.
#[derive(Debug, clap::Args)]
pub(crate) struct AgentArgs {
    /// Skill roots. Default: the project's `.agents/skills`, then `~/.agents/skills`.
    #[arg(long = "skills", value_name = "ROOT", num_args = 1..)]
    skills: Vec<PathBuf>,
    /// The server's base URL (OpenAI-compatible, up to `/v1`).
    // `--help` would print the variable's value, credentials included.
    #[arg(long, env = "SKILLS_ENDPOINT", hide_env_values = true, default_value = DEFAULT_BASE_URL)]
    endpoint: String,
    /// The model to ask for; without it, local servers use the model they have loaded.
    #[arg(long, env = "SKILLS_MODEL")]
    model: Option<String>,
    /// The environment variable holding the API key (local servers need none).
    #[arg(long, value_name = "VAR", default_value = "SKILLS_API_KEY")]
    api_key_env: String,
    /// Which skill tools run without asking; the others are asked on the terminal (y/n/a).
    #[arg(long, value_enum, default_value_t = Approve::Ask)]
    approve: Approve,
    /// Also run scripts up to this risk tier without asking (read, write-low, write-high).
    #[arg(long, value_name = "TIER")]
    approve_up_to: Option<RiskTier>,
    /// Sampling temperature (0: the most likely tokens, the same answer each time).
    #[arg(long, env = "SKILLS_TEMPERATURE")]
    temperature: Option<f32>,
    /// A sampling seed, for servers that make sampling repeatable with one.
    #[arg(long, env = "SKILLS_SEED")]
    seed: Option<u64>,
    /// The most tokens the model may generate per call.
    #[arg(long, value_name = "N", env = "SKILLS_MAX_TOKENS")]
    max_tokens: Option<u32>,
    /// Do not run tool calls the model writes as text (a JSON block or `<tool_call>` tags)
    /// instead of as structured calls; show such text as the answer.
    #[arg(long)]
    no_text_tool_calls: bool,
    /// Keep the conversation in FILE (JSON): read it if it exists, write it after every turn.
    /// A run stopped with an approval pending resumes from it.
    #[arg(long, value_name = "FILE")]
    session: Option<PathBuf>,
    #[command(flatten)]
    mcp: McpSources,
    #[command(flatten)]
    plugins: Plugins,
}

#[derive(Debug, clap::Args)]
pub(crate) struct RunArgs {
    /// What to ask. May be left out with `--session FILE` to answer a pending approval.
    prompt: Option<String>,
    #[command(flatten)]
    agent: AgentArgs,
}

#[derive(Debug, clap::Args)]
pub(crate) struct ChatArgs {
    #[command(flatten)]
    agent: AgentArgs,
}

impl AgentArgs {
    fn agent(&self) -> anyhow::Result<Agent> {
        let source = all_sources(&self.skills, false, &self.mcp, &self.plugins)?;
        let provider = Arc::new(SkillsProvider::new(source));
        let mut client = OpenAiClient::builder(&self.endpoint);
        if let Some(key) = std::env::var(&self.api_key_env)
            .ok()
            .filter(|key| !key.is_empty())
        {
            client = client.api_key(key);
        }
        let mut options = ChatOptions::default();
        options.model = self.model.clone();
        options.temperature = self.temperature;
        options.seed = self.seed;
        options.max_tokens = self.max_tokens;
        let auto = match self.approve {
            Approve::ReadOnly => AutoApprove::ReadOnly,
            Approve::All => AutoApprove::All,
            Approve::Ask => AutoApprove::None,
        };
        let mut rules = ApprovalRules::new(auto);
        if let Some(tier) = self.approve_up_to {
            rules = rules.approve_up_to(tier);
        }
        Ok(Agent::builder(client.build()?)
            .skills(provider)
            .approval(rules)
            .options(options)
            .text_tool_calls(!self.no_text_tool_calls)
            .build())
    }

    fn session(&self) -> anyhow::Result<Session> {
        match &self.session {
            Some(path) if path.exists() => {
                let text = std::fs::read(path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                serde_json::from_slice(&text).with_context(|| {
                    format!("{}: not a session file written by skills", path.display())
                })
            }
            _ => Ok(Session::new()),
        }
    }

    fn save(&self, session: &Session) -> anyhow::Result<()> {
        if let Some(path) = &self.session {
            std::fs::write(path, serde_json::to_vec_pretty(session)?)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        Ok(())
    }
}

/// One exchange with the terminal: the transcript goes to stdout, answers come from stdin.
struct Terminal {
    lines: io::Lines<io::StdinLock<'static>>,
    out: io::StdoutLock<'static>,
}

impl Terminal {
    fn new() -> Self {
        Self {
            lines: io::stdin().lock().lines(),
            out: io::stdout().lock(),
        }
    }

    fn read_line(&mut self) -> io::Result<Option<String>> {
        self.lines.next().transpose()
    }

    fn show(&mut self, response: &AgentResponse) -> io::Result<()> {
        for message in &response.messages {
            for content in &message.contents {
                match content {
                    Content::Text { text } if !text.trim().is_empty() => {
                        writeln!(self.out, "{}", text.trim_end())?
                    }
                    Content::FunctionCall(call)
                    | Content::ApprovalRequest(ApprovalRequest { call }) => writeln!(
                        self.out,
                        ">> calling tool {}({})",
                        call.name, call.arguments
                    )?,
                    Content::FunctionResult(result) => {
                        writeln!(self.out, "<< tool result: {}", shorten(&result.result))?
                    }
                    _ => {}
                }
            }
        }
        self.out.flush()
    }

    /// Asks about each pending call; `None` when stdin closes before every call is answered.
    fn ask(&mut self, pending: &[ApprovalRequest]) -> io::Result<Option<Vec<ApprovalResponse>>> {
        let mut answers = Vec::new();
        for ApprovalRequest { call } in pending {
            let skill = call.arguments["skillName"].as_str().unwrap_or("?");
            loop {
                write!(
                    self.out,
                    "?? approve {} (skill {skill}) {}? [y]es / [n]o / [a]lways for this tool: ",
                    call.name, call.arguments
                )?;
                self.out.flush()?;
                let Some(line) = self.read_line()? else {
                    writeln!(self.out)?;
                    return Ok(None);
                };
                if !io::stdin().is_terminal() {
                    writeln!(self.out, "{line}")?;
                }
                let answer = match line.trim().to_ascii_lowercase().as_str() {
                    "y" | "yes" => ApprovalResponse::approve(&call.call_id),
                    "a" | "always" => {
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

/// A tool result on one line, cut to [`SHOWN_RESULT_CHARS`].
fn shorten(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(SHOWN_RESULT_CHARS) {
        Some((cut, _)) => format!("{}… ({} characters)", &line[..cut], text.chars().count()),
        None => line,
    }
}

/// A conversation on the terminal: the agent, its session and the terminal.
struct Conversation<'a> {
    agent: Agent,
    args: &'a AgentArgs,
    session: Session,
    terminal: Terminal,
}

impl<'a> Conversation<'a> {
    fn new(args: &'a AgentArgs) -> anyhow::Result<Self> {
        Ok(Self {
            agent: args.agent()?,
            args,
            session: args.session()?,
            terminal: Terminal::new(),
        })
    }

    /// Runs `input`, then asks about every pending call and resumes, until the model answers or
    /// the terminal closes. The session is saved after every turn.
    async fn turn(&mut self, input: Input) -> anyhow::Result<()> {
        let mut input = input;
        loop {
            let response = self
                .agent
                .run(input, &mut self.session)
                .await
                .map_err(explain)?;
            self.args.save(&self.session)?;
            self.terminal.show(&response)?;
            if response.pending.is_empty() {
                return Ok(());
            }
            match self.terminal.ask(&response.pending)? {
                Some(answers) => input = Input::Approvals(answers),
                None => {
                    let resume = match &self.args.session {
                        Some(path) => format!(
                            "; answer it later with `skills run --session {}`",
                            path.display()
                        ),
                        None => "; pass --session FILE to keep it".to_owned(),
                    };
                    writeln!(self.terminal.out, "(approval pending{resume})")?;
                    return Ok(());
                }
            }
        }
    }
}

/// A server that is not there gets one line saying what to do.
fn explain(error: AgentError) -> anyhow::Error {
    match error {
        AgentError::Chat(ChatError::Connect { url, reason }) => anyhow::anyhow!(
            "cannot connect to {url} ({reason}); start an OpenAI-compatible server there \
             (LM Studio, `llama-server --port 1234`, Ollama) or pass --endpoint URL"
        ),
        other => other.into(),
    }
}

pub(crate) async fn run(args: RunArgs) -> anyhow::Result<Outcome> {
    let mut conversation = Conversation::new(&args.agent)?;
    match args.prompt {
        Some(prompt) => conversation.turn(prompt.into()).await?,
        None => {
            let pending = conversation.session.pending_approvals();
            if pending.is_empty() {
                return Err(UsageError(
                    "give a PROMPT (or --session FILE holding a pending approval)".to_owned(),
                )
                .into());
            }
            if let Some(answers) = conversation.terminal.ask(&pending)? {
                conversation.turn(answers.into()).await?;
            }
        }
    }
    Ok(Outcome::Ok)
}

pub(crate) async fn chat(args: ChatArgs) -> anyhow::Result<Outcome> {
    let mut conversation = Conversation::new(&args.agent)?;
    loop {
        let terminal = &mut conversation.terminal;
        write!(terminal.out, "> ")?;
        terminal.out.flush()?;
        let Some(line) = terminal.read_line()? else {
            writeln!(terminal.out)?;
            return Ok(Outcome::Ok);
        };
        match line.trim() {
            "" => continue,
            "exit" | "quit" => return Ok(Outcome::Ok),
            prompt => conversation.turn(prompt.into()).await?,
        }
    }
}
