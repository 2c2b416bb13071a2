//! The evaluation: every eval run with and without the skill in fresh sessions, graded, timed
//! and written into a new iteration of the workspace; then the trigger queries.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use skillful_agent::{
    Agent, AgentError, Aids, ApprovalRules, AuditSettings, AutoApprove, Input, Mode, Session,
};
use skillful_chat::{
    ApprovalResponse, ChatError, ChatOptions, Content, FunctionCall, Message, OpenAiClient,
};
use skillful_core::Skill;
use skillful_discovery::FileSkillsSource;
use skillful_provider::SkillsProvider;
use skillful_scripts::{ProcessRunner, ProcessRunnerBuilder, SandboxMode};
use skillful_state::VerifiedDir;

use crate::benchmark::{
    Benchmark, Configuration, Grading, GradingSummary, Metadata, RunRecord, RunResult, RunSummary,
    Timing, TriggerResult, TriggerSummary,
};
use crate::error::EvalError;
use crate::files::copy_input;
use crate::grade::{Grader, Judge, RunOutput};
use crate::spec::{EvalCase, EvalSet, TriggerQuery, read_evals, read_triggers};
use crate::workspace::{default_workspace, new_iteration, placed};

/// How many times a run is resumed after its pending approvals were refused; a model that keeps
/// asking for refused calls past it has its run ended.
const MAX_REFUSAL_ROUNDS: usize = 8;

/// A skill to evaluate: its directory, its name, its evals and its trigger queries.
#[derive(Debug, Clone)]
pub struct SkillUnderTest {
    dir: PathBuf,
    name: String,
    evals: EvalSet,
    triggers: Vec<TriggerQuery>,
}

impl SkillUnderTest {
    /// Loads the skill in `dir` (which holds its `SKILL.md`) and reads its
    /// `evals/evals.json` and, when present, `evals/triggers.json`.
    ///
    /// # Errors
    /// [`EvalError::NotASkill`] when `dir` holds no valid skill; [`EvalError::Spec`],
    /// [`EvalError::TooLarge`] or [`EvalError::Io`] for the evals files.
    pub async fn load(dir: impl AsRef<Path>) -> Result<Self, EvalError> {
        let given = dir.as_ref();
        let not_a_skill = |reason: String| EvalError::NotASkill {
            dir: given.to_path_buf(),
            reason,
        };
        let dir = given
            .canonicalize()
            .map_err(|error| not_a_skill(error.to_string()))?;
        if !dir.join("SKILL.md").is_file() {
            return Err(not_a_skill("it has no SKILL.md".to_owned()));
        }
        let discovery = FileSkillsSource::builder()
            .root(&dir)
            .build()
            .map_err(|error| not_a_skill(error.to_string()))?
            .discover()
            .await;
        let skill = discovery
            .skills
            .iter()
            .find(|skill| skill.dir() == dir)
            .ok_or_else(|| {
                let why: Vec<String> = discovery
                    .diagnostics
                    .iter()
                    .map(ToString::to_string)
                    .collect();
                not_a_skill(if why.is_empty() {
                    "its SKILL.md was not loaded".to_owned()
                } else {
                    why.join("; ")
                })
            })?;
        let name = skill.name().to_owned();
        let evals = read_evals(&dir)?;
        if evals.skill_name != name {
            tracing::warn!(
                skill = %name,
                skill_name = %skillful_core::text::one_line(&evals.skill_name),
                "evals/evals.json names another skill_name than the skill's"
            );
        }
        let triggers = read_triggers(&dir)?;
        Ok(Self {
            dir,
            name,
            evals,
            triggers,
        })
    }

    /// The skill's directory (canonical).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The skill's name (its frontmatter's).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its `evals/evals.json`.
    pub fn evals(&self) -> &EvalSet {
        &self.evals
    }

    /// Its `evals/triggers.json` (empty when it has none).
    pub fn triggers(&self) -> &[TriggerQuery] {
        &self.triggers
    }

    /// Where this skill's iterations go when `skills` skills are evaluated together: `chosen`
    /// itself for one skill, `chosen/<skill name>` for several; without `chosen`, the
    /// [default workspace](SkillUnderTest::default_workspace).
    ///
    /// # Errors
    /// As [`SkillUnderTest::default_workspace`].
    pub fn workspace(&self, chosen: Option<&Path>, skills: usize) -> Result<PathBuf, EvalError> {
        match placed(chosen, skills, self.name()) {
            Some(dir) => Ok(dir),
            None => self.default_workspace(),
        }
    }

    /// The default workspace, in this user's state directory ([`skillful_state::Dirs`]):
    /// `eval/<name>-<key>` there, the key a digest of the skill's canonical directory (so that
    /// two skills of one name keep apart). Nothing is created by this call.
    ///
    /// # Errors
    /// [`EvalError::Files`] when this user has no home directory.
    pub fn default_workspace(&self) -> Result<PathBuf, EvalError> {
        let dirs = skillful_state::Dirs::per_user()?;
        Ok(default_workspace(&dirs, &self.name, &self.dir))
    }
}

/// How to run an evaluation.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct EvalSettings {
    /// The model server's base URL (OpenAI-compatible, up to `/v1`).
    pub endpoint: String,
    /// Its API key, if it needs one.
    pub api_key: Option<String>,
    /// The model to ask for; `None` for the server's.
    pub model: Option<String>,
    /// The sampling temperature; `None` for the server's.
    pub temperature: Option<f32>,
    /// The most tokens per model call.
    pub max_tokens: Option<u32>,
    /// The seed of run 1; run `k` uses `seed + k - 1`.
    pub seed: Option<u64>,
    /// How many times each eval runs in each configuration (at least 1).
    pub runs: u32,
    /// The most time one model call may take.
    pub call_timeout: Duration,
    /// Which calls run without asking; the others are refused (nobody is there to ask), and
    /// the refusal is in the transcript. Its `scripts_isolated` is the evaluator's: where its
    /// runner does not isolate scripts, no rule runs one.
    pub approval: ApprovalRules,
    /// Whether the skill's scripts and the check scripts run in the sandbox (default
    /// [`SandboxMode::Enforce`]): skill scripts by their risk tier, writing only in the run's
    /// outputs directory (`write-low` and up), checks as `read`. Where scripts are not isolated
    /// (here `Off`), skill scripts are refused and script checks are left ungraded.
    pub sandbox: SandboxMode,
    /// The directories `write-high` skill scripts may write under too.
    pub allow_write: Vec<PathBuf>,
    /// The small-model aids the evaluated agents apply in the tool loop (default
    /// [`Aids::default`]).
    pub aids: Aids,
    /// How the evaluated agents drive the model (default [`Mode::Auto`]: guided for a server on
    /// this machine, the tool loop otherwise).
    pub mode: Mode,
    /// Whether the tools' schemas list the valid skill, resource and script names
    /// ([`SkillsProviderBuilder::enum_names`](skillful_provider::SkillsProviderBuilder::enum_names)).
    pub enum_names: bool,
    /// Where statements are graded.
    pub judge: JudgeSettings,
    /// Where the runs' tool calls are audited (`None`: nowhere).
    pub audit: Option<AuditSettings>,
    /// Whether each eval also runs without the skill (the baseline; default yes). A comparison
    /// of two versions needs only the runs with each.
    pub baseline: bool,
}

impl EvalSettings {
    /// The defaults against `endpoint`: one run, no seed, the server's model and temperature,
    /// 300 s per call, `load_skill`, `read_skill_resource` and scripts up to the `read` tier run,
    /// text tool calls recovered, statements judged by the same endpoint.
    pub fn new(endpoint: impl Into<String>) -> Self {
        Self {
            endpoint: endpoint.into(),
            api_key: None,
            model: None,
            temperature: None,
            max_tokens: None,
            seed: None,
            runs: 1,
            call_timeout: Duration::from_secs(300),
            approval: ApprovalRules::new(AutoApprove::ReadOnly)
                .approve_up_to(skillful_core::RiskTier::Read),
            sandbox: SandboxMode::Enforce,
            allow_write: Vec::new(),
            aids: Aids::default(),
            mode: Mode::Auto,
            enum_names: false,
            judge: JudgeSettings::SameEndpoint,
            audit: None,
            baseline: true,
        }
    }

    fn options(&self, seed: Option<u64>) -> ChatOptions {
        let mut options = ChatOptions::default();
        options.model = self.model.clone();
        options.temperature = self.temperature;
        options.max_tokens = self.max_tokens;
        options.seed = seed;
        options
    }

    /// The skills provider over `source`, with these settings.
    fn provider(&self, source: FileSkillsSource) -> Result<SkillsProvider, EvalError> {
        SkillsProvider::builder(Arc::new(source))
            .enum_names(self.enum_names)
            .build()
            .map_err(|error| EvalError::Skills {
                dir: PathBuf::new(),
                reason: error.to_string(),
            })
    }

    /// A script runner with these sandbox settings, as the evaluation's: a host can ask it
    /// whether scripts are isolated before the evaluation starts.
    pub fn script_runner(&self) -> ProcessRunnerBuilder {
        self.allow_write.iter().fold(
            ProcessRunner::builder().sandbox(self.sandbox),
            ProcessRunnerBuilder::allow_write,
        )
    }

    fn seed_of(&self, run_number: u32) -> Option<u64> {
        self.seed
            .map(|seed| seed.wrapping_add(u64::from(run_number) - 1))
    }
}

/// Who grades the expectations written as statements.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum JudgeSettings {
    /// The model under evaluation's endpoint and model, at temperature 0.
    SameEndpoint,
    /// Another endpoint (same model name, same API key), at temperature 0.
    Endpoint(String),
    /// Nobody: statements are reported as ungraded.
    None,
}

/// What happened, as it happens: for a progress display.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Progress<'a> {
    /// A run is about to start.
    Starting {
        /// The eval's directory name.
        eval: &'a str,
        /// With or without the skill.
        configuration: Configuration,
        /// 1-based.
        run_number: u32,
    },
    /// A run is done and graded.
    Run(&'a RunRecord),
    /// A trigger query was asked.
    Trigger(&'a TriggerResult),
}

/// What one evaluation of a skill produced.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Report {
    /// The iteration's directory (`WORKSPACE/iteration-N`).
    pub iteration_dir: PathBuf,
    /// What `benchmark.json` holds.
    pub benchmark: Benchmark,
}

/// Runs evaluations against one model server.
#[derive(Debug, Clone)]
pub struct Evaluator {
    settings: EvalSettings,
    client: Arc<OpenAiClient>,
    grader: Grader,
}

impl Evaluator {
    /// An evaluator with `settings`.
    ///
    /// # Errors
    /// [`EvalError::Client`] for an endpoint that is not a usable URL.
    pub fn new(settings: EvalSettings) -> Result<Self, EvalError> {
        let client = Arc::new(Self::client(&settings, &settings.endpoint)?);
        let judge = match &settings.judge {
            JudgeSettings::None => None,
            JudgeSettings::SameEndpoint => Some(Arc::clone(&client)),
            JudgeSettings::Endpoint(url) => Some(Arc::new(Self::client(&settings, url)?)),
        }
        .map(|client| {
            let mut options = settings.options(settings.seed);
            options.temperature = Some(0.0);
            Judge { client, options }
        });
        let grader = Grader {
            judge,
            sandbox: settings.sandbox,
        };
        Ok(Self {
            settings,
            client,
            grader,
        })
    }

    fn client(settings: &EvalSettings, url: &str) -> Result<OpenAiClient, EvalError> {
        let mut builder = OpenAiClient::builder(url).timeout(settings.call_timeout);
        if let Some(key) = &settings.api_key {
            builder = builder.api_key(key.clone());
        }
        builder.build().map_err(EvalError::Client)
    }

    /// Evaluates `skill` into a new iteration of `workspace` (`iteration-N`, N the next free
    /// number): every eval, `runs` times, with the skill and without it, each run in a fresh
    /// session; then each trigger query once per run with every skill of `offered` (the skill
    /// itself included) offered. Writes `outputs/`, `timing.json` and `grading.json` of each
    /// run, `triggers.json` and `benchmark.json`.
    ///
    /// # Errors
    /// The workspace cannot be created or lies inside the skill's directory; the model server
    /// cannot be reached at all; a file cannot be written; an input file is gone. A model that
    /// errs or times out in one run ends that run, which is recorded as failed.
    pub async fn evaluate(
        &self,
        skill: &SkillUnderTest,
        offered: &[SkillUnderTest],
        workspace: &Path,
        progress: &dyn Fn(Progress<'_>),
    ) -> Result<Report, EvalError> {
        let iteration = new_iteration(workspace, skill.dir())?;
        let mut runs = Vec::new();
        for run_number in 1..=self.settings.runs.max(1) {
            for case in &skill.evals.evals {
                let eval_name = case.id.dir_name().unwrap_or_default();
                let configurations: &[Configuration] = if self.settings.baseline {
                    &Configuration::BOTH
                } else {
                    &[Configuration::WithSkill]
                };
                for &configuration in configurations {
                    progress(Progress::Starting {
                        eval: &eval_name,
                        configuration,
                        run_number,
                    });
                    let mut run_dir = iteration.dir(&eval_name)?.dir(configuration.name())?;
                    if self.settings.runs > 1 {
                        run_dir = run_dir.dir(format!("run-{run_number}"))?;
                    }
                    let record = self
                        .run(skill, case, configuration, run_number, &run_dir)
                        .await?;
                    progress(Progress::Run(&record));
                    runs.push(record);
                }
            }
        }
        let mut triggers = Vec::new();
        if !skill.triggers.is_empty() {
            for run_number in 1..=self.settings.runs.max(1) {
                for query in &skill.triggers {
                    let result = self.trigger(skill, offered, query, run_number).await?;
                    progress(Progress::Trigger(&result));
                    triggers.push(result);
                }
            }
            iteration.write("triggers.json", &to_json(&triggers))?;
        }
        let benchmark = Benchmark {
            metadata: Metadata {
                skill_name: skill.name.clone(),
                skill_path: skill.dir.display().to_string(),
                executor_model: self.settings.model.clone(),
                timestamp: httpdate::fmt_http_date(SystemTime::now()),
                evals_run: skill.evals.evals.iter().map(|c| c.id.clone()).collect(),
                runs_per_configuration: self.settings.runs.max(1),
                seed: self.settings.seed,
                temperature: self.settings.temperature,
                mode: self.mode().as_str().to_owned(),
            },
            run_summary: RunSummary::of(&runs),
            runs,
            triggers: (!triggers.is_empty()).then(|| TriggerSummary::of(&triggers)),
        };
        iteration.write("benchmark.json", &to_json(&benchmark))?;
        Ok(Report {
            iteration_dir: iteration.path().to_path_buf(),
            benchmark,
        })
    }

    /// The mode the evaluated agents run in: the settings', [`Mode::Auto`] resolved by where
    /// the server is.
    pub fn mode(&self) -> Mode {
        use skillful_chat::ChatClient as _;
        self.settings.mode.resolve(self.client.server_is_local())
    }

    /// The agent of one run: with the skill offered or without it, its scripts working in
    /// `outputs`.
    fn agent(
        &self,
        skill: &SkillUnderTest,
        configuration: Configuration,
        outputs: &Path,
        seed: Option<u64>,
    ) -> Result<Agent, EvalError> {
        let runner = self.settings.script_runner().working_dir(outputs).build()?;
        let mut builder = Agent::builder(Arc::clone(&self.client))
            .approval(self.settings.approval.scripts_isolated(runner.isolates()))
            .options(self.settings.options(seed))
            .aids(self.settings.aids)
            .mode(self.settings.mode);
        if let Some(audit) = &self.settings.audit {
            builder = builder.audit(audit.clone());
        }
        if configuration == Configuration::WithSkill {
            let source = FileSkillsSource::builder()
                .root(&skill.dir)
                .script_runner(Arc::new(runner))
                .build()
                .map_err(|error| EvalError::Skills {
                    dir: skill.dir.clone(),
                    reason: error.to_string(),
                })?;
            builder = builder.skills(Arc::new(self.settings.provider(source)?));
        }
        Ok(builder.build())
    }

    /// One run of one eval in one configuration, written into `run_dir`.
    async fn run(
        &self,
        skill: &SkillUnderTest,
        case: &EvalCase,
        configuration: Configuration,
        run_number: u32,
        run_dir: &VerifiedDir,
    ) -> Result<RunRecord, EvalError> {
        // The scripts of the run find their inputs, and leave their files, here.
        let output_dir = run_dir.dir("outputs")?;
        let outputs = output_dir.path();
        for file in &case.files {
            copy_input(&skill.dir, file, &output_dir)?;
        }
        let seed = self.settings.seed_of(run_number);
        let agent = self.agent(skill, configuration, outputs, seed)?;

        let mut session = Session::new();
        let started = Instant::now();
        let (tokens, error) = converse(&agent, &mut session, &case.prompt).await?;
        let (tokens_in, tokens_out) = tokens;
        let tokens = tokens_in + tokens_out;
        let elapsed = started.elapsed();

        let messages = session.messages();
        let answer = Message::last_assistant_text(messages);
        output_dir.write("answer.md", answer.as_bytes())?;
        output_dir.write("transcript.json", &to_json(&session))?;
        let timing = Timing {
            total_tokens: tokens,
            duration_ms: u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX),
        };
        run_dir.write("timing.json", &to_json(&timing))?;
        let expectations = self
            .grader
            .grade(
                &skill.dir,
                &skill.name,
                case,
                &RunOutput {
                    answer: &answer,
                    outputs,
                },
            )
            .await;
        let summary = GradingSummary::of(&expectations);
        let grading = Grading {
            expectations,
            summary,
        };
        run_dir.write("grading.json", &to_json(&grading))?;
        let (tool_calls, failed_tool_calls) = tool_call_counts(messages);
        Ok(RunRecord {
            eval_id: case.id.clone(),
            eval_name: case.id.dir_name().unwrap_or_default(),
            configuration,
            run_number,
            seed,
            result: RunResult {
                // A run the model server ended (an HTTP error, a timeout) measured the server,
                // not the skill: its expectations failed for want of an answer, and counted,
                // they made a skill look better than a baseline that never ran.
                pass_rate: summary.pass_rate.filter(|_| error.is_none()),
                passed: summary.passed,
                failed: summary.failed,
                total: summary.total,
                ungraded: summary.ungraded,
                time_seconds: elapsed.as_secs_f64(),
                tokens,
                tokens_in,
                tokens_out,
                tool_calls,
                failed_tool_calls,
                skill_loaded: loaded(messages, &skill.name),
                errors: usize::from(error.is_some()),
            },
            expectations: grading.expectations,
            error,
        })
    }

    /// Asks `query` once with every skill of `offered`, and says whether the model's first
    /// answer calls `load_skill` for `skill`. Nothing runs: every call waits for an approval
    /// that never comes.
    async fn trigger(
        &self,
        skill: &SkillUnderTest,
        offered: &[SkillUnderTest],
        query: &TriggerQuery,
        run_number: u32,
    ) -> Result<TriggerResult, EvalError> {
        let mut dirs: Vec<&Path> = offered.iter().map(SkillUnderTest::dir).collect();
        if !dirs.contains(&skill.dir()) {
            dirs.insert(0, skill.dir());
        }
        let source = FileSkillsSource::builder()
            .roots(dirs.iter().map(|dir| dir.to_path_buf()))
            .build()
            .map_err(|error| EvalError::Skills {
                dir: skill.dir.clone(),
                reason: error.to_string(),
            })?;
        let mut builder = Agent::builder(Arc::clone(&self.client))
            .skills(Arc::new(self.settings.provider(source)?))
            .approval(ApprovalRules::new(AutoApprove::None))
            .options(self.settings.options(self.settings.seed_of(run_number)))
            .aids(self.settings.aids)
            .mode(self.settings.mode);
        if let Some(audit) = &self.settings.audit {
            builder = builder.audit(audit.clone());
        }
        let agent = builder.build();
        let mut session = Session::new();
        let (triggered, error) = match agent.run(query.query.as_str(), &mut session).await {
            Ok(response) => (loaded(&response.messages, &skill.name), None),
            Err(AgentError::Chat(error @ ChatError::Connect { .. })) => {
                return Err(EvalError::Unreachable(error));
            }
            Err(error) => (false, Some(error.to_string())),
        };
        Ok(TriggerResult {
            query: query.clone(),
            triggered,
            run_number,
            error,
        })
    }
}

/// Runs `prompt` in `session` to its end, refusing every call that waits for approval (nobody
/// is there to approve it); returns the tokens used (prompt, completion) and the error that
/// ended the run early, if any.
///
/// # Errors
/// [`EvalError::Unreachable`] when the server cannot be reached.
async fn converse(
    agent: &Agent,
    session: &mut Session,
    prompt: &str,
) -> Result<((u64, u64), Option<String>), EvalError> {
    let mut tokens = (0, 0);
    let mut input = Input::Text(prompt.to_owned());
    for _ in 0..=MAX_REFUSAL_ROUNDS {
        match agent.run(input, session).await {
            Ok(response) => {
                if let Some(usage) = response.usage {
                    tokens.0 += usage.prompt_tokens;
                    tokens.1 += usage.completion_tokens;
                }
                if response.pending.is_empty() {
                    return Ok((tokens, None));
                }
                input = Input::Approvals(
                    response
                        .pending
                        .iter()
                        .map(|request| {
                            ApprovalResponse::reject(
                                &request.call.call_id,
                                Some(
                                    "skills eval runs no call above its approval rules \
                                     (--approve, --approve-up-to), and nobody is there to \
                                     approve it"
                                        .to_owned(),
                                ),
                            )
                        })
                        .collect(),
                );
            }
            Err(AgentError::Chat(error @ ChatError::Connect { .. })) => {
                return Err(EvalError::Unreachable(error));
            }
            Err(error) => return Ok((tokens, Some(error.to_string()))),
        }
    }
    Ok((
        tokens,
        Some(format!(
            "the model kept asking for refused calls; the run was ended after {MAX_REFUSAL_ROUNDS} refusals"
        )),
    ))
}

/// How many tool calls the messages hold, and how many of them failed.
fn tool_call_counts(messages: &[Message]) -> (usize, usize) {
    let calls = messages
        .iter()
        .flat_map(Message::function_calls)
        .map(|call| &call.call_id)
        .collect::<std::collections::HashSet<_>>()
        .len();
    let failed = results(messages).filter(|result| result.is_error).count();
    (calls, failed)
}

fn results(messages: &[Message]) -> impl Iterator<Item = &skillful_chat::FunctionResult> {
    messages.iter().flat_map(|message| {
        message.contents.iter().filter_map(|content| match content {
            Content::FunctionResult(result) => Some(result),
            _ => None,
        })
    })
}

/// Whether the messages hold a `load_skill` call for `skill` (the name as the provider matches
/// it, ignoring ASCII case) that did not fail, or still waits for approval.
fn loaded(messages: &[Message], skill: &str) -> bool {
    let is_load = |call: &FunctionCall| {
        call.name == "load_skill"
            && call.arguments["skillName"]
                .as_str()
                .is_some_and(|name| name.trim().eq_ignore_ascii_case(skill))
    };
    messages
        .iter()
        .flat_map(Message::function_calls)
        .filter(|call| is_load(call))
        .any(|call| {
            !results(messages).any(|result| result.call_id == call.call_id && result.is_error)
        })
}

fn to_json(value: &impl serde::Serialize) -> Vec<u8> {
    let mut json = serde_json::to_vec_pretty(value).unwrap_or_default();
    json.push(b'\n');
    json
}
