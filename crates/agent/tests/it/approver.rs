//! The approval turn loop ([`Agent::run_approving`]) driven by a scripted [`Approver`]: approve,
//! refuse, approve for the session, give no answer, and a runtime activation that is refused.

use std::collections::VecDeque;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};
use skillful_agent::{
    Agent, AgentResponse, Aids, ApprovalDecision, ApprovalRules, Approver, ApproverError,
    AutoApprove, HeldCall, RunOptions, Session,
};
use skillful_core::RiskTier;
use skillful_test_server::{Reply, TestServer};

use crate::common::{CountingRunner, MARATHON, client, example_provider, load_skill, run_convert};

/// An approver answering from a script, recording what it was asked and shown.
#[derive(Default)]
struct Scripted {
    decisions: VecDeque<ApprovalDecision>,
    asked: Vec<HeldCall>,
    responses: usize,
}

impl Scripted {
    fn new(decisions: impl IntoIterator<Item = ApprovalDecision>) -> Self {
        Self {
            decisions: decisions.into_iter().collect(),
            ..Self::default()
        }
    }
}

#[async_trait]
impl Approver for Scripted {
    async fn responded(
        &mut self,
        _response: &AgentResponse,
        _session: &Session,
    ) -> Result<(), ApproverError> {
        self.responses += 1;
        Ok(())
    }

    async fn decide(&mut self, held: &HeldCall) -> Result<Option<ApprovalDecision>, ApproverError> {
        self.asked.push(held.clone());
        Ok(self.decisions.pop_front())
    }
}

fn agent(server: &TestServer, runner: &Arc<CountingRunner>, aids: Aids) -> Agent {
    Agent::builder(client(server.url()))
        .skills(example_provider(Arc::clone(runner)))
        .approval(ApprovalRules::new(AutoApprove::None))
        .aids(aids)
        .build()
}

fn convert(value: f64) -> Value {
    let mut arguments = run_convert();
    arguments["arguments"] = json!({"value": value, "factor": 1.609344});
    arguments
}

#[tokio::test]
async fn an_approved_call_runs_and_the_approver_saw_skill_tool_and_tier() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "load_skill", load_skill()));
    server.push(Reply::text("loaded"));
    let runner = Arc::new(CountingRunner::default());
    let agent = agent(&server, &runner, Aids::new());
    let mut session = Session::new();
    let mut approver = Scripted::new([ApprovalDecision::Once]);

    let turn = agent
        .run_approving(MARATHON, &mut session, &RunOptions::new(), &mut approver)
        .await
        .unwrap();

    assert!(!turn.pending);
    assert_eq!(turn.responses.len(), 2);
    assert_eq!(turn.responses[0].1.len(), 1);
    assert!(turn.responses[0].1[0].approved);
    assert_eq!(turn.responses[1].0.text(), "loaded");
    assert_eq!(approver.responses, 2);
    let [held] = approver.asked.as_slice() else {
        panic!("{:?}", approver.asked);
    };
    assert_eq!(held.call.name, "load_skill");
    let question = held.question.as_ref().unwrap();
    assert_eq!(question.subject.skill_name(), "unit-converter");
    assert_eq!(question.subject.risk, RiskTier::Read);
    assert!(server.requests()[1].contents("tool")[0].contains("# Unit converter"));
    assert!(session.pending_approvals().is_empty());
}

#[tokio::test]
async fn a_refused_script_is_not_run_and_the_model_hears_the_reason() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "run_skill_script", run_convert()));
    server.push(Reply::text("I could not run it."));
    let runner = Arc::new(CountingRunner::default());
    let agent = agent(&server, &runner, Aids::new());
    let mut session = Session::new();
    let mut approver = Scripted::new([ApprovalDecision::Refuse(Some("not today".to_owned()))]);

    let turn = agent
        .run_approving(MARATHON, &mut session, &RunOptions::new(), &mut approver)
        .await
        .unwrap();

    assert_eq!(runner.runs(), 0);
    assert!(!turn.responses[0].1[0].approved);
    let result = &server.requests()[1].contents("tool")[0];
    assert!(result.contains("not today"), "{result}");
    let question = approver.asked[0].question.as_ref().unwrap();
    assert_eq!(question.subject.script_name(), Some("scripts/convert.py"));
}

#[tokio::test]
async fn approved_for_the_session_the_same_script_runs_again_without_asking() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "run_skill_script", convert(26.2)));
    server.push(Reply::tool_call("c2", "run_skill_script", convert(10.0)));
    server.push(Reply::text("42.16 km and 16.09 km"));
    server.push(Reply::tool_call("c3", "run_skill_script", convert(5.0)));
    server.push(Reply::text("8.05 km"));
    server.push(Reply::tool_call("c4", "run_skill_script", convert(1.0)));
    server.push(Reply::text("1.61 km"));
    let runner = Arc::new(CountingRunner::default());
    let agent = agent(&server, &runner, Aids::new());
    let mut session = Session::new();
    let mut approver = Scripted::new([ApprovalDecision::ForSession]);
    let options = RunOptions::new();

    let first = agent
        .run_approving(MARATHON, &mut session, &options, &mut approver)
        .await
        .unwrap();
    let second = agent
        .run_approving("And 5 miles?", &mut session, &options, &mut approver)
        .await
        .unwrap();

    assert_eq!(
        first.responses.last().unwrap().0.text(),
        "42.16 km and 16.09 km"
    );
    assert_eq!(second.responses.last().unwrap().0.text(), "8.05 km");
    assert_eq!(approver.asked.len(), 1, "asked once: {:?}", approver.asked);
    assert_eq!(runner.runs(), 3);

    // Another session is asked again; the approver gives no answer: the call stays pending.
    let mut other = Session::new();
    let third = agent
        .run_approving("And 1 mile?", &mut other, &options, &mut approver)
        .await
        .unwrap();
    assert!(third.pending);
    assert_eq!(approver.asked.len(), 2);
    assert_eq!(runner.runs(), 3);
    assert_eq!(other.pending_approvals().len(), 1);

    // Answered later, the run resumes.
    let mut later = Scripted::new([ApprovalDecision::Once]);
    let resumed = agent
        .resume_approving(&mut other, &options, &mut later)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(resumed.responses[0].1.len(), 1);
    assert_eq!(resumed.responses.last().unwrap().0.text(), "1.61 km");
    assert_eq!(runner.runs(), 4);
}

#[tokio::test]
async fn a_refused_activation_loads_nothing_and_the_model_is_not_told_the_body() {
    let server = TestServer::start().await;
    server.push(Reply::text("Done."));
    let runner = Arc::new(CountingRunner::default());
    let agent = agent(&server, &runner, Aids::all());
    let mut session = Session::new();
    let mut approver = Scripted::new([ApprovalDecision::Refuse(Some("no".to_owned()))]);

    let turn = agent
        .run_approving(MARATHON, &mut session, &RunOptions::new(), &mut approver)
        .await
        .unwrap();

    assert_eq!(approver.asked[0].call.name, "load_skill");
    assert_eq!(turn.responses.len(), 2);
    assert_eq!(turn.responses[1].0.text(), "Done.");
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "one model call, after the answer");
    let results = requests[0].contents("tool");
    assert_eq!(results.len(), 1);
    assert!(results[0].starts_with("Rejected"), "{}", results[0]);
    assert!(!results[0].contains("# Unit converter"));
    assert!(
        !requests[0].body.to_string().contains("# Unit converter"),
        "the body reaches the model nowhere"
    );
}
