//! `skills serve --http` under load, against the official Python MCP SDK serving the same files.
//!
//! ```sh
//! cargo build --release -p skillful-cli
//! cargo bench -p skillful-mcp --bench serve_load -- [--clients 16] [--seconds 10] [--skills 20]
//! ```
//!
//! Writes a skills tree (`--skills` skills, each a 4 KiB `SKILL.md`, three references and a
//! script, as `/work/shared/bench/make_corpus.py` writes them), starts `skills serve --http` on
//! it (the release binary next to this benchmark, or `--skills-bin PATH`) and
//! `benches/python_resources_server.py` (the Python SDK's `MCPServer` with every file as a
//! resource), and drives each with the same client: `--clients` concurrent MCP sessions over
//! streamable HTTP on 127.0.0.1 (an `initialize` session, 2025-11-25, each on its own
//! connection), each alternating a listing and a `resources/read` of the next file, for
//! `--seconds` after a warm-up. The listing is `skills/list` on our server (every skill with
//! its manifest of digests) and `resources/list` on the Python server (every file), which has
//! no `skills/list`; our `resources/list` is measured too. Every answer is checked (a result,
//! not an error, with every entry). Prints one JSON object per run: requests/s, p50/p99/max
//! latency in ms, errors, the CPU time the server used per request and the share of a core the
//! server and the driver used (from `/proc`, so robust to a shared machine), and the load
//! average before and after.
//!
//! `--url URL [--list METHOD]` drives a server already running (to profile it) with the same
//! corpus served by it (`make_corpus.py DIR --skills 20`), alternating METHOD (default
//! `skills/list`) and reads.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const PYTHON_SERVER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/benches/python_resources_server.py"
);
const PROTOCOL: &str = "2025-11-25";

struct Options {
    clients: usize,
    seconds: u64,
    warmup: u64,
    skills: usize,
    skills_bin: PathBuf,
    only: Option<String>,
    /// A server already running (for profiling it): driven alone, with `list`.
    url: Option<String>,
    list: String,
}

fn options() -> Options {
    let mut options = Options {
        clients: 16,
        seconds: 10,
        warmup: 2,
        skills: 20,
        skills_bin: std::env::current_exe()
            .ok()
            .and_then(|exe| Some(exe.parent()?.parent()?.join("skills")))
            .unwrap_or_else(|| PathBuf::from("skills")),
        only: None,
        url: None,
        list: "skills/list".into(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{arg} needs a value"));
        match arg.as_str() {
            "--clients" => options.clients = value().parse().expect("--clients N"),
            "--seconds" => options.seconds = value().parse().expect("--seconds S"),
            "--warmup" => options.warmup = value().parse().expect("--warmup S"),
            "--skills" => options.skills = value().parse().expect("--skills N"),
            "--skills-bin" => options.skills_bin = PathBuf::from(value()),
            "--only" => options.only = Some(value()),
            "--url" => options.url = Some(value()),
            "--list" => options.list = value(),
            // What cargo passes to every benchmark.
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    options
}

/// The corpus of `make_corpus.py`: `skills` skills, each with a 4 KiB body, three references
/// and one script. Returns the URIs of every file.
fn write_corpus(root: &Path, skills: usize) -> Vec<String> {
    let para = "Follow the steps in order. Check the inputs, run the script, and report the result with units. Do not guess a factor that the table does not list.\n";
    let body = format!("## Usage\n{}", para.repeat(4 * 1024 / para.len()));
    let mut uris = Vec::new();
    for i in 0..skills {
        let name = format!("skill-{i:05}");
        let dir = root.join(&name);
        std::fs::create_dir_all(dir.join("references")).unwrap();
        std::fs::create_dir_all(dir.join("scripts")).unwrap();
        let skill_md = format!(
            "---\nname: {name}\ndescription: \"Skill number {i}: converts, checks and reports values for domain {}.\"\nlicense: Apache-2.0\ncompatibility: >\n  Needs python3 on PATH.\n  Works offline.\nmetadata:\n  version: \"1.{}.0\"\n  owner: bench\n---\n{body}",
            i % 97,
            i % 10
        );
        std::fs::write(dir.join("SKILL.md"), skill_md).unwrap();
        uris.push(format!("skill://{name}/SKILL.md"));
        for r in 0..3 {
            let text = format!("# Reference {r} of {name}\n{}", para.repeat(20));
            std::fs::write(dir.join(format!("references/ref-{r}.md")), text).unwrap();
            uris.push(format!("skill://{name}/references/ref-{r}.md"));
        }
        std::fs::write(
            dir.join("scripts/run_0.py"),
            "import json, sys\nprint(json.dumps({'args': sys.argv[1:]}))\n",
        )
        .unwrap();
        uris.push(format!("skill://{name}/scripts/run_0.py"));
    }
    uris
}

/// A server process, killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_ours(bin: &Path, root: &Path) -> Server {
    let mut child = Command::new(bin)
        .args(["serve", "--http", "127.0.0.1:0"])
        .arg(root)
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| {
            panic!(
                "cannot start {} ({error}); build it first: cargo build --release -p skillful-cli",
                bin.display()
            )
        });
    let url =
        skillful_test_support::announced(child.stderr.take().unwrap(), "skills: serving MCP at ");
    Server { child, url }
}

async fn start_python(root: &Path) -> Server {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new("python3")
        .arg(PYTHON_SERVER)
        .arg(root)
        .arg(port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3 with the `mcp` package runs (pip install mcp)");
    let deadline = Instant::now() + Duration::from_secs(30);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(Instant::now() < deadline, "the Python server did not start");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Server {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}

/// One MCP session over streamable HTTP.
struct Session {
    http: reqwest::Client,
    url: String,
    id: Option<String>,
    next: u64,
}

impl Session {
    async fn open(url: &str) -> Result<Self, String> {
        let http = skillful_http::client_builder()
            .map_err(|error| error.to_string())?
            .build()
            .map_err(|error| error.to_string())?;
        let mut session = Self {
            http,
            url: url.to_owned(),
            id: None,
            next: 0,
        };
        session
            .call(
                "initialize",
                json!({"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "serve_load", "version": "1"}}),
            )
            .await?;
        session
            .post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await?;
        Ok(session)
    }

    async fn post(&mut self, body: Value) -> Result<(reqwest::header::HeaderMap, String), String> {
        let mut request = self
            .http
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-protocol-version", PROTOCOL)
            .body(body.to_string());
        if let Some(id) = &self.id {
            request = request.header("mcp-session-id", id);
        }
        let response = request.send().await.map_err(|error| error.to_string())?;
        let status = response.status();
        let headers = response.headers().clone();
        let text = response.text().await.map_err(|error| error.to_string())?;
        if !status.is_success() {
            return Err(format!("HTTP {status}: {text}"));
        }
        Ok((headers, text))
    }

    /// Sends a request and returns its result (an SSE stream or a JSON body), read without
    /// building it, so that the driver costs little next to the server.
    async fn call(&mut self, method: &str, params: Value) -> Result<Outcome, String> {
        self.next += 1;
        let id = self.next;
        let (headers, text) = self
            .post(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await?;
        if self.id.is_none()
            && let Some(session) = headers.get("mcp-session-id")
        {
            self.id = Some(session.to_str().map_err(|e| e.to_string())?.to_owned());
        }
        let message = if text.trim_start().starts_with('{') {
            serde_json::from_str::<Message>(&text).map_err(|e| e.to_string())?
        } else {
            text.lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .filter_map(|data| serde_json::from_str::<Message>(data.trim()).ok())
                .find(|message| message.id == Some(id))
                .ok_or_else(|| format!("no answer to {method} in: {text}"))?
        };
        match (message.result, message.error) {
            (Some(result), None) => Ok(result),
            _ => Err(format!("{method} failed: {text}")),
        }
    }
}

/// A JSON-RPC answer, its result's lists counted but not kept.
#[derive(serde::Deserialize)]
struct Message {
    id: Option<u64>,
    result: Option<Outcome>,
    error: Option<serde::de::IgnoredAny>,
}

#[derive(serde::Deserialize)]
struct Outcome {
    #[serde(default)]
    skills: Vec<serde::de::IgnoredAny>,
    #[serde(default)]
    resources: Vec<serde::de::IgnoredAny>,
    #[serde(default)]
    contents: Vec<serde::de::IgnoredAny>,
}

/// CPU time a process has used so far (user and system), from `/proc/PID/stat`, in clock ticks
/// of 10 ms (Linux's `USER_HZ`); `None` elsewhere.
fn cpu_ticks(pid: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name (which may hold spaces) in parentheses.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

/// What one run measured.
struct Run {
    latencies_us: Vec<u64>,
    errors: u64,
    elapsed: Duration,
    /// CPU time the server and this driver used during the measured window, in 10 ms ticks.
    server_cpu: Option<u64>,
    driver_cpu: Option<u64>,
}

/// `clients` sessions alternating `list_method` and reads of `uris` for `seconds` after the
/// warm-up.
async fn drive(
    url: &str,
    server_pid: Option<u32>,
    list_method: &str,
    uris: Arc<Vec<String>>,
    options: &Options,
    expected_entries: usize,
) -> Run {
    let start = Instant::now() + Duration::from_secs(options.warmup);
    let end = start + Duration::from_secs(options.seconds);
    let mut tasks = Vec::new();
    for client in 0..options.clients {
        let (url, uris, list_method) = (url.to_owned(), uris.clone(), list_method.to_owned());
        tasks.push(tokio::spawn(async move {
            let mut session = Session::open(&url).await.expect("a session opens");
            let mut latencies = Vec::new();
            let mut errors = 0u64;
            let mut next = client * 7;
            let mut listing = true;
            loop {
                let now = Instant::now();
                if now >= end {
                    break;
                }
                let (method, params) = if listing {
                    (list_method.as_str(), json!({}))
                } else {
                    next = (next + 1) % uris.len();
                    ("resources/read", json!({"uri": uris[next]}))
                };
                let result = session.call(method, params).await;
                let took = now.elapsed();
                let ok = match &result {
                    Ok(result) if listing => {
                        result.skills.len().max(result.resources.len()) >= expected_entries
                    }
                    Ok(result) => result.contents.len() == 1,
                    Err(_) => false,
                };
                if now >= start {
                    latencies.push(u64::try_from(took.as_micros()).unwrap_or(u64::MAX));
                    if !ok {
                        errors += 1;
                    }
                }
                listing = !listing;
            }
            (latencies, errors)
        }));
    }
    let server = server_pid.map(|pid| pid.to_string());
    let cpu = || (server.as_deref().and_then(cpu_ticks), cpu_ticks("self"));
    tokio::time::sleep_until(start.into()).await;
    let (server_before, driver_before) = cpu();
    tokio::time::sleep_until(end.into()).await;
    let (server_after, driver_after) = cpu();
    let mut run = Run {
        latencies_us: Vec::new(),
        errors: 0,
        elapsed: Duration::from_secs(options.seconds),
        server_cpu: server_after.zip(server_before).map(|(a, b)| a - b),
        driver_cpu: driver_after.zip(driver_before).map(|(a, b)| a - b),
    };
    for task in tasks {
        let (latencies, errors) = task.await.unwrap();
        run.latencies_us.extend(latencies);
        run.errors += errors;
    }
    run.latencies_us.sort_unstable();
    run
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)] as f64 / 1000.0
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|_| "unknown".into())
}

fn report(server: &str, workload: &str, run: &Run, options: &Options, before: &str) -> Value {
    let requests = run.latencies_us.len();
    json!({
        "server": server,
        "workload": workload,
        "clients": options.clients,
        "skills": options.skills,
        "seconds": options.seconds,
        "requests": requests,
        "errors": run.errors,
        "requests_per_s": (requests as f64 / run.elapsed.as_secs_f64()).round(),
        "p50_ms": percentile(&run.latencies_us, 50.0),
        "p99_ms": percentile(&run.latencies_us, 99.0),
        "max_ms": percentile(&run.latencies_us, 100.0),
        "server_cpu_us_per_request": run.server_cpu.map(|ticks| (ticks * 10_000) as f64 / requests.max(1) as f64).map(f64::round),
        "server_cpu_share_of_one_core": run.server_cpu.map(|ticks| (ticks * 10) as f64 / (run.elapsed.as_millis() as f64)),
        "driver_cpu_share_of_one_core": run.driver_cpu.map(|ticks| (ticks * 10) as f64 / (run.elapsed.as_millis() as f64)),
        "load_average_before": before,
        "load_average_after": load_average(),
    })
}

fn main() {
    let options = options();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let corpus = tempfile::tempdir().unwrap();
        let uris = Arc::new(write_corpus(corpus.path(), options.skills));
        if let Some(url) = &options.url {
            // The server serves its own copy of the same corpus (`make_corpus.py`).
            let before = load_average();
            let run = drive(url, None, &options.list, uris.clone(), &options, 1).await;
            println!("{}", report(url, &options.list, &run, &options, &before));
            return;
        }
        let files = uris.len();
        let wanted = |name: &str| options.only.as_deref().is_none_or(|only| only == name);
        let mut results = Vec::new();
        if wanted("skills") {
            let ours = start_ours(&options.skills_bin, corpus.path());
            for (workload, method, entries) in [
                (
                    "skills/list + resources/read",
                    "skills/list",
                    options.skills,
                ),
                ("resources/list + resources/read", "resources/list", files),
            ] {
                let before = load_average();
                let run = drive(
                    &ours.url,
                    Some(ours.child.id()),
                    method,
                    uris.clone(),
                    &options,
                    entries,
                )
                .await;
                let line = report("skills serve --http", workload, &run, &options, &before);
                println!("{line}");
                results.push(line);
            }
        }
        if wanted("python") {
            let python = start_python(corpus.path()).await;
            let before = load_average();
            let run = drive(
                &python.url,
                Some(python.child.id()),
                "resources/list",
                uris.clone(),
                &options,
                files,
            )
            .await;
            let line = report(
                "python mcp MCPServer",
                "resources/list + resources/read",
                &run,
                &options,
                &before,
            );
            println!("{line}");
            results.push(line);
        }
        if let [ours, _, python] = results.as_slice() {
            let ratio = ours["requests_per_s"].as_f64().unwrap()
                / python["requests_per_s"].as_f64().unwrap();
            println!(
                "{}",
                json!({"throughput_ratio_skills_list_vs_python": (ratio * 10.0).round() / 10.0})
            );
        }
    });
}
