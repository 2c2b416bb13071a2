//! `skills serve --stdio` checked by a second, independent implementation of the Skills
//! extension's final form: the Python client of `crates/mcp/tests/python/final_form_client.py`,
//! written from the spec's text. It opens a session in each protocol era, pages `skills/list`,
//! checks every entry and `skills/get`, reads and verifies every file of every manifest, walks
//! the directories and probes the errors the spec asks for; it exits 0 only when it found no
//! violation.
//!
//! Every test is skipped, saying why, when `python3` with PyYAML is missing (CI installs both).

use std::fs;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_skills");
const CLIENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../mcp/tests/python/final_form_client.py"
);

/// Whether `python3` with PyYAML can run the client; prints why not when it cannot.
fn python_ready() -> bool {
    skillful_test_support::python_imports("yaml", "pip install pyyaml")
}

/// Skills with typed metadata, supporting files in subdirectories, a binary file, a script, a
/// file name with a space, a nested `SKILL.md` (supporting content, not a skill), and a skill
/// with a key the specification does not define (served leniently, not with `--strict`).
fn skills_tree(root: &Path) {
    let files: &[(&str, &[u8])] = &[
        (
            "git-workflow/SKILL.md",
            b"---\nname: git-workflow\ndescription: Follow the team's Git conventions.\n---\nBranch from main.\n",
        ),
        (
            "team/refunds/SKILL.md",
            b"---\nname: refunds\ndescription: Process refunds.\nlicense: Apache-2.0\nmetadata:\n  version: 2.1\n  tags: [billing, money]\n  beta: true\n---\nSee examples/email.md.\n",
        ),
        ("team/refunds/examples/email.md", b"Dear customer,\n"),
        ("team/refunds/examples/reply draft.md", b"Thanks,\n"),
        (
            "pdf-processing/SKILL.md",
            b"---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents.\n---\nPick a template in templates/.\n",
        ),
        ("pdf-processing/templates/invoice.md", b"Invoice\n"),
        ("pdf-processing/templates/data.json", b"{\"a\": 1}\n"),
        ("pdf-processing/scripts/fill.py", b"print('filled')\n"),
        ("pdf-processing/scripts/blob.sh", b"echo \xff\xfe\n"),
        (
            "pdf-processing/forms/SKILL.md",
            b"---\nname: forms\ndescription: Nested, not a skill of its own.\n---\nNested.\n",
        ),
        (
            "versioned/SKILL.md",
            b"---\nname: versioned\ndescription: Has a key outside the specification.\nversion: 3\n---\nV.\n",
        ),
    ];
    for (path, bytes) in files {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }
}

/// The Python client's report on `skills serve --stdio ROOT EXTRA...` in `era`.
fn check(root: &Path, era: &str, extra: &[&str]) -> serde_json::Value {
    let output = Command::new("python3")
        .arg(CLIENT)
        .args(["--era", era, "--", BIN, "serve", "--stdio"])
        .args(extra)
        .arg(root)
        .env("HOME", root)
        .env_remove("RUST_LOG")
        .output()
        .expect("python3 runs");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
        panic!(
            "no report: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    assert_eq!(
        output.status.code(),
        Some(0),
        "the Python client found violations in {era}: {report:#}"
    );
    report
}

fn listed(report: &serde_json::Value) -> Vec<(String, u64)> {
    report["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| {
            (
                skill["uri"].as_str().unwrap().to_owned(),
                skill["verified"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_python_client_finds_our_server_conforming_in_every_era() {
    if !python_ready() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    for (era, expected) in [
        ("legacy", "legacy"),
        ("modern", "modern"),
        ("auto", "modern"),
    ] {
        let report = check(root.path(), era, &[]);
        assert_eq!(report["era"], expected, "{report:#}");
        assert_eq!(report["ok"], true);
        assert_eq!(
            listed(&report),
            [
                ("skill://git-workflow/SKILL.md".to_owned(), 1),
                ("skill://pdf-processing/SKILL.md".to_owned(), 5),
                ("skill://refunds/SKILL.md".to_owned(), 3),
                ("skill://versioned/SKILL.md".to_owned(), 1),
            ],
            "every file of every manifest read and verified, scripts included: {report:#}"
        );
    }
}

#[test]
fn with_strict_only_skills_that_meet_the_specification_are_served() {
    if !python_ready() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let report = check(root.path(), "legacy", &["--strict"]);
    let uris: Vec<String> = listed(&report).into_iter().map(|(uri, _)| uri).collect();
    // `versioned` has a key the specification does not define, and `refunds` metadata values
    // that are not strings: both break it strictly.
    assert_eq!(
        uris,
        [
            "skill://git-workflow/SKILL.md",
            "skill://pdf-processing/SKILL.md"
        ]
    );
}
