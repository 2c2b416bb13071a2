//! What `skills run` and `skills chat` share (`commands/run.rs`, `commands/chat.rs`): the agent
//! over the skills, against an OpenAI-compatible server, with approvals answered on the
//! terminal.
//!
//! The terminal shows text, never control sequences: everything that comes from skills, models,
//! servers and scripts goes through `for_terminal`/`one_line`. And content cannot pass for our
//! prompts: model text is indented, tool calls and results follow our `>>`/`<<` markers on their
//! line, so a line starting with `??` (an approval question) or `>`/`<<`/`>>` is always ours.
//!
//! The turn loop (run, ask about held calls, resume) is the agent library's
//! ([`Agent::run_approving`]); this module gives it the terminal's [`Approver`](skillful_agent::Approver)
//! (`prompt.rs`) and prints.

mod args;
mod model;
mod prompt;
mod tasks;
mod terminal;
mod transcript;

use skillful_agent::{
    Agent, AgentError, Input, RunOptions, Session, SessionFile, SessionTask, Turn,
};
use skillful_chat::ChatError;
use skillful_core::text::one_line;
use skillful_engine::EngineGuard;

pub(crate) use args::{Approve, ChatArgs, ModeArg, RunArgs, asked_mode};
pub(crate) use model::{ModelArgs, base_url};

use crate::{UsageError, output};
use args::AgentArgs;
use prompt::Asking;
use terminal::Terminal;

/// A conversation on the terminal: the agent, its session and the terminal, and the engine
/// started for it, if any (stopped when the conversation ends, however it ends).
pub(crate) struct Conversation<'a> {
    agent: Agent,
    args: &'a AgentArgs,
    session: Session,
    /// The terminal and the session file.
    pub(crate) asking: Asking,
    _engine: Option<EngineGuard>,
}

impl<'a> Conversation<'a> {
    /// A conversation; `live` for one of many turns, whose skills are reloaded when their
    /// files change.
    pub(crate) async fn new(
        args: &'a AgentArgs,
        (file, session): (Option<SessionFile>, Session),
        live: bool,
        json: bool,
    ) -> anyhow::Result<Self> {
        // First: whether scripts are isolated.
        let runner = args.runner()?;
        let (endpoint, engine) = args.model.server().await?;
        let agent = args.agent(&endpoint, live, &runner).await?;
        let terminal = Terminal::new(json);
        if terminal.transcript() {
            let (asked, by) = args::asked_mode(args.mode)?;
            let mode = agent.mode(&RunOptions::new());
            let local = agent.server_is_local() == Some(true);
            writeln!(
                terminal.out(),
                "{}",
                args::mode_line(mode, asked, by, local)
            )?;
        }
        Ok(Self {
            agent,
            args,
            session,
            asking: Asking {
                terminal,
                file,
                max_tokens: args.model.max_tokens,
            },
            _engine: engine,
        })
    }

    /// Runs `input`, asking about every held call on the terminal and resuming, until the model
    /// answers or the terminal closes (said, with how to answer later).
    pub(crate) async fn turn(
        &mut self,
        input: Input,
        options: &RunOptions,
    ) -> anyhow::Result<Turn> {
        let turn = self
            .agent
            .run_approving(input, &mut self.session, options, &mut self.asking)
            .await
            .map_err(explain)?;
        let turn = self
            .agent
            .run_approving_tasks(turn, &mut self.session, options, &mut self.asking)
            .await
            .map_err(explain)?;
        if turn.pending {
            self.say_pending()?;
        }
        Ok(turn)
    }

    /// Says which tasks of the resumed session were lost with the process that ran them, and
    /// the request that runs each again; `skills chat` offers to send it.
    pub(crate) async fn lost_tasks(&mut self) -> anyhow::Result<Vec<String>> {
        let lost = self
            .agent
            .lost_tasks(&mut self.session)
            .await
            .map_err(explain)?;
        if let Some(file) = &self.asking.file
            && !lost.is_empty()
        {
            file.save(&self.session)?;
        }
        let mut err = output::stderr();
        for task in &lost {
            writeln!(
                err,
                "skills: task {} ({} {}) was lost: the program that ran it ended before it did",
                task.task,
                one_line(&task.skill),
                one_line(&task.script)
            )?;
        }
        Ok(lost.iter().map(SessionTask::rerun_request).collect())
    }

    /// Asks about the calls the session holds and resumes; `None` when the terminal closed
    /// first.
    pub(crate) async fn resume(&mut self, options: &RunOptions) -> anyhow::Result<Option<Turn>> {
        let Some(turn) = self
            .agent
            .resume_approving(&mut self.session, options, &mut self.asking)
            .await
            .map_err(explain)?
        else {
            return Ok(None);
        };
        let turn = Some(
            self.agent
                .run_approving_tasks(turn, &mut self.session, options, &mut self.asking)
                .await
                .map_err(explain)?,
        );
        if turn.as_ref().is_some_and(|turn| turn.pending) {
            self.say_pending()?;
        }
        Ok(turn)
    }

    /// Says that a call waits for an answer, and how to give it later.
    pub(crate) fn say_pending(&self) -> anyhow::Result<()> {
        let resume = match &self.args.session {
            Some(path) => format!(
                "; answer it later with `skills run --session {}`",
                path.display()
            ),
            None => "; pass --session FILE to keep it".to_owned(),
        };
        writeln!(self.asking.terminal.out(), "(approval pending{resume})")?;
        Ok(())
    }
}

/// An error as one line of text: whatever a server or a skill put in it is shown, not obeyed.
/// Usage errors are ours and keep their type (exit code 2).
pub(crate) fn one_line_error(error: anyhow::Error) -> anyhow::Error {
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
