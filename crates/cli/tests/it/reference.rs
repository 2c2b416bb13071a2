//! Help examples, shell completions and man pages, from the real binary.

use std::process::{Command, Output};

use crate::common::{ENGINE_COMMANDS, commands};

fn skills(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("the skills binary runs")
}

fn stdout(output: &Output) -> String {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn every_command_help_shows_an_example_of_itself() {
    let mut commands = commands();
    assert!(commands.len() > 20, "{commands:?}");
    commands.extend(ENGINE_COMMANDS.map(String::from));
    for command in commands {
        let mut args: Vec<&str> = command.split(' ').collect();
        args.push("--help");
        let help = stdout(&skills(&args));
        let example = help
            .split("Example:\n")
            .nth(1)
            .unwrap_or_else(|| panic!("`skills {command} --help` has no example:\n{help}"));
        assert!(
            example
                .trim_start()
                .starts_with(&format!("skills {command}")),
            "the example of `{command}` runs another command: {example}"
        );
    }
}

#[test]
fn completions_cover_every_command() {
    let commands = commands();
    for shell in ["bash", "zsh", "fish"] {
        let script = stdout(&skills(&["completions", shell]));
        for command in &commands {
            assert!(
                script.contains(command.as_str()),
                "{shell} completions lack `{command}`"
            );
        }
    }
    let bash = stdout(&skills(&["completions", "bash"]));
    assert!(bash.contains("complete -F _skills"), "{bash}");
    let unknown = skills(&["completions", "tcsh"]);
    assert_eq!(unknown.status.code(), Some(2));
}

#[test]
fn man_pages_are_written_per_command() {
    let page = stdout(&skills(&["man"]));
    assert!(
        page.starts_with(".ie") || page.contains(".TH skills 1"),
        "{page}"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man1");
    stdout(&skills(&["man", "--out", out.to_str().unwrap()]));
    for command in commands() {
        let page = std::fs::read_to_string(out.join(format!("skills-{command}.1")))
            .unwrap_or_else(|e| panic!("no man page for `{command}`: {e}"));
        assert!(page.contains(&format!(".TH skills-{command} 1")), "{page}");
    }
    assert!(out.join("skills.1").is_file());
    // The reference sections, from the book's chapter, on the main page and on each command's.
    for page in ["skills.1", "skills-run.1", "skills-engine-start.1"] {
        let page = std::fs::read_to_string(out.join(page)).unwrap();
        for section in [
            ".SH \"EXIT STATUS\"",
            ".SH \"ENVIRONMENT\"",
            ".SH \"FILES\"",
        ] {
            assert_eq!(page.matches(section).count(), 1, "{section} in {page}");
        }
        assert!(
            page.contains(".TP\n3\nskills run stopped with a call waiting"),
            "{page}"
        );
        assert!(page.contains(".TP\nSKILLS_ENDPOINT\n"), "{page}");
    }
}

#[test]
fn the_books_command_table_names_every_command() {
    let chapter = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/src/guide/cli.md"
    ))
    .unwrap();
    let table = chapter
        .split("```text\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the chapter opens with the command table");
    for command in commands() {
        assert!(
            table.contains(&format!("skills {command} "))
                || table.contains(&format!("skills {command}\n")),
            "docs/src/guide/cli.md's command table lacks `skills {command}`"
        );
    }
}
