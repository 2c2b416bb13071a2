//! Activation by the runtime, measured: the evaluation set of `tests/activation/requests.json`
//! (requests written for a skill of the vendored corpora or `examples/skills`, and unrelated
//! requests that should activate none) against every one of those skills at once, through
//! `skillful::provider::search::activation_match`. Prints precision and recall (the README's
//! figures: `cargo test --test activation -- --nocapture`) and holds them to the targets; the
//! matcher is deterministic, so the figures are too.

use std::path::{Path, PathBuf};

use skillful::frontmatter::{FrontmatterLoader, ValidationMode};
use skillful::provider::search::activation_match;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every SKILL.md below `dir`.
fn skill_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            skill_files(&path, found);
        } else if path.file_name().is_some_and(|name| name == "SKILL.md") {
            found.push(path);
        }
    }
}

/// (name, description) of every skill of the corpora and the examples.
fn skills() -> Vec<(String, String)> {
    let mut files = Vec::new();
    skill_files(&root().join("tests/corpora"), &mut files);
    skill_files(&root().join("examples/skills"), &mut files);
    files.sort();
    let loader = FrontmatterLoader::new(ValidationMode::Lenient);
    files
        .iter()
        .map(|file| {
            let text = std::fs::read_to_string(file).unwrap();
            let loaded = loader
                .load(&text, file.parent().unwrap().file_name().unwrap().to_str())
                .unwrap_or_else(|error| panic!("{}: {error:?}", file.display()));
            (loaded.frontmatter.name, loaded.frontmatter.description)
        })
        .collect()
}

struct Case {
    request: String,
    skill: Option<String>,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(root().join("tests/activation/requests.json")).unwrap();
    let cases: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    cases
        .iter()
        .map(|case| Case {
            request: case["request"].as_str().unwrap().to_owned(),
            skill: case["skill"].as_str().map(str::to_owned),
        })
        .collect()
}

#[test]
fn activation_precision_and_recall_on_the_evaluation_set_meet_the_targets() {
    let skills = skills();
    assert!(skills.len() > 25, "{} skills", skills.len());
    let cases = cases();
    let (mut activated, mut right, mut positives) = (0, 0, 0);
    for case in &cases {
        let found = activation_match(
            &case.request,
            skills
                .iter()
                .map(|(name, description)| (name.as_str(), description.as_str())),
        );
        positives += usize::from(case.skill.is_some());
        let found = found.map(|found| found.name);
        if found.is_some() {
            activated += 1;
            right += usize::from(found == case.skill);
        }
        if found != case.skill {
            println!(
                "  {:?}: expected {:?}, activated {:?}",
                case.request, case.skill, found
            );
        }
    }
    let precision = right as f64 / activated.max(1) as f64;
    let recall = right as f64 / positives as f64;
    println!(
        "activation over {} skills, {} requests ({positives} for a skill): precision {precision:.3} \
         ({right}/{activated}), recall {recall:.3} ({right}/{positives})",
        skills.len(),
        cases.len()
    );
    assert!(precision >= 0.95, "precision {precision:.3}");
    assert!(recall >= 0.8, "recall {recall:.3}");
}
