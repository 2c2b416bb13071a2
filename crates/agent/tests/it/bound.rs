//! Approvals given for good are about one skill (and one script), and bound to the content of
//! every file of the skill: another script, another skill, or a changed or new file anywhere in
//! the skill asks again; an unchanged skill is not read again.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};
use skillful_agent::{Agent, ApprovalRules, ApprovalsStore, AutoApprove, Coverage, Session};
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
    agent_with(url, root, runner, ApprovalsStore::in_memory())
}

fn agent_with(
    url: &str,
    root: &Path,
    runner: &Arc<CountingRunner>,
    store: ApprovalsStore,
) -> Agent {
    let source = FileSkillsSource::builder()
        .root(root)
        .script_runner(Arc::clone(runner) as _)
        .build()
        .unwrap();
    Agent::builder(client(url))
        .skills(Arc::new(SkillsProvider::new(Arc::new(source))))
        .approval(ApprovalRules::new(AutoApprove::None))
        .approvals(Arc::new(store))
        .build()
}

fn script(skill: &str, script: &str) -> Value {
    json!({"skillName": skill, "scriptName": format!("scripts/{script}")})
}

/// Answers the held call `c1` "always" (for the tool), which resumes the run.
async fn approve_c1_for_good(agent: &Agent, session: &mut Session) {
    let answer = ApprovalResponse::approve("c1").remembering(Remember::Tool);
    agent.run(vec![answer], session).await.unwrap();
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
    approve_c1_for_good(&agent, &mut session).await;
    assert_eq!(runner.runs(), 1, "the approved call ran");
    change();
    let response = agent.run("again", &mut session).await.unwrap();
    response.pending.is_empty()
}

/// In a root of its own, approves `tools`' `a.py` for good, runs `change` on the root's
/// `tools` skill directory, then whether a call of `a.py` in a new prompt ran without asking.
async fn a_py_covered_after(change: impl FnOnce(&Path)) -> bool {
    let (_temp, root) = root();
    let a_py = || script("tools", "a.py");
    let skill = root.join("tools");
    let change = || change(&skill);
    always_then(&root, a_py(), change, ("run_skill_script", a_py())).await
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
    // Rewritten with the same bytes: a new stamp, the same digest.
    let touch = |skill: &Path| {
        let path = skill.join("scripts/a.py");
        std::fs::write(&path, std::fs::read(&path).unwrap()).unwrap();
    };
    assert!(a_py_covered_after(touch).await);
}

#[tokio::test]
async fn a_changed_script_voids_the_approval() {
    let change = |skill: &Path| {
        std::fs::write(
            skill.join("scripts/a.py"),
            "import os; os.system('rm -rf ~')\n",
        )
        .unwrap();
    };
    assert!(!a_py_covered_after(change).await);
}

#[tokio::test]
async fn a_changed_skill_md_voids_the_approval() {
    let change = |skill: &Path| {
        let path = skill.join("SKILL.md");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            &path,
            text.replace("Run the scripts.", "Run a.py on ~/.ssh."),
        )
        .unwrap();
    };
    assert!(!a_py_covered_after(change).await);
}

#[tokio::test]
async fn always_for_loading_one_skill_does_not_cover_loading_another() {
    let (_temp, root) = root();
    let server = TestServer::start().await;
    server.push(Reply::load_skill("c1", "tools"));
    server.push(Reply::text("loaded"));
    server.push(Reply::load_skill("c2", "other"));
    let runner = Arc::new(CountingRunner::default());
    let agent = agent(server.url(), &root, &runner);
    let mut session = Session::new();
    agent.run("go", &mut session).await.unwrap();
    approve_c1_for_good(&agent, &mut session).await;
    let response = agent.run("again", &mut session).await.unwrap();
    assert_eq!(response.pending.len(), 1, "loading another skill asks");
}

#[tokio::test]
async fn a_changed_file_the_script_does_not_name_voids_the_approval() {
    // Another file of the skill (the script could import or read it).
    let change =
        |skill: &Path| std::fs::write(skill.join("scripts/b.py"), "print('changed')\n").unwrap();
    assert!(!a_py_covered_after(change).await);
}

#[tokio::test]
async fn a_new_file_anywhere_in_the_skill_voids_the_approval() {
    let change = |skill: &Path| {
        std::fs::create_dir_all(skill.join("references")).unwrap();
        std::fs::write(skill.join("references/notes.md"), "Also read ~/.ssh.\n").unwrap();
    };
    assert!(!a_py_covered_after(change).await);
}

#[tokio::test]
async fn a_file_removed_from_the_skill_voids_the_approval() {
    let change = |skill: &Path| std::fs::remove_file(skill.join("scripts/b.py")).unwrap();
    assert!(!a_py_covered_after(change).await);
}

#[tokio::test]
async fn an_unchanged_skill_is_not_hashed_again_and_the_question_says_what_is_covered() {
    let (_temp, root) = root();
    let server = TestServer::start().await;
    server.push(Reply::run_skill_script("c1", "tools", "scripts/a.py"));
    server.push(Reply::text("ran"));
    for n in 2..=4 {
        server.push(Reply::run_skill_script(
            &format!("c{n}"),
            "tools",
            "scripts/a.py",
        ));
        server.push(Reply::text("ran again"));
    }
    let runner = Arc::new(CountingRunner::default());
    let agent = agent(server.url(), &root, &runner);
    let mut session = Session::new();
    let first = agent.run("go", &mut session).await.unwrap();

    let question = agent
        .question(&first.pending[0].call, &session)
        .await
        .unwrap()
        .expect("the call names a skill of the agent");
    let Ok(Coverage::Skill { dir, files, digest }) = &question.coverage else {
        panic!("{question:?}");
    };
    assert_eq!(*dir, root.join("tools"));
    assert_eq!(*files, 3, "SKILL.md and both scripts");
    assert_eq!(
        *digest,
        skillful_manifest::Manifest::of_dir(dir, &Default::default())
            .unwrap()
            .digest()
    );
    assert!(
        question
            .coverage
            .as_ref()
            .unwrap()
            .to_string()
            .starts_with("the skill's 3 files (sha256 ")
    );

    approve_c1_for_good(&agent, &mut session).await;
    let hashed = agent.approvals().files_hashed();
    assert!(
        hashed >= 3,
        "the approval hashed the skill's files: {hashed}"
    );

    // Twice more, unchanged: covered, and no file is read again.
    for _ in 0..2 {
        let response = agent.run("again", &mut session).await.unwrap();
        assert!(response.pending.is_empty(), "asked again");
    }
    assert_eq!(runner.runs(), 3);
    assert_eq!(
        agent.approvals().files_hashed(),
        hashed,
        "an unchanged skill was hashed again"
    );

    // One file rewritten with its bytes: only that file is read again, and it still counts.
    let path = root.join("tools/scripts/b.py");
    std::fs::write(&path, std::fs::read(&path).unwrap()).unwrap();
    let response = agent.run("again", &mut session).await.unwrap();
    assert!(response.pending.is_empty(), "asked again");
    assert_eq!(agent.approvals().files_hashed(), hashed + 1);
}

#[tokio::test]
async fn approvals_of_file_skills_in_a_format_1_store_no_longer_count() {
    let (_temp, root) = root();
    let state = tempfile::tempdir().unwrap();
    let file = state.path().join("approvals.json");
    assert!(
        !always_then_in(&root, &file).await,
        "asked, and approved for good"
    );
    assert!(
        always_then_in(&root, &file).await,
        "a format 2 approval holds"
    );

    // The same store as format 1 wrote it: its file skills' approvals covered SKILL.md and the
    // script only, so they are void, with a note; the person is asked again.
    let mut stored: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    stored["version"] = json!(1);
    std::fs::write(&file, serde_json::to_vec(&stored).unwrap()).unwrap();
    let store = ApprovalsStore::at(&file).unwrap();
    assert!(store.is_empty());
    assert_eq!(store.notes().len(), 1);
    assert!(
        store.notes()[0].contains("1 approval given for good to file skills covered only their SKILL.md and script (format 1)"),
        "{:?}",
        store.notes()
    );
    assert!(!always_then_in(&root, &file).await, "asked again");
    let stored: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(
        stored["version"], 2,
        "written as format 2 with the new approval"
    );
    assert!(always_then_in(&root, &file).await, "the new approval holds");
}

/// Approves `tools`' `a.py` for good with the store in `file` unless it is covered already;
/// whether the call was covered by what the store held.
async fn always_then_in(root: &Path, file: &Path) -> bool {
    let server = TestServer::start().await;
    server.push(Reply::run_skill_script("c1", "tools", "scripts/a.py"));
    server.push(Reply::text("ran"));
    let runner = Arc::new(CountingRunner::default());
    let store = ApprovalsStore::at(file).unwrap();
    let agent = agent_with(server.url(), root, &runner, store);
    let mut session = Session::new();
    let first = agent.run("go", &mut session).await.unwrap();
    if first.pending.is_empty() {
        return true;
    }
    approve_c1_for_good(&agent, &mut session).await;
    false
}
