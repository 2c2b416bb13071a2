//! The arguments of `skills run` and `skills chat`, and what they build: the script runner, the
//! agent (its skills reloaded live for `chat`) and the session.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use skillful_agent::{
    Agent, Aids, ApprovalRules, ApprovalsStore, AutoApprove, Mode, Session, SessionFile,
    SessionFileError,
};
use skillful_chat::{ChatOptions, OpenAiClient};
use skillful_core::RiskTier;
use skillful_core::text::one_line;
use skillful_scripts::ProcessRunner;

use super::model::ModelArgs;
use super::tasks::TaskFlags;
use crate::audit::AuditFlags;
use crate::compose::{ListingFlags, SkillsFlags};
use crate::output;
use crate::sandbox::{ScriptFlags, not_isolated_line};
use crate::telemetry::TelemetryFlags;

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

/// `--mode`'s values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ModeArg {
    /// One schema-constrained decision at a time.
    Guided,
    /// The free tool loop.
    Tools,
    /// Guided for a server on this machine, tools otherwise.
    Auto,
}

impl From<ModeArg> for Mode {
    fn from(mode: ModeArg) -> Self {
        match mode {
            ModeArg::Guided => Mode::Guided,
            ModeArg::Tools => Mode::Tools,
            ModeArg::Auto => Mode::Auto,
        }
    }
}

/// The mode asked for and where it was asked: `--mode`, else the user's `[agent] mode`, else
/// `auto`.
pub(crate) fn asked_mode(flag: Option<ModeArg>) -> anyhow::Result<(Mode, &'static str)> {
    if let Some(mode) = flag {
        return Ok((mode.into(), "--mode"));
    }
    let settings = skillful_config::Settings::load(
        &skillful_config::Environment::from_process()?.user_config_file(),
        skillful_config::SettingsLevel::User,
    )?;
    Ok(
        match settings.agent_mode.as_deref().map(str::parse::<Mode>) {
            Some(Ok(mode)) => (mode, "[agent] mode"),
            _ => (Mode::Auto, "the default"),
        },
    )
}

/// The line that opens a run's transcript: the mode it runs in, and why.
pub(crate) fn mode_line(mode: Mode, asked: Mode, by: &str, local: bool) -> String {
    let place = if local {
        "the server is on this machine"
    } else {
        "the server is not on this machine"
    };
    match asked {
        Mode::Auto => format!(">> mode: {mode} (auto, {by}: {place})"),
        _ => format!(">> mode: {mode} ({by})"),
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

/// How to reach the model and which skills to offer it.
#[derive(Debug, clap::Args)]
pub(crate) struct AgentArgs {
    /// Skill roots. Default: the project's `.agents/skills`, then `~/.agents/skills`.
    #[arg(long = "skills", value_name = "ROOT", num_args = 1..)]
    pub(super) skills: Vec<PathBuf>,
    #[command(flatten)]
    pub(super) model: ModelArgs,
    /// How the model is driven: `guided` (one schema-constrained decision at a time: which
    /// skill, which script with which arguments, then the answer; for small local models),
    /// `tools` (the free tool loop, for strong models) or `auto` (guided for the embedded engine
    /// and other servers on this machine, tools otherwise). Default: `[agent] mode` of the
    /// user's settings, else `auto`.
    #[arg(long, value_name = "MODE", overrides_with = "mode")]
    pub(super) mode: Option<ModeArg>,
    /// Which skill tools run without asking; the others are asked on the terminal (y/n/a).
    #[arg(long, value_enum, default_value_t = Approve::Ask)]
    pub(super) approve: Approve,
    /// Also run scripts up to this risk tier without asking (read, write-low, write-high), where
    /// scripts run in the sandbox of their tier; elsewhere every script asks.
    #[arg(long, value_name = "TIER")]
    pub(super) approve_up_to: Option<RiskTier>,
    /// Do not run tool calls the model writes as text (a JSON block or `<tool_call>` tags)
    /// instead of as structured calls; show such text as the answer.
    #[arg(long)]
    pub(super) no_text_tool_calls: bool,
    /// In the tool loop, apply none of the small-model aids (activation, the answer step,
    /// repeated loads, text and misnamed calls): the loop as MAF and Codex run it.
    #[arg(long, conflicts_with_all = ["activate", "no_text_tool_calls"])]
    pub(super) no_aids: bool,
    /// Load the skill a request matches confidently before the model's first call (`auto`), or
    /// not (`off`). Default: `auto` for the embedded engine and other servers on this machine
    /// (small models), `off` for remote ones.
    #[arg(long, value_enum, value_name = "WHEN")]
    pub(super) activate: Option<When>,
    /// Keep the conversation in FILE (JSON): read it if it exists, write it after every turn
    /// (atomically, mode 0600). A run stopped with an approval pending resumes from it. Another
    /// process on the same FILE waits for this one to finish.
    #[arg(long, value_name = "FILE")]
    pub(super) session: Option<PathBuf>,
    #[command(flatten)]
    pub(super) audit: AuditFlags,
    #[command(flatten)]
    pub(super) telemetry: TelemetryFlags,
    #[command(flatten)]
    pub(super) sandbox: ScriptFlags,
    #[command(flatten)]
    pub(super) tasks: TaskFlags,
    #[command(flatten)]
    pub(super) flags: SkillsFlags,
    #[command(flatten)]
    pub(super) listing: ListingFlags,
}

/// `skills run`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct RunArgs {
    /// What to ask. May be left out with `--session FILE` to answer a pending approval.
    pub(crate) prompt: Option<String>,
    /// Load this skill for the prompt before the model's first call (repeatable).
    #[arg(long = "skill", value_name = "NAME")]
    pub(crate) invoke: Vec<String>,
    /// Print one JSON object on stdout instead of the transcript: the answer, every step (tool,
    /// arguments, result, who made it, approval), tokens and time (approval questions go to
    /// stderr).
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) agent: AgentArgs,
}

/// `skills chat`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct ChatArgs {
    #[command(flatten)]
    pub(crate) agent: AgentArgs,
}

impl AgentArgs {
    /// The script runner of the sandbox flags; when it does not isolate scripts, says so first
    /// (every script then asks).
    pub(super) fn runner(&self) -> anyhow::Result<ProcessRunner> {
        let runner = self
            .sandbox
            .runner(self.tasks.limit(ProcessRunner::builder()))?;
        let then = "every script asks before it runs, whatever --approve and --approve-up-to say";
        if let Some(line) = not_isolated_line(&runner, then) {
            writeln!(output::stderr(), "{line}")?;
        }
        Ok(runner)
    }

    /// The agent, its scripts run by `runner`; with `live`, its file skills are watched and
    /// reloaded when they change, each reload said on stderr. Every script's progress is shown
    /// on stderr as it runs.
    pub(super) async fn agent(
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
        let mut provider = self.listing.builder(composition.source());
        if let Some(settings) = self.tasks.settings() {
            provider = provider.tasks(settings);
        }
        let provider = Arc::new(provider.build()?);
        if let Some(tasks) = provider.tasks() {
            super::tasks::show_progress(tasks);
        }
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
        let (mode, _) = asked_mode(self.mode)?;
        Ok(Agent::builder(client)
            .mode(mode)
            .skills(provider)
            .approval(rules)
            .approvals(Arc::new(store))
            .options(options)
            .aids(if self.no_aids {
                Aids::none()
            } else {
                Aids::new()
                    .activation(on(self.activate))
                    .text_tool_calls(!self.no_text_tool_calls)
            })
            .audit(self.audit.settings(host, skillful_audit::UserLog::Agent)?)
            .name("skills")
            .capture_content(self.telemetry.capture())
            .build())
    }

    /// The session: read from `--session FILE`, held (locked) until the command ends; waits,
    /// saying so, while another process holds it. A new session without `--session`.
    pub(crate) async fn session(&self) -> anyhow::Result<(Option<SessionFile>, Session)> {
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
                skillful_fs::blocking::run("waiting for the session", move || {
                    SessionFile::open(path)
                })
                .await??
            }
            opened => opened?,
        };
        Ok((Some(file), session.unwrap_or_default()))
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
