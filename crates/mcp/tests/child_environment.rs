//! A `--mcp-stdio` server is another party's program: it gets the allow-listed environment that
//! scripts get, plus the variables the user names, never the host's secrets. A test binary of
//! its own, because it sets variables of this process.

use skillful_mcp::{McpEndpoint, McpSkillsSource};

const SERVER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/environment_server.py"
);

/// The Python interpreter itself, not a launcher such as a pyenv shim, which would add
/// variables of its own.
fn python() -> String {
    let output = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 runs");
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

#[tokio::test]
async fn a_stdio_server_sees_only_the_allowed_variables_and_those_named() {
    if !skillful_test_support::python_imports("mcp", "pip install mcp") {
        return;
    }
    // SAFETY: the only test of this binary, run before any other thread reads the environment.
    unsafe {
        std::env::set_var("SKILLFUL_TEST_SECRET", "sk-host-secret");
        std::env::set_var("SKILLFUL_TEST_PASSED", "named-by-the-user");
    }
    let source = McpSkillsSource::builder(McpEndpoint::stdio(python(), [SERVER]))
        .allow_env("SKILLFUL_TEST_PASSED")
        .build();
    let skills = source
        .load()
        .await
        .expect("python3 with the `mcp` package runs the fixture server (pip install mcp)");
    let body = skills[0].document().await.unwrap().body;
    let mut lines = body.lines();
    assert_eq!(lines.next(), Some("passed=named-by-the-user"));
    let names: Vec<&str> = lines.take_while(|line| !line.is_empty()).collect();
    assert!(names.contains(&"PATH"), "{names:?}");
    assert!(!names.contains(&"SKILLFUL_TEST_SECRET"), "{names:?}");
    // Python adds nothing but what its locale coercion may set.
    let unexpected: Vec<&&str> = names
        .iter()
        .filter(|name| {
            !skillful_process::DEFAULT_ALLOWED_ENV.contains(name)
                && !["SKILLFUL_TEST_PASSED", "LC_CTYPE"].contains(name)
        })
        .collect();
    assert!(unexpected.is_empty(), "{unexpected:?}");
}
