//! Discovering again after changes: only what changed is read again, and the result is what a
//! whole new discovery finds.

use crate::common;

use std::fs;
use std::path::PathBuf;
use std::sync::Arc;

use common::{Tree, names, skill_md};
use skillful_core::Skill;
use skillful_discovery::{Discovery, FileSkillsSource};

fn source(tree: &Tree) -> FileSkillsSource {
    FileSkillsSource::builder()
        .root(&tree.root)
        .build()
        .unwrap()
}

/// The skill called `name`.
fn skill<'a>(found: &'a Discovery, name: &str) -> &'a Arc<skillful_discovery::FileSkill> {
    found
        .skills
        .iter()
        .find(|skill| skill.frontmatter().name == name)
        .unwrap_or_else(|| panic!("no skill {name} in {:?}", names(found)))
}

fn description(found: &Discovery, name: &str) -> String {
    skill(found, name).frontmatter().description.clone()
}

/// What a whole new discovery finds, to compare with.
async fn afresh(source: &FileSkillsSource) -> (Vec<String>, Vec<String>) {
    let found = source.discover().await;
    (
        names(&found),
        found.diagnostics.iter().map(ToString::to_string).collect(),
    )
}

fn same_as_afresh(found: &Discovery) -> (Vec<String>, Vec<String>) {
    (
        names(found),
        found.diagnostics.iter().map(ToString::to_string).collect(),
    )
}

#[tokio::test]
async fn a_changed_skill_is_read_again_and_the_others_are_kept_as_they_were() {
    let tree = Tree::new();
    for name in ["alpha", "beta", "gamma"] {
        tree.skill(name);
    }
    let source = source(&tree);
    let before = source.discover().await;
    tree.write("beta/SKILL.md", skill_md("beta", "Changed."));

    let after = source
        .rediscover(&before, &[tree.path("beta/SKILL.md")])
        .await;

    assert_eq!(names(&after), ["alpha", "beta", "gamma"]);
    assert_eq!(description(&after, "beta"), "Changed.");
    assert!(Arc::ptr_eq(skill(&before, "alpha"), skill(&after, "alpha")));
    assert!(Arc::ptr_eq(skill(&before, "gamma"), skill(&after, "gamma")));
    assert!(!Arc::ptr_eq(skill(&before, "beta"), skill(&after, "beta")));
    assert_eq!(same_as_afresh(&after), afresh(&source).await);
}

#[tokio::test]
async fn an_unreported_change_is_not_seen_so_only_reported_paths_are_read() {
    let tree = Tree::new();
    tree.skill("alpha");
    tree.skill("beta");
    let source = source(&tree);
    let before = source.discover().await;
    tree.write("alpha/SKILL.md", skill_md("alpha", "Edited, not reported."));
    tree.write("beta/SKILL.md", skill_md("beta", "Edited and reported."));

    let after = source
        .rediscover(&before, &[tree.path("beta/SKILL.md")])
        .await;

    assert_eq!(description(&after, "alpha"), "The alpha skill.");
    assert_eq!(description(&after, "beta"), "Edited and reported.");
}

#[tokio::test]
async fn added_and_removed_skills_and_resources_are_found() {
    let tree = Tree::new();
    tree.skill("alpha");
    tree.skill("beta");
    tree.skill("group/nested");
    let source = source(&tree);
    let before = source.discover().await;

    tree.skill("delta");
    fs::remove_dir_all(tree.path("beta")).unwrap();
    tree.write("alpha/references/new.md", "new");
    tree.skill("group/second");
    let changed: Vec<PathBuf> = [
        "delta",
        "delta/SKILL.md",
        "beta",
        "alpha/references/new.md",
        "group/second/SKILL.md",
    ]
    .iter()
    .map(|path| tree.path(path))
    .collect();
    let after = source.rediscover(&before, &changed).await;

    assert_eq!(names(&after), ["alpha", "delta", "nested", "second"]);
    let alpha = skill(&after, "alpha");
    assert_eq!(alpha.resources()[0].name(), "references/new.md");
    assert!(!Arc::ptr_eq(
        skill(&before, "nested"),
        skill(&after, "nested")
    ));
    assert_eq!(same_as_afresh(&after), afresh(&source).await);
}

#[tokio::test]
async fn changes_in_hidden_directories_and_outside_the_roots_change_nothing() {
    let tree = Tree::new();
    tree.skill("alpha");
    let source = source(&tree);
    let before = source.discover().await;
    tree.skill(".hidden/ghost");

    let after = source
        .rediscover(
            &before,
            &[
                tree.path(".hidden/ghost/SKILL.md"),
                PathBuf::from("/elsewhere/x"),
            ],
        )
        .await;

    assert_eq!(names(&after), ["alpha"]);
    assert!(Arc::ptr_eq(skill(&before, "alpha"), skill(&after, "alpha")));
}

#[tokio::test]
async fn a_root_reported_whole_is_searched_again_whole() {
    let tree = Tree::new();
    tree.skill("alpha");
    let source = source(&tree);
    let before = source.discover().await;
    tree.write("alpha/SKILL.md", skill_md("alpha", "Seen by a rescan."));
    tree.skill("beta");

    let after = source
        .rediscover(&before, std::slice::from_ref(&tree.root))
        .await;

    assert_eq!(names(&after), ["alpha", "beta"]);
    assert_eq!(description(&after, "alpha"), "Seen by a rescan.");
}

#[tokio::test]
async fn a_root_that_appears_later_is_found_and_a_duplicate_name_is_reported_again() {
    let tree = Tree::new();
    tree.skill("first/alpha");
    let source = FileSkillsSource::builder()
        .root(tree.path("first"))
        .root(tree.path("second"))
        .build()
        .unwrap();
    let before = source.discover().await;
    assert_eq!(
        before.root_dirs(),
        [Some(tree.path("first").as_path()), None]
    );
    tree.skill("second/alpha");
    tree.skill("second/beta");

    let after = source.rediscover(&before, &[tree.path("second")]).await;

    assert_eq!(names(&after), ["alpha", "beta"]);
    assert!(
        after
            .diagnostics
            .iter()
            .any(|d| d.message.contains("already taken")),
        "{:?}",
        after.diagnostics
    );
    assert_eq!(same_as_afresh(&after), afresh(&source).await);
}

#[tokio::test]
async fn a_root_that_is_a_skill_is_read_again_on_any_change_in_it() {
    let tree = Tree::new();
    tree.write("SKILL.md", skill_md("rooted", "At the root."));
    let dir_name = tree.root.file_name().unwrap().to_str().unwrap().to_owned();
    let source = source(&tree);
    let before = source.discover().await;
    assert_eq!(
        before.skills.len(),
        1,
        "{:?} {dir_name}",
        before.diagnostics
    );
    tree.write("references/added.md", "x");

    let after = source
        .rediscover(&before, &[tree.path("references/added.md")])
        .await;

    assert_eq!(after.skills[0].resources()[0].name(), "references/added.md");
}

#[tokio::test]
async fn a_discovery_of_another_source_gives_a_whole_new_discovery() {
    let tree = Tree::new();
    tree.skill("alpha");
    let other = Tree::new();
    other.skill("beta");
    let before = source(&other).discover().await;

    let after = source(&tree).rediscover(&before, &[]).await;

    assert_eq!(names(&after), ["alpha"]);
}
