//! Call identity: a server (or a model writing its own ids) that reuses or leaves out call ids
//! cannot make an answer apply to another call.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::json;
use skillful_chat::{
    ApprovalResponse, ChatResponse, FunctionCall, Message, OpenAiClient, Remember,
};
use skillful_decorators::{FunctionInvocation, FunctionInvocationLayer, Layer};
use skillful_test_server::{Reply, TestServer};

use crate::common::{Behaviour, TestPolicy, TestTool, answer, base, turn};

/// Every call id in `messages`, which must all differ.
fn unique_call_ids(messages: &[Message]) -> HashSet<String> {
    let ids: Vec<String> = messages
        .iter()
        .flat_map(Message::function_calls)
        .map(|call| call.call_id.clone())
        .collect();
    let unique: HashSet<String> = ids.iter().cloned().collect();
    assert_eq!(unique.len(), ids.len(), "duplicate call ids: {ids:?}");
    assert!(!unique.contains(""), "an empty call id: {ids:?}");
    unique
}

fn later_script_call() -> FunctionCall {
    FunctionCall {
        call_id: "later".into(),
        name: "script".into(),
        arguments: json!({"n": 9}),
    }
}

fn covers(policy: &TestPolicy, call: &FunctionCall) -> bool {
    policy.covers(&call.name, &call.arguments)
}

/// The tools `load_skill` and `script` (both echo their arguments), a policy that remembers what
/// a person approved for good, and the loop that asks it, talking to `server`.
fn approving(
    server: &TestServer,
) -> (
    Arc<TestTool>,
    Arc<TestTool>,
    Arc<TestPolicy>,
    FunctionInvocation<OpenAiClient>,
) {
    let policy = TestPolicy::new();
    let client = FunctionInvocationLayer::new()
        .approval(Arc::clone(&policy) as _)
        .layer(base(server.url()));
    (
        TestTool::new("load_skill", Behaviour::Echo),
        TestTool::new("script", Behaviour::Echo),
        policy,
        client,
    )
}

#[tokio::test]
async fn one_id_for_two_calls_of_a_turn_cannot_turn_always_load_into_always_script() {
    let server = TestServer::start().await;
    server.push(Reply::tool_calls(&[
        ("x", "load_skill", json!({})),
        ("x", "script", json!({"n": 1})),
    ]));
    server.push(Reply::tool_call("x", "script", json!({"n": 2})));
    let (load, script, policy, client) = approving(&server);
    let tools = [&load, &script];

    let first = turn(&client, vec![Message::user("go")], &tools).await;
    let pending = first.approval_requests();
    assert_eq!(pending.len(), 2);
    assert_eq!(pending[0].call.name, "load_skill");
    assert_ne!(pending[0].call.call_id, pending[1].call.call_id);

    // "Always" for load_skill, "no" for the script.
    let mut messages = vec![Message::user("go")];
    messages.extend(first.messages.iter().cloned());
    messages.push(answer(vec![
        ApprovalResponse::approve(&pending[0].call.call_id).remembering(Remember::Tool),
        ApprovalResponse::reject(&pending[1].call.call_id, Some("no".into())),
    ]));
    let second = turn(&client, messages.clone(), &tools).await;
    assert!(
        !covers(&policy, &later_script_call()),
        "\"no\" to the script became \"always\""
    );
    assert_eq!((load.calls(), script.calls()), (1, 0));
    let asked = second.approval_requests();
    assert_eq!(asked.len(), 1, "the later script call asks");
    assert_eq!(asked[0].call.arguments, json!({"n": 2}));
    messages.extend(second.messages.iter().cloned());
    let ids = unique_call_ids(&messages);
    assert!(ids.contains(&asked[0].call.call_id));
    assert!(server.all_answered(), "every request was valid on the wire");
}

#[tokio::test]
async fn an_id_reused_in_a_later_turn_gets_an_id_of_its_own() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("x", "load_skill", json!({})));
    server.push(Reply::tool_call("x", "script", json!({"n": 1})));
    server.push(Reply::text("done without the script"));
    let (load, script, policy, client) = approving(&server);
    let tools = [&load, &script];

    let mut messages = vec![Message::user("go")];
    let first = turn(&client, messages.clone(), &tools).await;
    let load_call = first.approval_requests()[0].call.clone();
    messages.extend(first.messages.iter().cloned());
    messages.push(answer(vec![
        ApprovalResponse::approve(&load_call.call_id).remembering(Remember::Tool),
    ]));

    let second = turn(&client, messages.clone(), &tools).await;
    assert_eq!(load.calls(), 1);
    let script_call = second.approval_requests()[0].call.clone();
    assert_eq!(script_call.name, "script");
    assert_ne!(script_call.call_id, load_call.call_id);
    messages.extend(second.messages.iter().cloned());
    messages.push(answer(vec![ApprovalResponse::reject(
        &script_call.call_id,
        None,
    )]));
    assert!(!covers(&policy, &later_script_call()));

    let third: ChatResponse = turn(&client, messages.clone(), &tools).await;
    assert_eq!(third.text(), "done without the script");
    assert_eq!(script.calls(), 0);
    messages.extend(third.messages.iter().cloned());
    unique_call_ids(&messages);
    assert!(server.all_answered(), "every request was valid on the wire");
}

#[tokio::test]
async fn calls_without_ids_and_ids_of_earlier_answers_get_fresh_ones() {
    let server = TestServer::start().await;
    server.push(Reply::tool_calls(&[
        ("", "echo", json!({"n": 1})),
        ("", "echo", json!({"n": 2})),
        ("stale", "echo", json!({"n": 3})),
    ]));
    server.push(Reply::text("done"));
    let echo = TestTool::new("echo", Behaviour::Echo);
    let policy = TestPolicy::new();
    let client = FunctionInvocationLayer::new()
        .approval(Arc::clone(&policy) as _)
        .layer(base(server.url()));
    // An answer in the history to a call id no request has: a new call must not pick it up.
    let mut messages = vec![
        answer(vec![
            ApprovalResponse::approve("stale").remembering(Remember::Tool),
        ]),
        Message::user("go"),
    ];
    let response = turn(&client, messages.clone(), &[&echo]).await;
    assert_eq!(response.text(), "done");
    assert_eq!(echo.calls(), 3);
    messages.extend(response.messages.iter().cloned());
    let ids = unique_call_ids(&messages);
    assert!(!ids.contains("stale"), "{ids:?}");
    assert_eq!(server.requests()[1].status, 200);
}
