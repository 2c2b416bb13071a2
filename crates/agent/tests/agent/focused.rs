//! Focused tools: while a skill is active, the resource and script tools are declared with its
//! names as the only values, against a deterministic stand-in model.

use std::sync::Arc;

use serde_json::{Value, json};
use skillful_agent::{Agent, Aids, ApprovalRules, AutoApprove, Session};
use skillful_test_server::{Reply, TestServer};

use crate::common::{
    CountingRunner, MARATHON, client, example_provider, load_skill, read_table, run_convert,
};

/// The declared parameters of the tool `name` in a request body, if it is declared.
fn declared(body: &Value, name: &str) -> Option<Value> {
    body["tools"]
        .as_array()?
        .iter()
        .find(|tool| tool["function"]["name"] == name)
        .map(|tool| tool["function"]["parameters"].clone())
}

/// The `enum` of `property` in the declared tool `name`, `Null` when it has none.
fn listed(body: &Value, name: &str, property: &str) -> Value {
    declared(body, name).unwrap()["properties"][property]["enum"].clone()
}

fn agent(server: &TestServer, runner: Arc<CountingRunner>, aids: Aids) -> Agent {
    Agent::builder(client(server.url()))
        .skills(example_provider(runner))
        .approval(ApprovalRules::new(AutoApprove::All).scripts_isolated(true))
        .aids(aids)
        .build()
}

/// A model that reads the table, runs the conversion, then answers.
fn converting_model(request: &Value) -> Reply {
    let results = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["role"] == "tool")
        .count();
    match results {
        0 => Reply::tool_call("c0", "load_skill", load_skill()),
        1 => Reply::tool_call("c1", "read_skill_resource", read_table()),
        2 => Reply::tool_call("c2", "run_skill_script", run_convert()),
        _ => Reply::text("About 42.16 km."),
    }
}

#[tokio::test]
async fn after_activation_the_tools_offer_the_skills_names_as_enums() {
    let server = TestServer::start().await;
    server.respond(converting_model);
    let runner = Arc::new(CountingRunner::default());
    let agent = agent(&server, Arc::clone(&runner), Aids::all());

    let response = agent.run(MARATHON, &mut Session::new()).await.unwrap();

    assert_eq!(response.text(), "About 42.16 km.");
    assert_eq!(runner.runs(), 1, "the focused call ran the real script");
    let requests = server.requests();
    for request in &requests {
        let body = &request.body;
        assert_eq!(
            listed(body, "read_skill_resource", "skillName"),
            json!(["unit-converter"])
        );
        assert_eq!(
            listed(body, "read_skill_resource", "resourceName"),
            json!(["references/conversion-table.md"])
        );
        assert_eq!(
            listed(body, "run_skill_script", "skillName"),
            json!(["unit-converter"])
        );
        assert_eq!(
            listed(body, "run_skill_script", "scriptName"),
            json!(["scripts/convert.py"])
        );
        assert_eq!(
            listed(body, "load_skill", "skillName"),
            Value::Null,
            "load_skill stays open for switching skills"
        );
    }
}

#[tokio::test]
async fn a_skill_the_model_loads_focuses_the_tools_from_the_next_call_on() {
    let server = TestServer::start().await;
    server.respond(converting_model);
    let agent = agent(
        &server,
        Arc::new(CountingRunner::default()),
        Aids::new().focused_tools(true),
    );

    agent.run(MARATHON, &mut Session::new()).await.unwrap();

    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    let first = &requests[0].body;
    assert_eq!(
        listed(first, "read_skill_resource", "resourceName"),
        Value::Null
    );
    assert_eq!(listed(first, "run_skill_script", "scriptName"), Value::Null);
    for request in &requests[1..] {
        assert_eq!(
            listed(&request.body, "run_skill_script", "scriptName"),
            json!(["scripts/convert.py"])
        );
    }
}

#[tokio::test]
async fn off_or_after_a_failed_load_the_tools_stay_open() {
    for (aids, load) in [
        (Aids::new(), load_skill()),
        (
            Aids::all().activation(false),
            json!({"skillName": "no-such-skill"}),
        ),
    ] {
        let server = TestServer::start().await;
        let answer = load.clone();
        server.respond(move |request: &Value| {
            if request["messages"]
                .as_array()
                .unwrap()
                .iter()
                .any(|message| message["role"] == "tool")
            {
                Reply::text("done")
            } else {
                Reply::tool_call("c0", "load_skill", answer.clone())
            }
        });
        let agent = agent(&server, Arc::new(CountingRunner::default()), aids);
        agent.run(MARATHON, &mut Session::new()).await.unwrap();
        for request in server.requests() {
            assert_eq!(
                listed(&request.body, "read_skill_resource", "resourceName"),
                Value::Null,
                "{load}"
            );
        }
    }
}
