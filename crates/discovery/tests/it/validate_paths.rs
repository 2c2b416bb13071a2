//! `validate_paths`: which paths name skills, and what `skills validate` reports for them.

use crate::common;

use common::Tree;
use skillful_discovery::{ValidateError, validate_paths};
use skillful_frontmatter::ValidationMode;

#[tokio::test]
async fn a_skill_md_its_directory_and_a_root_are_checked_other_files_and_empty_places_are_errors() {
    let tree = Tree::new();
    let skill_md = tree.write(
        "root/good/SKILL.md",
        "---\nname: good\ndescription: Good.\nmetadata:\n  version: 1.0.0\n  owner: tests\n---\nBody.\n",
    );
    tree.write(
        "root/bad/SKILL.md",
        "---\nname: Bad Name\ndescription: Bad.\n---\nBody.\n",
    );
    let notes = tree.write("notes.txt", "not a skill");
    std::fs::create_dir(tree.root.join("empty")).unwrap();

    let strict = validate_paths(&[tree.root.join("root")], ValidationMode::Strict)
        .await
        .unwrap();
    assert_eq!(strict.checked, 2, "{:?}", strict.diagnostics);
    assert!(strict.errors() >= 1, "{:?}", strict.diagnostics);
    assert!(
        strict
            .diagnostics
            .iter()
            .all(|d| d.path.as_ref().is_some_and(|p| p.ends_with("bad/SKILL.md"))),
        "{:?}",
        strict.diagnostics
    );
    let lenient = validate_paths(&[tree.root.join("root")], ValidationMode::Lenient)
        .await
        .unwrap();
    assert_eq!((lenient.checked, lenient.errors()), (2, 0));
    assert!(lenient.warnings() >= 1);

    let single = validate_paths(&[skill_md], ValidationMode::Strict)
        .await
        .unwrap();
    assert_eq!(
        (single.checked, single.errors(), single.warnings()),
        (1, 0, 0)
    );

    let neither = validate_paths(&[notes, tree.root.join("empty")], ValidationMode::Lenient)
        .await
        .unwrap();
    let messages: Vec<&str> = neither
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        messages,
        [
            "not a SKILL.md; point at a skill directory or its SKILL.md",
            "no SKILL.md found here or in the 6 levels below; point at a skill directory",
        ]
    );
    assert_eq!(neither.errors(), 2);
}

#[tokio::test]
async fn a_missing_path_checks_nothing_and_says_to_give_an_existing_one() {
    let tree = Tree::new();
    let missing = tree.root.join("missing");
    let error = validate_paths(std::slice::from_ref(&missing), ValidationMode::Lenient)
        .await
        .unwrap_err();
    assert!(matches!(&error, ValidateError::Missing { path, .. } if *path == missing));
    assert!(
        error.to_string().ends_with("; give an existing path"),
        "{error}"
    );
}
