//! `skills validate` as a user runs it: real files, the real binary, exit codes and output.

use crate::common;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

fn skills(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(args)
        .output()
        .expect("the skills binary runs")
}

fn write_skill(root: &Path, dir: &str, frontmatter: &str) {
    let dir = root.join(dir);
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("SKILL.md"),
        format!("---\n{frontmatter}---\n# Body\n"),
    )
    .unwrap();
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

#[test]
fn the_shipped_example_skills_are_valid_even_strictly() {
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/skills");
    let output = skills(&["validate", "--strict", examples]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(
        stdout(&output),
        "1 skill(s) checked: 0 error(s), 0 warning(s)\n"
    );
}

#[test]
fn diagnostics_are_one_line_each_and_errors_exit_1() {
    let root = tempfile::tempdir().unwrap();
    write_skill(root.path(), "good", "name: good\ndescription: Fine.\n");
    write_skill(
        root.path(),
        "group/Bad",
        "name: Bad\ndescription: Fine.\nversion: 2\n",
    );
    write_skill(root.path(), "empty", "name: empty\ndescription:\n");

    let lenient = skills(&["validate", root.path().to_str().unwrap()]);
    assert_eq!(lenient.status.code(), Some(1));
    let text = stdout(&lenient);
    let bad = root.path().join("group/Bad/SKILL.md");
    let empty = root.path().join("empty/SKILL.md");
    assert!(
        text.contains(&format!(
            "{}: error: description: Skill description is required",
            empty.display()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "{}: warning: name: Skill name `Bad` must be lowercase",
            bad.display()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "{}: warning: version: unknown top-level key",
            bad.display()
        )),
        "{text}"
    );
    assert!(
        text.ends_with("3 skill(s) checked: 1 error(s), 2 warning(s)\n"),
        "{text}"
    );

    let strict = skills(&["validate", "--strict", bad.to_str().unwrap()]);
    assert_eq!(strict.status.code(), Some(1));
    assert!(stdout(&strict).contains(": error: name: Skill name `Bad` must be lowercase"));
}

#[test]
fn json_output_is_an_array_of_diagnostics() {
    let root = tempfile::tempdir().unwrap();
    write_skill(root.path(), "mismatch", "name: other\ndescription: d\n");
    let output = skills(&[
        "validate",
        "--json",
        "--strict",
        root.path().to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    let diagnostics = common::json_of("validate", &output);
    assert_eq!(
        diagnostics,
        serde_json::json!([{
            "path": root.path().join("mismatch/SKILL.md"),
            "severity": "error",
            "field": "name",
            "message": "Skill name `other` does not match its directory `mismatch`; rename one to match the other",
        }])
    );
    let clean = skills(&[
        "validate",
        "--json",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/skills"),
    ]);
    assert_eq!(clean.status.code(), Some(0));
    assert_eq!(stdout(&clean).trim(), "[]");
}

#[test]
fn unreadable_files_and_empty_roots_are_errors_not_crashes() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("binary");
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("SKILL.md"),
        b"---\nname: binary\ndescription: \xff\xfe\n---\n",
    )
    .unwrap();
    let output = skills(&["validate", root.path().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout(&output).contains("error: SKILL.md: the frontmatter is not UTF-8"),
        "{}",
        stdout(&output)
    );

    let empty = tempfile::tempdir().unwrap();
    let output = skills(&["validate", empty.path().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("no SKILL.md found"));

    let output = skills(&["validate", "{ \"frontmatter\": [unclosed"]);
    assert!(stdout(&output).is_empty());
}

#[test]
fn usage_errors_exit_2_with_one_clear_line() {
    let output = skills(&["validate", "/definitely/not/here"]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(
        message.starts_with("skills: /definitely/not/here: "),
        "{message}"
    );
    assert!(!message.contains("panicked"));

    assert_eq!(skills(&["validate"]).status.code(), Some(2));
    assert_eq!(
        skills(&["validate", "--frobnicate", "."]).status.code(),
        Some(2)
    );
    assert_eq!(skills(&["--help"]).status.code(), Some(0));
}

#[test]
fn init_makes_a_skill_that_validates_strictly_and_never_overwrites_one() {
    let temp = tempfile::tempdir().unwrap();
    let parent = temp.path().to_str().unwrap();
    let made = skills(&["init", "Zoho Books", "--dir", parent]);
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    assert!(
        stderr(&made)
            .contains("`Zoho Books` is not a valid skill name; the skill is called `zoho-books`"),
        "{}",
        stderr(&made)
    );
    assert!(
        stdout(&made).starts_with("created skill zoho-books in "),
        "{}",
        stdout(&made)
    );
    let skill = temp.path().join("zoho-books");
    for file in [
        "SKILL.md",
        "references/REFERENCE.md",
        "scripts/.gitkeep",
        "evals/evals.json",
    ] {
        assert!(skill.join(file).is_file(), "{file}");
    }
    let checked = skills(&["validate", "--strict", skill.to_str().unwrap()]);
    assert_eq!(checked.status.code(), Some(0), "{}", stdout(&checked));

    // A second init of the same name changes nothing and says why.
    fs::write(skill.join("SKILL.md"), "mine").unwrap();
    let again = skills(&["init", "zoho-books", "--dir", parent]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("already exists"),
        "{}",
        stderr(&again)
    );
    assert_eq!(fs::read_to_string(skill.join("SKILL.md")).unwrap(), "mine");

    // Without a name, the current directory becomes the skill when its name is valid.
    let here = temp.path().join("notes");
    fs::create_dir(&here).unwrap();
    let in_here = Command::new(env!("CARGO_BIN_EXE_skills"))
        .arg("init")
        .current_dir(&here)
        .output()
        .unwrap();
    assert_eq!(in_here.status.code(), Some(0), "{}", stderr(&in_here));
    assert!(here.join("SKILL.md").is_file());
    let spaced = temp.path().join("My Notes");
    fs::create_dir(&spaced).unwrap();
    let refused = Command::new(env!("CARGO_BIN_EXE_skills"))
        .arg("init")
        .current_dir(&spaced)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("give a NAME (`skills init my-notes`)"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(fs::read_dir(&spaced).unwrap().count(), 0);
}

/// `--color always` colours the severity (codes of ours around it, the skill's own escape
/// still escaped); `never` prints none.
#[test]
fn color_always_colours_the_severity_only() {
    let temp = tempfile::tempdir().unwrap();
    write_skill(temp.path(), "x", "name: Bad\u{1b}[2J\ndescription: x\n");
    let root = temp.path().to_str().unwrap();
    let coloured = stdout(&skills(&["--color", "always", "validate", root]));
    assert!(
        coloured.contains("SKILL.md: \u{1b}[33mwarning\u{1b}[0m: name: "),
        "{coloured:?}"
    );
    assert!(!coloured.contains("\u{1b}[2J"), "{coloured:?}");
    let plain = stdout(&skills(&["--color", "never", "validate", root]));
    assert!(!plain.contains('\u{1b}'), "{plain:?}");
    assert!(plain.contains(": warning: name: "), "{plain:?}");
}

#[test]
fn lifecycle_metadata_is_checked_and_strict_mode_asks_for_an_owner_and_a_version() {
    let temp = tempfile::tempdir().unwrap();
    write_skill(
        temp.path(),
        "kept",
        "name: kept\ndescription: Kept up.\nmetadata:\n  version: 2.1.0\n  owner: data@example.com\n  anti-triggers: mortgage advice; credit score\n",
    );
    write_skill(
        temp.path(),
        "loose",
        "name: loose\ndescription: Nobody answers for it.\nmetadata:\n  version: one point two\n",
    );
    let root = temp.path().to_str().unwrap();
    let lenient = skills(&["validate", root]);
    assert_eq!(lenient.status.code(), Some(0), "{}", stdout(&lenient));
    assert!(
        stdout(&lenient).contains("warning: metadata.version: skill 'loose': metadata.version: `one point two` is not a version"),
        "{}",
        stdout(&lenient)
    );
    assert!(stdout(&lenient).ends_with("2 skill(s) checked: 0 error(s), 1 warning(s)\n"));

    let strict = skills(&["validate", "--strict", root]);
    assert_eq!(strict.status.code(), Some(1), "{}", stdout(&strict));
    let text = stdout(&strict);
    assert!(
        text.contains("error: metadata.version: skill 'loose'"),
        "{text}"
    );
    assert!(
        text.contains("loose/SKILL.md: warning: metadata.owner: not declared"),
        "{text}"
    );
    assert!(!text.contains("kept/SKILL.md"), "{text}");
    assert!(
        text.ends_with("2 skill(s) checked: 1 error(s), 1 warning(s)\n"),
        "{text}"
    );
}
