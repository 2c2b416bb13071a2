//! Which directories are skills: depth, nesting, roots, links, hidden directories, duplicates.

use crate::common;

use std::fs;
use std::os::unix::fs::symlink;
use std::sync::Arc;

use common::{Tree, about, discover, names, resource_names, skill_md};
use skillful_core::{Severity, Skill, SkillsSource, SourceContext};
use skillful_discovery::FileSkillsSource;

#[tokio::test]
async fn finds_skills_down_to_six_levels_and_in_the_dot_directories_repositories_keep_them_in() {
    let tree = Tree::new();
    tree.skill("top");
    tree.skill("group/nested");
    tree.skill("l1/l2/l3");
    tree.skill("d1/d2/d3/d4/d5/six");
    tree.skill("e1/e2/e3/e4/e5/e6/seven");
    // openai/skills, a project's host directories, a plugin marketplace.
    tree.skill("skills/.curated/gh-fix-ci");
    tree.skill("skills/.system/skill-creator");
    tree.skill("skills/.experimental/trial");
    tree.skill(".claude/skills/from-claude");
    tree.skill(".agents/skills/from-agents");
    tree.skill("plugins/review/skills/code-review");
    // Hidden directories of other kinds, and packages, hold no skills.
    tree.skill(".git/in-git");
    tree.skill(".venv/in-venv");
    tree.skill("node_modules/in-package");

    let found = discover(&[&tree.root]).await;

    let expected = [
        "code-review",
        "from-agents",
        "from-claude",
        "gh-fix-ci",
        "l3",
        "nested",
        "six",
        "skill-creator",
        "top",
        "trial",
    ];
    let mut found_names = names(&found);
    found_names.sort();
    assert_eq!(found_names, expected);
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    // The walk without reading finds the same directories.
    let dirs = skillful_discovery::skill_dirs(&tree.root);
    let mut by_walk: Vec<String> = dirs
        .dirs
        .iter()
        .map(|dir| dir.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    by_walk.sort();
    assert_eq!(by_walk, expected);
    assert!(dirs.skipped.is_empty(), "{:?}", dirs.skipped);
}

#[test]
fn the_walk_without_reading_lists_directories_in_path_order_and_says_what_it_skipped() {
    let tree = Tree::new();
    let outside = Tree::new();
    outside.skill("linked");
    tree.skill("b-skills/zeta");
    tree.skill("a-skills/beta");
    tree.skill("a-skills/alpha");
    symlink(outside.path("linked"), tree.path("a-skills/linked")).unwrap();

    let found = skillful_discovery::skill_dirs(&tree.root);

    assert_eq!(
        found.dirs,
        [
            tree.path("a-skills/alpha"),
            tree.path("a-skills/beta"),
            tree.path("b-skills/zeta")
        ]
    );
    assert_eq!(found.skipped.len(), 1, "{:?}", found.skipped);
    assert_eq!(
        found.skipped[0].path.as_deref(),
        Some(tree.path("a-skills/linked").as_path())
    );
    assert!(found.skipped[0].message.contains("symbolic link"));
    // A skill given as the root is the one directory found.
    assert_eq!(
        skillful_discovery::skill_dirs(&tree.path("b-skills/zeta")).dirs,
        [tree.path("b-skills/zeta")]
    );
}

#[tokio::test]
async fn a_root_holding_skill_md_is_itself_the_skill() {
    let tree = Tree::new();
    let dir = tree.skill("only");

    let found = discover(&[&dir]).await;

    assert_eq!(names(&found), ["only"]);
    assert_eq!(found.skills[0].dir(), dir);
    assert_eq!(found.skills[0].skill_md_path(), dir.join("SKILL.md"));
}

#[tokio::test]
async fn a_skill_md_inside_a_skill_is_part_of_the_outer_skill() {
    let tree = Tree::new();
    tree.skill("outer");
    tree.write("outer/inner/SKILL.md", skill_md("inner", "Nested."));
    tree.write("outer/inner/notes.md", "notes");

    let found = discover(&[&tree.root]).await;

    assert_eq!(names(&found), ["outer"]);
    assert_eq!(resource_names(found.skills[0].as_ref()), ["inner/notes.md"]);
}

#[tokio::test]
async fn missing_and_empty_roots_give_no_skills_and_no_errors() {
    let tree = Tree::new();
    fs::create_dir(tree.path("empty")).unwrap();

    let found = discover(&[&tree.path("missing"), &tree.path("empty")]).await;

    assert!(found.skills.is_empty());
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
}

#[tokio::test]
async fn a_root_that_is_a_file_is_skipped_with_a_warning() {
    let tree = Tree::new();
    let file = tree.write("file.txt", "not a directory");
    tree.skill("skills/kept");

    let found = discover(&[&file, &tree.path("skills")]).await;

    assert_eq!(names(&found), ["kept"]);
    assert_eq!(about(&found.diagnostics, &file).len(), 1);
}

#[tokio::test]
async fn a_symlinked_root_is_followed() {
    let tree = Tree::new();
    tree.skill("real/alpha");
    tree.skill("real/group/beta");
    symlink(tree.path("real"), tree.path("link")).unwrap();

    let found = discover(&[&tree.path("link")]).await;

    assert_eq!(names(&found), ["alpha", "beta"]);
    assert_eq!(found.skills[0].dir(), tree.path("real/alpha"));
}

#[tokio::test]
async fn a_symlinked_skill_directory_is_skipped_and_its_siblings_found() {
    let tree = Tree::new();
    let outside = Tree::new();
    outside.skill("linked");
    tree.skill("skills/kept");
    symlink(outside.path("linked"), tree.path("skills/linked")).unwrap();

    let found = discover(&[&tree.path("skills")]).await;

    assert_eq!(names(&found), ["kept"]);
    let warnings = about(&found.diagnostics, &tree.path("skills/linked"));
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].severity, Severity::Warning);
    assert!(warnings[0].message.contains("symbolic link"));
}

#[tokio::test]
async fn a_symlinked_skill_md_is_skipped_and_its_siblings_found() {
    let tree = Tree::new();
    tree.skill("skills/kept");
    let real = tree.write("elsewhere/SKILL.md", skill_md("linked", "Linked."));
    fs::create_dir_all(tree.path("skills/linked")).unwrap();
    symlink(&real, tree.path("skills/linked/SKILL.md")).unwrap();

    let found = discover(&[&tree.path("skills")]).await;

    assert_eq!(names(&found), ["kept"]);
    let warnings = about(&found.diagnostics, &tree.path("skills/linked/SKILL.md"));
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].message.contains("symbolic link"));
}

#[tokio::test]
async fn a_symlinked_intermediate_directory_is_not_searched() {
    let tree = Tree::new();
    tree.skill("skills/group/kept");
    tree.skill("elsewhere/hidden-behind-link");
    symlink(tree.path("elsewhere"), tree.path("skills/linked-group")).unwrap();

    let found = discover(&[&tree.path("skills")]).await;

    assert_eq!(names(&found), ["kept"]);
    assert_eq!(
        about(&found.diagnostics, &tree.path("skills/linked-group")).len(),
        1
    );
}

#[tokio::test]
async fn hidden_directories_and_node_modules_are_not_searched() {
    let tree = Tree::new();
    tree.skill(".git/in-git");
    tree.skill(".hidden/in-hidden");
    tree.skill("node_modules/in-node-modules");
    tree.skill("group/node_modules/deeper");
    tree.skill("visible");

    let found = discover(&[&tree.root]).await;

    assert_eq!(names(&found), ["visible"]);
}

#[tokio::test]
async fn an_unreadable_sibling_never_stops_discovery() {
    use std::os::unix::fs::PermissionsExt;

    let tree = Tree::new();
    tree.skill("a-first");
    let locked = tree.skill("b-locked");
    tree.skill("c-last");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    // Permission bits do not stop the superuser; the test then checks the same tree reads whole.
    let enforced = fs::read_dir(&locked).is_err();

    let found = discover(&[&tree.root]).await;
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();

    if enforced {
        assert_eq!(names(&found), ["a-first", "c-last"]);
        assert_eq!(about(&found.diagnostics, &locked).len(), 1);
    } else {
        assert_eq!(names(&found), ["a-first", "b-locked", "c-last"]);
    }
}

#[tokio::test]
async fn an_invalid_sibling_never_stops_discovery() {
    let tree = Tree::new();
    tree.skill("a-first");
    let broken = tree.write(
        "b-broken/SKILL.md",
        b"---\nname: b-broken\ndescription: \xff\xfe\n---\n",
    );
    tree.skill("c-last");

    let found = discover(&[&tree.root]).await;

    assert_eq!(names(&found), ["a-first", "c-last"]);
    let errors = about(&found.diagnostics, &broken);
    assert_eq!(errors.len(), 1);
    assert!(errors[0].is_error());
    assert!(errors[0].message.contains("UTF-8"), "{}", errors[0].message);
}

#[tokio::test]
async fn the_first_skill_of_a_name_wins_across_roots() {
    let first = Tree::new();
    let second = Tree::new();
    first.skill("shared");
    second.skill("shared");
    second.skill("other");

    let found = discover(&[&first.root, &second.root]).await;

    assert_eq!(names(&found), ["shared", "other"]);
    assert_eq!(found.skills[0].dir(), first.path("shared"));
    let warnings = about(&found.diagnostics, &second.path("shared/SKILL.md"));
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].message.contains("already taken"));
}

#[tokio::test]
async fn duplicate_names_within_a_root_compare_case_insensitively() {
    let tree = Tree::new();
    tree.skill("a/tool");
    // Lenient validation loads an upper-case name (with warnings); it still collides.
    tree.write("b/TOOL/SKILL.md", skill_md("TOOL", "Shouting."));

    let found = discover(&[&tree.root]).await;

    assert_eq!(names(&found), ["tool"]);
    assert_eq!(found.skills[0].dir(), tree.path("a/tool"));
    let warnings = about(&found.diagnostics, &tree.path("b/TOOL/SKILL.md"));
    assert!(warnings.iter().any(|d| d.message.contains("already taken")));
}

#[tokio::test]
async fn the_order_is_roots_in_order_then_entries_by_name() {
    let first = Tree::new();
    let second = Tree::new();
    for name in ["zeta", "alpha", "mid"] {
        first.skill(name);
    }
    second.skill("beta");

    let found = discover(&[&second.root, &first.root]).await;

    assert_eq!(names(&found), ["beta", "alpha", "mid", "zeta"]);
}

#[tokio::test]
async fn skills_source_yields_the_discovered_skills() {
    let tree = Tree::new();
    tree.skill("one");
    tree.skill("two");
    let source = FileSkillsSource::builder()
        .root(&tree.root)
        .build()
        .unwrap();

    let skills: Vec<Arc<dyn Skill>> = source.skills(&SourceContext::default()).await.unwrap();

    let listed: Vec<&str> = skills
        .iter()
        .map(|s| s.frontmatter().name.as_str())
        .collect();
    assert_eq!(listed, ["one", "two"]);
    let origin = skills[0].origin();
    assert_eq!(origin.kind, skillful_core::OriginKind::Files);
    assert_eq!(origin.scope, skillful_core::Scope::Explicit);
    assert_eq!(
        origin.location.as_deref(),
        Some(tree.path("one").to_str().unwrap())
    );
}

#[tokio::test]
async fn a_large_tree_keeps_its_order_and_first_wins_rule_across_parallel_batches() {
    let tree = Tree::new();
    let expected: Vec<String> = (0..300).map(|i| format!("skill-{i:03}")).collect();
    for name in &expected {
        tree.skill(name);
    }
    // Sorted after every `skill-*` directory, so searched in a later batch.
    let late = tree.write(
        "zz-group/skill-000/SKILL.md",
        skill_md("skill-000", "Late copy."),
    );

    let found = discover(&[&tree.root]).await;

    assert_eq!(names(&found), expected);
    assert_eq!(found.skills[0].dir(), tree.path("skill-000"));
    assert!(
        about(&found.diagnostics, &late)[0]
            .message
            .contains("already taken")
    );
}
