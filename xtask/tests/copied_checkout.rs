//! The built `xtask` binary finds the workspace at run time: run from a copy of the checkout (as
//! when a copied or moved checkout reuses a target directory), it writes into the copy, never into
//! the checkout it was built from.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const NAME: &str = "copied-checkout-probe";

/// The checkout this test was built from.
fn original() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Copies the checkout's files (tracked, and untracked but not ignored: no target directory)
/// into `to`.
fn copy_checkout(to: &Path) {
    let listed = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(original())
        .output()
        .expect("git lists the checkout's files");
    assert!(listed.status.success(), "git ls-files failed: {listed:?}");
    for file in listed
        .stdout
        .split(|byte| *byte == 0)
        .filter(|f| !f.is_empty())
    {
        let relative = Path::new(std::str::from_utf8(file).unwrap());
        let source = original().join(relative);
        if !source.is_file() {
            continue; // deleted in the work tree, not yet committed
        }
        let target = to.join(relative);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(&source, &target).unwrap();
    }
}

fn xtask(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the xtask binary runs")
}

fn assert_ok(output: &Output) {
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_copied_checkout_gets_the_new_plugin_and_skill_not_the_original() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy");
    copy_checkout(&copy);

    // From a subdirectory of the copy: the workspace is found upwards.
    assert_ok(&xtask(&["new-plugin", NAME], &copy.join("crates")));
    assert_ok(&xtask(&["new-skill", NAME], &copy));

    let manifest = std::fs::read_to_string(copy.join("plugins").join(NAME).join("Cargo.toml"))
        .expect("the plugin was written into the copy");
    assert!(
        manifest.contains(r#"path = "../../crates/plugin-abi""#),
        "{manifest}"
    );
    assert!(
        copy.join(".agents/skills")
            .join(NAME)
            .join("SKILL.md")
            .is_file()
    );
    assert!(!original().join("plugins").join(NAME).exists());
    assert!(!original().join(".agents/skills").join(NAME).exists());
}

#[test]
fn outside_any_workspace_it_says_where_to_run_unless_given_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let output = xtask(&["new-skill", NAME], dir.path());
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr
            .starts_with("xtask: cargo xtask runs inside the skillful workspace: cd into it first"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);

    let skills = dir.path().join("skills");
    assert_ok(&xtask(
        &["new-skill", NAME, "--dir", skills.to_str().unwrap()],
        dir.path(),
    ));
    assert!(skills.join(NAME).join("SKILL.md").is_file());
}
