//! The files of a skill: resources and scripts, extensions, depth, filters, content, and the
//! checks made again when a file is read or run.

use crate::common;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use common::{Tree, about, discover, names, resource_names, script_names};
use skillful_core::{ResourceContent, RiskTier, Skill, SkillError};
use skillful_discovery::{
    BuildError, ExtensionList, FileScriptRequest, FileScriptRunner, FileSkill, FileSkillsSource,
};

async fn only_skill(root: &Path) -> Arc<FileSkill> {
    let mut found = discover(&[root]).await;
    assert_eq!(found.skills.len(), 1, "{:?}", found.diagnostics);
    found.skills.remove(0)
}

async fn text(skill: &FileSkill, name: &str) -> Result<ResourceContent, SkillError> {
    skill
        .resource(name)
        .expect("the resource is listed")
        .read()
        .await
}

#[tokio::test]
async fn resources_are_files_with_a_listed_extension_named_by_their_relative_path() {
    let tree = Tree::new();
    let dir = tree.skill("docs");
    for file in [
        "guide.md",
        "references/FAQ.md",
        "references/schema.JSON",
        "references/table.Csv",
        "assets/config.yaml",
        "assets/config.yml",
        "assets/layout.xml",
        "assets/notes.txt",
        "assets/logo.png",
        "assets/README",
    ] {
        tree.write(&format!("docs/{file}"), "x");
    }

    let skill = only_skill(&tree.root).await;

    assert_eq!(
        resource_names(skill.as_ref()),
        [
            "guide.md",
            "assets/config.yaml",
            "assets/config.yml",
            "assets/layout.xml",
            "assets/notes.txt",
            "references/FAQ.md",
            "references/schema.JSON",
            "references/table.Csv",
        ]
    );
    assert!(skill.resource("SKILL.md").is_none());
    assert_eq!(skill.dir(), dir);
}

#[tokio::test]
async fn scripts_are_files_with_a_script_extension() {
    let tree = Tree::new();
    tree.skill("tools");
    for file in [
        "scripts/convert.py",
        "scripts/build.sh",
        "scripts/run.JS",
        "scripts/setup.ps1",
        "scripts/Tool.cs",
        "scripts/quick.csx",
        "scripts/binary.exe",
    ] {
        tree.write(&format!("tools/{file}"), "x");
    }

    let skill = only_skill(&tree.root).await;

    assert_eq!(
        script_names(skill.as_ref()),
        [
            "scripts/Tool.cs",
            "scripts/build.sh",
            "scripts/convert.py",
            "scripts/quick.csx",
            "scripts/run.JS",
            "scripts/setup.ps1",
        ]
    );
    assert!(resource_names(skill.as_ref()).is_empty());
    let schema = skill
        .script("scripts/convert.py")
        .unwrap()
        .parameters_schema()
        .cloned();
    assert_eq!(
        schema,
        Some(serde_json::json!({"type": "array", "items": {"type": "string"}}))
    );
}

#[tokio::test]
async fn custom_extensions_replace_the_defaults_and_match_any_case() {
    let tree = Tree::new();
    tree.skill("custom");
    tree.write("custom/a.md", "x");
    tree.write("custom/b.TXT", "x");
    tree.write("custom/c.txt", "x");
    tree.write("custom/tool.rb", "x");
    tree.write("custom/tool.py", "x");

    let found = FileSkillsSource::builder()
        .root(&tree.root)
        .resource_extensions([".Txt"])
        .script_extensions([".rb"])
        .build()
        .unwrap()
        .discover()
        .await;

    let skill = found.skills[0].as_ref();
    assert_eq!(resource_names(skill), ["b.TXT", "c.txt"]);
    assert_eq!(script_names(skill), ["tool.rb"]);
}

#[test]
fn invalid_extensions_and_depths_are_refused_at_build_time() {
    for extension in ["md", "", ".", ". md", "./x"] {
        let error = FileSkillsSource::builder()
            .resource_extensions([extension])
            .build()
            .unwrap_err();
        assert_eq!(
            error,
            BuildError::Extension {
                list: ExtensionList::Resource,
                extension: extension.into()
            }
        );
        assert!(error.to_string().contains("must start with '.'"));
    }
    let error = FileSkillsSource::builder()
        .script_extensions([".py", "sh"])
        .build()
        .unwrap_err();
    assert_eq!(
        error,
        BuildError::Extension {
            list: ExtensionList::Script,
            extension: "sh".into()
        }
    );
    let error = FileSkillsSource::builder()
        .search_depth(0)
        .build()
        .unwrap_err();
    assert_eq!(error, BuildError::SearchDepth { depth: 0 });
}

fn deep_tree() -> Tree {
    let tree = Tree::new();
    tree.skill("deep");
    tree.write("deep/top.md", "x");
    tree.write("deep/f1/one.md", "x");
    tree.write("deep/f1/f2/two.md", "x");
    tree.write("deep/f1/f2/f3/data.json", "x");
    tree
}

async fn resources_at_depth(tree: &Tree, depth: usize) -> Vec<String> {
    let found = FileSkillsSource::builder()
        .root(&tree.root)
        .search_depth(depth)
        .build()
        .unwrap()
        .discover()
        .await;
    resource_names(found.skills[0].as_ref())
}

#[tokio::test]
async fn the_search_depth_bounds_how_deep_files_are_listed() {
    let tree = deep_tree();

    assert_eq!(resources_at_depth(&tree, 1).await, ["top.md"]);
    assert_eq!(resources_at_depth(&tree, 2).await, ["top.md", "f1/one.md"]);
    assert_eq!(
        resources_at_depth(&tree, 5).await,
        ["top.md", "f1/one.md", "f1/f2/two.md", "f1/f2/f3/data.json"]
    );
}

#[tokio::test]
async fn hidden_directories_and_node_modules_inside_a_skill_are_not_listed() {
    let tree = Tree::new();
    tree.skill("tidy");
    tree.write("tidy/.git/notes.md", "x");
    tree.write("tidy/node_modules/package.json", "x");
    tree.write("tidy/kept.md", "x");

    let skill = only_skill(&tree.root).await;

    assert_eq!(resource_names(skill.as_ref()), ["kept.md"]);
}

#[tokio::test]
async fn the_skills_evals_directory_is_neither_resource_nor_script() {
    let tree = Tree::new();
    tree.skill("graded");
    tree.write(
        "graded/evals/evals.json",
        "{\"expected_output\": \"the answer\"}",
    );
    tree.write("graded/evals/check.py", "print('pass')");
    tree.write("graded/references/table.md", "x");
    tree.write("graded/scripts/run.py", "x");

    let skill = only_skill(&tree.root).await;

    assert_eq!(resource_names(skill.as_ref()), ["references/table.md"]);
    assert_eq!(script_names(skill.as_ref()), ["scripts/run.py"]);
}

#[tokio::test]
async fn filters_see_the_skill_name_and_relative_path() {
    let tree = Tree::new();
    tree.skill("filtered");
    tree.write("filtered/references/public.md", "x");
    tree.write("filtered/references/private.md", "x");
    tree.write("filtered/scripts/safe.py", "x");
    tree.write("filtered/scripts/danger.py", "x");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();

    let found = FileSkillsSource::builder()
        .root(&tree.root)
        .resource_filter(move |skill, path| {
            record.lock().unwrap().push(format!("{skill}:{path}"));
            !path.contains("private")
        })
        .script_filter(|_, path| path != "scripts/danger.py")
        .build()
        .unwrap()
        .discover()
        .await;

    let skill = found.skills[0].as_ref();
    assert_eq!(
        resource_names(skill),
        ["references/private.md", "references/public.md"]
            .map(String::from)
            .into_iter()
            .filter(|n| !n.contains("private"))
            .collect::<Vec<_>>()
    );
    assert_eq!(script_names(skill), ["scripts/safe.py"]);
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "filtered:references/private.md",
            "filtered:references/public.md"
        ]
    );
}

#[tokio::test]
async fn symlinked_files_and_directories_inside_a_skill_are_skipped_with_warnings() {
    let tree = Tree::new();
    let outside = Tree::new();
    let secret = outside.write("secret.md", "secret");
    outside.write("shared/notes.md", "shared");
    let dir = tree.skill("linky");
    tree.write("linky/references/real.md", "real");
    tree.write("linky/scripts/real.py", "print()");
    symlink(&secret, dir.join("references/secret.md")).unwrap();
    symlink(&secret, dir.join("top-secret.md")).unwrap();
    symlink(outside.path("shared"), dir.join("shared")).unwrap();
    symlink(outside.path("shared"), dir.join("scripts/lib")).unwrap();
    tree.skill("sibling");

    let found = discover(&[&tree.root]).await;

    assert_eq!(names(&found), ["linky", "sibling"]);
    let skill = found.skills[0].as_ref();
    assert_eq!(resource_names(skill), ["references/real.md"]);
    assert_eq!(script_names(skill), ["scripts/real.py"]);
    for link in [
        "references/secret.md",
        "top-secret.md",
        "shared",
        "scripts/lib",
    ] {
        let path = dir.join(link);
        assert_eq!(about(skill.diagnostics(), &path).len(), 1, "{link}");
        assert_eq!(about(&found.diagnostics, &path).len(), 1, "{link}");
    }
}

#[tokio::test]
async fn a_symlinked_references_directory_is_skipped() {
    let tree = Tree::new();
    let outside = Tree::new();
    outside.write("refs/FAQ.md", "faq");
    let dir = tree.skill("refs-linked");
    tree.write("refs-linked/local.md", "local");
    symlink(outside.path("refs"), dir.join("references")).unwrap();

    let skill = only_skill(&tree.root).await;

    assert_eq!(resource_names(skill.as_ref()), ["local.md"]);
    assert!(skill.diagnostics()[0].message.contains("symbolic link"));
}

#[tokio::test]
async fn resources_are_read_fresh_as_text_or_bytes() {
    let tree = Tree::new();
    tree.skill("data");
    let faq = tree.write("data/references/FAQ.md", "\u{feff}Q: why?\n");
    tree.write("data/references/raw.txt", [0xFF, 0x00, 0x41]);

    let skill = only_skill(&tree.root).await;

    assert_eq!(
        text(&skill, "references/FAQ.md").await.unwrap(),
        ResourceContent::Text("Q: why?\n".into())
    );
    fs::write(&faq, "A: because.\n").unwrap();
    assert_eq!(
        text(&skill, "references/FAQ.md").await.unwrap(),
        ResourceContent::Text("A: because.\n".into())
    );
    assert_eq!(
        text(&skill, "references/raw.txt").await.unwrap(),
        ResourceContent::Binary {
            bytes: vec![0xFF, 0x00, 0x41],
            mime_type: None
        }
    );
}

#[tokio::test]
async fn a_resource_swapped_for_a_symlink_after_discovery_is_not_read() {
    let tree = Tree::new();
    let outside = Tree::new();
    let secret = outside.write("secret.md", "TOP SECRET");
    tree.skill("victim");
    let file = tree.write("victim/references/data.md", "public");
    let skill = only_skill(&tree.root).await;

    fs::remove_file(&file).unwrap();
    symlink(&secret, &file).unwrap();

    match text(&skill, "references/data.md").await {
        Err(SkillError::Refused { what, reason }) => {
            assert_eq!(what, file.display().to_string());
            assert!(reason.contains("symbolic link"), "{reason}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn a_directory_swapped_for_a_symlink_after_discovery_is_not_read() {
    let tree = Tree::new();
    tree.skill("victim");
    tree.write("victim/references/data.md", "public");
    let skill = only_skill(&tree.root).await;

    let references = tree.path("victim/references");
    fs::rename(&references, tree.path("moved")).unwrap();
    symlink(tree.path("moved"), &references).unwrap();

    assert!(matches!(
        text(&skill, "references/data.md").await,
        Err(SkillError::Refused { .. })
    ));
}

#[tokio::test]
async fn a_skill_md_swapped_for_a_symlink_after_discovery_is_not_read() {
    let tree = Tree::new();
    let outside = Tree::new();
    let secret = outside.write(
        "SKILL.md",
        "---\nname: victim\ndescription: Evil.\n---\nEvil.\n",
    );
    let dir = tree.skill("victim");
    let skill = only_skill(&tree.root).await;

    fs::remove_file(dir.join("SKILL.md")).unwrap();
    symlink(&secret, dir.join("SKILL.md")).unwrap();

    assert!(matches!(
        skill.document().await,
        Err(SkillError::Refused { .. })
    ));
}

#[tokio::test]
async fn a_skill_directory_redirected_to_a_sibling_sharing_its_prefix_is_not_read() {
    let tree = Tree::new();
    let dir = tree.skill("skills/a");
    tree.write("skills/a/notes.md", "mine");
    let found = discover(&[&tree.path("skills")]).await;
    let skill = found.skills[0].clone();
    // `a-evil` starts with the same characters as `a`: a string prefix test would accept it.
    tree.write("elsewhere/a-evil/notes.md", "stolen");
    tree.write(
        "elsewhere/a-evil/SKILL.md",
        "---\nname: a\ndescription: x\n---\n",
    );
    fs::rename(&dir, tree.path("skills/a-old")).unwrap();
    fs::rename(tree.path("elsewhere/a-evil"), tree.path("skills/a-evil")).unwrap();
    symlink(tree.path("skills/a-evil"), &dir).unwrap();

    match text(&skill, "notes.md").await {
        Err(SkillError::Refused { reason, .. }) => {
            assert!(reason.contains("outside the skill directory"), "{reason}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert!(matches!(
        skill.document().await,
        Err(SkillError::Refused { .. })
    ));
}

#[tokio::test]
async fn the_document_is_the_written_frontmatter_and_the_body() {
    let tree = Tree::new();
    let raw = "---\nname: full\ndescription: \"Quotes & <angles>\"\n---\n# Full\n\nSteps.\n";
    tree.write("full/SKILL.md", raw);
    tree.write("full/references/FAQ.md", "x");
    tree.write("full/scripts/convert.py", "x");

    let skill = only_skill(&tree.root).await;

    let document = skill.document().await.unwrap();
    assert_eq!(
        document.written_frontmatter.as_deref(),
        Some("name: full\ndescription: \"Quotes & <angles>\"\n")
    );
    assert_eq!(document.body, "# Full\n\nSteps.\n");
    assert_eq!(skill.resources()[0].name(), "references/FAQ.md");
    assert_eq!(skill.scripts()[0].name(), "scripts/convert.py");
}

#[tokio::test]
async fn a_cached_document_is_read_again_after_an_edit() {
    let tree = Tree::new();
    tree.write(
        "cached/SKILL.md",
        "---\nname: cached\ndescription: d\n---\nfirst\n",
    );
    let skill = only_skill(&tree.root).await;
    assert_eq!(skill.document().await.unwrap().body, "first\n");
    assert_eq!(skill.document().await.unwrap().body, "first\n");

    // The same size, so only the modification time and inode tell the edit apart.
    let replacement = tree.write(
        "elsewhere.md",
        "---\nname: cached\ndescription: d\n---\nfresh\n",
    );
    fs::rename(&replacement, tree.path("cached/SKILL.md")).unwrap();

    assert_eq!(skill.document().await.unwrap().body, "fresh\n");
}

#[tokio::test]
async fn a_cached_document_is_read_again_after_an_in_place_rewrite_with_its_old_mtime() {
    use std::os::unix::fs::MetadataExt;
    let tree = Tree::new();
    let path = tree.write(
        "cached/SKILL.md",
        "---\nname: cached\ndescription: d\n---\nfirst\n",
    );
    let skill = only_skill(&tree.root).await;
    assert_eq!(skill.document().await.unwrap().body, "first\n");

    // Same inode, same size, the old mtime back: only the change time tells. It moves at the
    // kernel's clock tick, so rewrite until it has moved.
    let before = fs::metadata(&path).unwrap();
    loop {
        let mut file = fs::OpenOptions::new().write(true).open(&path).unwrap();
        std::io::Write::write_all(
            &mut file,
            b"---\nname: cached\ndescription: d\n---\nfresh\n",
        )
        .unwrap();
        file.set_modified(before.modified().unwrap()).unwrap();
        drop(file);
        let after = fs::metadata(&path).unwrap();
        assert_eq!(after.ino(), before.ino());
        if (after.ctime(), after.ctime_nsec()) != (before.ctime(), before.ctime_nsec()) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }

    assert_eq!(skill.document().await.unwrap().body, "fresh\n");
}

/// A runner that records what it is asked to run, as a real runner would receive it.
#[derive(Debug, Default)]
struct RecordingRunner {
    requests: Mutex<Vec<FileScriptRequest>>,
}

#[async_trait]
impl FileScriptRunner for RecordingRunner {
    async fn run(&self, request: FileScriptRequest) -> Result<String, SkillError> {
        let output = format!("ran {}", request.script_name);
        self.requests.lock().unwrap().push(request);
        Ok(output)
    }
}

fn script_tree() -> Tree {
    let tree = Tree::new();
    tree.skill("runner");
    tree.write("runner/scripts/convert.py", "print('hi')\n");
    tree
}

#[tokio::test]
async fn without_a_runner_scripts_load_and_fail_only_when_run() {
    let tree = script_tree();

    let skill = only_skill(&tree.root).await;

    let script = skill
        .script("scripts/convert.py")
        .expect("listed without a runner");
    match script.run(serde_json::json!(["--x"])).await {
        Err(SkillError::NotRunnable { script, reason }) => {
            assert_eq!(script, "scripts/convert.py");
            assert!(reason.contains("no script runner"), "{reason}");
        }
        other => panic!("expected NotRunnable, got {other:?}"),
    }
}

#[tokio::test]
async fn the_runner_receives_the_checked_path_and_the_raw_arguments() {
    let tree = script_tree();
    let runner = Arc::new(RecordingRunner::default());
    let found = FileSkillsSource::builder()
        .root(&tree.root)
        .script_runner(runner.clone())
        .build()
        .unwrap()
        .discover()
        .await;
    let script = found.skills[0].script("scripts/convert.py").unwrap();

    let output = script.run(serde_json::json!(["a", "b"])).await.unwrap();

    assert_eq!(output, "ran scripts/convert.py");
    let requests = runner.requests.lock().unwrap();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].skill_name, "runner");
    assert_eq!(requests[0].skill_dir, tree.path("runner"));
    assert_eq!(
        requests[0].script_path,
        tree.path("runner/scripts/convert.py")
    );
    assert_eq!(requests[0].arguments, serde_json::json!(["a", "b"]));
}

#[tokio::test]
async fn untrusted_scripts_are_listed_but_never_run() {
    let tree = script_tree();
    let runner = Arc::new(RecordingRunner::default());
    let found = FileSkillsSource::builder()
        .root(&tree.root)
        .script_runner(runner.clone())
        .scripts_runnable(false)
        .build()
        .unwrap()
        .discover()
        .await;
    let skill = found.skills[0].as_ref();
    assert_eq!(skill.scripts()[0].name(), "scripts/convert.py");

    let result = skill
        .script("scripts/convert.py")
        .unwrap()
        .run(serde_json::json!([]))
        .await;

    match result {
        Err(SkillError::NotRunnable { script, reason }) => {
            assert_eq!(script, "scripts/convert.py");
            assert!(reason.contains("not allowed to run"), "{reason}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert!(runner.requests.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_script_swapped_for_a_symlink_after_discovery_is_not_run() {
    let tree = script_tree();
    let outside = Tree::new();
    let evil = outside.write("evil.py", "import os\n");
    let runner = Arc::new(RecordingRunner::default());
    let found = FileSkillsSource::builder()
        .root(&tree.root)
        .script_runner(runner.clone())
        .build()
        .unwrap()
        .discover()
        .await;
    let script_path = tree.path("runner/scripts/convert.py");
    fs::remove_file(&script_path).unwrap();
    symlink(&evil, &script_path).unwrap();

    let result = found.skills[0]
        .script("scripts/convert.py")
        .unwrap()
        .run(serde_json::json!([]))
        .await;

    assert!(
        matches!(result, Err(SkillError::Refused { .. })),
        "{result:?}"
    );
    assert!(runner.requests.lock().unwrap().is_empty());
}

#[tokio::test]
async fn script_path_is_checked_again_and_names_the_listed_scripts_when_unknown() {
    let tree = script_tree();
    let skill = only_skill(&tree.root).await;
    assert_eq!(
        skill.script_path("scripts/convert.py").await.unwrap(),
        tree.path("runner/scripts/convert.py")
    );
    match skill.script_path("scripts/other.py").await {
        Err(SkillError::Script { script, message }) => {
            assert_eq!(script, "scripts/other.py");
            assert!(
                message.contains("its scripts are: 'scripts/convert.py'"),
                "{message}"
            );
        }
        other => panic!("expected an unknown script, got {other:?}"),
    }
    let outside = Tree::new();
    let evil = outside.write("evil.py", "import os\n");
    fs::remove_file(tree.path("runner/scripts/convert.py")).unwrap();
    symlink(&evil, tree.path("runner/scripts/convert.py")).unwrap();
    assert!(matches!(
        skill.script_path("scripts/convert.py").await,
        Err(SkillError::Refused { .. })
    ));
}

/// A skill `tiers` with three scripts and `metadata` lines.
fn tiered_tree(metadata: &str) -> Tree {
    let tree = Tree::new();
    tree.write(
        "tiers/SKILL.md",
        format!("---\nname: tiers\ndescription: Risk tiers.\nmetadata:\n{metadata}---\nBody.\n"),
    );
    for script in ["scripts/list.sh", "scripts/convert.py", "scripts/wipe.sh"] {
        tree.write(&format!("tiers/{script}"), "echo\n");
    }
    tree
}

fn tiers(skill: &FileSkill) -> Vec<(String, RiskTier)> {
    skill
        .scripts()
        .iter()
        .map(|script| (script.name().to_owned(), script.risk_tier()))
        .collect()
}

#[tokio::test]
async fn scripts_take_their_own_declared_tier_else_the_skill_tier() {
    let tree = tiered_tree(
        "  risk: write-low\n  risk.scripts/convert.py: read\n  risk.scripts/wipe.sh: destructive\n",
    );
    let found = discover(&[&tree.root]).await;
    assert!(found.diagnostics.is_empty(), "{:?}", found.diagnostics);
    let skill = &found.skills[0];
    assert_eq!(skill.risk_tier(), Some(RiskTier::WriteLow));
    assert_eq!(
        tiers(skill),
        [
            ("scripts/convert.py".to_owned(), RiskTier::Read),
            ("scripts/list.sh".to_owned(), RiskTier::WriteLow),
            ("scripts/wipe.sh".to_owned(), RiskTier::Destructive),
        ]
    );
}

#[tokio::test]
async fn scripts_that_declare_nothing_are_write_high() {
    let tree = tiered_tree("  author: someone\n");
    let skill = only_skill(&tree.root).await;
    assert_eq!(skill.risk_tier(), None);
    assert!(
        tiers(&skill)
            .iter()
            .all(|(_, tier)| *tier == RiskTier::WriteHigh)
    );
}

#[tokio::test]
async fn unknown_tiers_and_unknown_scripts_are_warnings_on_the_skill_and_the_default_applies() {
    let tree = tiered_tree(
        "  risk: harmless\n  risk.scripts/convert.py: read\n  risk.scripts/missing.py: read\n",
    );
    let found = discover(&[&tree.root]).await;
    let skill = &found.skills[0];
    let skill_md = tree.path("tiers/SKILL.md");
    let fields: Vec<&str> = skill
        .diagnostics()
        .iter()
        .map(|diagnostic| diagnostic.field.as_str())
        .collect();
    assert_eq!(
        fields,
        ["metadata.risk", "metadata.risk.scripts/missing.py"]
    );
    assert!(skill.diagnostics().iter().all(|d| !d.is_error()));
    assert_eq!(about(&found.diagnostics, &skill_md).len(), 2);
    assert!(
        skill.diagnostics()[0]
            .message
            .contains("unknown risk tier `harmless`")
    );
    assert_eq!(skill.risk_tier(), None);
    assert_eq!(
        tiers(skill),
        [
            ("scripts/convert.py".to_owned(), RiskTier::Read),
            ("scripts/list.sh".to_owned(), RiskTier::WriteHigh),
            ("scripts/wipe.sh".to_owned(), RiskTier::WriteHigh),
        ]
    );
}

#[tokio::test]
async fn every_frontmatter_field_survives_discovery_as_written() {
    let tree = Tree::new();
    tree.write(
        "full/SKILL.md",
        "---\nname: full\ndescription: Does everything.\nallowed-tools: Bash(git:*) Read\nmetadata:\n  zeta: \"1\"\n  alpha: two words\nx-owner:\n  team: docs\n  on-call: [ana, bo]\n---\nBody.\n",
    );
    tree.write(
        "bare/SKILL.md",
        "---\nname: bare\ndescription: Nothing else.\nallowed-tools: \"\"\n---\nBody.\n",
    );
    let found = discover(&[&tree.root]).await;
    let [bare, full] = found.skills.as_slice() else {
        panic!("{:?}", found.diagnostics);
    };

    let typed = full.frontmatter();
    assert_eq!((full.name(), typed.name.as_str()), ("full", "full"));
    assert_eq!(full.description(), "Does everything.");
    assert_eq!(typed.license, None);
    assert_eq!(typed.compatibility, None);
    assert_eq!(
        typed.allowed_tools.as_deref(),
        Some(["Bash(git:*)".to_owned(), "Read".to_owned()].as_slice())
    );
    let metadata: Vec<(&str, &str)> = typed
        .metadata
        .iter()
        .map(|(key, value)| (key.as_str(), value.as_str()))
        .collect();
    assert_eq!(metadata, [("zeta", "1"), ("alpha", "two words")]);
    assert_eq!(
        serde_json::to_value(&typed.extra).unwrap(),
        serde_json::json!({"x-owner": {"team": "docs", "on-call": ["ana", "bo"]}})
    );
    // Asked again, the same frontmatter, not a second copy.
    assert!(std::ptr::eq(typed, full.frontmatter()));

    assert_eq!(
        bare.frontmatter().allowed_tools.as_deref(),
        Some([].as_slice())
    );
    assert!(bare.frontmatter().extra.is_empty());
}

#[tokio::test]
async fn a_skill_below_a_directory_whose_name_is_not_utf8_is_found_read_and_rediscovered() {
    use std::os::unix::ffi::OsStrExt;
    let tree = Tree::new();
    let category = tree.root.join(std::ffi::OsStr::from_bytes(b"caf\xe9"));
    let dir = category.join("notes");
    fs::create_dir_all(dir.join("references")).unwrap();
    fs::write(
        dir.join("SKILL.md"),
        common::skill_md("notes", "Takes notes."),
    )
    .unwrap();
    fs::write(dir.join("references/how.md"), "Write it down.\n").unwrap();
    tree.skill("plain");

    let source = FileSkillsSource::builder()
        .root(&tree.root)
        .build()
        .unwrap();
    let found = source.discover().await;
    assert_eq!(names(&found), ["notes", "plain"], "{:?}", found.diagnostics);
    let notes = &found.skills[0];
    assert_eq!(notes.dir(), dir);
    assert_eq!(notes.origin().location, Some(dir.display().to_string()));
    assert_eq!(
        text(notes, "references/how.md").await.unwrap(),
        ResourceContent::Text("Write it down.\n".into())
    );

    fs::write(
        dir.join("SKILL.md"),
        common::skill_md("notes", "Takes better notes."),
    )
    .unwrap();
    let again = source.rediscover(&found, &[dir.join("SKILL.md")]).await;
    assert_eq!(names(&again), ["notes", "plain"]);
    assert_eq!(again.skills[0].description(), "Takes better notes.");
    assert!(Arc::ptr_eq(&found.skills[1], &again.skills[1]));
}
