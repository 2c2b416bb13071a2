//! The runner: from a request to a finished, limited process.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use skillful_core::{OutputStream, ScriptMonitor, SkillError};
use skillful_discovery::{FileScriptRequest, FileScriptRunner};
use skillful_process::{ChildCommand, OutputObserver, Running, Watch, filter_environment};

use crate::DEFAULT_ALLOWED_ENV;
use crate::arguments::command_line;
#[cfg(target_os = "linux")]
use crate::confine::Confinement;
use crate::error::{BuildError, RunError, RunFailure};
use crate::interpreter::{Interpreter, default_interpreters, extension_of};
use crate::output::ScriptOutput;
#[cfg(not(target_os = "linux"))]
use crate::sandbox::Confinement;
use crate::sandbox::{
    Limits, Profile, SandboxConfig, SandboxMode, SandboxSupport, default_hidden, hindrances,
    with_resolved,
};

/// How long a script may run when not configured: 30 seconds.
pub const DEFAULT_TIMEOUT: Duration = skillful_core::DEFAULT_SCRIPT_TIMEOUT;

/// How much of each output stream is kept when not configured: 64 KiB.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 64 * 1024;

/// Runs the script files of file skills as subprocesses, safely by default.
///
/// - **Which program**: by the file's extension (see [`default_interpreters`]; configurable); a
///   file with no configured extension runs directly only if it is executable.
/// - **Arguments**: never through a shell. A JSON array gives the command line as is, a JSON
///   object gives `--key value` pairs (`true` a bare `--key` flag, `false` and `null` nothing),
///   null gives none; anything else is refused.
/// - **Where and with what**: in the script's directory (or the builder's
///   [`working_dir`](ProcessRunnerBuilder::working_dir)), with standard input closed, and an
///   environment of only [`DEFAULT_ALLOWED_ENV`] (plus what the host allows or sets through the
///   builder): the host's secrets (`OPENAI_API_KEY`, ...) never reach a script.
/// - **Limits**: a wall-clock timeout ([`DEFAULT_TIMEOUT`]) after which the script is killed
///   with every process it started, and whatever it leaves running when it exits is killed too.
///   On Linux that is its whole descendant tree, even processes that left its process group
///   (`setsid`) or were orphaned by a double fork: the script runs under a reaper of its own (a
///   child subreaper) that kills the tree before reporting the script's exit. On other Unix
///   systems it is the script's process group; elsewhere only the script's own process. Each
///   output stream is kept up to [`DEFAULT_MAX_OUTPUT_BYTES`] and read to its end while the
///   script runs, so memory stays bounded and the script never blocks on a full pipe; once the
///   script's processes are gone, only what is left in the pipes is read, so a process out of
///   reach that holds a pipe open cannot turn a finished run into a timeout.
///
/// A script that ran, whatever its exit code, gives a [`ScriptOutput`]; one that could not start
/// gives a [`RunError`].
///
/// # Example
/// ```
/// use std::time::Duration;
/// use skillful_discovery::FileScriptRequest;
/// use skillful_scripts::ProcessRunner;
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// # let dir = tempfile::tempdir().unwrap();
/// # let script = dir.path().join("greet.sh");
/// # std::fs::write(&script, "echo \"hello $2\"\n").unwrap();
/// let runner = ProcessRunner::builder()
///     .timeout(Duration::from_secs(5))
///     .build()
///     .unwrap();
/// let request = FileScriptRequest::new(
///     "greeter",
///     dir.path(),
///     "greet.sh",
///     &script,
///     serde_json::json!({"name": "$USER; rm -rf /"}),
/// );
/// let output = runner.execute(&request).await.unwrap();
/// assert_eq!(output.stdout, "hello $USER; rm -rf /\n");
/// assert!(output.succeeded());
/// # });
/// ```
#[derive(Debug, Clone)]
pub struct ProcessRunner {
    config: Arc<Config>,
}

#[derive(Debug)]
struct Config {
    interpreters: Vec<(String, Interpreter)>,
    timeout: Duration,
    max_output_bytes: usize,
    environment: Vec<(OsString, OsString)>,
    working_dir: Option<PathBuf>,
    sandbox: SandboxConfig,
}

impl Default for ProcessRunner {
    fn default() -> Self {
        Self::new()
    }
}

impl ProcessRunner {
    /// A runner with the defaults: the default interpreters, a 30 s timeout, 64 KiB per output
    /// stream, and the allowed variables of this process's environment as it is now.
    pub fn new() -> Self {
        ProcessRunnerBuilder::default().finish()
    }

    /// Starts configuring a runner.
    pub fn builder() -> ProcessRunnerBuilder {
        ProcessRunnerBuilder::default()
    }

    /// How long a script may run.
    pub fn timeout(&self) -> Duration {
        self.config.timeout
    }

    /// How many bytes of each output stream are kept.
    pub fn max_output_bytes(&self) -> usize {
        self.config.max_output_bytes
    }

    /// The interpreters by extension (`.py`), in the order they were configured.
    pub fn interpreters(&self) -> &[(String, Interpreter)] {
        &self.config.interpreters
    }

    /// The environment every script gets (a confined script's `HOME` and `TMPDIR` are its
    /// scratch directory instead).
    pub fn environment(&self) -> &[(OsString, OsString)] {
        &self.config.environment
    }

    /// Whether scripts run in the sandbox ([`SandboxMode::Enforce`], the default).
    pub fn sandbox_mode(&self) -> SandboxMode {
        self.config.sandbox.mode
    }

    /// What this machine enforces, as detected when the runner was built.
    pub fn sandbox_support(&self) -> SandboxSupport {
        self.config.sandbox.support
    }

    /// Whether scripts are isolated by the kernel: the sandbox is on and this machine enforces
    /// it. When not, a script runs as the user with only the resource limits, whatever its tier.
    pub fn isolates(&self) -> bool {
        self.config.sandbox.isolates()
    }

    /// Why scripts are not isolated, as one line a host shows before it runs any (`None` when
    /// they are): `scripts are not isolated (--sandbox off): …` or `scripts are not isolated:
    /// this kernel has no Landlock …`. Where they are not, a risk tier is only its author's
    /// claim: hosts ask before every script (`ApprovalRules::scripts_isolated` in
    /// `skillful-agent`).
    pub fn not_isolated(&self) -> Option<String> {
        if self.isolates() {
            return None;
        }
        let why = match self.config.sandbox.mode {
            SandboxMode::Off => "(--sandbox off)".to_owned(),
            SandboxMode::Enforce => format!(
                "({})",
                self.config
                    .sandbox
                    .support
                    .missing()
                    .unwrap_or_else(|| "the sandbox is not enforced here".to_owned())
            ),
        };
        Some(format!(
            "scripts are not isolated {why}: a script can read, write and send whatever you can, whatever risk tier its skill claims"
        ))
    }

    /// The line saying what a script of `tier` from a skill that declares (`network`) it needs
    /// the network or not is allowed, as the model and the user are told it (`read — writes
    /// only in $TMPDIR, no network`), or that it is not isolated.
    pub fn profile_summary(&self, tier: skillful_core::RiskTier, network: bool) -> String {
        match Profile::for_tier(tier) {
            None => format!("{tier} — never runs"),
            Some(_) if self.config.sandbox.mode == SandboxMode::Off => {
                "off — not isolated (--sandbox off): the script can do whatever the user can".into()
            }
            Some(_) if !self.config.sandbox.confines() => {
                "none — this machine cannot isolate scripts: the script can do whatever the user can".into()
            }
            Some(profile) if !self.isolates() => format!(
                "{}, but not isolated: {}",
                profile.summary(self.config.sandbox.network && network),
                self.config.sandbox.support.missing().unwrap_or_default()
            ),
            Some(profile) => profile.summary(self.config.sandbox.network && network),
        }
    }

    /// The resource limits of each run.
    pub fn limits(&self) -> Limits {
        self.config.sandbox.limits
    }

    /// Runs the script of `request` to its end, or until the timeout kills it.
    ///
    /// # Errors
    /// A [`RunError`] when the script could not be started: arguments that make no command
    /// line, a missing interpreter, a file that has no interpreter and is not executable, or
    /// the operating system's refusal. A script that starts and then fails is an `Ok` output
    /// with its exit code.
    ///
    /// # Cancel safety
    /// Dropping the future kills the script and what it started, as a timeout does.
    pub async fn execute(&self, request: &FileScriptRequest) -> Result<ScriptOutput, RunError> {
        self.execute_monitored(request, None).await
    }

    /// [`ProcessRunner::execute`], showing the script's standard output and error to
    /// `monitor` as they are written (all of it; what is kept stays bounded), its exit code when
    /// it ends, and stopping it with every process it started when the monitor asks.
    ///
    /// # Errors
    /// As [`ProcessRunner::execute`].
    pub async fn execute_monitored(
        &self,
        request: &FileScriptRequest,
        monitor: Option<Arc<dyn ScriptMonitor>>,
    ) -> Result<ScriptOutput, RunError> {
        self.try_execute(request, monitor)
            .await
            .map_err(|reason| RunError {
                script: request.script_name.clone(),
                reason,
            })
    }

    async fn try_execute(
        &self,
        request: &FileScriptRequest,
        monitor: Option<Arc<dyn ScriptMonitor>>,
    ) -> Result<ScriptOutput, RunFailure> {
        let arguments = command_line(&request.arguments).map_err(RunFailure::InvalidArguments)?;
        let script = request.script_path.as_path();
        let dir = match &self.config.working_dir {
            Some(dir) => dir.as_path(),
            None => script.parent().unwrap_or(&request.skill_dir),
        };
        let Some(profile) = Profile::for_tier(request.risk) else {
            return Err(RunFailure::Refused { tier: request.risk });
        };
        let started = Instant::now();
        let network = self.config.sandbox.network && request.network;
        let confinement = self
            .confinement(profile, &request.skill_dir, network)
            .await?;
        let spawned = match self.interpreter_for(script) {
            Some((extension, interpreter)) => self.spawn_interpreted(
                extension,
                interpreter,
                script,
                dir,
                &arguments,
                confinement.as_ref(),
            ),
            None => {
                self.spawn_direct(script, dir, &arguments, confinement.as_ref())
                    .await
            }
        };
        let output = match spawned {
            Ok(child) => self.supervise(child, started, monitor).await,
            Err(failure) => Err(failure),
        };
        let confined = confinement.as_ref().is_some_and(Confinement::confined);
        let mut undone = Vec::new();
        if let Some(confinement) = confinement {
            // A panic is logged by `run`; its notes are then lost with it.
            undone = skillful_fs::blocking::run("finishing a script's sandbox", move || {
                confinement.finish()
            })
            .await
            .unwrap_or_default();
        }
        let mut output = output?;
        if confined {
            output.sandbox_notes = hindrances(
                profile,
                &self.config.sandbox.limits,
                &output.stdout,
                &output.stderr,
                output.signal,
            );
            output.sandbox = Some(profile.summary(network));
        }
        output.sandbox_notes.extend(undone);
        if output.timed_out {
            tracing::warn!(script = %request.script_name, skill = %request.skill_name, timeout = ?self.config.timeout, "script timed out and was killed");
        }
        if output.truncated {
            tracing::warn!(script = %request.script_name, skill = %request.skill_name, limit = self.config.max_output_bytes, "script output over the limit was discarded");
        }
        Ok(output)
    }

    /// The confinement of one run, prepared on the blocking pool (it opens and lists
    /// directories); `None` where there is nothing to apply (not Linux).
    async fn confinement(
        &self,
        profile: Profile,
        skill_dir: &Path,
        network: bool,
    ) -> Result<Option<Confinement>, RunFailure> {
        #[cfg(target_os = "linux")]
        {
            let config = Arc::clone(&self.config);
            let skill_dir = skill_dir.to_path_buf();
            let prepared = skillful_fs::blocking::run("preparing a script's sandbox", move || {
                Confinement::prepare(&config.sandbox, profile, &skill_dir, network)
            })
            .await
            .map_err(|error| RunFailure::Sandbox {
                action: "preparing the sandbox".into(),
                error: error.to_string(),
            })?;
            prepared.map(Some)
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (profile, skill_dir);
            Ok(None)
        }
    }

    fn interpreter_for(&self, script: &Path) -> Option<(&str, &Interpreter)> {
        let extension = extension_of(script)?;
        self.config
            .interpreters
            .iter()
            .find(|(configured, _)| configured.eq_ignore_ascii_case(&extension))
            .map(|(extension, interpreter)| (extension.as_str(), interpreter))
    }

    /// Starts the first of the interpreter's programs that is installed.
    fn spawn_interpreted(
        &self,
        extension: &str,
        interpreter: &Interpreter,
        script: &Path,
        dir: &Path,
        arguments: &[String],
        confinement: Option<&Confinement>,
    ) -> Result<Running, RunFailure> {
        for program in interpreter.programs() {
            let Some(resolved) = self.resolve(program) else {
                tracing::debug!(%program, "interpreter not found; trying the next one");
                continue;
            };
            let mut child = self.command(&resolved, dir, confinement);
            child
                .command_mut()
                .args(interpreter.args())
                .arg(script)
                .args(interpreter.args_after_script())
                .args(arguments);
            match child.spawn() {
                Ok(running) => return Ok(running),
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                    tracing::debug!(%program, "interpreter not found; trying the next one");
                }
                Err(error) => {
                    return Err(RunFailure::Spawn {
                        program: program.clone(),
                        error,
                    });
                }
            }
        }
        Err(RunFailure::InterpreterNotFound {
            extension: extension.to_owned(),
            tried: interpreter.programs().to_vec(),
        })
    }

    /// Where `program` is: itself when it names a path, else the first executable file of that
    /// name in an absolute directory of the scripts' `PATH`; `None` when there is none. Spawning
    /// an absolute path also spares the operating system a second search.
    #[cfg(unix)]
    fn resolve(&self, program: &str) -> Option<OsString> {
        if program.contains('/') {
            return Some(OsString::from(program));
        }
        let path = self
            .config
            .environment
            .iter()
            .find(|(name, _)| name == "PATH")?;
        std::env::split_paths(&path.1)
            .filter(|dir| dir.is_absolute())
            .map(|dir| dir.join(program))
            .find(|candidate| std::fs::metadata(candidate).is_ok_and(|m| is_executable(&m)))
            .map(OsString::from)
    }

    /// Elsewhere than on Unix the operating system's own search (with `PATHEXT`) finds it.
    #[cfg(not(unix))]
    fn resolve(&self, program: &str) -> Option<OsString> {
        Some(OsString::from(program))
    }

    /// Starts the script itself, when it is an executable file.
    async fn spawn_direct(
        &self,
        script: &Path,
        dir: &Path,
        arguments: &[String],
        confinement: Option<&Confinement>,
    ) -> Result<Running, RunFailure> {
        let metadata = tokio::fs::metadata(script)
            .await
            .map_err(|error| RunFailure::Io {
                action: format!("inspecting {}", script.display()),
                error,
            })?;
        if !is_executable(&metadata) {
            return Err(RunFailure::NotExecutable {
                path: script.to_path_buf(),
            });
        }
        let mut child = self.command(script.as_os_str(), dir, confinement);
        child.command_mut().args(arguments);
        child.spawn().map_err(|error| RunFailure::Spawn {
            program: script.display().to_string(),
            error,
        })
    }

    /// `program` in `dir`, started as every child of the host is ([`ChildCommand`]: the script
    /// environment, stdin closed, output piped, in a process group of its own, on Linux under a
    /// reaper of its own, which a dropped run stops), with the confinement of its run.
    fn command(
        &self,
        program: &OsStr,
        dir: &Path,
        confinement: Option<&Confinement>,
    ) -> ChildCommand {
        let mut child = ChildCommand::new(program, &self.config.environment);
        let command = child.command_mut();
        command.current_dir(dir).envs(
            confinement
                .map(Confinement::environment)
                .unwrap_or_default(),
        );
        // After the reaper's: it runs in the script's process only.
        #[cfg(target_os = "linux")]
        if let Some(confinement) = confinement {
            confinement.install(command);
        }
        #[cfg(not(target_os = "linux"))]
        let _ = confinement;
        child
    }

    /// Reads the child's output while it runs, ends everything it started when it exits or when
    /// the time is up, and reports what happened (`skillful_process`'s [`Running::collect`]).
    async fn supervise(
        &self,
        mut script: Running,
        started: Instant,
        monitor: Option<Arc<dyn ScriptMonitor>>,
    ) -> Result<ScriptOutput, RunFailure> {
        let stream = |stream: OutputStream| {
            monitor
                .clone()
                .map(|monitor| move |chunk: &[u8]| monitor.output(stream, chunk))
        };
        let (stdout, stderr) = (stream(OutputStream::Stdout), stream(OutputStream::Stderr));
        let watch = Watch {
            stdout: stdout
                .as_ref()
                .map(|observe| observe as &OutputObserver<'_>),
            stderr: stderr
                .as_ref()
                .map(|observe| observe as &OutputObserver<'_>),
            stop: monitor.as_ref().map(|monitor| monitor.stop_requested()),
        };
        let finished = script
            .collect_watched(
                Some(self.config.timeout),
                self.config.max_output_bytes,
                watch,
            )
            .await
            .map_err(|error| RunFailure::Io {
                action: "waiting for the script".to_owned(),
                error,
            })?;
        let truncated = finished.stdout.truncated() || finished.stderr.truncated();
        if let Some(monitor) = &monitor {
            monitor.exited(finished.status.code());
        }
        Ok(ScriptOutput {
            stdout: finished.stdout.into_text(),
            stderr: finished.stderr.into_text(),
            exit_code: finished.status.code(),
            signal: exit_signal(&finished.status),
            timed_out: finished.timed_out,
            cancelled: finished.stopped,
            truncated,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            sandbox: None,
            sandbox_notes: Vec::new(),
        })
    }
}

impl ProcessRunner {
    /// Runs `request` for the model: its rendered output, or [`SkillError::ScriptTimedOut`] when
    /// it timed out, the one timeout error of every script.
    async fn run_monitored_by(
        &self,
        request: FileScriptRequest,
        monitor: Option<Arc<dyn ScriptMonitor>>,
    ) -> Result<String, SkillError> {
        let output = self.execute_monitored(&request, monitor).await?;
        if output.cancelled {
            return Err(SkillError::ScriptCancelled {
                skill: request.skill_name.clone(),
                script: request.script_name.clone(),
            });
        }
        if output.timed_out {
            return Err(SkillError::ScriptTimedOut {
                skill: request.skill_name.clone(),
                script: request.script_name.clone(),
                after: self.config.timeout,
            });
        }
        Ok(output.render())
    }
}

/// The signal that ended the process, if one did.
#[cfg(unix)]
fn exit_signal(status: &std::process::ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}

#[cfg(not(unix))]
fn exit_signal(_status: &std::process::ExitStatus) -> Option<i32> {
    None
}

#[cfg(unix)]
fn is_executable(metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_metadata: &std::fs::Metadata) -> bool {
    false
}

#[async_trait]
impl FileScriptRunner for ProcessRunner {
    /// Runs the script and renders its output for the model ([`ScriptOutput::render`]); a run
    /// that timed out is [`SkillError::ScriptTimedOut`], the one timeout error of every script.
    async fn run(&self, request: FileScriptRequest) -> Result<String, SkillError> {
        self.run_monitored_by(request, None).await
    }

    /// [`FileScriptRunner::run`] under `monitor`: the script's output shown to it as it is
    /// written, stopped when it asks.
    async fn run_monitored(
        &self,
        request: FileScriptRequest,
        monitor: Arc<dyn ScriptMonitor>,
    ) -> Result<String, SkillError> {
        self.run_monitored_by(request, Some(monitor)).await
    }

    /// [`ProcessRunner::timeout`].
    fn timeout(&self) -> Option<Duration> {
        Some(self.config.timeout)
    }

    /// [`ProcessRunner::profile_summary`].
    fn sandbox_profile(&self, tier: skillful_core::RiskTier, network: bool) -> Option<String> {
        Some(self.profile_summary(tier, network))
    }
}

/// Configures a [`ProcessRunner`].
///
/// # Example
/// ```
/// use std::time::Duration;
/// use skillful_scripts::{Interpreter, ProcessRunner};
///
/// let runner = ProcessRunner::builder()
///     .timeout(Duration::from_secs(10))
///     .max_output_bytes(16 * 1024)
///     .interpreter(".rb", Interpreter::new("ruby"))
///     .allow_env("PYTHONPATH")
///     .env("SKILLS_SANDBOX", "1")
///     .build()
///     .unwrap();
/// assert!(runner.environment().iter().any(|(name, _)| name == "SKILLS_SANDBOX"));
/// ```
#[derive(Debug)]
#[must_use]
pub struct ProcessRunnerBuilder {
    interpreters: Vec<(String, Interpreter)>,
    timeout: Duration,
    max_output_bytes: usize,
    allowed_env: Vec<String>,
    added_env: Vec<(OsString, OsString)>,
    host_env: Option<Vec<(OsString, OsString)>>,
    working_dir: Option<PathBuf>,
    sandbox: SandboxMode,
    hidden: Option<Vec<PathBuf>>,
    also_hidden: Vec<PathBuf>,
    landlock_abi_at_most: Option<u32>,
    writable_dir: Option<PathBuf>,
    allowed_writes: Vec<PathBuf>,
    network: bool,
    limits: Limits,
}

impl Default for ProcessRunnerBuilder {
    fn default() -> Self {
        Self {
            interpreters: default_interpreters(),
            timeout: DEFAULT_TIMEOUT,
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
            allowed_env: DEFAULT_ALLOWED_ENV
                .iter()
                .map(|name| (*name).to_owned())
                .collect(),
            // A script never writes bytecode beside its modules: that would change the skill's
            // files (voiding an "always" approval of the skill) wherever the sandbox does not
            // already forbid writing there.
            added_env: vec![("PYTHONDONTWRITEBYTECODE".into(), "1".into())],
            host_env: None,
            working_dir: None,
            sandbox: SandboxMode::Enforce,
            hidden: None,
            also_hidden: Vec::new(),
            landlock_abi_at_most: None,
            writable_dir: None,
            allowed_writes: Vec::new(),
            network: true,
            limits: Limits::default(),
        }
    }
}

impl ProcessRunnerBuilder {
    /// How long a script may run before it is killed with what it started (default 30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How many bytes of stdout, and of stderr, are kept (default 64 KiB each).
    pub fn max_output_bytes(mut self, bytes: usize) -> Self {
        self.max_output_bytes = bytes;
        self
    }

    /// Runs files ending in `extension` (`.rb`; matched ignoring ASCII case) with `interpreter`,
    /// replacing the interpreter configured for it before.
    pub fn interpreter(mut self, extension: impl Into<String>, interpreter: Interpreter) -> Self {
        let extension = extension.into();
        self.interpreters
            .retain(|(configured, _)| !configured.eq_ignore_ascii_case(&extension));
        self.interpreters.push((extension, interpreter));
        self
    }

    /// Forgets the interpreter for `extension`: such files then run only if executable.
    pub fn without_interpreter(mut self, extension: &str) -> Self {
        self.interpreters
            .retain(|(configured, _)| !configured.eq_ignore_ascii_case(extension));
        self
    }

    /// Lets scripts inherit the host's variable `name` too (beside [`DEFAULT_ALLOWED_ENV`]).
    pub fn allow_env(mut self, name: impl Into<String>) -> Self {
        self.allowed_env.push(name.into());
        self
    }

    /// Sets `name` to `value` for every script, over any inherited value.
    pub fn env(mut self, name: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.added_env.push((name.into(), value.into()));
        self
    }

    /// Runs every script in `dir` instead of the script's own directory: a task's working
    /// directory, where its input files are and its output files go (`skills eval` gives each
    /// run its own). The script file itself is still the skill's. The sandbox lets scripts read
    /// it (and write it, as their profile lets them write a working directory) even below a
    /// hidden directory, such as skillful's state where `skills eval` keeps its workspaces;
    /// hidden paths inside it stay hidden.
    pub fn working_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.working_dir = Some(dir.into());
        self
    }

    /// Whether scripts run in the sandbox (default [`SandboxMode::Enforce`]).
    pub fn sandbox(mut self, mode: SandboxMode) -> Self {
        self.sandbox = mode;
        self
    }

    /// The resource limits of each run (default [`Limits::default`]).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The paths no script may read or write, instead of the default ones: the secret stores of
    /// [`DEFAULT_SECRET_PATHS`](crate::DEFAULT_SECRET_PATHS) under the host's `HOME`, and
    /// skillful's configuration, state and cache directories.
    pub fn hidden_paths<I, P>(mut self, paths: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: Into<PathBuf>,
    {
        self.hidden = Some(paths.into_iter().map(Into::into).collect());
        self
    }

    /// Hides `path` from every script too (beside the default or configured hidden paths):
    /// another secret store, or a state directory of the host's.
    pub fn hide(mut self, path: impl Into<PathBuf>) -> Self {
        self.also_hidden.push(path.into());
        self
    }

    /// The directory `write-low` and `write-high` scripts may write under (`--workdir`): by
    /// default the [`working_dir`](Self::working_dir) when one is set, else the host's current
    /// directory when the runner is built.
    pub fn writable_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.writable_dir = Some(dir.into());
        self
    }

    /// Lets `write-high` scripts write under `dir` too (`--allow-write`).
    pub fn allow_write(mut self, dir: impl Into<PathBuf>) -> Self {
        self.allowed_writes.push(dir.into());
        self
    }

    /// Whether a `write-high` script whose skill declares it needs the network
    /// (`capabilities.network`) gets it (default: yes; the declaration is shown in the approval
    /// question). `false`: no script gets the network. Scripts of the other tiers, and of skills
    /// that declare no network, never get it.
    pub fn allow_network(mut self, allow: bool) -> Self {
        self.network = allow;
        self
    }

    /// The host environment the allowed variables are taken from, instead of this process's
    /// environment at [`build`](Self::build) time.
    pub fn host_env<I, K, V>(mut self, variables: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<OsString>,
        V: Into<OsString>,
    {
        self.host_env = Some(
            variables
                .into_iter()
                .map(|(name, value)| (name.into(), value.into()))
                .collect(),
        );
        self
    }

    /// Confines scripts with the Landlock rules of ABI `abi` at most, as a kernel that offers
    /// no more would (Linux 6.1 offers ABI 2, 6.6 ABI 4): to see what scripts may do there, on
    /// a newer kernel. The runner then isolates only what that ABI can.
    pub fn landlock_abi_at_most(mut self, abi: u32) -> Self {
        self.landlock_abi_at_most = Some(abi);
        self
    }

    /// Checks the configuration and builds the runner; the allowed variables are read from the
    /// host environment now.
    ///
    /// # Errors
    /// A zero timeout or output limit; an interpreter extension that is not `.ext`; an
    /// interpreter with a blank program.
    pub fn build(self) -> Result<ProcessRunner, BuildError> {
        if self.timeout.is_zero() {
            return Err(BuildError::ZeroTimeout);
        }
        if self.max_output_bytes == 0 {
            return Err(BuildError::ZeroOutputLimit);
        }
        for (extension, interpreter) in &self.interpreters {
            let ending = extension.strip_prefix('.').unwrap_or_default();
            if ending.is_empty()
                || ending.contains(['.', '/', '\\'])
                || ending.contains(char::is_whitespace)
            {
                return Err(BuildError::Extension(extension.clone()));
            }
            if interpreter
                .programs()
                .iter()
                .any(|program| program.trim().is_empty())
            {
                return Err(BuildError::BlankProgram(extension.clone()));
            }
        }
        Ok(self.finish())
    }

    fn finish(self) -> ProcessRunner {
        let host = self
            .host_env
            .unwrap_or_else(|| std::env::vars_os().collect());
        let home = host
            .iter()
            .find(|(name, _)| name == "HOME")
            .map(|(_, home)| PathBuf::from(home));
        let mut hidden = self
            .hidden
            .unwrap_or_else(|| default_hidden(home.as_deref()));
        hidden.extend(self.also_hidden);
        let writable_dir = self
            .writable_dir
            .or_else(|| self.working_dir.clone())
            .or_else(|| std::env::current_dir().ok());
        let sandbox = SandboxConfig {
            mode: self.sandbox,
            hidden: with_resolved(hidden),
            working_dir: writable_dir.map(|dir| std::fs::canonicalize(&dir).unwrap_or(dir)),
            task_dir: self
                .working_dir
                .clone()
                .map(|dir| std::fs::canonicalize(&dir).unwrap_or(dir)),
            allowed_writes: self
                .allowed_writes
                .into_iter()
                .map(|dir| std::fs::canonicalize(&dir).unwrap_or(dir))
                .collect(),
            network: self.network,
            home: home
                .as_deref()
                .map(|home| std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf())),
            limits: self.limits,
            support: {
                let mut support = SandboxSupport::detect();
                if let Some(most) = self.landlock_abi_at_most {
                    support.landlock_abi = support.landlock_abi.map(|abi| abi.min(most));
                }
                support
            },
        };
        ProcessRunner {
            config: Arc::new(Config {
                sandbox,
                environment: filter_environment(&host, &self.allowed_env, &self.added_env),
                interpreters: self.interpreters,
                timeout: self.timeout,
                max_output_bytes: self.max_output_bytes,
                working_dir: self.working_dir,
            }),
        }
    }
}
