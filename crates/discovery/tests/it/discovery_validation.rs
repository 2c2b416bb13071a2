//! Which SKILL.md files load: frontmatter validation in both modes, limits, and reading only the
//! frontmatter at discovery.

use crate::common;

use common::{Tree, about, discover, names, skill_md};
use skillful_core::{Diagnostic, Severity, Skill, SkillError};
use skillful_discovery::{Discovery, FileSkillsSource};
use skillful_frontmatter::{FrontmatterLoader, ParseOptions, ValidationMode};

async fn discover_with(root: &std::path::Path, loader: FrontmatterLoader) -> Discovery {
    FileSkillsSource::builder()
        .root(root)
        .loader(loader)
        .build()
        .unwrap()
        .discover()
        .await
}

fn strict() -> FrontmatterLoader {
    FrontmatterLoader::new(ValidationMode::Strict)
}

fn lenient() -> FrontmatterLoader {
    FrontmatterLoader::new(ValidationMode::Lenient)
}

/// Whether `found` holds an error about the `name` of the skill file `file`.
fn name_refused(found: &[Diagnostic], file: &std::path::Path) -> bool {
    about(found, file)
        .iter()
        .any(|d| d.is_error() && d.field == "name")
}

#[tokio::test]
async fn missing_frontmatter_or_description_excludes_the_skill_with_an_error_naming_the_file() {
    let tree = Tree::new();
    let no_frontmatter = tree.write("no-frontmatter/SKILL.md", "# Just a title\n");
    let unclosed = tree.write("unclosed/SKILL.md", "---\nname: unclosed\ndescription: x\n");
    let no_description = tree.write(
        "no-description/SKILL.md",
        "---\nname: no-description\n---\n",
    );
    tree.skill("valid");

    for loader in [strict(), lenient()] {
        let found = discover_with(&tree.root, loader).await;

        assert_eq!(names(&found), ["valid"]);
        for file in [&no_frontmatter, &unclosed, &no_description] {
            let diagnostics = about(&found.diagnostics, file);
            assert!(
                diagnostics.iter().any(|d| d.is_error()),
                "{file:?}: {diagnostics:?}"
            );
        }
    }
}

#[tokio::test]
async fn a_missing_name_falls_back_to_the_directory_when_lenient_and_is_an_error_when_strict() {
    let tree = Tree::new();
    let file = tree.write("unnamed/SKILL.md", "---\ndescription: No name.\n---\n");

    let found = discover_with(&tree.root, lenient()).await;
    assert_eq!(names(&found), ["unnamed"]);
    let warnings = found.skills[0].diagnostics();
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].field, "name");
    assert_eq!(warnings[0].severity, Severity::Warning);
    assert_eq!(warnings[0].path.as_deref(), Some(file.as_path()));
    assert_eq!(about(&found.diagnostics, &file).len(), 1);

    let found = discover_with(&tree.root, strict()).await;
    assert!(found.skills.is_empty());
    assert!(name_refused(&found.diagnostics, &file));
}

#[tokio::test]
async fn names_breaking_the_specification_are_rejected_when_strict_and_warned_when_lenient() {
    let tree = Tree::new();
    let too_long = "a".repeat(65);
    let bad = [
        "BadName",
        "-leading-hyphen",
        "trailing-hyphen-",
        "has spaces",
        "consecutive--hyphens",
        too_long.as_str(),
    ];
    for name in bad {
        tree.write(&format!("{name}/SKILL.md"), skill_md(name, "Bad name."));
    }

    let found = discover_with(&tree.root, strict()).await;
    assert!(found.skills.is_empty(), "{:?}", names(&found));
    for name in bad {
        let file = tree.path(&format!("{name}/SKILL.md"));
        assert!(name_refused(&found.diagnostics, &file), "{name}");
    }

    let found = discover_with(&tree.root, lenient()).await;
    assert_eq!(found.skills.len(), bad.len());
    for skill in &found.skills {
        assert!(
            skill
                .diagnostics()
                .iter()
                .any(|d| d.field == "name" && !d.is_error()),
            "{}",
            skill.frontmatter().name
        );
    }
}

#[tokio::test]
async fn a_name_that_differs_from_its_directory_is_rejected_when_strict_and_warned_when_lenient() {
    let tree = Tree::new();
    let file = tree.write("folder/SKILL.md", skill_md("other-name", "Mismatch."));

    let found = discover_with(&tree.root, strict()).await;
    assert!(found.skills.is_empty());
    assert!(name_refused(&found.diagnostics, &file));

    let found = discover_with(&tree.root, lenient()).await;
    assert_eq!(names(&found), ["other-name"]);
    assert!(
        found.skills[0]
            .diagnostics()
            .iter()
            .any(|d| d.field == "name")
    );
}

#[tokio::test]
async fn a_description_over_1024_characters_is_rejected_when_strict() {
    let tree = Tree::new();
    tree.write("wordy/SKILL.md", skill_md("wordy", &"d".repeat(1025)));

    assert!(discover_with(&tree.root, strict()).await.skills.is_empty());
    assert_eq!(
        names(&discover_with(&tree.root, lenient()).await),
        ["wordy"]
    );
}

#[tokio::test]
async fn a_file_over_the_size_limit_is_skipped_without_hiding_its_siblings() {
    let tree = Tree::new();
    let big = tree.write(
        "big/SKILL.md",
        format!("{}{}", skill_md("big", "Big."), "x".repeat(4096)),
    );
    tree.skill("small");
    let loader = lenient().with_options(ParseOptions::default().with_max_file_bytes(1024));

    let found = discover_with(&tree.root, loader).await;

    assert_eq!(names(&found), ["small"]);
    let errors = about(&found.diagnostics, &big);
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].message.contains("over the limit"),
        "{}",
        errors[0].message
    );
}

#[tokio::test]
async fn a_frontmatter_over_its_limit_is_skipped() {
    let tree = Tree::new();
    let file = tree.write(
        "padded/SKILL.md",
        format!(
            "---\nname: padded\ndescription: Padded.\n{}---\n",
            "# filler\n".repeat(200)
        ),
    );
    let loader = lenient().with_options(ParseOptions::default().with_max_frontmatter_bytes(256));

    let found = discover_with(&tree.root, loader).await;

    assert!(found.skills.is_empty());
    assert!(
        about(&found.diagnostics, &file)[0]
            .message
            .contains("frontmatter")
    );
}

#[tokio::test]
async fn only_the_frontmatter_is_read_at_discovery() {
    let tree = Tree::new();
    let mut text = skill_md("binary-body", "Valid head, broken body.").into_bytes();
    // A body far over the frontmatter limit, and not UTF-8: never looked at by discovery.
    text.extend(std::iter::repeat_n(0xFF, 200 * 1024));
    let file = tree.write("binary-body/SKILL.md", &text);

    let found = discover(&[&tree.root]).await;

    assert_eq!(names(&found), ["binary-body"]);
    match found.skills[0].document().await {
        Err(SkillError::Refused { what, reason }) => {
            assert_eq!(what, file.display().to_string());
            assert!(reason.contains("UTF-8"), "{reason}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn the_body_is_read_fresh_when_the_content_is_asked_for() {
    let tree = Tree::new();
    let dir = tree.skill("living");
    let found = discover(&[&tree.root]).await;

    std::fs::write(
        dir.join("SKILL.md"),
        skill_md("living", "Edited.").replace("Do the thing.", "Do the new thing."),
    )
    .unwrap();

    let document = found.skills[0].document().await.unwrap();
    assert!(document.body.contains("Do the new thing."));
}

#[tokio::test]
async fn a_byte_order_mark_and_crlf_line_ends_are_accepted() {
    let tree = Tree::new();
    tree.write(
        "windows/SKILL.md",
        "\u{feff}---\r\nname: windows\r\ndescription: Saved on Windows.\r\n---\r\nBody\r\n",
    );

    let found = discover_with(&tree.root, strict()).await;

    assert_eq!(names(&found), ["windows"]);
    assert_eq!(
        found.skills[0].frontmatter().description,
        "Saved on Windows."
    );
    let document = found.skills[0].document().await.unwrap();
    assert_eq!(
        document.written_frontmatter.as_deref(),
        Some("name: windows\r\ndescription: Saved on Windows.\r\n")
    );
    assert_eq!(document.body, "Body\r\n");
}
