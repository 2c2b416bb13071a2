//! The ensure-user-message decorator against a strict server.

use std::num::NonZeroUsize;

use serde_json::json;
use skillful_chat::{ChatClient, ChatOptions, ChatRequest, Content, FunctionResult, Message, Role};
use skillful_decorators::{EnsureUserMessage, EnsureUserMessageLayer, Layer};
use skillful_test_server::{NO_USER_QUERY, Reply, TestServer};

fn in_conversation(messages: Vec<Message>, id: &str) -> ChatRequest {
    let mut options = ChatOptions::default();
    options.conversation_id = Some(id.to_owned());
    ChatRequest::new(messages).with_options(options)
}

/// The continuation a stateful caller sends: the new messages only, no user query.
fn continuation() -> Vec<Message> {
    vec![
        Message::system("Use the tools."),
        Message::new(
            Role::Assistant,
            vec![Content::FunctionCall(skillful_chat::FunctionCall {
                call_id: "c1".into(),
                name: "load_skill".into(),
                arguments: json!({"skillName": "unit-converter"}),
            })],
        ),
        Message::new(
            Role::Tool,
            vec![Content::FunctionResult(FunctionResult {
                call_id: "c1".into(),
                result: "the skill".into(),
                is_error: false,
            })],
        ),
    ]
}

const QUERY: &str = "A marathon is 26.2 miles. How many km?";

#[tokio::test]
async fn without_it_a_strict_server_rejects_the_follow_up() {
    let server = TestServer::start().await;
    server.push(Reply::text("first"));
    let client = crate::common::base(server.url());
    let first = vec![Message::system("Use the tools."), Message::user(QUERY)];
    client
        .get_response(in_conversation(first, "a"))
        .await
        .unwrap();
    let error = client
        .get_response(in_conversation(continuation(), "a"))
        .await
        .unwrap_err();
    assert_eq!(error.status(), Some(400));
    assert!(error.to_string().contains(NO_USER_QUERY), "{error}");
}

#[tokio::test]
async fn with_it_the_follow_up_carries_the_query_exactly_once() {
    let server = TestServer::start().await;
    server.push(Reply::text("first"));
    server.push(Reply::text("42.16 km"));
    let client = EnsureUserMessageLayer.layer(crate::common::base(server.url()));
    let first = vec![Message::system("Use the tools."), Message::user(QUERY)];
    client
        .get_response(in_conversation(first, "a"))
        .await
        .unwrap();
    let answer = client
        .get_response(in_conversation(continuation(), "a"))
        .await
        .unwrap();
    assert_eq!(answer.text(), "42.16 km");

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(request.status, 200);
        assert_eq!(request.contents("user"), [QUERY]);
    }
    let second = requests[1].messages();
    assert_eq!(second[0]["role"], "system");
    assert_eq!(
        second[1]["role"], "user",
        "inserted after the system message"
    );
    assert_eq!(second[2]["role"], "assistant");
}

#[tokio::test]
async fn conversations_are_kept_apart_and_present_queries_are_left_alone() {
    let server = TestServer::start().await;
    server.repeat(Reply::text("ok"));
    let client = EnsureUserMessageLayer.layer(crate::common::base(server.url()));
    client
        .get_response(in_conversation(vec![Message::user(QUERY)], "a"))
        .await
        .unwrap();
    let other = client
        .get_response(in_conversation(continuation(), "b"))
        .await
        .unwrap_err();
    assert_eq!(
        other.status(),
        Some(400),
        "conversation b never had a query"
    );
    client
        .get_response(in_conversation(
            vec![Message::user("Another question")],
            "a",
        ))
        .await
        .unwrap();
    let last = server.requests().pop().unwrap();
    assert_eq!(last.contents("user"), ["Another question"]);
}

#[tokio::test]
async fn a_request_without_a_conversation_id_never_gets_another_conversations_query() {
    let server = TestServer::start().await;
    server.repeat(Reply::text("ok"));
    let client = EnsureUserMessageLayer.layer(crate::common::base(server.url()));
    client
        .get_response(ChatRequest::new(vec![Message::user(
            "Alice's private question",
        )]))
        .await
        .unwrap();
    // Another caller, without an id, whose request holds no query of its own.
    let error = client
        .get_response(ChatRequest::new(continuation()))
        .await
        .unwrap_err();
    assert_eq!(error.status(), Some(400), "{error}");
    let last = server.requests().pop().unwrap();
    assert!(
        last.contents("user").is_empty(),
        "the request carried {:?}",
        last.contents("user")
    );
}

#[tokio::test]
async fn only_the_most_recently_used_conversations_are_remembered() {
    let server = TestServer::start().await;
    server.repeat(Reply::text("ok"));
    let client = EnsureUserMessage::with_capacity(
        crate::common::base(server.url()),
        NonZeroUsize::new(2).unwrap(),
    );
    let ask = |id: &'static str| {
        let request = in_conversation(vec![Message::user(format!("question {id}"))], id);
        client.get_response(request)
    };
    let follow_up = |id: &'static str| client.get_response(in_conversation(continuation(), id));
    ask("a").await.unwrap();
    ask("b").await.unwrap();
    follow_up("a").await.unwrap();
    ask("c").await.unwrap();

    let forgotten = follow_up("b").await.unwrap_err();
    assert_eq!(
        forgotten.status(),
        Some(400),
        "b was the least recently used"
    );
    follow_up("a").await.unwrap();
    follow_up("c").await.unwrap();
    let users: Vec<Vec<String>> = server
        .requests()
        .iter()
        .map(|request| request.contents("user"))
        .collect();
    assert_eq!(
        users,
        [
            vec!["question a"],
            vec!["question b"],
            vec!["question a"],
            vec!["question c"],
            vec![],
            vec!["question a"],
            vec!["question c"],
        ]
    );
}
