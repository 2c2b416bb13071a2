//! The small-model aids against a deterministic stand-in model: the answer step.

use std::sync::Arc;

use serde_json::{Value, json};
use skillful_agent::{Agent, Aids, ApprovalRules, Author, AutoApprove, Session};
use skillful_test_server::{Reply, TestServer};

use crate::common::{CountingRunner, MARATHON, client, example_provider, run_convert};

/// Whether the request offers tools.
fn has_tools(request: &Value) -> bool {
    request["tools"]
        .as_array()
        .is_some_and(|tools| !tools.is_empty())
}

/// The text of every message of `request`.
fn texts(request: &Value) -> String {
    request["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|message| message["content"].as_str().unwrap_or_default().to_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A model that runs the conversion once and then keeps running it instead of answering; asked
/// without tools, it answers from the script's result when the request holds it.
fn looping_model(request: &Value) -> Reply {
    if !has_tools(request) {
        return if texts(request).contains("\"result\": 42.1648") {
            Reply::text("A marathon is about 42.16 km.")
        } else {
            Reply::text("I do not know.")
        };
    }
    Reply::tool_call("call", "run_skill_script", run_convert())
}

fn agent(server: &TestServer, aids: Aids) -> Agent {
    Agent::builder(client(server.url()))
        .skills(example_provider(Arc::new(CountingRunner::default())))
        .approval(ApprovalRules::new(AutoApprove::All))
        .aids(aids)
        .build()
}

#[tokio::test]
async fn a_loop_after_a_successful_call_ends_with_the_answer_asked_for_in_a_clean_request() {
    let server = TestServer::start().await;
    server.respond(looping_model);
    let agent = agent(&server, Aids::new());
    let mut session = Session::new();

    let response = agent.run(MARATHON, &mut session).await.unwrap();

    assert_eq!(response.text(), "A marathon is about 42.16 km.");
    let requests = server.requests();
    let clean = requests.last().unwrap();
    assert!(!has_tools(&clean.body), "the answer step offers no tools");
    let messages = clean.body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1, "one user message: {messages:?}");
    assert_eq!(messages[0]["role"], "user");
    assert!(messages[0].get("tool_calls").is_none());
    let prompt = messages[0]["content"].as_str().unwrap();
    assert!(prompt.starts_with(MARATHON), "{prompt}");
    assert!(prompt.contains("\"result\": 42.1648"), "{prompt}");
    assert!(
        !prompt.contains("Not run:"),
        "only the results of calls that succeeded: {prompt}"
    );
    assert!(
        requests[..requests.len() - 1]
            .iter()
            .all(|request| has_tools(&request.body)),
        "exactly one request without tools"
    );

    // The loop guard's message stays; the answer after it is marked as the answer step's, in
    // the response and in the session (also once saved).
    assert_eq!(response.authors.len(), response.messages.len());
    assert_eq!(response.authors.last(), Some(&Author::AnswerStep));
    assert!(
        response.messages[response.messages.len() - 2]
            .joined_text()
            .starts_with("Stopped:")
    );
    let last = session.messages().len() - 1;
    assert_eq!(session.author(last), Author::AnswerStep);
    assert_eq!(session.author(0), Author::Conversation);
    let saved: Session = serde_json::from_value(json!(session)).unwrap();
    assert_eq!(saved.author(last), Author::AnswerStep);
}

#[tokio::test]
async fn without_a_successful_call_the_guard_ends_the_run_as_before() {
    let server = TestServer::start().await;
    // Every call fails the same way: no result to answer from.
    server.respond(|request| {
        if has_tools(request) {
            Reply::tool_call("call", "load_skill", json!({"skillName": "no-such-skill"}))
        } else {
            Reply::text("an answer from nothing")
        }
    });
    let agent = agent(&server, Aids::new());
    let mut session = Session::new();

    let response = agent.run(MARATHON, &mut session).await.unwrap();

    assert!(
        response.text().starts_with("Stopped:"),
        "{}",
        response.text()
    );
    assert!(
        server
            .requests()
            .iter()
            .all(|request| has_tools(&request.body))
    );
    assert!(!response.authors.contains(&Author::AnswerStep));
}

#[tokio::test]
async fn with_the_answer_step_off_a_loop_ends_at_the_guard() {
    let server = TestServer::start().await;
    server.respond(looping_model);
    let agent = agent(&server, Aids::new().answer_step(false));
    let mut session = Session::new();

    let response = agent.run(MARATHON, &mut session).await.unwrap();

    assert!(
        response.text().starts_with("Stopped:"),
        "{}",
        response.text()
    );
    assert!(
        server
            .requests()
            .iter()
            .all(|request| has_tools(&request.body))
    );
}
