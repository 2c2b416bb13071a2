//! [`Engine`]: installs, starts, lists and stops engines of one cache and state directory.

use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::catalogue::{ENGINE, EnginePackage, Model, Template};
use crate::dirs::{EngineDirs, create_dir};
use crate::download::{DEFAULT_INDEX_URL, Fetcher};
use crate::install::{Installation, Installer};
use crate::process::{
    EngineRecord, Launch, Probe, Records, free_port, healthy, probe, process_identity, spawn,
    stop_child, tail, terminate,
};
use crate::progress::{InstallProgress, Quiet};
use crate::{EngineError, catalogue};

/// The environment variable naming a stand-in for the engine: a program run as
/// `PROGRAM PORT MODEL_NAME TEMPLATE_PATH` that serves an OpenAI-compatible API and `GET /health`
/// on 127.0.0.1:PORT. Nothing is installed when it is set (tests use it).
pub const STAND_IN_VARIABLE: &str = "SKILLS_ENGINE_COMMAND";

/// The variable naming (comma-separated) the host variables the engine inherits besides
/// [`ENGINE_ALLOWED_ENV`] (a stand-in's own settings, for tests).
pub const ALLOW_ENV_VARIABLE: &str = "SKILLS_ENGINE_ALLOW_ENV";

/// The host variables the engine inherits besides `skillful_process::DEFAULT_ALLOWED_ENV`: where
/// its libraries are and which accelerators and threads it may use. Nothing else of the host's
/// (API keys, tokens) reaches it.
pub const ENGINE_ALLOWED_ENV: [&str; 5] = [
    "LD_LIBRARY_PATH",
    "CUDA_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "OMP_NUM_THREADS",
    "XDG_CACHE_HOME",
];

/// The port `skills engine start` listens on unless told otherwise.
pub const DEFAULT_PORT: u16 = 8090;

/// How long a stopped engine has to end before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(10);

/// The embedded engine of one cache and state directory: llama.cpp (the `xllamacpp` wheel) in a
/// Python virtual environment, and models from the [catalogue](crate::MODELS).
///
/// # Example
/// ```no_run
/// use skillful_engine::{Engine, StartOptions, model, DEFAULT_MODEL};
///
/// # async fn demo() -> Result<(), skillful_engine::EngineError> {
/// let engine = Engine::from_env()?;
/// let running = engine.start(&StartOptions::new(model(DEFAULT_MODEL)?)).await?;
/// println!("serving at {}", running.record().endpoint());
/// let record = running.detach(); // keeps running after this process ends
/// engine.stop(Some(record.port)).await?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Engine {
    dirs: EngineDirs,
    index_url: String,
    progress: Arc<dyn InstallProgress>,
    stand_in: Option<PathBuf>,
    startup_timeout: Duration,
    package: EnginePackage,
    allowed_env: Vec<String>,
}

impl Engine {
    /// An engine keeping its files in `dirs`, installing from PyPI, showing no progress
    /// ([`Engine::progress`] says where to).
    pub fn new(dirs: EngineDirs) -> Self {
        Self {
            dirs,
            index_url: DEFAULT_INDEX_URL.to_owned(),
            progress: Arc::new(Quiet),
            stand_in: None,
            startup_timeout: Duration::from_secs(180),
            package: ENGINE,
            allowed_env: ENGINE_ALLOWED_ENV
                .iter()
                .map(|name| (*name).to_owned())
                .collect(),
        }
    }

    /// An engine in the per-user directories, installing from `PIP_INDEX_URL` when set (else
    /// PyPI), replaced by the program in [`STAND_IN_VARIABLE`] when that is set.
    ///
    /// # Errors
    /// [`EngineError::State`].
    pub fn from_env() -> Result<Self, EngineError> {
        let mut engine = Self::new(EngineDirs::per_user()?);
        if let Some(index) = non_empty_var("PIP_INDEX_URL") {
            engine = engine.index_url(index);
        }
        if let Some(program) = non_empty_var(STAND_IN_VARIABLE) {
            engine = engine.stand_in(program);
        }
        if let Some(names) = non_empty_var(ALLOW_ENV_VARIABLE) {
            for name in names
                .split(',')
                .map(str::trim)
                .filter(|name| !name.is_empty())
            {
                engine = engine.allow_env(name);
            }
        }
        Ok(engine)
    }

    /// Installs from this simple index (PEP 691 JSON) instead of PyPI.
    #[must_use]
    pub fn index_url(mut self, url: impl Into<String>) -> Self {
        self.index_url = url.into();
        self
    }

    /// Where installations report their steps and downloads (nothing is shown by default).
    #[must_use]
    pub fn progress(mut self, progress: Arc<dyn InstallProgress>) -> Self {
        self.progress = progress;
        self
    }

    /// Lets the engine inherit the host's variable `name` too. The engine starts as every child
    /// of the host does (`skillful_process`): only `DEFAULT_ALLOWED_ENV`, [`ENGINE_ALLOWED_ENV`]
    /// and the names given here reach it.
    #[must_use]
    pub fn allow_env(mut self, name: impl Into<String>) -> Self {
        self.allowed_env.push(name.into());
        self
    }

    /// Runs `program` instead of the engine (see [`STAND_IN_VARIABLE`]); nothing is installed.
    #[must_use]
    pub fn stand_in(mut self, program: impl Into<PathBuf>) -> Self {
        self.stand_in = Some(program.into());
        self
    }

    /// How long a starting engine may take to answer `/health` (default 180 s).
    #[must_use]
    pub fn startup_timeout(mut self, timeout: Duration) -> Self {
        self.startup_timeout = timeout;
        self
    }

    /// The system Python the engine installs itself with, checked as an installation checks
    /// it (3.10 or newer, with `venv`): its version (`skills doctor`).
    ///
    /// # Errors
    /// [`EngineError::PythonUnavailable`], saying what is missing.
    pub fn system_python(&self) -> Result<String, EngineError> {
        crate::install::system_python(&self.child_environment())
    }

    /// The whole environment of the engine's children (Python, pip, the server): the
    /// allow-listed host variables and those `SKILLS_ENGINE_ALLOW_ENV` adds.
    fn child_environment(&self) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
        skillful_process::allowed_environment(self.allowed_env.iter().cloned())
    }

    /// Where it keeps its files.
    pub fn dirs(&self) -> &EngineDirs {
        &self.dirs
    }

    fn fetcher(&self) -> Result<Fetcher, EngineError> {
        Fetcher::new(&self.index_url, self.progress.clone())
    }

    fn installer<'a>(&self, fetcher: &'a Fetcher) -> Installer<'a> {
        Installer {
            fetcher,
            root: self.dirs.cache().join("engine"),
            environment: self.child_environment(),
        }
    }

    fn records(&self) -> Result<Records, EngineError> {
        Ok(Records {
            dir: self.dirs.state_dir()?.join("engines"),
        })
    }

    /// Whether `model` is installed and checked (the engine itself is checked when it starts).
    pub fn is_installed(&self, model: &Model) -> bool {
        // Only a look: nothing is created.
        let fetcher = Fetcher::new(&self.index_url, Arc::new(Quiet));
        fetcher.is_ok_and(|fetcher| self.installer(&fetcher).model_ready(model))
    }

    /// Installs what is missing for `model`: Python's virtual environment with the engine, and
    /// the model's file.
    ///
    /// # Errors
    /// Python or venv missing, the package index unreachable, a download failing or a file with
    /// another hash, a cache directory that is not private.
    pub async fn install(&self, model: &Model) -> Result<Installation, EngineError> {
        self.dirs.cache_dir()?;
        let fetcher = self.fetcher()?;
        let installer = self.installer(&fetcher);
        let _lock = installer.lock()?;
        let python = installer.engine(&self.package).await?;
        let model = installer.model(model).await?;
        Ok(Installation { python, model })
    }

    /// The engines of this state directory whose process is alive, by port; records of dead
    /// ones are removed.
    ///
    /// # Errors
    /// The state directory is not private or cannot be created.
    pub fn running(&self) -> Result<Vec<EngineRecord>, EngineError> {
        Ok(self.records()?.live())
    }

    /// Starts an engine (installing what is missing) and waits until it answers `/health`.
    /// When the port already serves an engine of this state directory with the same model and
    /// template, that one is returned, [reused](RunningEngine::reused).
    ///
    /// # Errors
    /// The port serves something else ([`EngineError::PortInUse`],
    /// [`EngineError::PortHasOtherEngine`]), installing failed, or the engine exited or did not
    /// answer in time.
    pub async fn start(&self, options: &StartOptions) -> Result<RunningEngine, EngineError> {
        let model = options.model;
        let template = match options.template {
            Some(template) => template,
            None => catalogue::template(model.template)?,
        };
        let records = self.records()?;
        let port = match options.port {
            Some(port) => port,
            None => free_port()?,
        };
        let answer = probe(&format!("http://127.0.0.1:{port}/health")).await;
        if answer != Probe::Nothing {
            return reuse_engine_on(port, answer, records, model, template);
        }

        let cache = self.dirs.cache_dir()?.join("engine");
        let launch = self.launch(model).await?;
        let template_path = write_template(&cache, template)?;
        let logs = cache.join("logs");
        create_dir(&logs)?;
        let log = logs.join(format!("engine-{port}.log"));
        let environment = self.child_environment();
        let child = spawn(&launch, port, template_path.as_deref(), &log, &environment)?;
        let record = EngineRecord {
            pid: child.id(),
            port,
            model: model.name.to_owned(),
            template: template.name.to_owned(),
            log,
            owner: options.temporary.then(std::process::id),
            started: process_identity(child.id()),
        };
        let mut engine = RunningEngine {
            record,
            child: Some(child),
            records,
            reused: false,
        };
        engine.records.write(&engine.record)?;
        // On error, dropping `engine` stops the process and removes the record.
        engine.wait_until_healthy(self.startup_timeout).await?;
        Ok(engine)
    }

    /// What to run for `model`: the stand-in, or the engine installed (as needed) with it.
    async fn launch(&self, model: &Model) -> Result<Launch, EngineError> {
        Ok(match &self.stand_in {
            Some(program) => Launch::StandIn {
                program: program.clone(),
                model: model.name.to_owned(),
            },
            None => {
                let installation = self.install(model).await?;
                Launch::Python {
                    python: installation.python,
                    model: installation.model,
                }
            }
        })
    }

    /// Stops the engines of this state directory (those on `port` only, when given); the
    /// records of those it stopped.
    ///
    /// # Errors
    /// An engine did not end ([`EngineError::Stop`]).
    pub async fn stop(&self, port: Option<u16>) -> Result<Vec<EngineRecord>, EngineError> {
        let records = self.records()?;
        let mut stopped = Vec::new();
        for record in records.live() {
            if port.is_some_and(|port| port != record.port) {
                continue;
            }
            let (pid, port) = (record.pid, record.port);
            skillful_fs::blocking::run("stopping an engine", move || {
                terminate(pid, port, STOP_GRACE)
            })
            .await
            .map_err(|error| EngineError::Stop {
                pid,
                port,
                reason: error.to_string(),
            })??;
            records.remove(&record);
            stopped.push(record);
        }
        Ok(stopped)
    }
}

/// The engine of this state directory already answering on `port` when it serves `model` with
/// `template`; else why the port cannot be used.
fn reuse_engine_on(
    port: u16,
    answer: Probe,
    records: Records,
    model: &Model,
    template: &Template,
) -> Result<RunningEngine, EngineError> {
    let ours = records
        .live()
        .into_iter()
        .find(|record| record.port == port);
    match ours {
        // An engine that stops with another command's end is not to be kept.
        Some(record)
            if record.model == model.name
                && record.template == template.name
                && !record.is_temporary() =>
        {
            Ok(RunningEngine {
                record,
                child: None,
                records,
                reused: true,
            })
        }
        Some(record) => Err(EngineError::PortHasOtherEngine {
            port,
            pid: record.pid,
            model: record.model,
            template: record.template,
        }),
        None => Err(EngineError::PortInUse {
            port,
            what: answer.describe(),
        }),
    }
}

/// The template's file under `cache`, for the engine to read; `None` for the model's own
/// (the one in its file).
fn write_template(cache: &Path, template: &Template) -> Result<Option<PathBuf>, EngineError> {
    let Some(text) = template.text else {
        return Ok(None);
    };
    let dir = cache.join("templates");
    create_dir(&dir)?;
    let path = dir.join(format!("{}.jinja", template.name));
    std::fs::write(&path, text).map_err(|error| EngineError::io(&path, error))?;
    Ok(Some(path))
}

fn non_empty_var(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}

/// What to start.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct StartOptions {
    /// The model.
    pub model: &'static Model,
    /// The port on 127.0.0.1; `None`: a free one.
    pub port: Option<u16>,
    /// The chat template; `None`: the model's.
    pub template: Option<&'static Template>,
    /// Started for the duration of this process (recorded with it as owner, not reused by
    /// other commands).
    pub temporary: bool,
}

impl StartOptions {
    /// `model` on a free port with its own template, to keep running.
    pub fn new(model: &'static Model) -> Self {
        Self {
            model,
            port: None,
            template: None,
            temporary: false,
        }
    }

    /// On this port.
    #[must_use]
    pub fn port(mut self, port: u16) -> Self {
        self.port = Some(port);
        self
    }

    /// With this chat template.
    #[must_use]
    pub fn template(mut self, template: &'static Template) -> Self {
        self.template = Some(template);
        self
    }

    /// For the duration of this process only.
    #[must_use]
    pub fn temporary(mut self) -> Self {
        self.temporary = true;
        self
    }
}

/// An engine this process started (stopped when dropped, unless [detached](Self::detach)), or
/// one it found running and reused (left running).
#[derive(Debug)]
pub struct RunningEngine {
    record: EngineRecord,
    child: Option<Child>,
    records: Records,
    reused: bool,
}

impl RunningEngine {
    /// What is recorded about it: pid, port, model, template, log.
    pub fn record(&self) -> &EngineRecord {
        &self.record
    }

    /// Whether it was already running.
    pub fn reused(&self) -> bool {
        self.reused
    }

    /// Leaves it running after this value (and process) ends; its record.
    pub fn detach(mut self) -> EngineRecord {
        self.child = None;
        self.record.clone()
    }

    /// Stops it now if this process started it (same as dropping it).
    pub fn stop(self) {}

    async fn wait_until_healthy(&mut self, timeout: Duration) -> Result<(), EngineError> {
        let started = Instant::now();
        loop {
            if let Some(child) = self.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                return Err(EngineError::Exited {
                    status: status.to_string(),
                    log: self.record.log.clone(),
                    tail: tail(&self.record.log),
                });
            }
            if healthy(self.record.port).await {
                return Ok(());
            }
            if started.elapsed() > timeout {
                return Err(EngineError::StartupTimeout {
                    port: self.record.port,
                    timeout,
                    log: self.record.log.clone(),
                    tail: tail(&self.record.log),
                });
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

impl Drop for RunningEngine {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            stop_child(&mut child, STOP_GRACE);
            self.records.remove(&self.record);
        }
    }
}

/// Whether a recorded engine may be used by another command: alive, answering, and not started
/// for the duration of a command that is still running.
pub(crate) async fn reusable(record: &EngineRecord) -> bool {
    !record.is_temporary()
        && skillful_process::process_exists(record.pid)
        && healthy(record.port).await
}
