//! The per-call aids of the agent (tool calls written as text, misnamed calls) over the example
//! skills, against a strict server that only understands structured calls.

use std::sync::Arc;

use serde_json::{Value, json};
use skillful_agent::{Agent, AgentResponse, Aids, ApprovalRules, AutoApprove, Input, Session};
use skillful_chat::ApprovalResponse;
use skillful_test_server::{Reply, TestServer};

use crate::common::{CountingRunner, client, example_provider};

/// What the skill's body says, so a tool result holding it is the skill loaded.
const BODY: &str = "Use this skill to convert a value from one unit to another.";

/// An agent over the example skills: read-only calls approved, scripts asked for.
fn agent(server: &TestServer, aids: Aids, auto: AutoApprove) -> Agent {
    Agent::builder(client(server.url()))
        .skills(example_provider(Arc::new(CountingRunner::default())))
        .approval(ApprovalRules::new(auto))
        .aids(aids)
        .build()
}

async fn ask(server: &TestServer, aids: Aids, prompt: &str) -> AgentResponse {
    agent(server, aids, AutoApprove::ReadOnly)
        .run(prompt, &mut Session::new())
        .await
        .unwrap()
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

const LOAD_IN_JSON: &str =
    "{\"name\": \"load_skill\", \"arguments\": {\"skillName\": \"unit-converter\"}}";

#[tokio::test]
async fn a_fenced_json_call_runs_and_the_text_around_it_stays() {
    let server = TestServer::start().await;
    server.push(Reply::text(&format!(
        "I will load the skill first.\n```json\n{LOAD_IN_JSON}\n```"
    )));
    server.push(Reply::text("42.16 km"));
    let response = ask(&server, Aids::new(), "marathon?").await;

    assert_eq!(response.text(), "42.16 km");
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
    assert_eq!(results.len(), 1);
    assert!(results[0].contains(BODY), "{results:?}");
}

#[tokio::test]
async fn bare_json_with_parameters_runs() {
    let server = TestServer::start().await;
    server.push(Reply::text(
        "{\n  \"name\": \"load_skill\",\n  \"parameters\": {\"skillName\": \"unit-converter\"}\n}",
    ));
    server.push(Reply::text("done"));
    let response = ask(&server, Aids::new(), "go").await;
    assert_eq!(response.text(), "done");
    let (assistant, results) = sent_back(&server);
    assert_eq!(assistant["content"], "", "no text was left around the call");
    assert!(results[0].contains(BODY), "{results:?}");
}

#[tokio::test]
async fn a_list_of_calls_and_hermes_tags_run_every_call_in_order() {
    let replies = [
        "```json\n[{\"name\": \"load_skill\", \"arguments\": {\"skillName\": \"unit-converter\"}},\n {\"name\": \"read_skill_resource\", \"arguments\": {\"skillName\": \"unit-converter\", \"resourceName\": \"references/conversion-table.md\"}}]\n```",
        "Two things to do.\n<tool_call>\n{\"name\": \"load_skill\", \"arguments\": {\"skillName\": \"unit-converter\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"read_skill_resource\", \"arguments\": {\"skillName\": \"unit-converter\", \"resourceName\": \"references/conversion-table.md\"}}\n</tool_call>",
    ];
    for reply in replies {
        let server = TestServer::start().await;
        server.push(Reply::text(reply));
        server.push(Reply::text("done"));
        ask(&server, Aids::new(), "go").await;
        let (assistant, results) = sent_back(&server);
        let ids: Vec<&Value> = assistant["tool_calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|call| &call["id"])
            .collect();
        assert_eq!(ids.len(), 2);
        assert_ne!(ids[0], ids[1]);
        assert!(results[0].contains(BODY), "{results:?}");
        assert!(results[1].contains("1.609344"), "the table: {results:?}");
    }
}

#[tokio::test]
async fn json_that_is_no_call_to_an_offered_tool_is_the_answer() {
    let texts = [
        // A tool that was not offered.
        "```json\n{\"name\": \"delete_files\", \"arguments\": {\"path\": \"/\"}}\n```",
        // No name.
        "{\"arguments\": {\"skillName\": \"unit-converter\"}}",
        // An example inside prose, for another tool.
        "You could call a weather tool, e.g.\n```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```\nbut I have none.",
        // An offered tool, inline in a sentence.
        "Its call looks like {\"name\": \"load_skill\", \"arguments\": {\"skillName\": \"a\"}} in JSON.",
        // Arguments that do not fit the schema.
        "{\"name\": \"load_skill\", \"arguments\": {\"skill\": \"unit-converter\"}}",
    ];
    for text in texts {
        let server = TestServer::start().await;
        server.push(Reply::text(text));
        let response = ask(&server, Aids::new(), "go").await;
        assert_eq!(response.text(), text);
        assert_eq!(response.messages.len(), 1);
        assert_eq!(server.requests().len(), 1, "{text}");
    }
}

#[tokio::test]
async fn turned_off_text_stays_text() {
    let server = TestServer::start().await;
    server.push(Reply::text(LOAD_IN_JSON));
    let response = ask(&server, Aids::new().text_tool_calls(false), "go").await;
    assert_eq!(response.text(), LOAD_IN_JSON);
    assert_eq!(server.requests().len(), 1, "nothing ran");
}

#[tokio::test]
async fn a_recovered_call_asks_for_approval_and_resumes_like_any_other() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
    let server = TestServer::start().await;
    server.push(Reply::text(
        "<tool_call>{\"name\": \"run_skill_script\", \"arguments\": {\"skillName\": \"unit-converter\", \"scriptName\": \"scripts/convert.py\", \"arguments\": {\"value\": 2, \"factor\": 3}}}</tool_call>",
    ));
    server.push(Reply::text("ran it"));
    let runner = Arc::new(CountingRunner::default());
    let agent = Agent::builder(client(server.url()))
        .skills(example_provider(Arc::clone(&runner)))
        .approval(ApprovalRules::new(AutoApprove::ReadOnly))
        .build();
    let mut session = Session::new();
    let first = agent.run("go", &mut session).await.unwrap();
    assert_eq!(first.pending.len(), 1);
    assert_eq!(runner.runs(), 0);

    let answer = ApprovalResponse::approve(&first.pending[0].call.call_id);
    let second = agent
        .run(Input::Approvals(vec![answer]), &mut session)
        .await
        .unwrap();
    assert_eq!(second.text(), "ran it");
    assert_eq!(runner.runs(), 1);
    let (_, results) = sent_back(&server);
    assert!(results[0].contains("\"result\": 6"), "{results:?}");
}

#[tokio::test]
async fn a_model_repeating_a_text_call_meets_the_loop_guard() {
    let server = TestServer::start().await;
    server.repeat(Reply::text(&format!("```json\n{LOAD_IN_JSON}\n```")));
    let response = ask(&server, Aids::new().answer_step(false), "go").await;
    let ran = response
        .messages
        .iter()
        .flat_map(|message| &message.contents)
        .filter(|content| {
            matches!(content, skillful_chat::Content::FunctionResult(result) if !result.is_error)
        })
        .count();
    assert_eq!(ran, 2, "the third identical call is not run");
    // The stop itself (its wording, the history it leaves) is the decorators' to test.
    let stopped = response.text();
    assert!(stopped.contains("kept calling `load_skill`"), "{stopped}");
    assert!(server.all_answered(), "every request was valid on the wire");
}

#[tokio::test]
async fn a_skill_called_as_a_tool_runs_as_load_skill() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call(
        "c1",
        "Unit-Converter",
        json!({"miles": 26.2}),
    ));
    server.push(Reply::text("42.16 km"));
    let response = ask(&server, Aids::new(), "marathon?").await;

    assert_eq!(response.text(), "42.16 km");
    let call = response.messages[0].function_calls().next().unwrap();
    assert_eq!(call.name, "load_skill");
    assert_eq!(call.arguments, json!({"skillName": "unit-converter"}));
    let (assistant, results) = sent_back(&server);
    assert_eq!(
        assistant["tool_calls"][0]["function"],
        json!({"name": "load_skill", "arguments": "{\"skillName\":\"unit-converter\"}"})
    );
    assert!(results[0].contains(BODY), "{results:?}");
}

#[tokio::test]
async fn a_skill_called_as_a_tool_in_text_runs_whatever_its_arguments() {
    // What Qwen2.5-Coder-0.5B wrote in the README's marathon runs.
    let server = TestServer::start().await;
    server.push(Reply::text(
        "  {\"name\": \"unit-converter\", \"arguments\": {\"skillName\": \"unit-converter\", \"offset\": 26.2, \"limit\": 65536}}",
    ));
    server.push(Reply::text("42.16 km"));
    let response = ask(&server, Aids::new(), "marathon?").await;

    assert_eq!(response.text(), "42.16 km");
    let (_, results) = sent_back(&server);
    assert!(results[0].contains(BODY), "{results:?}");
}

#[tokio::test]
async fn with_the_correction_off_a_skill_called_as_a_tool_is_an_unknown_tool() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "unit-converter", json!({})));
    server.push(Reply::text(
        "{\"name\": \"unit-converter\", \"arguments\": {}}",
    ));
    let response = ask(&server, Aids::new().misnamed_calls(false), "go").await;

    let (_, results) = sent_back(&server);
    assert!(
        results[0].starts_with("Error: there is no tool named 'unit-converter'."),
        "{results:?}"
    );
    assert_eq!(
        response.text(),
        "{\"name\": \"unit-converter\", \"arguments\": {}}",
        "a name nothing claims stays text"
    );
}

#[tokio::test]
async fn a_name_no_skill_has_stays_an_unknown_tool_or_plain_text() {
    let server = TestServer::start().await;
    server.push(Reply::tool_call("c1", "weather", json!({})));
    server.push(Reply::text("{\"name\": \"weather\", \"arguments\": {}}"));
    let response = ask(&server, Aids::new(), "rain?").await;

    let (_, results) = sent_back(&server);
    assert!(
        results[0].starts_with("Error: there is no tool named 'weather'. Available tools:"),
        "{results:?}"
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
    let response = agent(&server, Aids::new(), AutoApprove::None)
        .run("go", &mut Session::new())
        .await
        .unwrap();

    assert_eq!(response.pending.len(), 1);
    assert_eq!(response.pending[0].call.name, "load_skill");
    assert_eq!(
        response.pending[0].call.arguments,
        json!({"skillName": "unit-converter"})
    );
    assert_eq!(server.requests().len(), 1, "nothing ran");
}
