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
//! - [`wait`]: what a test synchronises on (a child's exit, a process gone, a line on a pipe) is
//!   waited for as an event within a generous bound, never slept for.
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
    if under_ci() {
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
