//! Running the `skills` binary: the helpers and fixtures the modules share.

#[cfg(target_os = "linux")]
pub(crate) mod unprivileged;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::LazyLock;

/// The per-user state directory of every test run (remembered approvals): never the real one.
static STATE: LazyLock<tempfile::TempDir> = LazyLock::new(|| tempfile::tempdir().unwrap());

/// An empty home directory, not the directory the commands run in (a write tier refuses a
/// working directory that is the home directory).
static HOME: LazyLock<tempfile::TempDir> = LazyLock::new(|| tempfile::tempdir().unwrap());

pub(crate) const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/skills");

/// `skills ARGS`, its environment cleared of the user's settings, stdio piped.
pub(crate) fn command(args: &[String]) -> Command {
    command_with_state(args, STATE.path())
}

/// `skills ARGS` keeping its per-user state under `state` (`XDG_STATE_HOME`).
pub(crate) fn command_with_state(args: &[String], state: &Path) -> Command {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut command = Command::new(env!("CARGO_BIN_EXE_skills"));
    command
        .args(args)
        .current_dir(here)
        .env("HOME", HOME.path())
        .env("XDG_STATE_HOME", state)
        .env_remove("RUST_LOG")
        .env_remove("SKILLS_ENDPOINT")
        .env_remove("SKILLS_MODEL")
        .env_remove("SKILLS_API_KEY")
        .env_remove("SKILLS_MAX_TOKENS")
        .env_remove("SKILLS_CALL_TIMEOUT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// `skills` in `dir` as a user whose home (and every per-user directory) is `home`, with no
/// admin skills; arguments and the rest are the caller's.
pub(crate) fn command_at_home(dir: &Path, home: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_skills"));
    command
        .current_dir(dir)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("SKILLS_ADMIN_DIR", home.join("no-admin-skills"))
        .env_remove("RUST_LOG");
    command
}

/// `command` started with `stdin` written to its piped standard input, which is then closed.
pub(crate) fn spawn_with(command: &mut Command, stdin: &str) -> std::process::Child {
    let mut child = command.spawn().expect("the skills binary runs");
    let mut input = child.stdin.take().expect("stdin piped");
    input.write_all(stdin.as_bytes()).unwrap();
    child
}

/// Runs `command` with `stdin` piped in, off the runtime so a test server keeps answering.
pub(crate) async fn run_with(mut command: Command, stdin: String) -> Output {
    tokio::task::spawn_blocking(move || spawn_with(&mut command, &stdin).wait_with_output())
        .await
        .unwrap()
        .unwrap()
}

/// Runs `skills ARGS` with `stdin` piped in.
pub(crate) async fn skills(args: Vec<String>, stdin: &str) -> Output {
    run_with(command(&args), stdin.to_owned()).await
}

/// `run --skills ROOT --endpoint URL --mode tools EXTRA...`: these tests script the tool loop's
/// model (a loopback server would get the guided strategy by default; a later `--mode` wins).
pub(crate) fn run_args(root: &str, url: &str, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "run",
        "--skills",
        root,
        "--endpoint",
        url,
        "--mode",
        "tools",
    ]
    .iter()
    .map(|arg| (*arg).to_owned())
    .collect();
    args.extend(extra.iter().map(|arg| (*arg).to_owned()));
    args
}

/// Whether `python3` runs here, for a test whose skill scripts are Python: when it does not,
/// the test fails under CI and is skipped, saying why, elsewhere (the caller returns).
#[track_caller]
pub(crate) fn python_runs() -> bool {
    skillful_test_support::program_runs(
        "python3",
        "apt install python3: the skill scripts are Python",
    )
}

/// The lines of a run's transcript after its first, which names the mode (checked).
#[track_caller]
pub(crate) fn transcript(stdout: &str) -> Vec<&str> {
    let mut lines = stdout.lines();
    let first = lines.next().unwrap_or_default();
    assert!(
        first.starts_with(">> mode: "),
        "the first line names the mode: {stdout}"
    );
    lines.collect()
}

pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// What a command printed: its standard output, then its standard error.
pub(crate) fn printed(output: &Output) -> String {
    format!("{}{}", text(&output.stdout), text(&output.stderr))
}

/// A skill root holding one skill `name` with this `SKILL.md` body and these scripts
/// (`(name, source)` under `scripts/`).
pub(crate) fn skill_root(
    name: &str,
    body: &str,
    scripts: &[(&str, &str)],
) -> (tempfile::TempDir, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join(name);
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: A skill for the tests.\n---\n{body}\n"),
    )
    .unwrap();
    for (script, source) in scripts {
        std::fs::write(dir.join("scripts").join(script), source).unwrap();
    }
    (root, dir)
}

/// Whether `output` holds a terminal control character other than newline and tab.
pub(crate) fn has_controls(output: &str) -> bool {
    output
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
}

/// The schemas of the `--json` outputs, committed under `docs/src/reference/schemas`.
pub(crate) const SCHEMAS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../docs/src/reference/schemas"
);

/// The standard output of `output` as the one JSON document it must be, checked against
/// `docs/src/reference/schemas/{schema}.schema.json`; panics naming every mismatch.
pub(crate) fn json_of(schema: &str, output: &Output) -> serde_json::Value {
    let stdout = text(&output.stdout);
    let document: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_else(|error| {
        panic!(
            "not one JSON document ({error}):\n{stdout}\nstderr:\n{}",
            text(&output.stderr)
        )
    });
    check_schema(schema, &document);
    document
}

/// Panics naming every way `document` does not match
/// `docs/src/reference/schemas/{schema}.schema.json` (for outputs of several documents, such as
/// the JSON lines of `skills audit --json`).
pub(crate) fn check_schema(schema: &str, document: &serde_json::Value) {
    let path = Path::new(SCHEMAS).join(format!("{schema}.schema.json"));
    let schema_text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let schema_value: serde_json::Value = serde_json::from_str(&schema_text).unwrap();
    let validator = jsonschema::draft202012::new(&schema_value)
        .unwrap_or_else(|error| panic!("{}: not a schema: {error}", path.display()));
    let errors: Vec<String> = validator
        .iter_errors(document)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "the output does not match {}:\n{}\n{document}",
        path.display(),
        errors.join("\n")
    );
}

/// The commands `skills --help` lists (the lines under "Commands:", but `help`): what a test
/// of every command goes through.
pub(crate) fn commands() -> Vec<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_skills"))
        .arg("--help")
        .env_remove("RUST_LOG")
        .output()
        .expect("the skills binary runs");
    assert!(output.status.success(), "{}", text(&output.stderr));
    text(&output.stdout)
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands section")
        .split("\n\n")
        .next()
        .unwrap()
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// The subcommands of `skills engine`, each as it is typed.
pub(crate) const ENGINE_COMMANDS: [&str; 4] = [
    "engine start",
    "engine stop",
    "engine status",
    "engine models",
];
