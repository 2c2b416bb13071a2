//! The exit codes of `skills`, as `docs/src/reference/environment.md` gives them: 0 done, 1 done
//! and something is wrong, 2 a usage error, 3 a run left waiting for an approval.
//!
//! Here: code 2 for an unknown flag on every command (the list read from `skills --help`), and
//! `list` and `catalog` agreeing on a root holding a broken skill (exit 1, the same warning on
//! stderr). The other codes are tested where each command is tested in a real setup:
//!
//! | code | case | test |
//! |---|---|---|
//! | 0 | a valid skill, validated strictly | `validate.rs` `the_shipped_example_skills_are_valid_even_strictly` |
//! | 1 | validation errors | `validate.rs` `diagnostics_are_one_line_each_and_errors_exit_1` |
//! | 1 | a skill skipped as broken (`list`, `catalog`) | here, `list_and_catalog_report_a_broken_skill_alike` |
//! | 1 | named roots holding no skill | `inspect.rs` `an_empty_list_says_where_it_looked_and_how_to_add_a_skill` |
//! | 1 | a script that failed or timed out | `inspect.rs` `run_script_passes_arguments_verbatim_and_exits_1_when_the_script_fails`, `run_script_kills_a_script_past_its_timeout_and_exits_1` |
//! | 1 | a `scan` finding at or above `--fail-on` | `scan.rs` `a_high_finding_fails_and_a_medium_one_passes_unless_asked` |
//! | 1 | `doctor` found something unsafe | `doctor.rs` `a_state_directory_others_can_write_fails_naming_it_and_is_left_as_it_is` |
//! | 1 | a `verify` difference, `outdated` found a newer commit | `supply.rs` `add_a_tag_verify_tamper_and_remove`, `a_branch_moves_outdated_sees_it_and_update_relocks` |
//! | 1 | an install refused (findings, `--strict`, `install --frozen`) | `supply.rs` `a_high_finding_is_refused_unless_allowed`, `strict_refuses_an_invalid_name_at_add_and_install`, `install_frozen_fails_when_the_lock_would_change_and_leaves_it` |
//! | 1 | an `eval` whose runs the model server ended | `eval.rs` `runs_the_server_failed_are_left_out_of_the_pass_rates_and_fail_the_command` |
//! | 2 | an unknown flag, every command | here, `an_unknown_flag_is_a_usage_error_for_every_command` |
//! | 2 | a missing root | `inspect.rs` `a_missing_root_is_a_usage_error`, `scan.rs` `a_missing_path_is_a_usage_error` |
//! | 2 | other usage errors (bad values, `init` over a skill) | `validate.rs` `usage_errors_exit_2_with_one_clear_line` |
//! | 2 | a refused trust without `--force` | `trust.rs` `agents_planted_in_a_shared_sticky_directory_is_never_proposed_and_trusted_only_by_force` |
//! | 2 | an install that could not ask (no terminal, no `--yes`) | `supply.rs` `without_a_terminal_add_asks_for_yes` |
//! | 3 | a run left waiting for an approval | `approvals.rs` `always_is_kept_per_user_and_voided_when_the_script_changes`, `converse.rs` |

use crate::common;
use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common::text;

/// `skills ARGS` in `dir`, with `dir/home` as its home and no terminal.
fn skills(dir: &Path, args: &[&str]) -> Output {
    let home = dir.join("home");
    fs::create_dir_all(&home).unwrap();
    Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(args)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_STATE_HOME", home.join(".state"))
        .env("NO_COLOR", "1")
        .env_remove("RUST_LOG")
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("the skills binary runs")
}

#[test]
fn an_unknown_flag_is_a_usage_error_for_every_command() {
    let temp = tempfile::tempdir().unwrap();
    let commands = common::commands();
    assert!(commands.len() > 20, "{commands:?}");
    let mut calls: Vec<Vec<&str>> = vec![vec!["--no-such-flag"], vec![]];
    calls.extend(
        commands
            .iter()
            .map(|command| vec![command.as_str(), "--no-such-flag"]),
    );
    calls.extend(common::ENGINE_COMMANDS.map(|command| {
        let mut call: Vec<&str> = command.split(' ').collect();
        call.push("--no-such-flag");
        call
    }));
    for args in calls {
        let output = skills(temp.path(), &args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "skills {args:?}: {}",
            text(&output.stderr)
        );
        assert!(output.stdout.is_empty(), "skills {args:?}");
        if args.contains(&"--no-such-flag") {
            assert!(
                text(&output.stderr).contains("--no-such-flag"),
                "skills {args:?}: {}",
                text(&output.stderr)
            );
        }
    }
}

/// A root with one valid skill and one whose frontmatter does not parse: `list` and `catalog`
/// both show the valid one, both say the same one line about the broken one on stderr (once),
/// and both exit 1 ("validation errors": the reference's code 1).
#[test]
fn list_and_catalog_report_a_broken_skill_alike() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    fs::create_dir_all(root.join("good")).unwrap();
    fs::create_dir_all(root.join("bad")).unwrap();
    fs::write(
        root.join("good/SKILL.md"),
        "---\nname: good\ndescription: A good skill.\n---\nBody.\n",
    )
    .unwrap();
    fs::write(
        root.join("bad/SKILL.md"),
        "---\nname: [bad\ndescription: Broken.\n---\n",
    )
    .unwrap();
    let root = root.to_str().unwrap();
    let mut warnings = Vec::new();
    for command in ["list", "catalog"] {
        let output = skills(temp.path(), &[command, root]);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{command}: {stderr}");
        assert!(text(&output.stdout).contains("good"), "{command}");
        let lines: Vec<&str> = stderr
            .lines()
            .filter(|line| line.contains("bad/SKILL.md"))
            .collect();
        assert_eq!(lines.len(), 1, "{command}: {stderr}");
        warnings.push(lines[0].to_owned());
    }
    assert_eq!(warnings[0], warnings[1]);
    assert!(warnings[0].contains("error"), "{}", warnings[0]);

    // With only the valid skill both exit 0.
    fs::remove_dir_all(Path::new(root).join("bad")).unwrap();
    for command in ["list", "catalog"] {
        let output = skills(temp.path(), &[command, root]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{command}: {}",
            text(&output.stderr)
        );
    }
}
