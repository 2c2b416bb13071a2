//! `skills search` on real directories: the tool's JSON, limits, flags after the roots, names
//! with spaces, warnings on stderr only, and the exit status.

use crate::common;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn skills(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .env_remove("RUST_LOG")
        .output()
        .expect("the skills binary runs")
}

fn write_skill(root: &Path, dir: &str, name: &str, description: &str) {
    let dir = root.join(dir);
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\nDo it.\n"),
    )
    .unwrap();
}

/// A root with a few skills, one of them named with spaces.
fn library() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let path = root.path();
    write_skill(
        path,
        "pdf-forms",
        "pdf-forms",
        "Fills in PDF forms and merges PDF files.",
    );
    write_skill(
        path,
        "sheets",
        "sheets",
        "Cleans spreadsheets: duplicate rows, dates.",
    );
    write_skill(
        path,
        "release-notes",
        "release-notes",
        "Writes release notes from merged pull requests.",
    );
    write_skill(
        path,
        "invoice-maker",
        "Invoice Maker",
        "Creates invoices as PDF files from a list of items.",
    );
    root
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn names(json: &Value) -> Vec<&str> {
    json.as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["name"].as_str().unwrap())
        .collect()
}

#[test]
fn json_is_exactly_the_tool_array_best_first() {
    let root = library();
    let root_arg = root.path().to_str().unwrap();
    let output = skills(
        root.path(),
        &["search", "fill a pdf form", root_arg, "--json"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.starts_with("[{\"name\":\"pdf-forms\""), "{text}");
    let json = common::json_of("search", &output);
    assert_eq!(names(&json)[0], "pdf-forms");
    assert_eq!(
        json[0]["description"],
        "Fills in PDF forms and merges PDF files."
    );
    assert!(json[0]["score"].as_f64().unwrap() > 0.0);
    // The same search gives the same bytes.
    let again = skills(
        root.path(),
        &["search", "fill a pdf form", root_arg, "--json"],
    );
    assert_eq!(stdout(&again), text);
}

#[test]
fn the_limit_may_come_after_the_roots_and_names_keep_their_spaces() {
    let root = library();
    let root_arg = root.path().to_str().unwrap();
    let output = skills(
        root.path(),
        &["search", "invoice", root_arg, "--limit", "1", "--json"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(names(&json), ["Invoice Maker"]);
    let show = skills(root.path(), &["show", "Invoice Maker", root_arg]);
    assert_eq!(show.status.code(), Some(0), "{}", stderr(&show));
    assert!(stdout(&show).contains("Do it."));
}

#[test]
fn nothing_matching_is_an_empty_array_and_exit_0() {
    let root = library();
    let root_arg = root.path().to_str().unwrap();
    let output = skills(
        root.path(),
        &["search", "zebra migration", root_arg, "--json"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "[]\n");
    let plain = skills(root.path(), &["search", "zebra migration", root_arg]);
    assert_eq!(plain.status.code(), Some(0));
    assert_eq!(stdout(&plain), "");
    assert!(stderr(&plain).contains("no skill matches 'zebra migration'"));
}

#[test]
fn the_table_shows_name_score_and_description() {
    let root = library();
    let root_arg = root.path().to_str().unwrap();
    let output = skills(root.path(), &["search", "release notes", root_arg]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let first = stdout(&output).lines().next().unwrap().to_owned();
    assert!(first.starts_with("release-notes  "), "{first}");
    assert!(first.ends_with("Writes release notes from merged pull requests."));
}

#[test]
fn invalid_skills_exit_1_with_warnings_on_stderr_and_the_json_intact() {
    let root = library();
    let broken = root.path().join("broken");
    fs::create_dir_all(&broken).unwrap();
    fs::write(broken.join("SKILL.md"), "---\nname: [unclosed\n---\n").unwrap();
    let root_arg = root.path().to_str().unwrap();
    let output = skills(root.path(), &["search", "pdf", root_arg, "--json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let json: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert!(names(&json).contains(&"pdf-forms"));
    assert!(stderr(&output).contains("broken"), "{}", stderr(&output));
}

#[test]
fn an_empty_query_is_a_usage_error() {
    let root = library();
    let output = skills(root.path(), &["search", " ", root.path().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("Query cannot be empty"));
}

#[test]
fn catalog_keeps_to_the_listing_budget_and_points_to_search_skills() {
    let root = tempfile::tempdir().unwrap();
    for n in 0..40 {
        write_skill(
            root.path(),
            &format!("skill-{n:02}"),
            &format!("skill-{n:02}"),
            &format!(
                "Does task number {n} of a long list of tasks, with a description long enough to need room in the listing."
            ),
        );
    }
    let root_arg = root.path().to_str().unwrap();
    let listed = |output: &Output| stdout(output).matches("<skill>").count();

    // Default budget (8,000 characters): 40 skills of ~200 characters each fit.
    let whole = skills(root.path(), &["catalog", root_arg]);
    assert_eq!(whole.status.code(), Some(0), "{}", stderr(&whole));
    assert_eq!(listed(&whole), 40);
    assert!(!stdout(&whole).contains("search_skills"));

    let budget = skills(
        root.path(),
        &["catalog", root_arg, "--listing-budget", "2000"],
    );
    assert_eq!(budget.status.code(), Some(0), "{}", stderr(&budget));
    let kept = listed(&budget);
    assert!(kept > 0 && kept < 40, "{kept} skills listed");
    assert!(
        stdout(&budget).contains(&format!("({} more skills are not listed here", 40 - kept)),
        "{}",
        stdout(&budget)
    );
    assert!(stdout(&budget).contains("call `search_skills`"));

    // 2% of a 25,000-token window at 4 characters a token is the same 2,000 characters.
    let window = skills(
        root.path(),
        &["catalog", root_arg, "--context-window", "25000"],
    );
    assert_eq!(stdout(&window), stdout(&budget));
    let both = skills(
        root.path(),
        &[
            "catalog",
            root_arg,
            "--context-window",
            "1",
            "--listing-budget",
            "1",
        ],
    );
    assert_eq!(both.status.code(), Some(2));
}
