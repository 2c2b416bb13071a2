//! The small-model aids against a deterministic stand-in model: the answer step, activation by
//! the runtime and skills the user names.

use std::sync::Arc;

use serde_json::{Value, json};
use skillful_agent::{
    Agent, AgentError, Aids, ApprovalRules, Author, AutoApprove, RunOptions, Session,
};
use skillful_chat::ApprovalResponse;
use skillful_test_server::{Reply, TestServer};

use crate::common::{
    CountingRunner, MARATHON, client, example_provider, run_convert, tool_results,
};

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
        .approval(ApprovalRules::new(AutoApprove::All).scripts_isolated(true))
        .aids(aids)
        .build()
}

#[tokio::test]
async fn a_loop_after_a_successful_call_ends_with_the_answer_asked_for_in_a_clean_request() {
    if !skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
    {
        return;
    }
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

    // The model's first repeat of the call that succeeded is answered by the answer step at
    // once (not after the loop guard's further calls): two requests with tools, one without.
    assert_eq!(requests.len(), 3, "{requests:?}");
    assert!(
        response
            .messages
            .iter()
            .all(|message| !message.joined_text().starts_with("Stopped:"))
    );
    // The answer is marked as the answer step's, in the response and in the session (also once
    // saved).
    assert_eq!(response.authors.len(), response.messages.len());
    assert_eq!(response.authors.last(), Some(&Author::AnswerStep));
    assert_eq!(response.finish_reason.as_deref(), Some("stop"));
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
            Reply::load_skill("call", "no-such-skill")
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

/// A model that answers whatever it is asked.
fn answering_model(_request: &Value) -> Reply {
    Reply::text("Done.")
}

fn agent_over(
    server: &TestServer,
    provider: Arc<skillful_provider::SkillsProvider>,
    approve: AutoApprove,
    aids: Aids,
) -> Agent {
    Agent::builder(client(server.url()))
        .skills(provider)
        .approval(ApprovalRules::new(approve))
        .aids(aids)
        .build()
}

fn examples(server: &TestServer, approve: AutoApprove, aids: Aids) -> Agent {
    agent_over(
        server,
        example_provider(Arc::new(CountingRunner::default())),
        approve,
        aids,
    )
}

/// The tool results of the first request the model got.
fn first_tool_results(server: &TestServer) -> Vec<String> {
    server.requests()[0].contents("tool")
}

#[tokio::test]
async fn activation_loads_the_matching_skill_before_the_first_model_call() {
    let server = TestServer::start().await;
    server.respond(answering_model);
    let agent = examples(&server, AutoApprove::ReadOnly, Aids::all());
    let mut session = Session::new();

    let response = agent.run(MARATHON, &mut session).await.unwrap();

    let results = first_tool_results(&server);
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].contains("# Unit converter"), "{}", results[0]);
    let call = &response.messages[0]
        .function_calls()
        .next()
        .unwrap()
        .clone();
    assert_eq!(call.name, "load_skill");
    assert_eq!(call.arguments, json!({"skillName": "unit-converter"}));
    assert_eq!(
        response.authors,
        [Author::Activation, Author::Activation, Author::Conversation]
    );
    assert_eq!(response.text(), "Done.");
    // In the session: the question, the runtime's call and its result, the answer.
    assert_eq!(session.messages().len(), 4);
    assert_eq!(session.author(1), Author::Activation);
    assert_eq!(session.author(2), Author::Activation);
    assert_eq!(session.author(3), Author::Conversation);
}

#[tokio::test]
async fn with_activation_off_the_model_gets_the_question_alone() {
    let server = TestServer::start().await;
    server.respond(answering_model);
    let agent = examples(
        &server,
        AutoApprove::ReadOnly,
        Aids::all().activation(false),
    );
    let mut session = Session::new();

    agent.run(MARATHON, &mut session).await.unwrap();

    assert!(first_tool_results(&server).is_empty());
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn an_unrelated_request_activates_nothing() {
    let server = TestServer::start().await;
    server.respond(answering_model);
    let agent = examples(&server, AutoApprove::ReadOnly, Aids::all());
    let mut session = Session::new();

    let response = agent
        .run("What is the capital of France?", &mut session)
        .await
        .unwrap();

    assert!(first_tool_results(&server).is_empty());
    assert_eq!(response.authors, [Author::Conversation]);
}

#[tokio::test]
async fn an_activation_asks_like_the_models_call_and_a_refusal_loads_nothing() {
    let server = TestServer::start().await;
    server.respond(answering_model);
    let agent = examples(&server, AutoApprove::None, Aids::all());
    let mut session = Session::new();

    let asked = agent.run(MARATHON, &mut session).await.unwrap();

    assert_eq!(asked.pending.len(), 1);
    assert_eq!(asked.pending[0].call.name, "load_skill");
    assert_eq!(asked.authors, [Author::Activation]);
    assert!(
        server.requests().is_empty(),
        "no model call before the answer"
    );

    let id = asked.pending[0].call.call_id.clone();
    let answered = agent
        .run(
            vec![ApprovalResponse::reject(&id, Some("no".to_owned()))],
            &mut session,
        )
        .await
        .unwrap();

    assert_eq!(answered.text(), "Done.");
    let results = first_tool_results(&server);
    assert_eq!(results.len(), 1);
    assert!(results[0].starts_with("Rejected"), "{}", results[0]);
    assert!(!results[0].contains("# Unit converter"));
}

#[tokio::test]
async fn an_approved_activation_loads_the_skill_once_answered() {
    let server = TestServer::start().await;
    server.respond(answering_model);
    let agent = examples(&server, AutoApprove::None, Aids::all());
    let mut session = Session::new();

    let asked = agent.run(MARATHON, &mut session).await.unwrap();
    let id = asked.pending[0].call.call_id.clone();
    agent
        .run(vec![ApprovalResponse::approve(&id)], &mut session)
        .await
        .unwrap();

    let results = first_tool_results(&server);
    assert!(results[0].contains("# Unit converter"), "{}", results[0]);
}

/// `examples/skills`' unit converter among `others` generated skills, written as
/// `make_corpus.py` writes its benchmark library.
fn library(others: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..others {
        let skill = dir.path().join(format!("skill-{i:05}"));
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(
            skill.join("SKILL.md"),
            format!(
                "---\nname: skill-{i:05}\ndescription: \"Skill number {i}: converts, checks and \
                 reports values for domain {}.\"\n---\n## Usage\nFollow the steps in order.\n",
                i % 97
            ),
        )
        .unwrap();
    }
    let converter = dir.path().join("unit-converter");
    std::fs::create_dir_all(&converter).unwrap();
    std::fs::copy(
        crate::common::examples().join("unit-converter/SKILL.md"),
        converter.join("SKILL.md"),
    )
    .unwrap();
    dir
}

#[tokio::test]
async fn the_same_request_activates_the_same_skill_alone_and_among_a_thousand() {
    for others in [0, 999] {
        let dir = library(others);
        let source = skillful_discovery::FileSkillsSource::builder()
            .root(dir.path())
            .build()
            .unwrap();
        let provider = Arc::new(skillful_provider::SkillsProvider::new(Arc::new(source)));
        let server = TestServer::start().await;
        server.respond(answering_model);
        let agent = agent_over(&server, provider, AutoApprove::ReadOnly, Aids::all());
        let mut session = Session::new();

        let response = agent
            .run(
                "A marathon is 26.2 miles. How many km is that?",
                &mut session,
            )
            .await
            .unwrap();

        let call = response.messages[0].function_calls().next().cloned();
        assert_eq!(
            call.map(|call| call.arguments),
            Some(json!({"skillName": "unit-converter"})),
            "with {others} other skills"
        );
    }
}

#[tokio::test]
async fn a_skill_the_user_names_is_loaded_for_the_turn_even_with_activation_off() {
    let server = TestServer::start().await;
    server.respond(answering_model);
    let agent = examples(&server, AutoApprove::ReadOnly, Aids::none());
    let mut session = Session::new();

    let response = agent
        .run_with(
            "Convert this for me.",
            &mut session,
            &RunOptions::new().skill("unit-converter"),
        )
        .await
        .unwrap();

    assert_eq!(
        response.authors,
        [Author::Invocation, Author::Invocation, Author::Conversation]
    );
    assert!(first_tool_results(&server)[0].contains("# Unit converter"));
}

#[tokio::test]
async fn an_unknown_skill_name_is_an_error_naming_the_closest_before_any_model_call() {
    let server = TestServer::start().await;
    server.respond(answering_model);
    let agent = examples(&server, AutoApprove::ReadOnly, Aids::none());
    let mut session = Session::new();

    let error = agent
        .run_with(
            "Convert this for me.",
            &mut session,
            &RunOptions::new().skill("unit-convertor"),
        )
        .await
        .unwrap_err();

    match &error {
        AgentError::UnknownSkill { name, closest } => {
            assert_eq!(name, "unit-convertor");
            assert_eq!(closest, &["unit-converter"]);
        }
        other => panic!("{other:?}"),
    }
    assert!(error.to_string().contains("did you mean unit-converter?"));
    assert!(server.requests().is_empty());
    assert!(session.messages().is_empty());
}

/// The names of the tools `request` offers.
fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["function"]["name"].as_str().map(str::to_owned))
        .collect()
}

/// A model that loads the skill it was given again as long as `load_skill` is offered, then
/// runs the conversion; asked without tools, it answers from the script's result.
fn reloading_model(request: &Value) -> Reply {
    if !has_tools(request) {
        return looping_model(request);
    }
    if tool_names(request).iter().any(|name| name == "load_skill") {
        Reply::load_skill("call", "unit-converter")
    } else {
        Reply::tool_call("call", "run_skill_script", run_convert())
    }
}

#[tokio::test]
async fn loading_the_active_skill_again_shows_a_note_and_the_next_call_must_be_its_steps() {
    let server = TestServer::start().await;
    server.respond(reloading_model);
    let agent = agent(&server, Aids::new().activation(true));
    let mut session = Session::new();

    let response = agent.run(MARATHON, &mut session).await.unwrap();

    let requests = server.requests();
    // The activation's result is the body; the model's load of the same skill gets a note.
    let results = requests[1].contents("tool");
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(results[0].contains("# Unit converter"), "{}", results[0]);
    assert!(results[1].contains("already loaded"), "{}", results[1]);
    assert!(!results[1].contains("# Unit converter"));
    // Loading again is a loop: the next request offers the skill's steps only, and a call.
    assert!(tool_names(&requests[0].body).contains(&"load_skill".to_owned()));
    let names = tool_names(&requests[1].body);
    assert!(!names.contains(&"load_skill".to_owned()), "{names:?}");
    assert!(names.contains(&"run_skill_script".to_owned()), "{names:?}");
    assert_eq!(requests[1].body["tool_choice"], "required");
    assert_eq!(response.text(), "A marathon is about 42.16 km.");
    assert_eq!(response.authors.last(), Some(&Author::AnswerStep));
    // The session holds what the model was shown.
    let shown = tool_results(session.messages());
    assert!(shown[1].contains("already loaded"), "{shown:?}");
}

#[tokio::test]
async fn with_the_aid_off_a_repeated_load_gets_the_body_again() {
    let server = TestServer::start().await;
    server.respond(reloading_model);
    let agent = agent(&server, Aids::new().activation(true).repeated_loads(false));
    let mut session = Session::new();

    agent.run(MARATHON, &mut session).await.unwrap();

    let requests = server.requests();
    let results = requests[1].contents("tool");
    assert!(results[1].contains("# Unit converter"), "{}", results[1]);
    assert!(
        requests
            .iter()
            .filter(|request| has_tools(&request.body))
            .all(|request| tool_names(&request.body).contains(&"load_skill".to_owned()))
    );
}

#[tokio::test]
async fn the_answer_step_shows_a_scripts_output_alone_when_a_script_ran() {
    let server = TestServer::start().await;
    server.respond(looping_model);
    let agent = agent(&server, Aids::new().activation(true));
    let mut session = Session::new();

    agent.run(MARATHON, &mut session).await.unwrap();

    let requests = server.requests();
    let clean = requests.last().unwrap();
    let prompt = clean.body["messages"][0]["content"].as_str().unwrap();
    assert!(prompt.contains("`scripts/convert.py` printed:"), "{prompt}");
    assert!(prompt.contains("\"result\": 42.1648"), "{prompt}");
    assert!(
        !prompt.contains("# Unit converter"),
        "not the skill's body, which the activation loaded: {prompt}"
    );
}

#[tokio::test]
async fn a_request_holding_a_skills_anti_trigger_does_not_activate_it() {
    let (_dir, provider) = crate::common::distance_converter("nautical miles; knots");
    let server = TestServer::start().await;
    server.respond(answering_model);
    let agent = agent_over(&server, provider, AutoApprove::ReadOnly, Aids::all());

    let response = agent
        .run("How many kilometres are 26.2 miles?", &mut Session::new())
        .await
        .unwrap();
    assert_eq!(
        response.authors,
        [Author::Activation, Author::Activation, Author::Conversation],
        "without its anti-trigger the request activates the skill"
    );
    let response = agent
        .run(
            "How many kilometres are 26.2 Nautical  Miles?",
            &mut Session::new(),
        )
        .await
        .unwrap();
    assert_eq!(response.authors, [Author::Conversation]);
}
