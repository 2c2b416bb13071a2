//! Tool calls written as text, against a strict server that only understands structured calls.

use std::sync::Arc;

use serde_json::{Value, json};
use skillful_chat::{ApprovalResponse, ChatClient, Content, Message, Role};
use skillful_decorators::{FunctionInvocationLayer, Layer};
use skillful_test_server::{Reply, TestServer};

use crate::common::{Behaviour, TestPolicy, TestTool, base, request};

fn load_skill() -> Arc<TestTool> {
    TestTool::with_schema(
        "load_skill",
        Behaviour::Echo,
        json!({
            "type": "object",
            "properties": {"skillName": {"type": "string"}},
            "required": ["skillName"]
        }),
    )
}

/// The assistant message the server received in its second request, and the tool messages.
fn sent_back(server: &TestServer) -> (Value, Vec<String>) {
    let second = &server.requests()[1];
    assert_eq!(second.status, 200, "the history is valid on the wire");
    let assistant = second
        .messages()
        .iter()
        .find(|message| message["role"] == "assistant")
        .cloned()
        .unwrap();
    (assistant, second.contents("tool"))
}

#[tokio::test]
async fn a_fenced_json_call_runs_and_the_text_around_it_stays() {
    let server = TestServer::start().await;
    server.push(Reply::text(
        "I will load the skill first.\n```json\n{\"name\": \"load_skill\", \"arguments\": {\"skillName\": \"unit-converter\"}}\n```",
    ));
    server.push(Reply::text("42.16 km"));
    let load = load_skill();
    let client = FunctionInvocationLayer::new().layer(base(server.url()));
    let response = client
        .get_response(request(vec![Message::user("marathon?")], &[&load]))
        .await
        .unwrap();

    assert_eq!(response.text(), "42.16 km");
    assert_eq!(load.calls(), 1);
    let roles: Vec<Role> = response.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::Assistant, Role::Tool, Role::Assistant]);
    let first = &response.messages[0];
    assert_eq!(first.joined_text(), "I will load the skill first.");
    let call = first.function_calls().next().unwrap();
    assert!(!call.call_id.is_empty());
    assert_eq!(call.arguments, json!({"skillName": "unit-converter"}));

    let (assistant, results) = sent_back(&server);
    assert_eq!(assistant["content"], "I will load the skill first.");
    assert_eq!(assistant["tool_calls"][0]["id"], call.call_id.as_str());
    assert_eq!(
        assistant["tool_calls"][0]["function"],
        json!({"name": "load_skill", "arguments": "{\"skillName\":\"unit-converter\"}"})
    );
    assert_eq!(
        results,
        [r#"called load_skill with {"skillName":"unit-converter"}"#]
    );
}

#[tokio::test]
async fn bare_json_with_parameters_runs() {
    let server = TestServer::start().await;
    server.push(Reply::text(
        "{\n  \"name\": \"load_skill\",\n  \"parameters\": {\"skillName\": \"unit-converter\"}\n}",
    ));
    server.push(Reply::text("done"));
    let load = load_skill();
    let client = FunctionInvocationLayer::new().layer(base(server.url()));
    let response = client
        .get_response(request(vec![Message::user("go")], &[&load]))
        .await
        .unwrap();
    assert_eq!(response.text(), "done");
    assert_eq!(load.calls(), 1);
    let (assistant, _) = sent_back(&server);
    assert_eq!(assistant["content"], "", "no text was left around the call");
}

#[tokio::test]
async fn a_list_of_calls_runs_every_call() {
    let server = TestServer::start().await;
    server.push(Reply::text(
        "```json\n[{\"name\": \"load_skill\", \"arguments\": {\"skillName\": \"a\"}},\n {\"name\": \"load_skill\", \"arguments\": {\"skillName\": \"b\"}}]\n```",
    ));
    server.push(Reply::text("done"));
    let load = load_skill();
    let client = FunctionInvocationLayer::new().layer(base(server.url()));
    client
        .get_response(request(vec![Message::user("go")], &[&load]))
        .await
        .unwrap();
    assert_eq!(load.calls(), 2);
    let (assistant, results) = sent_back(&server);
    let ids: Vec<&Value> = assistant["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| &call["id"])
        .collect();
    assert_eq!(ids.len(), 2);
    assert_ne!(ids[0], ids[1]);
    assert_eq!(
        results,
        [
            r#"called load_skill with {"skillName":"a"}"#,
            r#"called load_skill with {"skillName":"b"}"#
        ]
    );
}

#[tokio::test]
async fn hermes_tool_call_tags_run_in_order() {
    let server = TestServer::start().await;
    server.push(Reply::text(
        "Two things to do.\n<tool_call>\n{\"name\": \"load_skill\", \"arguments\": {\"skillName\": \"a\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"echo\", \"arguments\": {\"n\": 1}}\n</tool_call>",
    ));
    server.push(Reply::text("done"));
    let load = load_skill();
    let echo = TestTool::new("echo", Behaviour::Echo);
    let client = FunctionInvocationLayer::new().layer(base(server.url()));
    let response = client
        .get_response(request(vec![Message::user("go")], &[&load, &echo]))
        .await
        .unwrap();
    assert_eq!(response.messages[0].joined_text(), "Two things to do.");
    let (assistant, results) = sent_back(&server);
    assert_eq!(assistant["tool_calls"].as_array().unwrap().len(), 2);
    assert_eq!(
        results,
        [
            r#"called load_skill with {"skillName":"a"}"#,
            r#"called echo with {"n":1}"#
        ]
    );
}

#[tokio::test]
async fn json_that_is_no_call_to_an_offered_tool_is_the_answer() {
    let texts = [
        // A tool that was not offered.
        "```json\n{\"name\": \"delete_files\", \"arguments\": {\"path\": \"/\"}}\n```",
        // No name.
        "{\"arguments\": {\"skillName\": \"a\"}}",
        // An example inside prose, for another tool.
        "You could call a weather tool, e.g.\n```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```\nbut I have none.",
        // An offered tool, inline in a sentence.
        "Its call looks like {\"name\": \"load_skill\", \"arguments\": {\"skillName\": \"a\"}} in JSON.",
        // Arguments that do not fit the schema.
        "{\"name\": \"load_skill\", \"arguments\": {\"skill\": \"a\"}}",
    ];
    for text in texts {
        let server = TestServer::start().await;
        server.push(Reply::text(text));
        let load = load_skill();
        let client = FunctionInvocationLayer::new().layer(base(server.url()));
        let response = client
            .get_response(request(vec![Message::user("go")], &[&load]))
            .await
            .unwrap();
        assert_eq!(response.text(), text);
        assert_eq!(response.messages.len(), 1);
        assert_eq!(load.calls(), 0, "{text}");
        assert_eq!(server.requests().len(), 1, "{text}");
    }
}

#[tokio::test]
async fn turned_off_text_stays_text() {
    let server = TestServer::start().await;
    let text = "{\"name\": \"load_skill\", \"arguments\": {\"skillName\": \"a\"}}";
    server.push(Reply::text(text));
    let load = load_skill();
    let client = FunctionInvocationLayer::new()
        .text_tool_calls(false)
        .layer(base(server.url()));
    let response = client
        .get_response(request(vec![Message::user("go")], &[&load]))
        .await
        .unwrap();
    assert_eq!(response.text(), text);
    assert_eq!(load.calls(), 0);
}

#[tokio::test]
async fn a_recovered_call_asks_for_approval_and_resumes_like_any_other() {
    let server = TestServer::start().await;
    server.push(Reply::text(
        "<tool_call>{\"name\": \"guarded\", \"arguments\": {\"n\": 1}}</tool_call>",
    ));
    server.push(Reply::text("ran it"));
    let guarded = TestTool::new("guarded", Behaviour::Echo);
    let client = FunctionInvocationLayer::new()
        .approval(TestPolicy::new())
        .layer(base(server.url()));
    let first = client
        .get_response(request(vec![Message::user("go")], &[&guarded]))
        .await
        .unwrap();
    let pending = first.approval_requests();
    assert_eq!(pending.len(), 1);
    assert_eq!(guarded.calls(), 0);

    let mut messages = vec![Message::user("go")];
    messages.extend(first.messages.iter().cloned());
    messages.push(Message::new(
        Role::User,
        vec![Content::ApprovalResponse(ApprovalResponse::approve(
            &pending[0].call.call_id,
        ))],
    ));
    let second = client
        .get_response(request(messages, &[&guarded]))
        .await
        .unwrap();
    assert_eq!(second.text(), "ran it");
    assert_eq!(guarded.calls(), 1);
    let (_, results) = sent_back(&server);
    assert_eq!(results, [r#"called guarded with {"n":1}"#]);
}

#[tokio::test]
async fn a_model_repeating_a_text_call_meets_the_loop_guard() {
    let server = TestServer::start().await;
    server.repeat(Reply::text(
        "```json\n{\"name\": \"load_skill\", \"arguments\": {\"skillName\": \"unit-converter\"}}\n```",
    ));
    let load = load_skill();
    let client = FunctionInvocationLayer::new().layer(base(server.url()));
    let response = client
        .get_response(request(vec![Message::user("go")], &[&load]))
        .await
        .unwrap();
    assert_eq!(load.calls(), 2, "the third identical call is not run");
    assert!(
        response
            .text()
            .starts_with("Stopped: the model kept calling `load_skill` with the same arguments"),
        "{}",
        response.text()
    );
    assert!(
        server
            .requests()
            .iter()
            .all(|request| request.status == 200),
        "every request was valid on the wire"
    );
}

fn claiming_load_skill() -> Arc<TestTool> {
    TestTool::claiming(
        "load_skill",
        Behaviour::Echo,
        json!({
            "type": "object",
            "properties": {"skillName": {"type": "string"}},
            "required": ["skillName"]
        }),
        &["unit-converter"],
    )
}

#[tokio::test]
async fn a_skill_called_as_a_tool_runs_as_the_tool_that_claims_it() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call(
        "c1",
        "unit-converter",
        json!({"miles": 26.2}),
    ));
    server.push(Reply::text("42.16 km"));
    let load = claiming_load_skill();
    let client = FunctionInvocationLayer::new().layer(base(server.url()));
    let response = client
        .get_response(request(vec![Message::user("marathon?")], &[&load]))
        .await
        .unwrap();

    assert_eq!(response.text(), "42.16 km");
    assert_eq!(load.calls(), 1);
    let call = response.messages[0].function_calls().next().unwrap();
    assert_eq!(call.name, "load_skill");
    assert_eq!(call.arguments, json!({"skillName": "unit-converter"}));
    let (assistant, results) = sent_back(&server);
    assert_eq!(
        assistant["tool_calls"][0]["function"],
        json!({"name": "load_skill", "arguments": "{\"skillName\":\"unit-converter\"}"})
    );
    assert_eq!(
        results,
        [r#"called load_skill with {"skillName":"unit-converter"}"#]
    );
}

#[tokio::test]
async fn a_skill_called_as_a_tool_in_text_runs_whatever_its_arguments() {
    // What Qwen2.5-Coder-0.5B wrote in the README's marathon runs.
    let server = TestServer::start().await;
    server.push(Reply::text(
        "  {\"name\": \"unit-converter\", \"arguments\": {\"skillName\": \"unit-converter\", \"offset\": 26.2, \"limit\": 65536}}",
    ));
    server.push(Reply::text("42.16 km"));
    let load = claiming_load_skill();
    let client = FunctionInvocationLayer::new().layer(base(server.url()));
    let response = client
        .get_response(request(vec![Message::user("marathon?")], &[&load]))
        .await
        .unwrap();

    assert_eq!(response.text(), "42.16 km");
    assert_eq!(load.calls(), 1);
    let (_, results) = sent_back(&server);
    assert_eq!(
        results,
        [r#"called load_skill with {"skillName":"unit-converter"}"#]
    );
}

#[tokio::test]
async fn a_name_no_tool_claims_stays_an_unknown_tool_or_plain_text() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "weather", json!({})));
    server.push(Reply::text("{\"name\": \"weather\", \"arguments\": {}}"));
    let load = claiming_load_skill();
    let client = FunctionInvocationLayer::new().layer(base(server.url()));
    let response = client
        .get_response(request(vec![Message::user("rain?")], &[&load]))
        .await
        .unwrap();

    assert_eq!(load.calls(), 0);
    let (_, results) = sent_back(&server);
    assert_eq!(
        results,
        ["Error: there is no tool named 'weather'. Available tools: load_skill."]
    );
    assert_eq!(
        response.text(),
        "{\"name\": \"weather\", \"arguments\": {}}"
    );
}

#[tokio::test]
async fn a_misnamed_call_gets_no_way_around_the_approval_policy() {
    // The policy asks before `load_skill` runs; calling the skill's name instead must ask too,
    // about the call that would run, and run nothing until it is answered.
    let server = TestServer::start().await;
    server.push(Reply::tool_call(
        "c1",
        "unit-converter",
        json!({"rm": "-rf /"}),
    ));
    let load = claiming_load_skill();
    let client = FunctionInvocationLayer::new()
        .approval(TestPolicy::new())
        .layer(base(server.url()));
    let response = client
        .get_response(request(vec![Message::user("go")], &[&load]))
        .await
        .unwrap();

    assert_eq!(load.calls(), 0);
    let pending = response.approval_requests();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].call.name, "load_skill");
    assert_eq!(
        pending[0].call.arguments,
        json!({"skillName": "unit-converter"})
    );
}
