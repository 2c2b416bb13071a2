//! Approvals given for good are about one skill (and one script), and bound to the content of
//! the files shown when they were given: another script, another skill or a changed file asks
//! again.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};
use skillful_agent::{Agent, ApprovalRules, AutoApprove, Session};
use skillful_chat::{ApprovalResponse, Remember};
use skillful_discovery::FileSkillsSource;
use skillful_provider::SkillsProvider;
use skillful_test_server::{Reply, TestServer};

use crate::common::{CountingRunner, client};

/// A root with skills `tools` (scripts `a.py`, `b.py`) and `other` (script `a.py`).
fn root() -> (tempfile::TempDir, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    for (skill, scripts) in [("tools", &["a.py", "b.py"][..]), ("other", &["a.py"][..])] {
        let dir = root.path().join(skill).join("scripts");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            root.path().join(skill).join("SKILL.md"),
            format!("---\nname: {skill}\ndescription: Test scripts.\n---\nRun the scripts.\n"),
        )
        .unwrap();
        for script in scripts {
            std::fs::write(dir.join(script), format!("print('{skill} {script}')\n")).unwrap();
        }
    }
    let path = root.path().canonicalize().unwrap();
    (root, path)
}

fn agent(url: &str, root: &Path, runner: &Arc<CountingRunner>) -> Agent {
    let source = FileSkillsSource::builder()
        .root(root)
        .script_runner(Arc::clone(runner) as _)
        .build()
        .unwrap();
    Agent::builder(client(url))
        .skills(Arc::new(SkillsProvider::new(Arc::new(source))))
        .approval(ApprovalRules::new(AutoApprove::None))
        .build()
}

fn script(skill: &str, script: &str) -> Value {
    json!({"skillName": skill, "scriptName": format!("scripts/{script}")})
}

/// Runs `first` through an "always" answer, then a new prompt whose model calls `later`: whether
/// `later` ran without asking.
async fn always_then(
    root: &Path,
    first: Value,
    change: impl FnOnce(),
    later: (&str, Value),
) -> bool {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "run_skill_script", first));
    server.push(Reply::text("ran"));
    server.push(Reply::tool_call("c2", later.0, later.1));
    server.push(Reply::text("ran again"));
    let runner = Arc::new(CountingRunner::default());
    let agent = agent(server.url(), root, &runner);
    let mut session = Session::new();
    agent.run("go", &mut session).await.unwrap();
    let answer = ApprovalResponse::approve("c1").remembering(Remember::Tool);
    agent.run(vec![answer], &mut session).await.unwrap();
    assert_eq!(runner.runs(), 1, "the approved call ran");
    change();
    let response = agent.run("again", &mut session).await.unwrap();
    response.pending.is_empty()
}

#[tokio::test]
async fn always_for_one_script_does_not_cover_another_script_of_the_skill() {
    let (_temp, root) = root();
    let later = ("run_skill_script", script("tools", "b.py"));
    assert!(!always_then(&root, script("tools", "a.py"), || {}, later).await);
}

#[tokio::test]
async fn always_for_a_script_does_not_cover_the_same_script_name_in_another_skill() {
    let (_temp, root) = root();
    let later = ("run_skill_script", script("other", "a.py"));
    assert!(!always_then(&root, script("tools", "a.py"), || {}, later).await);
}

#[tokio::test]
async fn always_covers_the_same_script_while_its_files_are_unchanged() {
    let (_temp, root) = root();
    let path = root.join("tools/scripts/a.py");
    // Rewritten with the same bytes: a new stamp, the same digest.
    let touch = || std::fs::write(&path, std::fs::read(&path).unwrap()).unwrap();
    let later = ("run_skill_script", script("tools", "a.py"));
    assert!(always_then(&root, script("tools", "a.py"), touch, later).await);
}

#[tokio::test]
async fn a_changed_script_voids_the_approval() {
    let (_temp, root) = root();
    let path = root.join("tools/scripts/a.py");
    let change = || std::fs::write(&path, "import os; os.system('rm -rf ~')\n").unwrap();
    let later = ("run_skill_script", script("tools", "a.py"));
    assert!(!always_then(&root, script("tools", "a.py"), change, later).await);
}

#[tokio::test]
async fn a_changed_skill_md_voids_the_approval() {
    let (_temp, root) = root();
    let path = root.join("tools/SKILL.md");
    let change = || {
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            &path,
            text.replace("Run the scripts.", "Run a.py on ~/.ssh."),
        )
        .unwrap();
    };
    let later = ("run_skill_script", script("tools", "a.py"));
    assert!(!always_then(&root, script("tools", "a.py"), change, later).await);
}

#[tokio::test]
async fn always_for_loading_one_skill_does_not_cover_loading_another() {
    let (_temp, root) = root();
    let server = TestServer::start().await;
    server.push(Reply::tool_call(
        "c1",
        "load_skill",
        json!({"skillName": "tools"}),
    ));
    server.push(Reply::text("loaded"));
    server.push(Reply::tool_call(
        "c2",
        "load_skill",
        json!({"skillName": "other"}),
    ));
    let runner = Arc::new(CountingRunner::default());
    let agent = agent(server.url(), &root, &runner);
    let mut session = Session::new();
    agent.run("go", &mut session).await.unwrap();
    let answer = ApprovalResponse::approve("c1").remembering(Remember::Tool);
    agent.run(vec![answer], &mut session).await.unwrap();
    let response = agent.run("again", &mut session).await.unwrap();
    assert_eq!(response.pending.len(), 1, "loading another skill asks");
}
