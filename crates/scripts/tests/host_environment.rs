//! The default runner reads this process's environment: its secrets must not reach a script.
//! A test binary of its own, because it changes the process environment.

#[path = "it/common.rs"]
mod common;

use common::{request, script};
use serde_json::json;
use skillful_scripts::ProcessRunner;

#[tokio::test]
async fn host_secrets_do_not_reach_a_script_of_the_default_runner() {
    // SAFETY: the only test of this binary, run before any other thread reads the environment.
    unsafe {
        std::env::set_var("OPENAI_API_KEY", "sk-host-secret");
        std::env::set_var("LANG", "C.UTF-8");
    }
    let runner = ProcessRunner::new();
    let dir = tempfile::tempdir().unwrap();
    let path = script(dir.path(), "env.sh", "env\n", false);
    let output = runner.execute(&request(&path, json!(null))).await.unwrap();
    assert!(output.succeeded(), "{output:?}");
    let names: Vec<&str> = output
        .stdout
        .lines()
        .filter_map(|line| line.split_once('=').map(|(name, _)| name))
        .collect();
    assert!(!output.stdout.contains("sk-host-secret"), "{names:?}");
    assert!(
        names.contains(&"PATH") && names.contains(&"LANG"),
        "{names:?}"
    );
    let allowed = skillful_scripts::DEFAULT_ALLOWED_ENV;
    // bash itself sets PWD, SHLVL and `_`; the runner adds PYTHONDONTWRITEBYTECODE.
    let unexpected: Vec<&&str> = names
        .iter()
        .filter(|name| {
            !allowed.contains(name)
                && !["PWD", "SHLVL", "_", "PYTHONDONTWRITEBYTECODE"].contains(name)
        })
        .collect();
    assert!(unexpected.is_empty(), "{unexpected:?}");
}
