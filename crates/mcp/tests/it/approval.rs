//! No implicit local execution: an MCP skill's scripts run and its `allowed-tools` count only
//! once the host approves that skill; an approved script runs in a private copy of the skill's
//! verified files, inside the cache directory, removed afterwards.

use crate::common;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use common::{piped, write_tree};
use skillful_core::Skill;
use skillful_discovery::FileSkillsSource;
use skillful_mcp::{McpSkillsSource, SkillsMcpServer};
use skillful_scripts::ProcessRunner;

/// `tools` has `allowed-tools` and a script that prints where it runs; `plain` has a script.
fn skills_tree(root: &Path) {
    write_tree(
        root,
        &[
            (
                "tools/SKILL.md",
                b"---\nname: tools\ndescription: Runs things.\nallowed-tools: [Bash, Read]\n---\nRun scripts/where.py.\n",
            ),
            (
                "tools/scripts/where.py",
                b"import os, sys\nprint(open(os.path.join(os.path.dirname(__file__), '..', 'references', 'data.md')).read().strip(), sys.argv[1:])\n",
            ),
            ("tools/references/data.md", b"verified data\n"),
            (
                "plain/SKILL.md",
                b"---\nname: plain\ndescription: Has a script.\n---\nRun scripts/hi.py.\n",
            ),
            ("plain/scripts/hi.py", b"print('hi')\n"),
        ],
    );
}

async fn server(root: &Path) -> rmcp::service::RunningService<rmcp::service::RoleClient, ()> {
    let files = FileSkillsSource::builder().root(root).build().unwrap();
    piped(SkillsMcpServer::new(files)).await
}

fn find(skills: &[Arc<dyn Skill>], name: &str) -> Arc<dyn Skill> {
    skills
        .iter()
        .find(|skill| skill.frontmatter().name == name)
        .cloned()
        .unwrap()
}

#[tokio::test]
async fn scripts_are_refused_until_the_host_approves_that_skill() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let asked = Arc::new(Mutex::new(Vec::new()));
    let approvals = asked.clone();
    let approved = Arc::new(AtomicBool::new(false));
    let decision = approved.clone();
    let source = McpSkillsSource::builder_for_client(server(root.path()).await, "local")
        .label("docs")
        .cache_dir(cache.path())
        .script_runner(Arc::new(ProcessRunner::new()))
        .approve(move |request| {
            approvals.lock().unwrap().push((
                request.name.to_owned(),
                request.origin.label.clone(),
                request.origin.location.clone(),
                request.manifest_digest.map(str::to_owned),
            ));
            request.name == "tools" && decision.load(Ordering::SeqCst)
        })
        .build();
    let skills = source.load().await.unwrap();
    let tools = find(&skills, "tools");
    let script = tools.script("scripts/where.py").unwrap();

    let reason = common::refusal(&*script, serde_json::json!(["x"])).await;
    assert!(
        reason.contains("docs") && reason.contains("skill://tools/SKILL.md"),
        "the refusal names the origin: {reason}"
    );
    let (name, label, location, digest) = asked.lock().unwrap().last().cloned().unwrap();
    assert_eq!(
        (name.as_str(), label.as_str(), location.as_deref()),
        ("tools", "docs", Some("skill://tools/SKILL.md"))
    );
    assert!(
        digest.unwrap().starts_with("sha256:"),
        "bound to the manifest"
    );

    // The user approves this skill: the script runs, next to the skill's verified files.
    approved.store(true, Ordering::SeqCst);
    let output = script.run(serde_json::json!(["x"])).await.unwrap();
    assert_eq!(output.trim(), "verified data ['x']");
    // The files it ran from were removed; only the private cache was written to.
    let runs = cache.path().join("runs");
    assert_eq!(std::fs::read_dir(&runs).unwrap().count(), 0);
    assert!(!common::tree(root.path()).iter().any(|p| p.contains("runs")));

    // Another skill of the same server is not covered by that approval.
    let plain = find(&skills, "plain");
    common::refusal(
        &*plain.script("scripts/hi.py").unwrap(),
        serde_json::json!([]),
    )
    .await;
}

#[tokio::test]
async fn allowed_tools_count_only_once_the_skill_is_approved() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let approved = Arc::new(AtomicBool::new(false));
    let decision = approved.clone();
    let source = McpSkillsSource::builder_for_client(server(root.path()).await, "local")
        .cache_dir(cache.path())
        .approve(move |_| decision.load(Ordering::SeqCst))
        .build();
    let skills = source.load().await.unwrap();
    let tools = find(&skills, "tools");
    assert_eq!(tools.frontmatter().allowed_tools, None, "ignored");
    // The model still sees the SKILL.md as written.
    let document = tools.document().await.unwrap();
    assert!(
        document
            .written_frontmatter
            .unwrap()
            .contains("allowed-tools")
    );
    approved.store(true, Ordering::SeqCst);
    assert_eq!(
        tools.frontmatter().allowed_tools.as_deref(),
        Some(&["Bash".to_owned(), "Read".to_owned()][..])
    );
}

#[tokio::test]
async fn without_an_approval_callback_nothing_is_approved() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let source = McpSkillsSource::builder_for_client(server(root.path()).await, "local")
        .cache_dir(cache.path())
        .script_runner(Arc::new(ProcessRunner::new()))
        .build();
    let skills = source.load().await.unwrap();
    let tools = find(&skills, "tools");
    assert_eq!(tools.frontmatter().allowed_tools, None);
    common::refusal(
        &*tools.script("scripts/where.py").unwrap(),
        serde_json::json!([]),
    )
    .await;
    assert!(!cache.path().join("runs").exists(), "nothing was unpacked");
}
