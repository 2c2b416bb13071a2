//! The runner on real processes: interpreters, arguments, environment, limits.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{PRINT_ARGV, request, script};
use serde_json::json;
use skillful_scripts::{
    Interpreter, ProcessRunner, RunError, RunFailure, SandboxMode, ScriptOutput,
};

/// A runner without the sandbox: these tests are about interpreters, arguments, environment,
/// output and the lifetime of processes (`tests/sandbox.rs` tests the sandbox).
fn runner() -> ProcessRunner {
    ProcessRunner::builder()
        .sandbox(SandboxMode::Off)
        .build()
        .unwrap()
}

/// Runs the script at `path` with `arguments`, without the sandbox.
async fn run(path: &Path, arguments: serde_json::Value) -> Result<ScriptOutput, RunError> {
    runner().execute(&request(path, arguments)).await
}

/// Runs a script `name` holding `text`, written in a new temporary directory, with `runner` and
/// no arguments.
async fn run_new(runner: &ProcessRunner, name: &str, text: &str) -> Result<ScriptOutput, RunError> {
    let dir = tempfile::tempdir().unwrap();
    let path = script(dir.path(), name, text, false);
    runner.execute(&request(&path, json!(null))).await
}

/// The command line the script received, as it printed it.
async fn received_argv(arguments: serde_json::Value) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let path = script(dir.path(), "argv.py", PRINT_ARGV, false);
    let output = run(&path, arguments).await.unwrap();
    assert!(output.succeeded(), "{output:?}");
    serde_json::from_str(&output.stdout).unwrap()
}

#[tokio::test]
async fn interpreters_are_chosen_by_extension() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    if !skillful_test_support::program_runs("node", "install Node.js, e.g. apt install nodejs") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "a.py",
            "import sys\nprint('python', sys.version_info[0])\n",
            "python 3",
        ),
        (
            "b.sh",
            "echo \"bash ${BASH_VERSINFO[0]:+yes}\"\n",
            "bash yes",
        ),
        (
            "c.js",
            "console.log('node', typeof process.versions.node)\n",
            "node string",
        ),
        (
            "D.PY",
            "print('upper case extension')\n",
            "upper case extension",
        ),
    ];
    for (name, text, expected) in cases {
        let path = script(dir.path(), name, text, false);
        let output = run(&path, json!(null)).await.unwrap();
        assert_eq!(output.stdout.trim_end(), expected, "{name}: {output:?}");
        assert!(output.succeeded());
    }
}

#[tokio::test]
async fn an_interpreter_falls_back_to_its_next_program_when_the_first_is_not_installed() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let runner = ProcessRunner::builder()
        .interpreter(
            ".py",
            Interpreter::new("python-does-not-exist").or("python3"),
        )
        .build()
        .unwrap();
    let output = run_new(&runner, "a.py", "print('ran')\n").await.unwrap();
    assert_eq!(output.stdout, "ran\n");
}

#[tokio::test]
async fn a_missing_interpreter_is_an_error_naming_it() {
    let runner = ProcessRunner::builder()
        .interpreter(
            ".py",
            Interpreter::new("python-does-not-exist").or("python-neither"),
        )
        .build()
        .unwrap();
    let error = run_new(&runner, "a.py", "print('never')\n")
        .await
        .unwrap_err();
    assert_eq!(error.script, "a.py");
    match &error.reason {
        RunFailure::InterpreterNotFound { extension, tried } => {
            assert_eq!(extension, ".py");
            assert_eq!(tried, &["python-does-not-exist", "python-neither"]);
        }
        other => panic!("unexpected failure: {other:?}"),
    }
    assert_eq!(
        error.to_string(),
        "cannot run script 'a.py': its interpreter `python-does-not-exist` (also tried `python-neither`) is not installed; install it, or configure another interpreter for `.py` files on the runner"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn a_file_without_an_interpreter_runs_only_if_it_is_executable() {
    let dir = tempfile::tempdir().unwrap();
    let text = "#!/bin/sh\necho \"direct $1\"\n";
    let plain = script(dir.path(), "tool", text, false);
    let error = run(&plain, json!(["x"])).await.unwrap_err();
    assert!(
        matches!(error.reason, RunFailure::NotExecutable { .. }),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .contains("is not an executable file; make it executable")
    );

    let executable = script(dir.path(), "tool-x", text, true);
    let output = run(&executable, json!(["x"])).await.unwrap();
    assert_eq!(output.stdout, "direct x\n");

    // Without an interpreter for `.sh`, a non-executable shell script is refused too.
    let runner = ProcessRunner::builder()
        .without_interpreter(".SH")
        .build()
        .unwrap();
    let shell = script(dir.path(), "s.sh", text, false);
    let error = runner
        .execute(&request(&shell, json!(null)))
        .await
        .unwrap_err();
    assert!(
        matches!(error.reason, RunFailure::NotExecutable { .. }),
        "{error}"
    );
}

#[tokio::test]
async fn an_array_is_passed_verbatim_including_unicode_and_shell_metacharacters() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let arguments = [
        "$(rm -rf /)",
        "; echo pwned",
        "| cat /etc/passwd",
        "`id`",
        "&& exit 1",
        "> /tmp/out",
        "*",
        "$HOME",
        "it's \"quoted\"",
        "naïve 日本語 🚀",
        "",
        "--flag=value with spaces",
    ];
    assert_eq!(received_argv(json!(arguments)).await, arguments);
}

#[tokio::test]
async fn an_object_becomes_options_with_flags_and_numbers_as_json_text() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let received = received_argv(json!({
        "value": 26.2,
        "factor": 1.609344,
        "label": "$(whoami); `id`",
        "verbose": true,
        "dry-run": false,
        "count": 3
    }))
    .await;
    assert_eq!(
        received,
        [
            "--value",
            "26.2",
            "--factor",
            "1.609344",
            "--label",
            "$(whoami); `id`",
            "--verbose",
            "--count",
            "3"
        ]
    );
}

#[tokio::test]
async fn arguments_that_make_no_command_line_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let path = script(
        dir.path(),
        "touch.sh",
        &format!("touch '{}'\n", marker.display()),
        false,
    );
    for arguments in [json!("--value 3"), json!(7), json!({"list": [1, 2]})] {
        let error = run(&path, arguments.clone()).await.unwrap_err();
        assert!(
            matches!(error.reason, RunFailure::InvalidArguments(_)),
            "{arguments}: {error}"
        );
    }
    assert!(!marker.exists());
}

#[tokio::test]
async fn the_script_runs_in_its_directory_with_stdin_closed() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = script(
        dir.path(),
        "scripts/where.py",
        "import os, sys\nprint(os.getcwd())\nprint(repr(sys.stdin.read()))\n",
        false,
    );
    let output = run(&path, json!(null)).await.unwrap();
    let lines: Vec<&str> = output.stdout.lines().collect();
    assert_eq!(
        Path::new(lines[0]).canonicalize().unwrap(),
        path.parent().unwrap().canonicalize().unwrap()
    );
    assert_eq!(lines[1], "''");
}

#[tokio::test]
async fn a_working_directory_is_where_the_script_runs_and_writes() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let skill = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let path = script(
        skill.path(),
        "scripts/write.py",
        "import os\nopen('out.txt', 'w').write('made here')\nprint(os.getcwd())\n",
        false,
    );
    let runner = ProcessRunner::builder()
        .working_dir(work.path())
        .build()
        .unwrap();
    let output = runner.execute(&request(&path, json!(null))).await.unwrap();
    assert!(output.succeeded(), "{output:?}");
    assert_eq!(
        Path::new(output.stdout.trim()).canonicalize().unwrap(),
        work.path().canonicalize().unwrap()
    );
    assert_eq!(
        std::fs::read_to_string(work.path().join("out.txt")).unwrap(),
        "made here"
    );
    assert!(!path.parent().unwrap().join("out.txt").exists());
}

#[tokio::test]
async fn stderr_and_a_non_zero_exit_code_are_reported_and_rendered() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let text = "import sys\nprint('partial')\nprint('bad input', file=sys.stderr)\nsys.exit(3)\n";
    let output = run_new(&runner(), "fail.py", text).await.unwrap();
    assert_eq!(output.exit_code, Some(3));
    assert_eq!(output.stderr, "bad input\n");
    assert!(!output.succeeded() && !output.timed_out && !output.truncated);
    assert_eq!(
        output.render(),
        "partial\n[stderr]\nbad input\n[exit code: 3]"
    );
}

#[tokio::test]
async fn only_the_allowed_and_added_variables_reach_the_script() {
    let host_path = std::env::var("PATH").unwrap();
    let runner = ProcessRunner::builder()
        .host_env([
            ("OPENAI_API_KEY", "sk-host-secret"),
            ("AWS_SECRET_ACCESS_KEY", "aws-secret"),
            ("PATH", host_path.as_str()),
            ("LANG", "C.UTF-8"),
            ("PYTHONPATH", "/opt/lib"),
        ])
        .allow_env("PYTHONPATH")
        .env("SKILLS_SANDBOX", "1")
        .build()
        .unwrap();
    let output = run_new(&runner, "env.sh", "env\n").await.unwrap();
    let seen: std::collections::HashMap<&str, &str> = output
        .stdout
        .lines()
        .filter_map(|line| line.split_once('='))
        .collect();
    assert!(!seen.contains_key("OPENAI_API_KEY"), "{seen:?}");
    assert!(!seen.contains_key("AWS_SECRET_ACCESS_KEY"), "{seen:?}");
    assert_eq!(seen["PATH"], host_path.as_str());
    assert_eq!(seen["LANG"], "C.UTF-8");
    assert_eq!(seen["PYTHONPATH"], "/opt/lib");
    assert_eq!(seen["SKILLS_SANDBOX"], "1");
}

#[tokio::test]
async fn output_past_the_limit_is_read_to_the_end_and_capped() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let text = "import sys\nsys.stdout.write('x' * (10 * 1024 * 1024))\nsys.stderr.write('e' * 100000)\nprint('done', file=sys.stderr)\n";
    let output = run_new(&runner(), "loud.py", text).await.unwrap();
    assert!(output.succeeded(), "{}", output.render().len());
    assert!(output.truncated);
    assert_eq!(
        output.stdout.len(),
        skillful_scripts::DEFAULT_MAX_OUTPUT_BYTES
    );
    assert_eq!(
        output.stderr.len(),
        skillful_scripts::DEFAULT_MAX_OUTPUT_BYTES
    );
    assert!(output.stdout.bytes().all(|byte| byte == b'x'));
    let rendered = output.render();
    assert!(rendered.ends_with(
        "[output truncated: the script printed more than the runner's limit; only the beginning of each stream is shown]"
    ));
    assert!(rendered.len() < 3 * skillful_scripts::DEFAULT_MAX_OUTPUT_BYTES);
}

#[tokio::test]
async fn a_configured_output_limit_applies_to_each_stream() {
    let runner = ProcessRunner::builder()
        .max_output_bytes(5)
        .build()
        .unwrap();
    let text = "printf 'abcdefgh'\nprintf 'ij' >&2\n";
    let output = run_new(&runner, "five.sh", text).await.unwrap();
    assert_eq!(
        (output.stdout.as_str(), output.stderr.as_str()),
        ("abcde", "ij")
    );
    assert!(output.truncated);
}

/// Waits (a few seconds at most) for `pid` to die, since a signal is delivered asynchronously.
#[cfg(target_os = "linux")]
async fn gone(pid: u32) -> bool {
    tokio::task::spawn_blocking(move || {
        skillful_test_support::wait::gone_within(pid, Duration::from_secs(5))
    })
    .await
    .unwrap()
}

/// A shell script in `dir` that starts `sleep 300` in the background, writes its pid to the
/// returned pid file, then runs `rest`.
#[cfg(target_os = "linux")]
fn forking_script(dir: &Path, rest: &str) -> (PathBuf, PathBuf) {
    let pid_file = dir.join("child.pid");
    let text = format!("sleep 300 &\necho $! > '{}'\n{rest}", pid_file.display());
    (script(dir, "fork.sh", &text, false), pid_file)
}

/// Asserts that the child whose pid is in `pid_file` is gone.
#[cfg(target_os = "linux")]
async fn assert_child_gone(pid_file: &Path) {
    let child: u32 = std::fs::read_to_string(pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(gone(child).await, "the script's child {child} still runs");
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_script_past_its_timeout_is_killed_with_its_children() {
    let dir = tempfile::tempdir().unwrap();
    let (path, pid_file) = forking_script(dir.path(), "echo started\nsleep 300\necho never\n");
    let runner = ProcessRunner::builder()
        .sandbox(SandboxMode::Off)
        .timeout(Duration::from_millis(1500))
        .build()
        .unwrap();
    let output = runner.execute(&request(&path, json!(null))).await.unwrap();
    assert!(output.timed_out);
    assert_eq!(output.exit_code, None);
    assert_eq!(output.stdout, "started\n");
    assert!(!output.succeeded());
    assert!(output.render().contains("[timed out after"));
    assert_child_gone(&pid_file).await;
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn what_a_script_leaves_running_is_killed_when_it_exits() {
    let dir = tempfile::tempdir().unwrap();
    // The background `sleep` holds the output pipe open: without the group kill the run would
    // last until the timeout.
    let (path, pid_file) = forking_script(dir.path(), "echo done\n");
    let output = run(&path, json!(null)).await.unwrap();
    assert!(output.succeeded(), "{output:?}");
    assert_eq!(output.stdout, "done\n");
    assert_child_gone(&pid_file).await;
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_cancelled_run_kills_the_script_and_its_children() {
    let dir = tempfile::tempdir().unwrap();
    // The pid file is a named pipe: the script says its child's pid there once that runs.
    let mut said = skillful_test_support::wait::Fifo::create(dir.path().join("child.pid"));
    let (path, _) = forking_script(dir.path(), "sleep 300\n");
    let runner = runner();
    let request = request(&path, json!(null));
    let mut run = Box::pin(runner.execute(&request));
    // Poll the run until the script has started its child, then drop it.
    let started =
        tokio::task::spawn_blocking(move || said.line_within(Duration::from_secs(10), |_| true));
    let child = tokio::select! {
        _ = &mut run => panic!("the script finished on its own"),
        said = started => said.unwrap().expect("the script never started"),
    };
    drop(run);
    let child: u32 = child.trim().parse().unwrap();
    assert!(gone(child).await, "the script's child {child} still runs");
}

#[test]
fn a_runner_refuses_a_zero_timeout_or_limit_and_bad_extensions() {
    use skillful_scripts::BuildError;
    let zero = ProcessRunner::builder().timeout(Duration::ZERO).build();
    assert_eq!(zero.unwrap_err(), BuildError::ZeroTimeout);
    let zero = ProcessRunner::builder().max_output_bytes(0).build();
    assert_eq!(zero.unwrap_err(), BuildError::ZeroOutputLimit);
    for extension in ["py", ".", ".tar.gz", ". x"] {
        let bad = ProcessRunner::builder()
            .interpreter(extension, Interpreter::new("python3"))
            .build();
        assert_eq!(bad.unwrap_err(), BuildError::Extension(extension.into()));
    }
    let blank = ProcessRunner::builder()
        .interpreter(".rb", Interpreter::new(" "))
        .build();
    assert_eq!(blank.unwrap_err(), BuildError::BlankProgram(".rb".into()));
}

/// The pid the daemon wrote to `file`: there (whole, renamed into place) before the script
/// printed `started`.
#[cfg(target_os = "linux")]
fn pid_in(file: &Path) -> u32 {
    std::fs::read_to_string(file)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// A Python script that starts a daemon the classic way (fork, `setsid`, fork again, the middle
/// process exits), with its standard streams closed so that only its survival is at stake; the
/// daemon writes its pid to `daemon.pid` beside the script, then sleeps. The script prints
/// `started` once the pid is written, then runs `rest`.
#[cfg(target_os = "linux")]
fn daemonizing_script(dir: &Path, rest: &str) -> (PathBuf, PathBuf) {
    let pid_file = dir.join("daemon.pid");
    let text = format!(
        r#"import os, sys, time
pid_file = {pid_file:?}
child = os.fork()
if child == 0:
    os.setsid()
    if os.fork() > 0:
        os._exit(0)
    os.closerange(0, 3)
    with open(pid_file + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename(pid_file + ".tmp", pid_file)
    time.sleep(300)
    os._exit(0)
os.waitpid(child, 0)
while not os.path.exists(pid_file):
    time.sleep(0.01)
print("started", flush=True)
{rest}
"#,
        pid_file = pid_file.display().to_string()
    );
    (script(dir, "daemon.py", &text, false), pid_file)
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_daemon_started_with_setsid_and_a_double_fork_does_not_survive_the_script() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (path, pid_file) = daemonizing_script(dir.path(), "sys.exit(0)");
    let output = run(&path, json!(null)).await.unwrap();
    assert!(output.succeeded(), "{output:?}");
    assert_eq!(output.stdout, "started\n");
    let daemon = pid_in(&pid_file);
    assert!(
        gone(daemon).await,
        "the daemon {daemon} survived the script"
    );
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_daemon_started_with_setsid_and_a_double_fork_does_not_survive_a_timeout() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (path, pid_file) = daemonizing_script(dir.path(), "time.sleep(300)");
    let runner = ProcessRunner::builder()
        .sandbox(SandboxMode::Off)
        .timeout(Duration::from_secs(3))
        .build()
        .unwrap();
    let output = runner.execute(&request(&path, json!(null))).await.unwrap();
    assert!(output.timed_out, "{output:?}");
    assert_eq!(output.stdout, "started\n");
    let daemon = pid_in(&pid_file);
    assert!(
        gone(daemon).await,
        "the daemon {daemon} survived the timeout"
    );
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_detached_child_holding_stdout_does_not_turn_the_result_into_a_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("child.pid");
    // `setsid` leaves the script's process group, so killing the group misses it; it keeps the
    // output pipe open for 300 s. The script ends only once its child has left the group.
    let text = format!(
        "pid_file='{}'\n\
         setsid sh -c 'echo $$ > \"$0.tmp\"; mv \"$0.tmp\" \"$0\"; exec sleep 300' \"$pid_file\" &\n\
         while [ ! -s \"$pid_file\" ]; do sleep 0.01; done\n\
         echo result\n\
         exit 3\n",
        pid_file.display()
    );
    let path = script(dir.path(), "detach.sh", &text, false);
    let runner = ProcessRunner::builder()
        .sandbox(SandboxMode::Off)
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let output = runner.execute(&request(&path, json!(null))).await.unwrap();
    assert!(!output.timed_out, "{output:?}");
    assert_eq!(output.exit_code, Some(3));
    assert_eq!(output.stdout, "result\n");
    assert_child_gone(&pid_file).await;
}

/// A process started by the test, not by any script: it takes a file descriptor over a Unix
/// socket and keeps it open. Killed when dropped.
#[cfg(target_os = "linux")]
struct FdKeeper {
    process: std::process::Child,
    socket: PathBuf,
}

#[cfg(target_os = "linux")]
impl FdKeeper {
    fn start(dir: &Path) -> Self {
        use std::io::BufRead;
        let socket = dir.join("keeper.sock");
        let text = "import socket, sys, time\n\
                    server = socket.socket(socket.AF_UNIX)\n\
                    server.bind(sys.argv[1])\n\
                    server.listen(1)\n\
                    print('ready', flush=True)\n\
                    connection, _ = server.accept()\n\
                    kept = socket.recv_fds(connection, 16, 4)\n\
                    time.sleep(300)\n";
        let mut process = std::process::Command::new("python3")
            .args(["-c", text])
            .arg(&socket)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(process.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line, "ready\n");
        Self { process, socket }
    }
}

#[cfg(target_os = "linux")]
impl Drop for FdKeeper {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn an_output_pipe_handed_to_an_outside_process_does_not_turn_the_result_into_a_timeout() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let keeper = FdKeeper::start(dir.path());
    // The script gives its stdout to a process outside its tree, which no kill reaches.
    let text = format!(
        "import socket, sys\n\
         client = socket.socket(socket.AF_UNIX)\n\
         client.connect({:?})\n\
         socket.send_fds(client, [b'x'], [1])\n\
         print('result', flush=True)\n\
         sys.exit(3)\n",
        keeper.socket.display().to_string()
    );
    let path = script(dir.path(), "handoff.py", &text, false);
    let runner = ProcessRunner::builder()
        .sandbox(SandboxMode::Off)
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let output = runner.execute(&request(&path, json!(null))).await.unwrap();
    assert!(!output.timed_out, "{output:?}");
    assert_eq!(output.exit_code, Some(3));
    assert_eq!(output.stdout, "result\n");
    drop(keeper);
}

#[tokio::test]
async fn a_python_script_leaves_no_bytecode_in_its_skill() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    // Unconfined (the sandbox would forbid the write anyway): the files of the skill stay as
    // they were, so an approval bound to them holds.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("helper.py"), "VALUE = 'imported'\n").unwrap();
    let path = script(
        dir.path(),
        "run.py",
        "import helper\nprint(helper.VALUE)\n",
        false,
    );
    let output = run(&path, json!(null)).await.unwrap();
    assert_eq!(output.stdout.trim(), "imported", "{output:?}");
    assert!(!dir.path().join("__pycache__").exists());
}
