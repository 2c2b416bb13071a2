//! Runs the script files of file skills as subprocesses, safely by default: the
//! [`ProcessRunner`] implements [`skillful_discovery::FileScriptRunner`] for `skillful-discovery`'s
//! file source.
//!
//! A script of a third-party skill is untrusted code chosen by a model, so the runner:
//!
//! - picks the interpreter by extension (`.py` → `python3`, else `python`; `.js` → `node`;
//!   `.sh` → `bash`; `.ps1` → `pwsh`; `.cs`/`.csx` → `dotnet script`; configurable), runs other
//!   files only if they are executable, and names the interpreter that is not installed;
//! - never goes through a shell: the model's JSON arguments become the command line as is
//!   (an array of strings) or as `--key value` pairs (an object, `true` a bare `--key` flag,
//!   `false` and `null` nothing), so `$(rm -rf /)`, `;`, `|` and backticks stay literal text;
//! - runs the script in its own directory, with standard input closed and a clean environment
//!   ([`DEFAULT_ALLOWED_ENV`]: `PATH`, `HOME`, `LANG`, `LC_ALL`, `LC_CTYPE`, `TZ`, `TMPDIR`, and
//!   on Windows `SYSTEMROOT` and the like; the host adds more through the builder), so host
//!   secrets such as `OPENAI_API_KEY` never reach it;
//! - kills the script and every process it started after a wall-clock timeout (30 s by
//!   default), and whatever the script leaves running when it exits: on Linux its whole
//!   descendant tree, through a reaper of its own (a child subreaper), so `setsid` and double
//!   forks do not escape; on other Unix systems its process group; elsewhere its own process
//!   (the environment, the process tree and the bounded output are `skillful-process`'s, which
//!   every child of the host goes through);
//! - stops reading its output once its processes are gone (what is left in the pipes is read),
//!   so a process out of reach holding a pipe open cannot turn a finished run into a timeout;
//! - keeps at most 64 KiB of stdout and of stderr (reading and discarding the rest, so memory
//!   stays bounded and the script never blocks), and says so;
//! - reports a structured [`ScriptOutput`] (`stdout`, `stderr`, `exit_code`, `timed_out`,
//!   `truncated`, `duration_ms`) and renders it for the model as the reference's runner does: the
//!   output, then `[stderr]` and the error output, then `[exit code: N]` when not 0;
//!   `(no output)` when there is none.
//!
//! [`harden_process`] makes the host non-dumpable, so that a script cannot read the host's
//! environment or memory through `/proc/<parent pid>/environ`; binaries call it at startup.
//! On Linux with Landlock, a script runs in the sandbox of its risk tier ([`Profile`]: reads of
//! everything but the secret stores and skillful's own state, writes only where its tier allows,
//! no network, no connecting to other processes, resource [`Limits`]), applied before `exec` and
//! inherited by every process it starts (see the `sandbox` module's notes). Elsewhere, or with
//! [`SandboxMode::Off`], it runs as the user with only the resource limits;
//! [`SandboxSupport::detect`] says which applies, and hosts must tell the user.
//!
//! Whether a script may run at all is not decided here: `skillful-discovery` refuses the scripts of
//! untrusted sources (`scripts_runnable(false)`) before a runner sees them, and approval by risk
//! tier belongs to the agent. This crate knows processes, not skills, prompts or models.
//!
//! # Example
//! ```
//! use std::sync::Arc;
//! use skillful_core::{Skill, SkillsSource, SourceContext};
//! use skillful_discovery::FileSkillsSource;
//! use skillful_scripts::ProcessRunner;
//!
//! # if !skillful_test_support::program_runs("python3", "install Python 3") { return; }
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/skills");
//! let source = FileSkillsSource::builder()
//!     .root(root)
//!     .script_runner(Arc::new(ProcessRunner::new()))
//!     .build()
//!     .unwrap();
//! let skills = source.skills(&SourceContext::default()).await.unwrap();
//! let convert = skills[0].script("scripts/convert.py").unwrap();
//! let output = convert
//!     .run(serde_json::json!({"value": 26.2, "factor": 1.609344}))
//!     .await
//!     .unwrap();
//! assert_eq!(output, r#"{"value": 26.2, "factor": 1.609344, "result": 42.1648}"#);
//! # });
//! ```

mod arguments;
#[cfg(target_os = "linux")]
mod confine;
mod error;
mod harden;
mod interpreter;
mod output;
mod runner;
mod sandbox;

pub use error::{BuildError, HardenError, RunError, RunFailure};
pub use harden::harden_process;
pub use interpreter::{Interpreter, default_interpreters};
pub use output::ScriptOutput;
pub use runner::{DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT, ProcessRunner, ProcessRunnerBuilder};
pub use sandbox::{
    DEFAULT_SECRET_PATHS, Limits, MIN_ISOLATING_LANDLOCK_ABI, PROTECTED_NAMES, Profile,
    SandboxMode, SandboxSupport, user_namespaces,
};
pub use skillful_process::{DEFAULT_ALLOWED_ENV, allowed_environment};

#[cfg(test)]
mod tests {
    /// Whether a script may run is decided before the runner is called: of the workspace it links
    /// the core, the file-script port (discovery), processes and state, no crate of models, tools
    /// or approvals.
    #[test]
    fn the_runner_links_no_crate_of_models_tools_or_approvals() {
        assert_eq!(
            skillful_test_support::skillful_dependencies(include_str!("../Cargo.toml")),
            [
                "skillful-core",
                "skillful-discovery",
                "skillful-fs",
                "skillful-process",
                "skillful-state"
            ]
        );
    }
}
