//! Real SKILL.md files (copies of anthropics/skills and obra/superpowers in `tests/corpora`, with
//! their licences) read through the facade: every file parses, with the name and description a reader sees.

use std::path::PathBuf;

use skillful::frontmatter::{FrontmatterLoader, ValidationMode};

/// (path under the corpora, name, start of the description, description length in characters).
const EXPECTED: &[(&str, &str, &str, usize)] = &[
    (
        "anthropics-skills/skills/algorithmic-art/SKILL.md",
        "algorithmic-art",
        "Creating algorithmic art using p5.js wit",
        324,
    ),
    (
        "anthropics-skills/skills/brand-guidelines/SKILL.md",
        "brand-guidelines",
        "Applies Anthropic's official brand color",
        236,
    ),
    (
        "anthropics-skills/skills/canvas-design/SKILL.md",
        "canvas-design",
        "Create beautiful visual art in .png and ",
        289,
    ),
    (
        "anthropics-skills/skills/claude-api/SKILL.md",
        "claude-api",
        "Reference for the Claude API / Anthropic",
        1068,
    ),
    (
        "anthropics-skills/skills/frontend-design/SKILL.md",
        "frontend-design",
        "Guidance for distinctive, intentional vi",
        204,
    ),
    (
        "anthropics-skills/skills/internal-comms/SKILL.md",
        "internal-comms",
        "A set of resources to help me write all ",
        329,
    ),
    (
        "anthropics-skills/skills/mcp-builder/SKILL.md",
        "mcp-builder",
        "Guide for creating high-quality MCP (Mod",
        277,
    ),
    (
        "anthropics-skills/skills/skill-creator/SKILL.md",
        "skill-creator",
        "Create new skills, modify and improve ex",
        319,
    ),
    (
        "anthropics-skills/skills/slack-gif-creator/SKILL.md",
        "slack-gif-creator",
        "Knowledge and utilities for creating ani",
        227,
    ),
    (
        "anthropics-skills/skills/theme-factory/SKILL.md",
        "theme-factory",
        "Toolkit for styling artifacts with a the",
        262,
    ),
    (
        "anthropics-skills/skills/web-artifacts-builder/SKILL.md",
        "web-artifacts-builder",
        "Suite of tools for creating elaborate, m",
        288,
    ),
    (
        "anthropics-skills/skills/webapp-testing/SKILL.md",
        "webapp-testing",
        "Toolkit for interacting with and testing",
        204,
    ),
    (
        "anthropics-skills/template/SKILL.md",
        "template-skill",
        "Replace with description of the skill an",
        68,
    ),
    (
        "obra-superpowers/skills/brainstorming/SKILL.md",
        "brainstorming",
        "You MUST use this before any creative wo",
        198,
    ),
    (
        "obra-superpowers/skills/dispatching-parallel-agents/SKILL.md",
        "dispatching-parallel-agents",
        "Use when facing 2+ independent tasks tha",
        106,
    ),
    (
        "obra-superpowers/skills/executing-plans/SKILL.md",
        "executing-plans",
        "Use when you have a written implementati",
        104,
    ),
    (
        "obra-superpowers/skills/finishing-a-development-branch/SKILL.md",
        "finishing-a-development-branch",
        "Use when implementation is complete, all",
        101,
    ),
    (
        "obra-superpowers/skills/receiving-code-review/SKILL.md",
        "receiving-code-review",
        "Use when receiving code review feedback,",
        234,
    ),
    (
        "obra-superpowers/skills/requesting-code-review/SKILL.md",
        "requesting-code-review",
        "Use when completing tasks, implementing ",
        107,
    ),
    (
        "obra-superpowers/skills/subagent-driven-development/SKILL.md",
        "subagent-driven-development",
        "Use when executing implementation plans ",
        85,
    ),
    (
        "obra-superpowers/skills/systematic-debugging/SKILL.md",
        "systematic-debugging",
        "Use when encountering any bug, test fail",
        91,
    ),
    (
        "obra-superpowers/skills/test-driven-development/SKILL.md",
        "test-driven-development",
        "Use when implementing any feature or bug",
        79,
    ),
    (
        "obra-superpowers/skills/using-git-worktrees/SKILL.md",
        "using-git-worktrees",
        "Use when starting feature work that need",
        196,
    ),
    (
        "obra-superpowers/skills/using-superpowers/SKILL.md",
        "using-superpowers",
        "Use when starting any conversation - est",
        154,
    ),
    (
        "obra-superpowers/skills/verification-before-completion/SKILL.md",
        "verification-before-completion",
        "Use when about to claim work is complete",
        225,
    ),
    (
        "obra-superpowers/skills/writing-plans/SKILL.md",
        "writing-plans",
        "Use when you have a spec or requirements",
        84,
    ),
    (
        "obra-superpowers/skills/writing-skills/SKILL.md",
        "writing-skills",
        "Use when creating new skills, editing ex",
        97,
    ),
];

fn corpora() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpora");
    assert!(
        root.is_dir(),
        "the corpora are missing at {}",
        root.display()
    );
    root
}

#[test]
fn every_corpus_skill_loads_leniently_with_the_expected_name_and_description() {
    let loader = FrontmatterLoader::new(ValidationMode::Lenient);
    for (path, name, description_start, description_chars) in EXPECTED {
        let file = corpora().join(path);
        let text = std::fs::read_to_string(&file).unwrap();
        let dir = file
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap();
        let loaded = loader
            .load(&text, Some(dir))
            .unwrap_or_else(|d| panic!("{path}: {d:?}"));
        assert_eq!(loaded.frontmatter.name, *name, "{path}");
        assert!(
            loaded
                .frontmatter
                .description
                .starts_with(description_start),
            "{path}: {:?}",
            loaded.frontmatter.description
        );
        assert_eq!(
            loaded.frontmatter.description.chars().count(),
            *description_chars,
            "{path}"
        );
    }
}

#[test]
fn every_corpus_file_is_covered() {
    let mut found = Vec::new();
    let mut stack = vec![corpora()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == "SKILL.md") {
                found.push(
                    path.strip_prefix(corpora())
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    found.sort();
    let expected: Vec<&str> = EXPECTED.iter().map(|e| e.0).collect();
    assert_eq!(found, expected);
}

#[test]
fn strict_validation_rejects_exactly_the_two_files_that_break_the_spec() {
    let loader = FrontmatterLoader::new(ValidationMode::Strict);
    let mut rejected = Vec::new();
    for (path, ..) in EXPECTED {
        let file = corpora().join(path);
        let text = std::fs::read_to_string(&file).unwrap();
        let dir = file
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap();
        if let Err(diagnostics) = loader.load(&text, Some(dir)) {
            let fields: Vec<String> = diagnostics.into_iter().map(|d| d.field).collect();
            rejected.push((*path, fields));
        }
    }
    assert_eq!(
        rejected,
        [
            (
                "anthropics-skills/skills/claude-api/SKILL.md",
                vec!["description".to_owned()]
            ),
            (
                "anthropics-skills/template/SKILL.md",
                vec!["name".to_owned()]
            ),
        ]
    );
}
