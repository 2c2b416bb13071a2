//! `skills engine` and the no-server fallback of `skills run`/`chat`, with a stand-in engine (a
//! Python program serving an OpenAI-compatible API on 127.0.0.1, named by
//! `SKILLS_ENGINE_COMMAND`) in real processes, and per-test cache and state directories.
// Processes are watched through /proc.

use crate::common::{self, EXAMPLES, text};
use skillful_test_support::free_port;
use skillful_test_support::wait::running;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::Duration;

const FAKE_ENGINE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../engine/tests/fixtures/fake_engine.py"
);
const DEFAULT_ENDPOINT: &str = "http://127.0.0.1:1234/v1";

/// A home of its own: cache, state, and the stand-in's event log.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn events_file(&self) -> PathBuf {
        self.dir.path().join("events")
    }

    /// The stand-in's `started PID` / `request …` / `stopped PID` lines.
    fn events(&self) -> Vec<String> {
        std::fs::read_to_string(self.events_file())
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    fn engine_pid(&self) -> u32 {
        self.events()
            .iter()
            .find_map(|line| line.strip_prefix("started ")?.parse().ok())
            .expect("the stand-in engine started")
    }

    fn records(&self) -> Vec<PathBuf> {
        std::fs::read_dir(self.dir.path().join("state/skillful/engines"))
            .map(|entries| entries.flatten().map(|entry| entry.path()).collect())
            .unwrap_or_default()
    }

    /// `skills ARGS` with this home, the stand-in engine and `extra` environment variables.
    fn command(&self, args: &[&str], extra: &[(&str, &str)]) -> Command {
        let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        let mut command = common::command_with_state(&args, &self.dir.path().join("state"));
        command
            .env("HOME", self.dir.path())
            .env("XDG_CACHE_HOME", self.dir.path().join("cache"))
            .env("SKILLS_ENGINE_COMMAND", FAKE_ENGINE)
            .env("FAKE_ENGINE_EVENTS", self.events_file())
            .env(
                "SKILLS_ENGINE_ALLOW_ENV",
                "FAKE_ENGINE_EVENTS,FAKE_ENGINE_EVENTS_FIFO,FAKE_ENGINE_DELAY,FAKE_ENGINE_FINISH,\
                 FAKE_ENGINE_EXIT",
            );
        for (name, value) in extra {
            command.env(name, value);
        }
        command
    }

    fn skills(&self, args: &[&str], extra: &[(&str, &str)], stdin: &str) -> Output {
        wait_bounded(common::spawn_with(&mut self.command(args, extra), stdin))
    }
}

fn wait_bounded(child: Child) -> Output {
    skillful_test_support::wait::output_within(child, Duration::from_secs(120))
        .expect("skills did not finish within 120 s")
}

/// Whether `python3` runs here (the stand-in engine is a Python program, and the real engine's
/// installation needs it before it reaches the index): when it does not, the test fails under CI
/// and is skipped, saying why, elsewhere (the caller returns).
#[track_caller]
fn python_runs() -> bool {
    skillful_test_support::program_runs(
        "python3",
        "apt install python3: the stand-in engine and the engine's installer are Python",
    )
}

/// Waits (bounded) until `pid` is gone.
fn gone(pid: u32) -> bool {
    skillful_test_support::wait::gone_within(pid, Duration::from_secs(30))
}

/// The fallback is only taken when nothing answers at the default endpoint.
fn assert_default_endpoint_is_free() {
    assert!(
        std::net::TcpStream::connect("127.0.0.1:1234").is_err(),
        "something listens on 127.0.0.1:1234 (LM Studio?): these tests need it free"
    );
}

#[test]
fn run_with_nothing_configured_starts_the_engine_for_the_command_and_stops_it() {
    if !python_runs() {
        return;
    }
    assert_default_endpoint_is_free();
    let home = Home::new();
    let output = home.skills(&["run", "Hello?", "--skills", EXAMPLES], &[], "");
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let answer = stdout.lines().last().unwrap_or_default();
    assert!(
        answer.starts_with("  fake engine on port ")
            && answer.ends_with(" with model qwen2.5-coder-1.5b answers: Hello?"),
        "{stdout}"
    );
    assert!(stdout.starts_with(">> mode: guided (auto"), "{stdout}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "skills: nothing answers at {DEFAULT_ENDPOINT}; started the embedded engine at \
             http://127.0.0.1:"
        )) && stderr.ends_with(
            " (model qwen2.5-coder-1.5b) for this command; it stops when the command ends\n"
        ),
        "{stderr}"
    );
    let pid = home.engine_pid();
    assert!(gone(pid), "the engine stopped with the command");
    assert_eq!(
        home.events(),
        [
            format!("started {pid}"),
            "request max_tokens=1024".to_owned(),
            format!("stopped {pid}")
        ]
    );
    assert!(home.records().is_empty(), "{:?}", home.records());
}

#[test]
fn chat_with_nothing_configured_uses_the_engine_until_it_ends() {
    if !python_runs() {
        return;
    }
    assert_default_endpoint_is_free();
    let home = Home::new();
    let output = home.skills(&["chat", "--skills", EXAMPLES], &[], "Hi\nexit\n");
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(stdout.contains("answers: Hi\n"), "{stdout}");
    let pid = home.engine_pid();
    assert!(gone(pid));
    assert_eq!(home.events().last(), Some(&format!("stopped {pid}")));
}

#[test]
fn a_given_endpoint_that_does_not_answer_stays_an_error() {
    let home = Home::new();
    let endpoint = format!("http://127.0.0.1:{}/v1", free_port());
    for (args, env) in [
        (
            vec![
                "run",
                "Hello?",
                "--skills",
                EXAMPLES,
                "--endpoint",
                &endpoint,
            ],
            vec![],
        ),
        (
            vec!["run", "Hello?", "--skills", EXAMPLES],
            vec![("SKILLS_ENDPOINT", endpoint.as_str())],
        ),
    ] {
        let output = home.skills(&args, &env, "");
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.starts_with(&format!(
                "skills: cannot connect to {endpoint}/chat/completions ("
            )),
            "{stderr}"
        );
        assert!(home.events().is_empty(), "no engine was started");
    }
}

#[test]
fn a_call_that_times_out_is_an_error_naming_the_url_and_the_engine_is_stopped() {
    if !python_runs() {
        return;
    }
    assert_default_endpoint_is_free();
    let home = Home::new();
    let output = home.skills(
        &["run", "Hello?", "--skills", EXAMPLES, "--call-timeout", "1"],
        &[("FAKE_ENGINE_DELAY", "60")],
        "",
    );
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let error = stderr.lines().last().unwrap();
    assert!(
        error.starts_with("skills: no answer from http://127.0.0.1:")
            && error.contains("/v1/chat/completions within 1 s; a slow model: allow it more with --call-timeout SECS"),
        "{stderr}"
    );
    assert!(gone(home.engine_pid()), "the engine stopped on the error");
    assert!(home.records().is_empty());
}

#[test]
fn ctrl_c_stops_the_engine_started_for_the_command() {
    if !python_runs() {
        return;
    }
    assert_default_endpoint_is_free();
    let home = Home::new();
    // The stand-in says each event on this pipe too, as it happens (held open to the end: a
    // stand-in writing to it never waits).
    let mut events = skillful_test_support::wait::Fifo::create(home.dir.path().join("events.fifo"));
    let fifo = events.path().to_str().unwrap().to_owned();
    let child = home
        .command(
            &["run", "Hello?", "--skills", EXAMPLES],
            &[
                ("FAKE_ENGINE_DELAY", "60"),
                ("FAKE_ENGINE_EVENTS_FIFO", &fifo),
            ],
        )
        .spawn()
        .unwrap();
    // Interrupted while the model "generates".
    let request = events.line_within(Duration::from_secs(60), |line| line.starts_with("request"));
    assert!(request.is_some(), "the request never reached the engine");
    let pid = home.engine_pid();
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let output = wait_bounded(child);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(output.status.signal(), Some(2), "ended by the SIGINT");
    assert!(gone(pid), "the engine stopped before the command ended");
    assert_eq!(home.events().last(), Some(&format!("stopped {pid}")));
    assert!(home.records().is_empty());
}

#[test]
fn engine_start_status_stop_and_a_run_that_finds_the_running_engine() {
    if !python_runs() {
        return;
    }
    assert_default_endpoint_is_free();
    let home = Home::new();
    let port = free_port().to_string();
    let endpoint = format!("http://127.0.0.1:{port}/v1");

    let output = home.skills(&["engine", "start", "--port", &port], &[], "");
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let pid = home.engine_pid();
    assert!(
        stdout.starts_with(&format!(
            "engine started: {endpoint} (pid {pid}, model qwen2.5-coder-1.5b, template \
             qwen25-fenced-json)\n"
        )),
        "{stdout}"
    );
    assert!(running(pid), "left running");

    let output = home.skills(&["engine", "status"], &[], "");
    assert!(
        text(&output.stdout).starts_with(&format!(
            "{endpoint} answering (pid {pid}, model qwen2.5-coder-1.5b, template qwen25-fenced-json)\n"
        )),
        "{}",
        text(&output.stdout)
    );

    let output = home.skills(&["engine", "status", "--json"], &[], "");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let status = common::json_of("engine-status", &output);
    assert_eq!(status["engines"][0]["pid"], pid);
    assert_eq!(status["engines"][0]["endpoint"], endpoint.as_str());
    assert_eq!(status["engines"][0]["answering"], true);
    assert_eq!(status["engines"][0]["temporary"], false);

    let output = home.skills(&["run", "Hello?", "--skills", EXAMPLES], &[], "");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stderr),
        format!(
            "skills: nothing answers at {DEFAULT_ENDPOINT}; using the running engine at \
             {endpoint} (model qwen2.5-coder-1.5b, pid {pid})\n"
        )
    );
    assert!(text(&output.stdout).contains(&format!("fake engine on port {port}")));
    assert!(running(pid), "a running engine is left running");

    let output = home.skills(&["engine", "stop"], &[], "");
    assert_eq!(
        text(&output.stdout),
        format!("stopped the engine at {endpoint} (pid {pid})\n")
    );
    assert!(gone(pid));
    let output = home.skills(&["engine", "status"], &[], "");
    assert_eq!(text(&output.stdout), "no engine is running\n");
    let output = home.skills(&["engine", "status", "--json"], &[], "");
    assert_eq!(
        common::json_of("engine-status", &output)["engines"],
        serde_json::json!([])
    );
    let output = home.skills(&["engine", "stop"], &[], "");
    assert_eq!(text(&output.stdout), "no engine is running\n");
}

#[test]
fn engine_models_lists_the_catalogue_with_size_licence_and_whether_installed() {
    let home = Home::new();
    let output = home.skills(&["engine", "models"], &[], "");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("NAME "), "{stdout}");
    assert!(
        lines[1].starts_with("qwen2.5-coder-1.5b  1118 MB  Apache-2.0  no "),
        "{stdout}"
    );
    assert!(lines[1].ends_with("(the default)"), "{stdout}");
    assert!(
        lines[2].starts_with("qwen2.5-coder-0.5b   492 MB  Apache-2.0  no "),
        "{stdout}"
    );
    let cache = home.dir.path().join("cache/skillful/engine");
    assert_eq!(lines[3], format!("installed into {}", cache.display()));
    assert!(!Path::new(&cache).exists(), "listing installs nothing");

    let output = home.skills(&["engine", "models", "--json"], &[], "");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let models = common::json_of("engine-models", &output);
    assert_eq!(models["models"][0]["name"], "qwen2.5-coder-1.5b");
    assert_eq!(models["models"][0]["default"], true);
    assert_eq!(models["models"][0]["installed"], false);
    assert_eq!(models["cache"], cache.display().to_string());
    assert!(!Path::new(&cache).exists(), "listing installs nothing");
}

#[test]
fn an_unknown_model_lists_the_known_ones() {
    let home = Home::new();
    let output = home.skills(&["engine", "start", "--model", "gpt-5"], &[], "");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        "skills: no model named `gpt-5`; the models are: qwen2.5-coder-1.5b, qwen2.5-coder-0.5b\n"
    );
}

#[test]
fn without_python_the_error_says_what_to_install() {
    assert_default_endpoint_is_free();
    let home = Home::new();
    let empty = home.dir.path().join("empty-path");
    std::fs::create_dir(&empty).unwrap();
    let mut command = home.command(&["run", "Hello?", "--skills", EXAMPLES], &[]);
    command
        .env_remove("SKILLS_ENGINE_COMMAND")
        .env("PATH", &empty);
    let output = wait_bounded(command.spawn().unwrap());
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "skills: nothing answers at {DEFAULT_ENDPOINT} and the embedded engine cannot start \
             (or pass --endpoint URL): the embedded engine needs Python 3.10 or newer with venv, \
             and `python3` was not found; install Python 3 (e.g. `apt install python3 \
             python3-venv`, or python.org), or run any OpenAI-compatible server and pass \
             --endpoint URL\n"
        )
    );
}

#[test]
fn without_the_package_index_the_error_says_what_to_check() {
    if !python_runs() {
        return;
    }
    assert_default_endpoint_is_free();
    let home = Home::new();
    let index = format!("http://127.0.0.1:{}/simple", free_port());
    let mut command = home.command(
        &["engine", "start", "--port", &free_port().to_string()],
        &[("PIP_INDEX_URL", index.as_str())],
    );
    command.env_remove("SKILLS_ENGINE_COMMAND");
    let output = wait_bounded(command.spawn().unwrap());
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("skills: cannot get xllamacpp-2026.10.11549-")
            && stderr.contains(&format!(" from the package index {index}/xllamacpp/: "))
            && stderr.ends_with(
                "the embedded engine and its models are installed from PyPI: check the \
                 network, or set PIP_INDEX_URL to a mirror that serves PyPI's JSON simple API\n"
            ),
        "{stderr}"
    );
}
