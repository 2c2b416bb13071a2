//! Tool approval in the loop: ask, resume, reject, remember, refuse, cap.

use std::sync::Arc;

use serde_json::json;
use skillful_chat::{ApprovalResponse, ChatResponse, Content, Message, Remember, Role};
use skillful_decorators::{FunctionInvocationLayer, Layer, Limits, pending_approvals};
use skillful_test_server::{Reply, TestServer};

use crate::common::{Behaviour, TestPolicy, TestTool, answer, base, repeating_model, turn};

fn approving(limits: Limits) -> FunctionInvocationLayer {
    approving_with(limits, TestPolicy::new())
}

fn approving_with(limits: Limits, policy: Arc<TestPolicy>) -> FunctionInvocationLayer {
    FunctionInvocationLayer::new()
        .limits(limits)
        .approval(policy)
}

/// The conversation after a first response, with the person's answers appended.
fn resumed(first: &ChatResponse, answers: Vec<ApprovalResponse>) -> Vec<Message> {
    let mut messages = vec![Message::user("go")];
    messages.extend(first.messages.iter().cloned());
    messages.push(answer(answers));
    messages
}

#[tokio::test]
async fn a_call_that_needs_approval_waits_and_resumes_when_approved() {
    let server = TestServer::start().await;
    server.push(Reply::tool_calls(&[
        ("c1", "echo", json!({"n": 1})),
        ("c2", "guarded", json!({"n": 2})),
    ]));
    server.push(Reply::text("all done"));
    let echo = TestTool::new("echo", Behaviour::Echo);
    let guarded = TestTool::new("guarded", Behaviour::Echo);
    let tools = [&echo, &guarded];
    let client = approving(Limits::default()).layer(base(server.url()));

    let first = turn(&client, vec![Message::user("go")], &tools).await;
    let pending = first.approval_requests();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].call.call_id, "c2");
    assert_eq!(pending[0].call.arguments, json!({"n": 2}));
    assert_eq!(
        (echo.calls(), guarded.calls()),
        (1, 0),
        "the approved call ran"
    );
    assert_eq!(server.requests().len(), 1, "the model waits for the answer");

    let messages = resumed(&first, vec![ApprovalResponse::approve("c2")]);
    assert_eq!(pending_approvals(&messages).len(), 1);
    let second = turn(&client, messages, &tools).await;
    assert_eq!(second.text(), "all done");
    assert_eq!(guarded.calls(), 1);
    let sent = &server.requests()[1];
    assert_eq!(
        sent.status, 200,
        "tool calls and results pair up on the wire"
    );
    assert_eq!(
        sent.contents("tool"),
        [
            r#"called echo with {"n":1}"#,
            r#"called guarded with {"n":2}"#
        ]
    );
}

#[tokio::test]
async fn a_rejection_goes_back_to_the_model_with_its_reason() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "guarded", json!({})));
    server.push(Reply::text("understood"));
    let guarded = TestTool::new("guarded", Behaviour::Echo);
    let client = approving(Limits::default()).layer(base(server.url()));
    let first = turn(&client, vec![Message::user("go")], &[&guarded]).await;
    let messages = resumed(
        &first,
        vec![ApprovalResponse::reject("c1", Some("too risky".into()))],
    );
    let second = turn(&client, messages, &[&guarded]).await;
    assert_eq!(second.text(), "understood");
    assert_eq!(guarded.calls(), 0);
    assert_eq!(
        server.requests()[1].contents("tool"),
        [
            "Rejected: the user did not approve this call of `guarded`, so it was not run. Reason: too risky"
        ]
    );
}

#[tokio::test]
async fn always_approving_a_tool_covers_its_later_calls() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "guarded", json!({"n": 1})));
    server.push(Reply::tool_call("c2", "guarded", json!({"n": 2})));
    server.push(Reply::text("done"));
    let guarded = TestTool::new("guarded", Behaviour::Echo);
    let client = approving(Limits::default()).layer(base(server.url()));
    let first = turn(&client, vec![Message::user("go")], &[&guarded]).await;
    let messages = resumed(
        &first,
        vec![ApprovalResponse::approve("c1").remembering(Remember::Tool)],
    );
    let second = turn(&client, messages, &[&guarded]).await;
    assert_eq!(second.text(), "done");
    assert_eq!(guarded.calls(), 2, "the second call ran without asking");
    assert!(second.approval_requests().is_empty());
}

#[tokio::test]
async fn approving_exact_arguments_covers_only_those_arguments() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "guarded", json!({"n": 1})));
    server.push(Reply::tool_call("c2", "guarded", json!({"n": 1})));
    server.push(Reply::tool_call("c3", "guarded", json!({"n": 2})));
    let guarded = TestTool::new("guarded", Behaviour::Echo);
    let policy = TestPolicy::new();
    let client = approving_with(Limits::default(), Arc::clone(&policy)).layer(base(server.url()));
    let first = turn(&client, vec![Message::user("go")], &[&guarded]).await;
    let messages = resumed(
        &first,
        vec![ApprovalResponse::approve("c1").remembering(Remember::ToolWithArguments)],
    );
    let second = turn(&client, messages, &[&guarded]).await;
    assert_eq!(guarded.calls(), 2, "c1 approved, c2 the same arguments");
    let pending = second.approval_requests();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].call.call_id, "c3");
    assert!(!policy.covers(&pending[0].call.name, &pending[0].call.arguments));
}

#[tokio::test]
async fn a_refused_call_is_never_run_and_the_model_is_told_why() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "danger", json!({"path": "/"})));
    server.push(Reply::text("I will not"));
    let danger = TestTool::new("danger", Behaviour::Echo);
    let client = approving(Limits::default()).layer(base(server.url()));
    let response = turn(&client, vec![Message::user("go")], &[&danger]).await;
    assert_eq!(response.text(), "I will not");
    assert_eq!(danger.calls(), 0);
    assert!(response.approval_requests().is_empty());
    assert_eq!(
        server.requests()[1].contents("tool"),
        ["Error: this call was refused and not run: it deletes things"]
    );
}

#[tokio::test]
async fn a_request_left_unanswered_counts_as_not_approved() {
    let server = TestServer::start().await;
    server.push(Reply::tool_calls(&[
        ("c1", "guarded", json!({"n": 1})),
        ("c2", "guarded", json!({"n": 2})),
    ]));
    server.push(Reply::text("did one"));
    let guarded = TestTool::new("guarded", Behaviour::Echo);
    let client = approving(Limits::default()).layer(base(server.url()));
    let first = turn(&client, vec![Message::user("go")], &[&guarded]).await;
    assert_eq!(first.approval_requests().len(), 2);
    let messages = resumed(&first, vec![ApprovalResponse::approve("c1")]);
    turn(&client, messages, &[&guarded]).await;
    assert_eq!(guarded.calls(), 1);
    let sent = &server.requests()[1];
    assert_eq!(sent.status, 200);
    assert_eq!(
        sent.contents("tool"),
        [
            r#"called guarded with {"n":1}"#,
            "Not run: the user did not approve this call of `guarded`."
        ]
    );
}

#[tokio::test]
async fn auto_approvals_are_capped() {
    let server = TestServer::start().await;
    server.push(Reply::tool_calls(&[
        ("c1", "echo", json!({"n": 1})),
        ("c2", "echo", json!({"n": 2})),
    ]));
    let echo = TestTool::new("echo", Behaviour::Echo);
    let mut limits = Limits::default();
    limits.max_auto_approvals = 1;
    let client = approving(limits).layer(base(server.url()));
    let response = turn(&client, vec![Message::user("go")], &[&echo]).await;
    assert_eq!(echo.calls(), 1);
    let pending = response.approval_requests();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].call.call_id, "c2");
}

#[tokio::test]
async fn identical_calls_count_across_approvals_until_the_guard_stops_them() {
    let server = TestServer::start().await;
    repeating_model(&server, "guarded");
    let guarded = TestTool::new("guarded", Behaviour::Echo);
    let client = approving(Limits::default()).layer(base(server.url()));

    // Each request answers the call before: approved, run, and the model repeats itself.
    let mut messages = vec![Message::user("go")];
    let mut response = turn(&client, messages.clone(), &[&guarded]).await;
    for _ in 0..2 {
        let pending = response.approval_requests();
        assert_eq!(pending.len(), 1, "{:?}", response.messages);
        messages.extend(response.messages.iter().cloned());
        messages.push(answer(vec![ApprovalResponse::approve(
            &pending[0].call.call_id,
        )]));
        response = turn(&client, messages.clone(), &[&guarded]).await;
    }

    assert_eq!(
        guarded.calls(),
        2,
        "the third identical call is neither asked nor run"
    );
    assert!(response.approval_requests().is_empty());
    assert!(
        server.requests()[3].contents("tool")[2].starts_with(
            "Not run: `guarded` was called with these same arguments 3 times in a row."
        ),
        "{:?}",
        server.requests()[3].contents("tool")
    );
    assert!(
        response.text().starts_with(
            "Stopped: the model kept calling `guarded` with the same arguments (4 times"
        ),
        "{}",
        response.text()
    );
    assert_eq!(server.requests().len(), 4);
}

#[tokio::test]
async fn a_resumed_call_the_policy_refuses_now_is_refused_whatever_the_answer() {
    let server = TestServer::start().await;
    server.push(Reply::text("not wiped"));
    let danger = TestTool::new("danger", Behaviour::Echo);
    let client = approving(Limits::default()).layer(base(server.url()));
    // A held-back call the policy refuses, as an edited history can carry one.
    let held = Message::new(
        Role::Assistant,
        vec![Content::ApprovalRequest(skillful_chat::ApprovalRequest {
            call: skillful_chat::FunctionCall {
                call_id: "c1".into(),
                name: "danger".into(),
                arguments: json!({}),
            },
        })],
    );
    let messages = vec![
        Message::user("go"),
        held,
        answer(vec![ApprovalResponse::approve("c1")]),
    ];
    turn(&client, messages, &[&danger]).await;
    assert_eq!(danger.calls(), 0);
    assert_eq!(
        server.requests()[0].contents("tool"),
        ["Error: this call was refused and not run: it deletes things"]
    );
}

#[tokio::test]
async fn only_the_answers_of_the_last_user_messages_resume_a_call() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "guarded", json!({})));
    server.push(Reply::text("done"));
    let guarded = TestTool::new("guarded", Behaviour::Echo);
    let client = approving(Limits::default()).layer(base(server.url()));
    let first = turn(&client, vec![Message::user("go")], &[&guarded]).await;
    // An approval written before the request it answers, and a later input answering nothing.
    let mut messages = vec![
        answer(vec![ApprovalResponse::approve("c1")]),
        Message::user("go"),
    ];
    messages.extend(first.messages.iter().cloned());
    messages.push(answer(vec![]));
    turn(&client, messages, &[&guarded]).await;
    assert_eq!(guarded.calls(), 0, "an old answer resumed the call");
}
