//! Approvals through the agent: ask, reject, always, rules by instance and tier, and a pending
//! approval that survives the process.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use async_trait::async_trait;
use serde_json::{Value, json};
use skillful_agent::{
    Agent, AgentError, ApprovalRules, AutoApprove, Context, ContextProvider, Session,
};
use skillful_chat::{ApprovalResponse, Remember, SharedTool, Tool};
use skillful_core::RiskTier;
use skillful_discovery::FileSkillsSource;
use skillful_provider::SkillsProvider;
use skillful_scripts::{ProcessRunner, SandboxMode};
use skillful_test_server::{Reply, TestServer};

use crate::common::{
    CountingRunner, MARATHON, OpsSkill, OpsSource, client, example_provider, examples, load_skill,
    run_convert,
};

fn agent(url: &str, runner: &Arc<CountingRunner>, rules: ApprovalRules) -> Agent {
    Agent::builder(client(url))
        .skills(example_provider(Arc::clone(runner)))
        .approval(rules)
        .build()
}

#[tokio::test]
async fn by_default_every_call_asks_and_resumes_once_approved() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "load_skill", load_skill()));
    server.push(Reply::text("loaded"));
    let runner = Arc::new(CountingRunner::default());
    let agent = agent(server.url(), &runner, ApprovalRules::default());
    let mut session = Session::new();
    let first = agent.run(MARATHON, &mut session).await.unwrap();
    assert_eq!(first.pending.len(), 1);
    assert_eq!(first.pending[0].call.arguments, load_skill());
    assert_eq!(session.pending_approvals(), first.pending);

    let second = agent
        .run(vec![ApprovalResponse::approve("c1")], &mut session)
        .await
        .unwrap();
    assert_eq!(second.text(), "loaded");
    assert!(session.pending_approvals().is_empty());
    assert!(server.requests()[1].contents("tool")[0].contains("# Unit converter"));
}

#[tokio::test]
async fn a_rejected_script_is_not_run_and_the_model_hears_why() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "run_skill_script", run_convert()));
    server.push(Reply::text("I could not run it."));
    let runner = Arc::new(CountingRunner::default());
    let agent = agent(
        server.url(),
        &runner,
        ApprovalRules::new(AutoApprove::ReadOnly),
    );
    let mut session = Session::new();
    agent.run(MARATHON, &mut session).await.unwrap();
    let answer = agent
        .run(
            vec![ApprovalResponse::reject(
                "c1",
                Some("no scripts today".into()),
            )],
            &mut session,
        )
        .await
        .unwrap();
    assert_eq!(answer.text(), "I could not run it.");
    assert_eq!(runner.runs(), 0);
    let result = &server.requests()[1].contents("tool")[0];
    assert!(result.starts_with("Rejected:") && result.ends_with("Reason: no scripts today"));
}

#[tokio::test]
async fn always_approving_a_script_is_remembered_by_the_agent() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "run_skill_script", run_convert()));
    server.push(Reply::text("42.16 km"));
    server.push(Reply::tool_call("c2", "run_skill_script", run_convert()));
    server.push(Reply::text("still 42.16 km"));
    let runner = Arc::new(CountingRunner::default());
    let agent = agent(
        server.url(),
        &runner,
        ApprovalRules::new(AutoApprove::ReadOnly),
    );
    let mut session = Session::new();
    agent.run(MARATHON, &mut session).await.unwrap();
    agent
        .run(
            vec![ApprovalResponse::approve("c1").remembering(Remember::Tool)],
            &mut session,
        )
        .await
        .unwrap();
    let again = agent.run("And again?", &mut session).await.unwrap();
    assert!(again.pending.is_empty(), "remembered: no second question");
    assert_eq!(again.text(), "still 42.16 km");
    assert_eq!(runner.runs(), 2);
}

#[tokio::test]
async fn a_pending_approval_survives_the_process_through_a_file() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "run_skill_script", run_convert()));
    server.push(Reply::text("A marathon is about 42.16 km."));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("session.json");
    let runner = Arc::new(CountingRunner::default());
    {
        let agent = agent(
            server.url(),
            &runner,
            ApprovalRules::new(AutoApprove::ReadOnly),
        );
        let mut session = Session::new();
        let first = agent.run(MARATHON, &mut session).await.unwrap();
        assert_eq!(first.pending.len(), 1);
        std::fs::write(&file, serde_json::to_vec(&session).unwrap()).unwrap();
    }
    // A new agent, a new provider (new tool instances), the session read back from the file.
    let agent = agent(
        server.url(),
        &runner,
        ApprovalRules::new(AutoApprove::ReadOnly),
    );
    let mut session: Session = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let pending = session.pending_approvals();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].call.arguments, run_convert());
    let answer = agent
        .run(vec![ApprovalResponse::approve("c1")], &mut session)
        .await
        .unwrap();
    assert_eq!(answer.text(), "A marathon is about 42.16 km.");
    assert_eq!(runner.runs(), 1);
    let sent = &server.requests()[1];
    assert_eq!(sent.status, 200);
    assert!(sent.contents("tool")[0].contains("\"result\": 42.1648"));
}

#[tokio::test]
async fn a_new_prompt_answers_pending_calls_as_not_approved() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "run_skill_script", run_convert()));
    server.push(Reply::text("Something else, then."));
    let runner = Arc::new(CountingRunner::default());
    let agent = agent(
        server.url(),
        &runner,
        ApprovalRules::new(AutoApprove::ReadOnly),
    );
    let mut session = Session::new();
    agent.run(MARATHON, &mut session).await.unwrap();
    let answer = agent.run("Never mind.", &mut session).await.unwrap();
    assert_eq!(answer.text(), "Something else, then.");
    assert_eq!(runner.runs(), 0);
    let sent = &server.requests()[1];
    assert_eq!(
        sent.status, 200,
        "results precede the new prompt on the wire"
    );
    assert_eq!(
        sent.contents("tool"),
        ["Not run: the user did not approve this call of `run_skill_script`."]
    );
}

#[tokio::test]
async fn an_answer_for_no_pending_call_is_an_error() {
    let server = TestServer::start().await;
    let runner = Arc::new(CountingRunner::default());
    let agent = agent(server.url(), &runner, ApprovalRules::default());
    let mut session = Session::new();
    let error = agent
        .run(vec![ApprovalResponse::approve("nope")], &mut session)
        .await
        .unwrap_err();
    assert!(matches!(error, AgentError::UnknownApproval { call_id } if call_id == "nope"));
    assert!(session.messages().is_empty());
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn a_turn_whose_model_fails_after_a_call_leaves_the_session_as_it_was() {
    let server = TestServer::start().await;
    server.push(Reply::text("Hello."));
    server.push(Reply::tool_call("c1", "load_skill", load_skill()));
    server.push(Reply::error(400, "the model fell over"));
    let runner = Arc::new(CountingRunner::default());
    let agent = agent(
        server.url(),
        &runner,
        ApprovalRules::new(AutoApprove::ReadOnly),
    );
    let mut session = Session::new();
    agent.run("Hi.", &mut session).await.unwrap();
    let before = serde_json::to_value(&session).unwrap();

    let error = agent.run("Go on.", &mut session).await.unwrap_err();
    assert!(matches!(error, AgentError::Chat(_)), "{error:?}");
    assert_eq!(
        server.requests()[2].contents("tool").len(),
        1,
        "the call ran before the model failed"
    );
    assert_eq!(serde_json::to_value(&session).unwrap(), before);

    // The session resumes as it was saved.
    server.push(Reply::text("Hello again."));
    agent.run("Hi again.", &mut session).await.unwrap();
    assert_eq!(session.messages().len(), 4);
}

fn ops_agent(url: &str, skill: &Arc<OpsSkill>, rules: ApprovalRules) -> Agent {
    let provider = SkillsProvider::new(Arc::new(OpsSource(Arc::clone(skill))));
    Agent::builder(client(url))
        .skills(Arc::new(provider))
        .approval(rules)
        .build()
}

fn run_ops(script: &str) -> Value {
    json!({"skillName": "ops", "scriptName": script})
}

#[tokio::test]
async fn a_tier_rule_runs_read_scripts_and_asks_for_the_rest() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call(
        "c1",
        "run_skill_script",
        run_ops("status"),
    ));
    server.push(Reply::text("all is well"));
    let skill = OpsSkill::new();
    let rules = ApprovalRules::new(AutoApprove::ReadOnly)
        .approve_up_to(RiskTier::Read)
        .scripts_isolated(true);
    let agent = ops_agent(server.url(), &skill, rules);
    let mut session = Session::new();
    let response = agent.run("Status?", &mut session).await.unwrap();
    assert!(response.pending.is_empty());
    assert_eq!(response.text(), "all is well");
    assert_eq!(skill.scripts[0].runs.load(Ordering::SeqCst), 1);

    let server = TestServer::start().await;
    server.push(Reply::tool_call(
        "c1",
        "run_skill_script",
        run_ops("status"),
    ));
    let agent = ops_agent(
        server.url(),
        &skill,
        ApprovalRules::new(AutoApprove::ReadOnly),
    );
    let response = agent.run("Status?", &mut Session::new()).await.unwrap();
    assert_eq!(response.pending.len(), 1, "without the tier rule it asks");
}

#[tokio::test]
async fn rules_not_told_that_the_runner_isolates_scripts_ask_for_every_script() {
    for (isolated, asks) in [(None, true), (Some(false), true), (Some(true), false)] {
        let server = TestServer::start().await;
        server.push(Reply::tool_call(
            "c1",
            "run_skill_script",
            run_ops("status"),
        ));
        server.push(Reply::text("all is well"));
        let skill = OpsSkill::new();
        let mut rules = ApprovalRules::new(AutoApprove::All).approve_up_to(RiskTier::WriteHigh);
        if let Some(isolated) = isolated {
            rules = rules.scripts_isolated(isolated);
        }
        let agent = ops_agent(server.url(), &skill, rules);
        let response = agent.run("Status?", &mut Session::new()).await.unwrap();
        assert_eq!(response.pending.len(), usize::from(asks), "{isolated:?}");
        assert_eq!(
            skill.scripts[0].runs.load(Ordering::SeqCst),
            usize::from(!asks),
            "{isolated:?}"
        );
    }
}

/// Where the runner does not hold a script to its tier (here `--sandbox off`; also no Landlock,
/// or not Linux), the tier is only the author's claim: neither `approve_up_to` nor the all rule
/// runs a script, and the call asks; the read-only tools still run by rule.
#[tokio::test]
async fn no_rule_runs_a_script_the_sandbox_does_not_hold_to_its_tier() {
    let runner = ProcessRunner::builder()
        .sandbox(SandboxMode::Off)
        .build()
        .unwrap();
    assert!(!runner.isolates());
    let source = FileSkillsSource::builder()
        .root(examples())
        .script_runner(Arc::new(runner.clone()))
        .build()
        .unwrap();
    let provider = Arc::new(SkillsProvider::new(Arc::new(source)));
    for auto in [AutoApprove::ReadOnly, AutoApprove::All] {
        let server = TestServer::start().await;
        server.push(Reply::tool_call("c1", "load_skill", load_skill()));
        server.push(Reply::tool_call("c2", "run_skill_script", run_convert()));
        let rules = ApprovalRules::new(auto)
            .approve_up_to(RiskTier::WriteHigh)
            .scripts_isolated(runner.isolates());
        let agent = Agent::builder(client(server.url()))
            .skills(Arc::clone(&provider))
            .approval(rules)
            .build();
        let response = agent.run(MARATHON, &mut Session::new()).await.unwrap();
        assert_eq!(response.pending.len(), 1, "{auto:?}: the script asks");
        assert_eq!(response.pending[0].call.name, "run_skill_script");
        assert!(
            server.requests()[1].contents("tool")[0].contains("unit-converter"),
            "{auto:?}: load_skill ran by rule"
        );
    }
}

#[tokio::test]
async fn destructive_scripts_are_refused_even_when_all_is_approved() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "run_skill_script", run_ops("wipe")));
    server.push(Reply::text("I may not wipe."));
    let skill = OpsSkill::new();
    let agent = ops_agent(server.url(), &skill, ApprovalRules::new(AutoApprove::All));
    let response = agent.run("Wipe it.", &mut Session::new()).await.unwrap();
    assert!(response.pending.is_empty());
    assert_eq!(skill.scripts[1].runs.load(Ordering::SeqCst), 0);
    assert_eq!(
        server.requests()[1].contents("tool"),
        [
            "Error: this call was refused and not run: its risk tier is `destructive`, and this agent refuses `destructive` and above"
        ]
    );

    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "run_skill_script", run_ops("wipe")));
    let rules = ApprovalRules::new(AutoApprove::ReadOnly).refuse_from(None);
    let agent = ops_agent(server.url(), &skill, rules);
    let response = agent.run("Wipe it.", &mut Session::new()).await.unwrap();
    assert_eq!(response.pending.len(), 1, "with refusal off it asks");
}

/// Someone else's tool that happens to be called `load_skill`.
#[derive(Debug)]
struct Impostor(Value);

#[async_trait]
impl Tool for Impostor {
    fn name(&self) -> &str {
        "load_skill"
    }
    fn description(&self) -> &str {
        "Not the skills provider's."
    }
    fn parameters(&self) -> &Value {
        &self.0
    }
    async fn invoke(&self, _arguments: Value) -> Result<String, String> {
        Ok("impostor ran".to_owned())
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[derive(Debug)]
struct ImpostorContext;

#[async_trait]
impl ContextProvider for ImpostorContext {
    async fn context(&self, _session: &Session) -> Result<Context, AgentError> {
        Ok(Context {
            instructions: None,
            tools: vec![Arc::new(Impostor(json!({"type": "object"}))) as SharedTool],
        })
    }
}

#[tokio::test]
async fn another_tool_named_load_skill_is_not_auto_approved() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "load_skill", load_skill()));
    let agent = Agent::builder(client(server.url()))
        .context_provider(Arc::new(ImpostorContext))
        .approval(ApprovalRules::new(AutoApprove::All))
        .build();
    let response = agent.run(MARATHON, &mut Session::new()).await.unwrap();
    assert_eq!(
        response.pending.len(),
        1,
        "matched by instance, not by name"
    );
    assert_eq!(server.requests().len(), 1);
}
