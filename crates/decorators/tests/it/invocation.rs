//! The function-invocation loop: tools run, errors fed back, breakers.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use skillful_chat::{ChatClient, ChatResponse, Content, Message, Role};
use skillful_decorators::{FunctionInvocationLayer, Layer, Limits};
use skillful_test_server::{Reply, TestServer};
use tokio::sync::Barrier;

use crate::common::{Behaviour, TestTool, base, repeating_model, request, turn};

/// Asks the loop (no approval policy, default limits), talking to `server`, to `go` with `tools`.
async fn go(server: &TestServer, tools: &[&Arc<TestTool>]) -> ChatResponse {
    let client = FunctionInvocationLayer::new().layer(base(server.url()));
    turn(&client, vec![Message::user("go")], tools).await
}

#[tokio::test]
async fn runs_the_tool_and_returns_every_new_message() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "echo", json!({"x": 1})));
    server.push(Reply::text("done"));
    let echo = TestTool::new("echo", Behaviour::Echo);
    let client = FunctionInvocationLayer::new().layer(base(server.url()));

    let response = turn(&client, vec![Message::user("go")], &[&echo]).await;

    let roles: Vec<Role> = response.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::Assistant, Role::Tool, Role::Assistant]);
    assert_eq!(response.text(), "done");
    assert_eq!(echo.calls(), 1);
    assert_eq!(
        response.usage.unwrap().prompt_tokens,
        20,
        "usage summed over calls"
    );
    let second = &server.requests()[1];
    assert_eq!(second.contents("tool"), [r#"called echo with {"x":1}"#]);
}

#[tokio::test]
async fn calls_of_one_turn_run_concurrently() {
    let server = TestServer::start().await;
    server.push(Reply::tool_calls(&[
        ("c1", "meet", json!({"side": "a"})),
        ("c2", "meet", json!({"side": "b"})),
    ]));
    server.push(Reply::text("both met"));
    // Each call waits for the other: run one after the other, they would never finish.
    let meet = TestTool::new("meet", Behaviour::Meet(Arc::new(Barrier::new(2))));
    let client = FunctionInvocationLayer::new().layer(base(server.url()));
    let response = tokio::time::timeout(
        Duration::from_secs(60),
        client.get_response(request(vec![Message::user("go")], &[&meet])),
    )
    .await
    .expect("the two calls ran at the same time")
    .unwrap();
    assert_eq!(response.text(), "both met");
    assert_eq!(server.requests()[1].contents("tool"), ["met", "met"]);
}

#[tokio::test]
async fn tool_errors_and_unknown_tools_go_back_to_the_model() {
    let server = TestServer::start().await;
    server.push(Reply::tool_calls(&[
        ("c1", "fail", json!({})),
        ("c2", "nosuch", json!({})),
    ]));
    server.push(Reply::text("sorry"));
    let fail = TestTool::new("fail", Behaviour::Fail("disk on fire"));
    let response = go(&server, &[&fail]).await;
    assert_eq!(response.text(), "sorry");
    let results = server.requests()[1].contents("tool");
    assert_eq!(results[0], "disk on fire");
    assert_eq!(
        results[1],
        "Error: there is no tool named 'nosuch'. Available tools: fail."
    );
}

#[tokio::test]
async fn the_same_failure_three_times_in_a_row_ends_the_run() {
    let server = TestServer::start().await;
    for n in 1..=3 {
        server.push(Reply::tool_call(&format!("c{n}"), "fail", json!({"n": n})));
    }
    server.repeat(Reply::text("never asked"));
    let fail = TestTool::new("fail", Behaviour::Fail("disk on fire"));
    let response = go(&server, &[&fail]).await;
    assert_eq!(
        response.text(),
        "Stopped: the tool `fail` failed the same way 3 times in a row: disk on fire"
    );
    assert_eq!(fail.calls(), 3);
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn a_different_failure_resets_the_count() {
    let server = TestServer::start().await;
    for n in 1..=2 {
        server.push(Reply::tool_call(&format!("a{n}"), "fail", json!({"n": n})));
    }
    server.push(Reply::tool_call("b", "other", json!({})));
    server.push(Reply::tool_call("a3", "fail", json!({"n": 3})));
    server.push(Reply::text("gave up myself"));
    let fail = TestTool::new("fail", Behaviour::Fail("disk on fire"));
    let other = TestTool::new("other", Behaviour::Echo);
    let response = go(&server, &[&fail, &other]).await;
    // `fail` failed twice, then once more after another tool: still three in a row for `fail`.
    assert!(response.text().starts_with("Stopped: the tool `fail`"));

    let server = TestServer::start().await;
    server.push(Reply::tool_call("a1", "flaky", json!({"n": 1})));
    server.push(Reply::tool_call("a2", "flaky", json!({"n": 2})));
    server.push(Reply::tool_call("ok", "echo", json!({})));
    server.push(Reply::text("answered"));
    let flaky = TestTool::new("flaky", Behaviour::Fail("timeout"));
    let echo = TestTool::new("echo", Behaviour::Echo);
    let response = go(&server, &[&flaky, &echo]).await;
    assert_eq!(
        response.text(),
        "answered",
        "two failures are under the limit"
    );
}

#[tokio::test]
async fn identical_calls_are_not_run_a_third_time_and_a_fourth_ends_the_run() {
    let server = TestServer::start().await;
    repeating_model(&server, "load_skill");
    let load = TestTool::new("load_skill", Behaviour::Echo);
    let response = go(&server, &[&load]).await;

    assert_eq!(load.calls(), 2, "the third identical call is not run");
    let third_result = server.requests()[3].contents("tool")[2].clone();
    assert!(
        third_result.starts_with(
            "Not run: `load_skill` was called with these same arguments 3 times in a row."
        ),
        "{third_result}"
    );
    assert_eq!(server.requests().len(), 4);
    assert!(
        response
            .text()
            .starts_with("Stopped: the model kept calling `load_skill` with the same arguments"),
        "{}",
        response.text()
    );
    // Every call in the history has its result, so the conversation can go on.
    let last_tool = &response.messages[response.messages.len() - 2];
    assert!(matches!(&last_tool.contents[0], Content::FunctionResult(r) if r.call_id == "c4"));
}

#[tokio::test]
async fn a_model_repeating_a_turn_of_several_calls_is_guarded_too() {
    let server = TestServer::start().await;
    for n in 1..=4 {
        server.push(Reply::tool_calls(&[
            (
                &format!("a{n}"),
                "load_skill",
                json!({"skillName": "unit-converter"}),
            ),
            (&format!("b{n}"), "read", json!({"resourceName": "table"})),
        ]));
    }
    server.repeat(Reply::text("never asked"));
    let load = TestTool::new("load_skill", Behaviour::Echo);
    let read = TestTool::new("read", Behaviour::Echo);
    let response = go(&server, &[&load, &read]).await;

    assert_eq!(
        (load.calls(), read.calls()),
        (2, 2),
        "the third turn is not run"
    );
    let results = server.requests()[3].contents("tool");
    assert!(
        results[4].starts_with("Not run: `load_skill` was called"),
        "{results:?}"
    );
    assert!(
        results[5].starts_with("Not run: `read` was called"),
        "{results:?}"
    );
    assert!(
        response.text().starts_with(
            "Stopped: the model kept calling `load_skill` with the same arguments (4 times"
        ),
        "{}",
        response.text()
    );
}

#[tokio::test]
async fn the_iteration_cap_ends_a_run_that_never_answers() {
    let server = TestServer::start().await;
    for n in 1..=5 {
        server.push(Reply::tool_call(&format!("c{n}"), "echo", json!({"n": n})));
    }
    let echo = TestTool::new("echo", Behaviour::Echo);
    let mut limits = Limits::default();
    limits.max_iterations = 2;
    let client = FunctionInvocationLayer::new()
        .limits(limits)
        .layer(base(server.url()));
    let response = turn(&client, vec![Message::user("go")], &[&echo]).await;
    assert_eq!(
        response.text(),
        "Stopped: no final answer after 2 model calls (the limit)."
    );
    assert_eq!(server.requests().len(), 2);
}
