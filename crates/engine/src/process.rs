//! The engine's process: started on 127.0.0.1, recorded in the state directory so that other
//! commands find it, checked through `/health`, and stopped.

use std::fs;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use skillful_process::process_exists;

use crate::EngineError;

/// Starts `xllamacpp.Server` on 127.0.0.1 and waits for SIGTERM or SIGINT.
/// Arguments: model path, port, chat template path (empty: the model's own), threads (one per
/// core the process may use, at most 8).
pub(crate) const SERVE_PY: &str = r#"
import os, signal, sys, threading
import xllamacpp

model, port, template, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
params = xllamacpp.CommonParams()
params.model.path = model
params.port = port
params.hostnames = ["127.0.0.1"]
params.n_ctx, params.n_parallel, params.use_jinja = 8192, 1, True
params.cpuparams.n_threads = params.cpuparams_batch.n_threads = threads
# Threads wait for each other asleep, not spinning: on a machine whose cores are busy a spinning
# thread holds the core the thread it waits for needs.
params.cpuparams.poll = params.cpuparams_batch.poll = 0
if template:
    with open(template, encoding="utf-8") as f:
        params.chat_template = f.read()
server = xllamacpp.Server(params)
print("listening on", server.listening_address, flush=True)
stop = threading.Event()
for sig in (signal.SIGTERM, signal.SIGINT):
    signal.signal(sig, lambda *_: stop.set())
stop.wait()
os._exit(0)
"#;

/// A running engine as recorded in the state directory (and as `skills engine status --json`
/// shows it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EngineRecord {
    /// The engine's process id.
    pub pid: u32,
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// The model's name.
    pub model: String,
    /// The chat template's name.
    pub template: String,
    /// Its log file.
    pub log: PathBuf,
    /// The process that started it for its own duration and stops it when it ends; `None` for
    /// an engine started to keep running (`skills engine start`).
    pub owner: Option<u32>,
    /// What proves that `pid` is still the engine (its identity when it started: on
    /// Linux the boot and the process's start time). A record whose process
    /// no longer has it (the engine ended and the pid was reused) is stale: it is removed, and
    /// nothing is ever signalled for it.
    #[serde(default)]
    pub started: Option<String>,
}

impl EngineRecord {
    /// Its OpenAI-compatible base URL, `http://127.0.0.1:PORT/v1`.
    pub fn endpoint(&self) -> String {
        endpoint(self.port)
    }

    /// Whether it was started for the duration of a command that is still running.
    pub fn is_temporary(&self) -> bool {
        self.owner.is_some_and(process_exists)
    }

    /// Whether its process is alive and proven to be the engine it recorded (on Linux, the
    /// same identity as recorded; elsewhere, alive).
    pub fn is_running(&self) -> bool {
        if !process_exists(self.pid) {
            return false;
        }
        if cfg!(target_os = "linux") {
            self.started.is_some() && self.started == process_identity(self.pid)
        } else {
            true
        }
    }

    /// Whether it answers `GET /health` with 200 now (503 while its model loads).
    pub async fn is_answering(&self) -> bool {
        healthy(self.port).await
    }
}

/// The base URL of an engine on `port`.
pub(crate) fn endpoint(port: u16) -> String {
    format!("http://127.0.0.1:{port}/v1")
}

/// Where engines are recorded: `STATE/engines/PORT.json`.
#[derive(Debug, Clone)]
pub(crate) struct Records {
    pub(crate) dir: PathBuf,
}

impl Records {
    fn path(&self, port: u16) -> PathBuf {
        self.dir.join(format!("{port}.json"))
    }

    pub(crate) fn write(&self, record: &EngineRecord) -> Result<(), EngineError> {
        fs::create_dir_all(&self.dir).map_err(|error| EngineError::io(&self.dir, error))?;
        let path = self.path(record.port);
        let temporary = path.with_extension("json.new");
        let text = serde_json::to_vec_pretty(record).unwrap_or_default();
        fs::write(&temporary, text)
            .and_then(|()| fs::rename(&temporary, &path))
            .map_err(|error| EngineError::io(&path, error))
    }

    pub(crate) fn remove(&self, record: &EngineRecord) {
        // Only our own record: another engine may have been recorded on the port since.
        if self.read(record.port).as_ref() == Some(record) {
            let _ = fs::remove_file(self.path(record.port));
        }
    }

    fn read(&self, port: u16) -> Option<EngineRecord> {
        let text = fs::read(self.path(port)).ok()?;
        serde_json::from_slice(&text).ok()
    }

    /// The records whose process is alive, by port; the others (stale, unreadable) are removed.
    pub(crate) fn live(&self) -> Vec<EngineRecord> {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut live = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|extension| extension != "json") {
                continue;
            }
            let record = fs::read(&path)
                .ok()
                .and_then(|text| serde_json::from_slice::<EngineRecord>(&text).ok());
            match record {
                Some(record) if record.is_running() => live.push(record),
                Some(record) => {
                    tracing::warn!(
                        "removed the stale engine record {}: process {} is no longer the engine started on port {} (it ended; its pid may belong to another process now)",
                        path.display(),
                        record.pid,
                        record.port
                    );
                    let _ = fs::remove_file(&path);
                }
                None => {
                    tracing::warn!("removed the unreadable engine record {}", path.display());
                    let _ = fs::remove_file(&path);
                }
            }
        }
        live.sort_by_key(|record| record.port);
        live
    }
}

/// What identifies process `pid` for as long as it lives, so that a reused pid is told apart:
/// on Linux `BOOT:START`, the boot's id and the process's start time (clock ticks after boot,
/// from `/proc/PID/stat`, set when it forked and kept across `exec`, so an engine launched
/// through `env` keeps it); `None` elsewhere or when `/proc` does not say.
pub(crate) fn process_identity(pid: u32) -> Option<String> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let boot = fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold anything: fields are counted
    // after its last `)`, from field 3; the start time is field 22.
    let (_, fields) = stat.rsplit_once(')')?;
    let start = fields.split_whitespace().nth(22 - 3)?;
    Some(format!("{}:{start}", boot.trim()))
}

/// Asks engine `pid` and every process of its group to end (SIGTERM), then forces them
/// (SIGKILL) after `grace`; waits until it is gone.
pub(crate) fn terminate(pid: u32, port: u16, grace: Duration) -> Result<(), EngineError> {
    use skillful_process::{Signal, signal_group};
    let stop_error = |reason: String| EngineError::Stop { pid, port, reason };
    match signal_group(pid, Signal::Terminate) {
        Ok(true) => {}
        Ok(false) => return Ok(()),
        Err(error) => return Err(stop_error(error.to_string())),
    }
    let deadline = Instant::now() + grace;
    while process_exists(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    // Whatever is left of the group: the engine if it ignored SIGTERM, and what it started.
    let _ = signal_group(pid, Signal::Kill);
    let deadline = Instant::now() + Duration::from_secs(5);
    while process_exists(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    if process_exists(pid) {
        return Err(stop_error("it is still running".to_owned()));
    }
    Ok(())
}

/// Stops a child of this process with its process group: SIGTERM, then SIGKILL after `grace`;
/// reaps it.
pub(crate) fn stop_child(child: &mut Child, grace: Duration) {
    #[cfg(unix)]
    {
        use skillful_process::{Signal, signal_group};
        if matches!(child.try_wait(), Ok(None)) {
            // The child is not yet reaped, so its pid (its group's id) is still its own.
            let _ = signal_group(child.id(), Signal::Terminate);
        }
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if !matches!(child.try_wait(), Ok(None)) {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        // Whatever is left of the group: the child if it ignored SIGTERM, and what it started.
        let _ = signal_group(child.id(), Signal::Kill);
    }
    #[cfg(not(unix))]
    let _ = grace;
    let _ = child.kill();
    let _ = child.wait();
}

/// The owners (uids) of the sockets listening on `port` of a loopback or unspecified address,
/// as Linux's `/proc/net/tcp` and `/proc/net/tcp6` list them (a socket's owner is the user
/// whose process created it); empty elsewhere.
pub(crate) fn listener_owners(port: u16) -> Vec<u32> {
    let mut owners = Vec::new();
    if !cfg!(target_os = "linux") {
        return owners;
    }
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (Some(local), Some(state), Some(uid)) =
                (fields.get(1), fields.get(3), fields.get(7))
            else {
                continue;
            };
            let Some((address, hex_port)) = local.split_once(':') else {
                continue;
            };
            let listening = *state == "0A";
            let here = u16::from_str_radix(hex_port, 16) == Ok(port);
            // Loopback (127.0.0.0/8, ::1, ::ffff:127.x) or any address (all zeros); the kernel
            // writes each 32-bit word in host byte order.
            let local_or_any = address.bytes().all(|b| b == b'0')
                || (address.len() == 8 && address.ends_with("7F"))
                || address == "00000000000000000000000001000000"
                || (address.len() == 32
                    && address.starts_with("0000000000000000FFFF0000")
                    && address.ends_with("7F"));
            if listening
                && here
                && local_or_any
                && let Ok(uid) = uid.parse()
            {
                owners.push(uid);
            }
        }
    }
    owners
}

/// A port of 127.0.0.1 that nothing listens on right now.
pub(crate) fn free_port() -> Result<u16, EngineError> {
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))
        .map_err(|error| EngineError::io("127.0.0.1:0", error))?;
    listener
        .local_addr()
        .map(|address| address.port())
        .map_err(|error| EngineError::io("127.0.0.1:0", error))
}

/// What answers at a URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Probe {
    /// Nothing listens.
    Nothing,
    /// An HTTP server answered with this status.
    Http {
        /// The status.
        status: u16,
        /// Its `Server` header.
        server: String,
    },
    /// Something listens but gave no HTTP answer in time.
    Other,
}

impl Probe {
    pub(crate) fn describe(&self) -> String {
        match self {
            Probe::Http { status, server } if server.is_empty() => {
                format!("an HTTP server answers {status}")
            }
            Probe::Http { status, server } => format!("`{server}` answers HTTP {status}"),
            Probe::Nothing | Probe::Other => "something listens there".to_owned(),
        }
    }
}

/// Sends `GET url` and says what answered.
pub(crate) async fn probe(url: &str) -> Probe {
    let http = skillful_http::client_builder().ok().and_then(|builder| {
        builder
            .connect_timeout(Duration::from_secs(2))
            .timeout(Duration::from_secs(5))
            .build()
            .ok()
    });
    let Some(http) = http else {
        return Probe::Other;
    };
    match http.get(url).send().await {
        Ok(response) => Probe::Http {
            status: response.status().as_u16(),
            server: response
                .headers()
                .get(reqwest::header::SERVER)
                .and_then(|value| value.to_str().ok())
                .unwrap_or_default()
                .to_owned(),
        },
        Err(error) if error.is_connect() => Probe::Nothing,
        Err(_) => Probe::Other,
    }
}

/// The engine on `port` answers `/health` with 200 (it does 503 while the model loads).
pub(crate) async fn healthy(port: u16) -> bool {
    matches!(
        probe(&format!("http://127.0.0.1:{port}/health")).await,
        Probe::Http { status: 200, .. }
    )
}

/// What to run: the real engine, or a stand-in program.
#[derive(Debug, Clone)]
pub(crate) enum Launch {
    /// `PYTHON -c SERVE_PY MODEL PORT TEMPLATE THREADS`.
    Python { python: PathBuf, model: PathBuf },
    /// `PROGRAM PORT MODEL_NAME TEMPLATE`.
    StandIn { program: PathBuf, model: String },
}

/// Spawns the engine on `port` as a child that outlives its starter
/// ([`skillful_process::detached_command`]: exactly `environment`, stdin closed, a process group
/// of its own, so a Ctrl-C at the terminal reaches the command, which stops the engine itself,
/// and none of this process's inherited descriptors), its output going to `log`.
pub(crate) fn spawn(
    launch: &Launch,
    port: u16,
    template: Option<&Path>,
    log: &Path,
    environment: &[(std::ffi::OsString, std::ffi::OsString)],
) -> Result<Child, EngineError> {
    let template = template.map(Path::as_os_str).unwrap_or_default();
    let (program, mut command) = match launch {
        Launch::Python { python, model } => {
            let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
            let mut command = skillful_process::detached_command(python, environment);
            command
                .args(["-c", SERVE_PY])
                .arg(model)
                .arg(port.to_string())
                .arg(template)
                .arg(threads.to_string());
            (python, command)
        }
        Launch::StandIn { program, model } => {
            let mut command = skillful_process::detached_command(program, environment);
            command.arg(port.to_string()).arg(model).arg(template);
            (program, command)
        }
    };
    let log_file = fs::File::create(log).map_err(|error| EngineError::io(log, error))?;
    let log_copy = log_file
        .try_clone()
        .map_err(|error| EngineError::io(log, error))?;
    command.stdout(log_copy).stderr(log_file);
    command.spawn().map_err(|error| EngineError::Spawn {
        program: program.clone(),
        source: error,
    })
}

/// How much of the end of an engine's log is read for its last lines.
const TAIL_BYTES: u64 = 64 * 1024;

/// The last lines of a log, read from at most its last [`TAIL_BYTES`] (the engine's output is
/// read with a byte bound, as every child's is).
pub(crate) fn tail(log: &Path) -> String {
    use std::io::{Read, Seek, SeekFrom};
    let mut text = Vec::new();
    if let Ok(mut file) = fs::File::open(log) {
        let length = file.metadata().map(|metadata| metadata.len()).unwrap_or(0);
        let _ = file.seek(SeekFrom::Start(length.saturating_sub(TAIL_BYTES)));
        let _ = file.take(TAIL_BYTES).read_to_end(&mut text);
    }
    let text = String::from_utf8_lossy(&text);
    let lines: Vec<&str> = text.lines().collect();
    // As the engine wrote them: whoever shows them escapes them (the CLI's terminal writer).
    lines[lines.len().saturating_sub(20)..].join("\n")
}
