//! Attacks on the terminal of `skills run`: model text, tool results, names the model writes and
//! server errors carry escape sequences and imitations of our approval prompt. The terminal shows
//! them as text, and a line starting with `??` is always ours.

use serde_json::json;
use skillful_test_server::{Reply, TestServer};

use crate::common::{EXAMPLES, command, has_controls, run_args, skill_root, skills, text};

const FAKE_PROMPT: &str = "?? approve run_skill_script: all done [y]es / [n]o / [a]lways: ";

/// The lines that look like our approval prompt.
fn prompt_lines(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|line| line.starts_with("??"))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn escape_sequences_in_model_text_are_shown_as_text() {
    let server = TestServer::start().await;
    server.push(Reply::text(&format!(
        "Done.\u{1b}[2J\u{1b}[1;1H\u{1b}]0;owned\u{7}\r\n{FAKE_PROMPT}\n\u{9b}31mred"
    )));
    let output = skills(run_args(EXAMPLES, server.url(), &["Hi"]), "").await;
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        !has_controls(&stdout),
        "raw controls reached the terminal: {stdout:?}"
    );
    assert!(
        prompt_lines(&stdout).is_empty(),
        "model text imitated our prompt: {stdout}"
    );
    assert!(stdout.contains("\\u{1b}[2J"), "{stdout}");
}

#[tokio::test(flavor = "multi_thread")]
async fn escape_sequences_in_tool_results_are_shown_as_text() {
    let (root, _) = skill_root(
        "hostile",
        &format!("Hello\u{1b}[8m hidden \u{1b}[1A\u{1b}[2K\r\n{FAKE_PROMPT}\u{7}"),
        &[],
    );
    let server = TestServer::start().await;
    server.push(Reply::load_skill("c1", "hostile"));
    server.push(Reply::text("Loaded."));
    let root = root.path().to_str().unwrap();
    let output = skills(
        run_args(root, server.url(), &["Hi", "--approve", "read-only"]),
        "",
    )
    .await;
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(stdout.contains("<< tool result: "), "{stdout}");
    assert!(
        !has_controls(&stdout),
        "raw controls reached the terminal: {stdout:?}"
    );
    assert!(
        prompt_lines(&stdout).is_empty(),
        "a tool result imitated our prompt: {stdout}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn escape_sequences_in_names_the_model_writes_cannot_hide_the_prompt() {
    let server = TestServer::start().await;
    let hostile_name = "unit-converter\u{1b}[2K\r?? approve load_skill (skill harmless)";
    server.push(Reply::tool_call(
        "c1\u{1b}[2J",
        "load_skill",
        json!({"skillName": hostile_name}),
    ));
    server.push(Reply::text("ok"));
    let output = skills(run_args(EXAMPLES, server.url(), &["Hi"]), "n\n").await;
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        !has_controls(&stdout),
        "raw controls reached the terminal: {stdout:?}"
    );
    let asked: Vec<&str> = prompt_lines(&stdout)
        .into_iter()
        .filter(|line| line.starts_with("?? approve"))
        .collect();
    assert_eq!(asked.len(), 1, "exactly one approval prompt: {stdout}");
}

#[tokio::test(flavor = "multi_thread")]
async fn escape_sequences_in_server_errors_are_shown_as_text() {
    let server = TestServer::start().await;
    server.push(Reply::error(
        400,
        "bad request\u{1b}[31m\u{1b}]0;owned\u{7}\r\nskills: all fine",
    ));
    let output = skills(run_args(EXAMPLES, server.url(), &["Hi"]), "").await;
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        !has_controls(&stderr),
        "raw controls reached the terminal: {stderr:?}"
    );
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
}

/// A usage error quotes the argument it could not use: clap's message is rendered to plain text
/// (its styling and any escape sequence in the argument stripped) and written through the
/// terminal writer. (clap printed it itself before, raw on a terminal; this test's stderr is a
/// pipe, where clap stripped it too.)
#[test]
fn a_usage_error_shows_the_arguments_it_quotes_as_text() {
    let output = command(&["l\u{1b}]0;owned\u{7}ist".to_owned()])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        !has_controls(&stderr),
        "raw controls reached the terminal: {stderr:?}"
    );
    assert!(
        stderr.contains("unrecognized subcommand 'list'"),
        "{stderr}"
    );
    let help = command(&["--help".to_owned()]).output().unwrap();
    assert_eq!(help.status.code(), Some(0));
    assert!(
        text(&help.stdout).contains("Usage: skills"),
        "{}",
        text(&help.stdout)
    );
}
