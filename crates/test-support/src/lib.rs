//! Set-up shared by the workspace's integration tests (a dev-dependency only; never linked into
//! a library or the binary).
//!
//! It owns two rules the tests must apply the same way everywhere:
//! - [`prerequisite_missing`]: a test that cannot run on this machine (no `python3`, no second
//!   user, a kernel without Landlock) fails under CI, where `.ci/run` installs everything, and
//!   is skipped with the reason printed only outside CI; [`program_runs`] and
//!   [`python_imports`] apply it to a program on PATH and to Python modules;
//! - [`unprivileged`]: how a test running as root gets an unprivileged user to run commands as
//!   (an attacker's script, another user's checkout), created with `useradd` when missing;
//! - [`wait`]: what a test synchronises on (a child's exit, a process gone, a line on a pipe or
//!   on a named pipe) is waited for as an event within a generous bound, never slept for;
//! - [`planted_link`]: the symbolic link an attacker plants where a private file is read;
//! - [`dependencies`]: what a crate may name, read from its `Cargo.toml`, for the tests that keep
//!   an invariant of `ARCHITECTURE.md` of the form "it knows nothing of ...".
//!
//! It knows nothing of skills.

#[cfg(unix)]
pub mod unprivileged;
pub mod wait;

/// Whether these tests run under CI (`CI` set and not `false` or `0`, as CI services set it).
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| !matches!(value.as_str(), "" | "0" | "false"))
}

/// Reports that this test cannot run here because `reason`: under CI a failure (panics with the
/// reason), elsewhere `skipped: REASON` on stdout, after which the caller returns.
///
/// # Panics
/// Under CI, always.
///
/// # Example
/// ```
/// fn python_ready() -> bool { false }
/// # if skillful_test_support::under_ci() { return; }
/// if !python_ready() {
///     skillful_test_support::prerequisite_missing("python3 with PyYAML is missing (pip install pyyaml)");
///     return;
/// }
/// ```
#[track_caller]
pub fn prerequisite_missing(reason: &str) {
    missing(reason, under_ci());
}

/// [`prerequisite_missing`], under CI or not.
#[track_caller]
fn missing(reason: &str, ci: bool) {
    if ci {
        panic!("this test cannot run, and CI must run it: {reason}");
    }
    println!("skipped: {reason}");
}

/// Whether `program` can be started here (`program --version`); when it cannot,
/// [`prerequisite_missing`] says so, naming `install` (how to get it), and the caller returns.
///
/// # Panics
/// Under CI, when it cannot be started.
///
/// # Example
/// ```
/// # if skillful_test_support::under_ci() { return; }
/// if !skillful_test_support::program_runs("no-such-program-here", "apt install nothing") {
///     return;
/// }
/// # unreachable!();
/// ```
#[track_caller]
pub fn program_runs(program: &str, install: &str) -> bool {
    let runs = std::process::Command::new(program)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok();
    if !runs {
        prerequisite_missing(&format!("`{program}` is not on PATH ({install})"));
    }
    runs
}

/// Whether `python3` can import `modules` (a comma-separated list, as `import` takes it); when it
/// cannot, [`prerequisite_missing`] says so, naming `install` (how to get them), and the caller
/// returns.
///
/// # Panics
/// Under CI, when they cannot be imported.
///
/// # Example
/// ```
/// # if skillful_test_support::under_ci() { return; }
/// if !skillful_test_support::python_imports("no_such_module_here", "pip install nothing") {
///     return;
/// }
/// # unreachable!();
/// ```
#[track_caller]
pub fn python_imports(modules: &str, install: &str) -> bool {
    let ready = std::process::Command::new("python3")
        .args(["-c", &format!("import {modules}")])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !ready {
        prerequisite_missing(&format!(
            "python3 that can import {modules} is missing ({install})"
        ));
    }
    ready
}

/// The normal dependencies the manifest `manifest` declares (a crate's `Cargo.toml`, as
/// `include_str!("../Cargo.toml")` gives it), sorted: those of `[dependencies]` and of every
/// `[target.'...'.dependencies]`, not dev- or build-dependencies. A crate can name only these
/// (and what they re-export), so a test of them keeps a rule "it knows nothing of ...".
pub fn dependencies(manifest: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut normal = false;
    // Inside a value spanning lines (an inline table or an array), nothing is a key.
    let mut depth = 0_i32;
    for line in manifest.lines() {
        let line = line.trim();
        if depth == 0 && line.starts_with('[') {
            normal = line == "[dependencies]"
                || (line.starts_with("[target.") && line.ends_with(".dependencies]"));
            continue;
        }
        let at_key = depth == 0;
        depth += nesting(line);
        if !normal || !at_key || line.starts_with('#') {
            continue;
        }
        if let Some((key, _)) = line.split_once('=') {
            let key = key.trim();
            let name = key.strip_suffix(".workspace").unwrap_or(key);
            names.push(name.trim_matches('"').to_owned());
        }
    }
    names.sort();
    names.dedup();
    names
}

/// The workspace's own crates (`skillful-*`) among [`dependencies`].
pub fn skillful_dependencies(manifest: &str) -> Vec<String> {
    dependencies(manifest)
        .into_iter()
        .filter(|name| name.starts_with("skillful-"))
        .collect()
}

/// How many brackets and braces `line` opens and does not close, outside strings and comments.
fn nesting(line: &str) -> i32 {
    let mut depth = 0;
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            '#' if !quoted => break,
            '[' | '{' if !quoted => depth += 1,
            ']' | '}' if !quoted => depth -= 1,
            _ => {}
        }
    }
    depth
}

/// Plants a symbolic link `name` in `dir` to a file `secret` there (holding `secret`), where
/// a file is expected: a reader that follows it would read what it was never meant to.
///
/// # Panics
/// When the file or the link cannot be made.
#[cfg(unix)]
pub fn planted_link(dir: &std::path::Path, name: &str) -> std::path::PathBuf {
    let secret = dir.join("secret");
    std::fs::write(&secret, "secret").unwrap();
    let planted = dir.join(name);
    std::os::unix::fs::symlink(&secret, &planted).unwrap();
    planted
}

/// The rest of the first line `pipe` gives after `prefix`: what a server started as a child
/// announces (its address) before anything else.
///
/// # Panics
/// When the first line does not start with `prefix`, naming the line.
pub fn announced(pipe: impl std::io::Read, prefix: &str) -> String {
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(pipe), &mut line)
        .expect("reading the child's first line");
    line.trim()
        .strip_prefix(prefix)
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
        .to_owned()
}

/// What `git -C dir ARGS` printed on stdout, trimmed, run as a test's author (a fixed user name
/// and email) and allowing `file://` submodules (a source on this machine, as a hostile
/// repository's layout may name).
///
/// # Panics
/// When git cannot be started or fails, with its stderr.
pub fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let output = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=test",
            "-c",
            "user.email=test@example.invalid",
        ])
        .args(["-c", "protocol.file.allow=always"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// A TCP port on 127.0.0.1 that nothing listened on a moment ago (the system's choice), for a
/// server a test starts as a child.
///
/// # Panics
/// When no port can be bound on the loopback address.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a port on 127.0.0.1")
        .port()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_prerequisite_fails_under_ci_and_is_only_reported_elsewhere() {
        let failed = std::panic::catch_unwind(|| missing("no python3", true)).unwrap_err();
        assert_eq!(
            failed.downcast_ref::<String>().map(String::as_str),
            Some("this test cannot run, and CI must run it: no python3")
        );
        missing("no python3", false);
    }

    #[test]
    fn dependencies_are_those_of_normal_and_target_tables_only() {
        let manifest = "[package]\nname = \"x\"\n\n[features]\nschema = [\"dep:schemars\"]\n\n\
                        [dependencies]\n# A comment = no key.\nskillful-core = { workspace = true }\n\
                        serde.workspace = true\ntokio = { version = \"1\", features = [\n    \
                        \"rt\",\n] }\n\n[target.'cfg(unix)'.dependencies]\nlibc = \"0.2\"\n\n\
                        [dev-dependencies]\nskillful-agent = { workspace = true }\n";
        assert_eq!(
            dependencies(manifest),
            ["libc", "serde", "skillful-core", "tokio"]
        );
        assert_eq!(skillful_dependencies(manifest), ["skillful-core"]);
    }
}
