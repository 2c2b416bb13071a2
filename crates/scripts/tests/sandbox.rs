//! The limits of the sandbox on real processes: each limit stops a script that goes past it, and
//! the model is told which one. (The attacks on the file and network rules run as an
//! unprivileged user in `crates/cli/tests/sandbox.rs`.)

#![cfg(target_os = "linux")]

mod common;

use std::time::Duration;

use common::{request, script};
use serde_json::json;
use skillful_core::RiskTier;
use skillful_scripts::{Limits, ProcessRunner, ScriptOutput};

/// Runs `text` as a `read` script under `limits`; `None` when this machine cannot confine.
async fn run_limited(limits: Limits, name: &str, text: &str) -> Option<ScriptOutput> {
    let runner = ProcessRunner::builder().limits(limits).build().unwrap();
    if !runner.isolates() {
        skillful_test_support::prerequisite_missing(
            "this kernel cannot confine scripts (Landlock)",
        );
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = script(dir.path(), name, text, false);
    let request = request(&path, json!(null)).with_risk(RiskTier::Read);
    Some(runner.execute(&request).await.unwrap())
}

#[tokio::test]
async fn a_script_past_its_memory_limit_fails_and_the_limit_is_named() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let limits = Limits::default().memory_bytes(Some(256 << 20));
    let Some(output) = run_limited(limits, "big.py", "buffer = bytearray(1 << 30)\n").await else {
        return;
    };
    assert!(!output.succeeded(), "{output:?}");
    assert!(output.stderr.contains("MemoryError"), "{output:?}");
    let shown = output.render();
    assert!(
        shown.contains("[sandbox limit: the script ran out of its memory limit (256 MiB"),
        "{shown}"
    );
}

#[tokio::test]
async fn a_file_past_the_size_limit_is_cut_and_the_limit_is_named() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let limits = Limits::default().file_size_bytes(Some(1 << 20));
    let text = "import os\n\
                with open(os.path.join(os.environ['TMPDIR'], 'big'), 'wb') as f:\n    \
                    f.write(b'x' * (2 << 20))\n";
    let Some(output) = run_limited(limits, "write.py", text).await else {
        return;
    };
    assert!(!output.succeeded(), "{output:?}");
    assert!(output.stderr.contains("File too large"), "{output:?}");
    assert!(
        output
            .render()
            .contains("[sandbox limit: a file the script wrote reached the size limit (1 MiB)"),
        "{output:?}"
    );
}

#[tokio::test]
async fn a_script_past_its_cpu_time_is_stopped_and_the_limit_is_named() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let limits = Limits::default().cpu_time(Some(Duration::from_secs(1)));
    let Some(output) = run_limited(limits, "spin.py", "while True:\n    pass\n").await else {
        return;
    };
    assert_eq!(output.signal, Some(libc::SIGXCPU), "{output:?}");
    assert!(!output.timed_out, "{output:?}");
    assert!(
        output
            .render()
            .contains("[sandbox limit: the script used up its CPU time (1 s)"),
        "{output:?}"
    );
}

#[tokio::test]
async fn node_runs_in_the_sandbox_with_the_default_limits() {
    if !skillful_test_support::program_runs("node", "install Node.js, e.g. apt install nodejs") {
        return;
    }
    let Some(output) = run_limited(
        Limits::default(),
        "hello.js",
        "console.log('node', typeof process.versions.node)\n",
    )
    .await
    else {
        return;
    };
    assert_eq!(output.stdout, "node string\n", "{output:?}");
}

#[tokio::test]
async fn a_destructive_script_is_refused_before_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let path = script(
        dir.path(),
        "wipe.sh",
        &format!("touch '{}'\n", marker.display()),
        false,
    );
    let error = ProcessRunner::new()
        .execute(&request(&path, json!(null)).with_risk(RiskTier::Destructive))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("`destructive`"), "{error}");
    assert!(!marker.exists());
}

/// `skills eval` keeps its runs' working directories in skillful's state, which is hidden from
/// scripts: the run's own directory is the script's (a `read` script reads it, a `write-low`
/// one writes it), the rest of the hidden directory stays out of reach.
#[tokio::test]
async fn a_working_directory_below_a_hidden_one_is_the_scripts_and_only_it() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let state = root.path().join("state");
    let work = state.join("eval/run/outputs");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("in.txt"), "input").unwrap();
    std::fs::write(state.join("approvals.json"), "secret").unwrap();
    let text = "import sys\n\
                print(open('in.txt').read())\n\
                try:\n    open(sys.argv[1]).read()\n    print('read the secret')\n\
                except OSError as error:\n    print('secret unreadable', error.errno)\n\
                if len(sys.argv) > 2:\n    open('out.txt', 'w').write('written')\n";
    let skill = tempfile::tempdir().unwrap();
    let path = script(skill.path(), "scripts/look.py", text, false);
    let runner = ProcessRunner::builder()
        .hidden_paths([&state])
        .working_dir(&work)
        .build()
        .unwrap();
    if !runner.isolates() {
        println!("skipped: this kernel cannot confine scripts");
        return;
    }
    let secret = state.join("approvals.json").display().to_string();
    let read = request(&path, json!([secret])).with_risk(RiskTier::Read);
    let output = runner.execute(&read).await.unwrap();
    assert!(output.succeeded(), "{output:?}");
    assert!(
        output.stdout.starts_with("input\nsecret unreadable 13"),
        "{output:?}"
    );

    let write = request(&path, json!([secret, "write"])).with_risk(RiskTier::WriteLow);
    let output = runner.execute(&write).await.unwrap();
    assert!(output.succeeded(), "{output:?}");
    assert!(output.stdout.contains("secret unreadable 13"), "{output:?}");
    assert_eq!(
        std::fs::read_to_string(work.join("out.txt")).unwrap(),
        "written"
    );
}
