//! The script runner's overhead: running a script that does nothing through
//! `ProcessRunner::execute` (clean environment, process group, output capture, timeout) against a
//! bare `tokio::process::Command` spawn of the same interpreter on the same file, its output piped
//! and collected. Two interpreters: `python3` (the case, `pass`) and `bash` (`:`), whose
//! quick start shows the runner's own cost more plainly. The runner is measured with the sandbox
//! on (the `read` profile: Landlock ruleset, seccomp filter, limits, a scratch directory made and
//! removed) and off (`SandboxMode::Off`: limits only), and as `write-low` in a working directory
//! holding `.git` and `.agents` (the same, plus a mount namespace in which those two are mounted
//! read-only). The target: the runner, sandbox on, at most 1.2 times the bare spawn of
//! `python3`.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use skillful::core::RiskTier;
use skillful::discovery::FileScriptRequest;
use skillful::scripts::{ProcessRunner, SandboxMode};
use tokio::runtime::Runtime;

fn runner_overhead(c: &mut Criterion) {
    let runtime = Runtime::new().expect("a tokio runtime");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let sandboxed = ProcessRunner::new();
    let unsandboxed = ProcessRunner::builder()
        .sandbox(SandboxMode::Off)
        .build()
        .expect("a runner");
    let work = tempfile::tempdir().expect("a temporary directory");
    for protected in [".git", ".agents"] {
        std::fs::create_dir(work.path().join(protected)).expect("a directory");
    }
    let writing = ProcessRunner::builder()
        .working_dir(work.path())
        .build()
        .expect("a runner");
    for (interpreter, file, text) in [("python3", "pass.py", "pass\n"), ("bash", "noop.sh", ":\n")]
    {
        let script = dir.path().join(file);
        std::fs::write(&script, text).expect("the script is written");
        let request =
            FileScriptRequest::new("bench", dir.path(), file, &script, serde_json::Value::Null)
                .with_risk(RiskTier::Read);
        let mut group = c.benchmark_group(format!("{interpreter} {file}"));
        group.sample_size(30);
        group.measurement_time(Duration::from_secs(10));
        group.bench_function("bare tokio::process::Command", |b| {
            b.iter(|| {
                let output = runtime.block_on(bare_spawn(interpreter, &script));
                assert!(output.status.success());
            });
        });
        for (name, runner) in [
            ("ProcessRunner::execute, sandbox on (read)", &sandboxed),
            ("ProcessRunner::execute, sandbox off", &unsandboxed),
        ] {
            group.bench_function(name, |b| {
                b.iter(|| {
                    let output = runtime
                        .block_on(runner.execute(&request))
                        .expect("the script runs");
                    assert!(output.succeeded());
                });
            });
        }
        let write_low = request.clone().with_risk(RiskTier::WriteLow);
        group.bench_function(
            "ProcessRunner::execute, sandbox on (write-low, .git and .agents read-only)",
            |b| {
                b.iter(|| {
                    let output = runtime
                        .block_on(writing.execute(&write_low))
                        .expect("the script runs");
                    assert!(output.succeeded());
                });
            },
        );
        group.finish();
    }
}

/// `interpreter script` in the script's directory, stdin closed, output collected.
async fn bare_spawn(interpreter: &str, script: &Path) -> std::process::Output {
    tokio::process::Command::new(interpreter)
        .arg(script)
        .current_dir(script.parent().expect("the script has a directory"))
        .stdin(Stdio::null())
        .output()
        .await
        .expect("the interpreter runs")
}

criterion_group!(benches, runner_overhead);
criterion_main!(benches);
