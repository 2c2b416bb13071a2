//! The guided strategy against a scripted stand-in model: the schema each decision is sent
//! with, the selection's `none`, the grounding of the answer, the repair of a reply that does
//! not fit, a server without structured outputs, approvals refused mid-way, a run interrupted
//! and resumed in another agent, and the same audit records and spans as the tool loop.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use skillful_agent::{
    Agent, AgentResponse, ApprovalRules, AuditSettings, Author, AutoApprove, DecisionError, Mode,
    RunOptions, Session, Stage,
};
use skillful_audit::{AuditLog, EventKind, FileAuditSink};
use skillful_chat::ApprovalResponse;
use skillful_test_server::{Reply, TestServer};
use tracing::span;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

use skillful_discovery::FileSkillsSource;
use skillful_provider::SkillsProvider;

use crate::common::{CountingRunner, MARATHON, client, example_provider, tool_results};

/// The reply of each decision's schema name (the table's row for a lookup), else (the answer)
/// `answer`.
fn stand_in(
    select: &'static str,
    step: &'static str,
    answer: &'static str,
) -> impl Fn(&Value) -> Reply {
    move |request| match request["response_format"]["json_schema"]["name"].as_str() {
        Some("skillful_selection") => Reply::text(select),
        Some("skillful_lookup") => Reply::text(LOOKUP),
        Some("skillful_step") => Reply::text(step),
        Some("skillful_values") => Reply::text(VALUES),
        _ => Reply::text(answer),
    }
}

const SELECT: &str = r#"{"fits": "yes"}"#;
const LOOKUP: &str = r#"{"row": "miles"}"#;
const VALUES: &str = r#"{"values": ["result"]}"#;
const RUN: &str =
    r#"{"script": "scripts/convert.py", "arguments": {"value": 26.2, "factor": 1.609344}}"#;

fn guided(server: &TestServer, runner: &Arc<CountingRunner>, auto: AutoApprove) -> Agent {
    Agent::builder(client(server.url()))
        .skills(example_provider(Arc::clone(runner)))
        .approval(ApprovalRules::new(auto).scripts_isolated(true))
        .mode(Mode::Guided)
        .build()
}

/// A guided agent whose stand-in server follows the marathon's decisions and answers "A marathon
/// is 42.16 km.", every call approved.
async fn marathon_agent() -> (TestServer, Arc<CountingRunner>, Agent) {
    let server = TestServer::start().await;
    server.respond(stand_in(SELECT, RUN, "A marathon is 42.16 km."));
    let runner = Arc::new(CountingRunner::default());
    let agent = guided(&server, &runner, AutoApprove::All);
    (server, runner, agent)
}

fn python() -> bool {
    skillful_test_support::program_runs("python3", "install Python 3, e.g. apt install python3")
}

fn stages(response: &AgentResponse) -> Vec<Stage> {
    response.stages.iter().map(|record| record.stage).collect()
}

/// The schema name of each request the server got (`answer` for one without a schema).
fn decisions(server: &TestServer) -> Vec<String> {
    server
        .requests()
        .iter()
        .map(|request| {
            request.body["response_format"]["json_schema"]["name"]
                .as_str()
                .unwrap_or("answer")
                .to_owned()
        })
        .collect()
}

fn tools_of(response: &AgentResponse) -> Vec<String> {
    response
        .messages
        .iter()
        .flat_map(|message| message.function_calls())
        .map(|call| call.name.clone())
        .collect()
}

#[tokio::test]
async fn each_decision_is_sent_with_its_schema_and_the_answer_comes_from_the_script() {
    if !python() {
        return;
    }
    let (server, runner, agent) = marathon_agent().await;
    let mut session = Session::new();

    let response = agent.run(MARATHON, &mut session).await.unwrap();

    assert_eq!(response.mode, Mode::Guided);
    assert_eq!(response.text(), "A marathon is 42.16 km.");
    assert_eq!(runner.runs(), 1);
    let requests = server.requests();
    assert_eq!(
        requests.len(),
        5,
        "select, the table's lookup, one step, the values asked for, the answer"
    );
    // The turn's tokens are the five calls' (the test server reports 10 + 5 for each).
    let usage = response.usage.expect("the turn's usage");
    assert_eq!((usage.prompt_tokens, usage.completion_tokens), (50, 25));
    assert!(
        requests
            .iter()
            .all(|request| request.body.get("tools").is_none())
    );
    // The selection: whether the candidate fits, yes or no.
    let selection = &requests[0].body["response_format"]["json_schema"];
    assert_eq!(
        selection["schema"]["properties"]["fits"]["enum"],
        json!(["yes", "no"])
    );
    assert_eq!(selection["strict"], true);
    let asked = requests[0].contents("user").join("\n");
    assert!(
        asked.starts_with("Skill unit-converter: Converts values"),
        "{asked}"
    );
    assert!(asked.contains(&format!("Request: {MARATHON}")), "{asked}");
    // The lookup: of the disclosed table's ten rows, the two sharing the most words with the
    // question (miles, kilometres) as an enum, named by their first cells; no none, as rows do.
    let lookup = &requests[1].body["response_format"]["json_schema"]["schema"];
    assert_eq!(
        lookup["properties"]["row"]["enum"],
        json!(["miles", "kilometres"])
    );
    // The step: the skill's scripts as an enum, the options its body names as the arguments.
    let step = &requests[2].body["response_format"]["json_schema"]["schema"];
    assert_eq!(
        step["properties"]["script"]["enum"],
        json!(["scripts/convert.py"])
    );
    let arguments = &step["properties"]["arguments"];
    assert_eq!(arguments["required"], json!(["value", "factor"]));
    assert_eq!(arguments["additionalProperties"], false);
    // The body and the table it names are disclosed to the step, the question last.
    let shown = requests[2].contents("user").join("\n");
    assert!(shown.contains("# Unit converter"), "{shown}");
    assert!(
        shown.contains("| miles | kilometres | 1.609344 |"),
        "{shown}"
    );
    assert!(shown.trim_end().ends_with("Reply with JSON."), "{shown}");
    assert!(shown.contains(&format!("Question: {MARATHON}")));
    // The row found, each cell named by its column.
    assert!(
        shown.contains(
            "The row of the table in `references/conversion-table.md`, under \u{201c}Conversion \
             table\u{201d}, that applies to the question: from: miles; to: kilometres; factor: \
             1.609344"
        ),
        "{shown}"
    );
    // The lookup and the step share their prefix: they differ only after the question.
    let prefix = |at: usize| {
        let text = requests[at].contents("user").join("\n");
        text[..text.find("Question: ").unwrap()].to_owned()
    };
    assert_eq!(prefix(1), prefix(2));
    assert_eq!(
        requests[1].contents("system"),
        requests[2].contents("system")
    );
    // Which of the output's fields the question asks for: one constrained choice, without the
    // input the script echoes (`value`, the question's 26.2).
    let values = &requests[3].body["response_format"]["json_schema"]["schema"];
    assert_eq!(
        values["properties"]["values"]["items"]["enum"],
        json!(["factor", "result"])
    );
    // The answer is asked from the script's output and the value asked for, without tools.
    let answer = requests[4].contents("user").join("\n");
    assert!(answer.contains("\"result\": 42.1648"), "{answer}");
    assert!(
        answer.contains("The skill says: Answer with the `result`"),
        "{answer}"
    );
    assert!(
        answer.contains("The values the question asks for:\nresult = 42.1648"),
        "{answer}"
    );
    assert!(requests[4].body.get("response_format").is_none());
    assert_eq!(
        stages(&response),
        [
            Stage::Select,
            Stage::Disclose,
            Stage::Lookup,
            Stage::Decide,
            Stage::Run,
            Stage::Answer
        ]
    );
    assert_eq!(
        tools_of(&response),
        ["load_skill", "read_skill_resource", "run_skill_script"]
    );
    let authors: Vec<Author> = response.authors.clone();
    assert_eq!(
        authors,
        [
            Author::Selection,
            Author::Selection,
            Author::Disclosure,
            Author::Disclosure,
            Author::Decision,
            Author::Decision,
            Author::Answer
        ]
    );
    // The session holds the steps as the tool loop's calls, each with its author.
    assert_eq!(session.author(1), Author::Selection);
    assert_eq!(session.author(7), Author::Answer);
}

#[tokio::test]
async fn none_loads_nothing_and_a_request_no_skill_matches_asks_no_selection() {
    let server = TestServer::start().await;
    server.respond(stand_in(r#"{"fits": "no"}"#, RUN, "I answer this myself."));
    let runner = Arc::new(CountingRunner::default());
    let agent = guided(&server, &runner, AutoApprove::All);

    let chose_none = agent
        .run(
            "How many kilometres should a marathon runner train in 7 days?",
            &mut Session::new(),
        )
        .await
        .unwrap();
    assert!(tools_of(&chose_none).is_empty());
    assert_eq!(chose_none.text(), "I answer this myself.");
    assert_eq!(stages(&chose_none), [Stage::Select, Stage::Answer]);
    assert_eq!(server.requests().len(), 2, "{:?}", server.requests());

    let unrelated = agent
        .run("What is the capital of France?", &mut Session::new())
        .await
        .unwrap();
    assert!(tools_of(&unrelated).is_empty());
    assert_eq!(server.requests().len(), 3, "no selection: the answer only");
    let direct = &server.requests()[2];
    assert!(direct.body.get("response_format").is_none());
    assert_eq!(direct.contents("user"), ["What is the capital of France?"]);
    assert_eq!(runner.runs(), 0);
}

#[tokio::test]
async fn a_calculation_is_not_offered_for_a_request_that_states_no_number() {
    let server = TestServer::start().await;
    server.respond(stand_in(r#"{"fits": "no"}"#, RUN, "I answer this myself."));
    let runner = Arc::new(CountingRunner::default());
    let agent = guided(&server, &runner, AutoApprove::All);

    // The unit converter matches the request's words, but its script takes two numbers
    // (`value`, `factor`) and the request states none.
    let no_number = agent
        .run(
            "How many kilometres does a marathon runner train a week?",
            &mut Session::new(),
        )
        .await
        .unwrap();
    assert!(tools_of(&no_number).is_empty());
    assert_eq!(decisions(&server), ["answer"], "no selection asked");
    let select = &no_number.stages[0];
    assert_eq!(select.stage, Stage::Select);
    assert!(
        select
            .detail
            .starts_with("none (the request states no number"),
        "{}",
        select.detail
    );
    assert!(
        select
            .notes
            .iter()
            .any(|note| note.contains("unit-converter")),
        "{:?}",
        select.notes
    );

    // A number stated in words is a number: the model is asked.
    agent
        .run(
            "How many kilometres does a runner cover in twelve laps of a mile?",
            &mut Session::new(),
        )
        .await
        .unwrap();
    assert_eq!(
        decisions(&server),
        ["answer", "skillful_selection", "answer"]
    );
}

#[tokio::test]
async fn a_skill_without_scripts_is_answered_from_the_passage_under_the_heading_asked_about() {
    let dir = tempfile::tempdir().unwrap();
    let skill = dir.path().join("library-rules");
    std::fs::create_dir_all(skill.join("references")).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: library-rules\ndescription: Answers questions about Elm Street Library's \
         loans, late fees and lost items. Use when a member asks what a loan allows or what a \
         fee is.\n---\n# Library rules\n\nThe rules are in `references/rules.md`: answer from \
         the section that applies.\n",
    )
    .unwrap();
    std::fs::write(
        skill.join("references/rules.md"),
        "# Rules\n\n## Loans\n\n| membership | books at a time |\n|---|---|\n| child | 5 |\n| \
         adult | 10 |\n\n## Late fees\n\n- books: 20p a day\n- DVDs: £1 a day\n- anything \
         borrowed on a child's card: no fee\n",
    )
    .unwrap();
    let source = FileSkillsSource::builder()
        .root(dir.path())
        .build()
        .unwrap();
    let server = TestServer::start().await;
    server.respond(|request: &Value| {
        match request["response_format"]["json_schema"]["name"].as_str() {
            Some("skillful_selection") => Reply::text(SELECT),
            Some("skillful_passage") => {
                Reply::text(r#"{"row": "anything borrowed on a child's card: no fee"}"#)
            }
            _ => Reply::text("Nothing: a child's card pays no late fee."),
        }
    });
    let agent = Agent::builder(client(server.url()))
        .skills(Arc::new(SkillsProvider::new(Arc::new(source))))
        .approval(ApprovalRules::new(AutoApprove::All))
        .mode(Mode::Guided)
        .build();

    let response = agent
        .run(
            "My grandson's comic is late back to Elm Street Library. What is the late fee?",
            &mut Session::new(),
        )
        .await
        .unwrap();

    assert_eq!(
        decisions(&server),
        ["skillful_selection", "skillful_passage", "answer"]
    );
    assert_eq!(
        stages(&response),
        [Stage::Select, Stage::Disclose, Stage::Lookup, Stage::Answer]
    );
    let requests = server.requests();
    // The section the question names (`Late fees`) is offered, not the loans table's rows.
    assert_eq!(
        requests[1].body["response_format"]["json_schema"]["schema"]["properties"]["row"]["enum"],
        json!([
            "books: 20p a day",
            "DVDs: £1 a day",
            "anything borrowed on a child's card: no fee"
        ])
    );
    let answer = requests[2].contents("user").join("\n");
    assert!(
        answer.contains(
            "The line of `references/rules.md`, under \u{201c}Late fees\u{201d}, that applies to \
             the question: anything borrowed on a child's card: no fee"
        ),
        "{answer}"
    );
    assert_eq!(response.text(), "Nothing: a child's card pays no late fee.");
}

#[tokio::test]
async fn a_number_found_in_no_result_is_asked_again_then_the_output_is_quoted() {
    if !python() {
        return;
    }
    let server = TestServer::start().await;
    server.respond(stand_in(SELECT, RUN, "It is 43.5 km."));
    let runner = Arc::new(CountingRunner::default());
    let agent = guided(&server, &runner, AutoApprove::All);

    let response = agent.run(MARATHON, &mut Session::new()).await.unwrap();

    let requests = server.requests();
    assert_eq!(
        requests.len(),
        6,
        "select, lookup, step, values, answer, the answer asked again"
    );
    let again = requests[5].contents("user");
    assert!(again.last().unwrap().contains("43.5"), "{again:?}");
    let text = response.text();
    assert!(text.contains("script output as it is"), "{text}");
    assert!(text.contains("42.1648"), "{text}");
    let answer = response.stages.last().unwrap();
    assert_eq!(
        answer.model_calls, 3,
        "the values asked for, the answer and again"
    );
    assert!(
        answer.notes.iter().any(|note| note.contains("quoted")),
        "{:?}",
        answer.notes
    );

    // A grounded second answer is kept.
    let server = TestServer::start().await;
    server.push(Reply::text(SELECT));
    server.push(Reply::text(LOOKUP));
    server.push(Reply::text(RUN));
    server.push(Reply::text(VALUES));
    server.push(Reply::text("It is 43.5 km."));
    server.push(Reply::text("It is 42.16 km."));
    let agent = guided(&server, &runner, AutoApprove::All);
    let response = agent.run(MARATHON, &mut Session::new()).await.unwrap();
    assert_eq!(response.text(), "It is 42.16 km.");
}

#[tokio::test]
async fn a_script_that_exits_with_a_usage_error_is_offered_again_with_the_error_shown() {
    if !python() {
        return;
    }
    let server = TestServer::start().await;
    server.push(Reply::text(SELECT));
    server.push(Reply::text(LOOKUP));
    server.push(Reply::text(
        r#"{"script": "scripts/convert.py", "arguments": {"value": "26.2 miles", "factor": 1.609344}}"#,
    ));
    server.push(Reply::text(RUN));
    server.push(Reply::text(VALUES));
    server.push(Reply::text("A marathon is 42.16 km."));
    let runner = Arc::new(CountingRunner::default());
    let agent = guided(&server, &runner, AutoApprove::All);

    let response = agent.run(MARATHON, &mut Session::new()).await.unwrap();

    assert_eq!(runner.runs(), 2, "the failed call, then the corrected one");
    assert_eq!(
        decisions(&server),
        [
            "skillful_selection",
            "skillful_lookup",
            "skillful_step",
            "skillful_step",
            "skillful_values",
            "answer"
        ]
    );
    // The second step is shown the first call as failed, with the script's own error.
    let shown = server.requests()[3].contents("user").join("\n");
    assert!(shown.contains("failed:"), "{shown}");
    assert!(shown.contains("invalid float value"), "{shown}");
    // The answer is asked from the output of the call that succeeded alone.
    let answer = server.requests()[5].contents("user").join("\n");
    assert!(answer.contains("\"result\": 42.1648"), "{answer}");
    assert!(!answer.contains("invalid float value"), "{answer}");
    assert_eq!(response.text(), "A marathon is 42.16 km.");
}

#[tokio::test]
async fn arithmetic_written_for_a_value_is_worked_out_before_the_script_runs() {
    if !python() {
        return;
    }
    let server = TestServer::start().await;
    server.push(Reply::text(SELECT));
    server.push(Reply::text(LOOKUP));
    server.push(Reply::text(
        r#"{"script": "scripts/convert.py", "arguments": {"value": "20 + 6.2", "factor": 1.609344}}"#,
    ));
    server.push(Reply::text(VALUES));
    server.push(Reply::text("That is 42.16 km."));
    let runner = Arc::new(CountingRunner::default());
    let agent = guided(&server, &runner, AutoApprove::All);

    let question = "I ran 20 miles, then 6.2 miles. How many km is that?";
    let response = agent.run(question, &mut Session::new()).await.unwrap();

    assert_eq!(runner.runs(), 1);
    // The step was told it may write arithmetic, and the script ran with its value.
    let step = server.requests()[2].contents("user").join("\n");
    assert!(step.contains("write that arithmetic as a string"), "{step}");
    let answer = server.requests()[4].contents("user").join("\n");
    assert!(answer.contains("\"result\": 42.1648"), "{answer}");
    let decide = response
        .stages
        .iter()
        .find(|stage| stage.stage == Stage::Decide)
        .unwrap();
    assert!(
        decide
            .notes
            .iter()
            .any(|note| note == "worked out `value`: 20 + 6.2 = 26.2"),
        "{:?}",
        decide.notes
    );
    assert_eq!(response.text(), "That is 42.16 km.");
}

#[tokio::test]
async fn arithmetic_on_numbers_the_request_does_not_state_is_left_to_the_script() {
    if !python() {
        return;
    }
    // The step's own example of arithmetic, copied into a call: not the question's numbers.
    let server = TestServer::start().await;
    server.push(Reply::text(SELECT));
    server.push(Reply::text(LOOKUP));
    server.push(Reply::text(
        r#"{"script": "scripts/convert.py", "arguments": {"value": "165 - 120", "factor": 1.609344}}"#,
    ));
    server.push(Reply::text(RUN));
    server.push(Reply::text(VALUES));
    server.push(Reply::text("A marathon is 42.16 km."));
    let runner = Arc::new(CountingRunner::default());
    let agent = guided(&server, &runner, AutoApprove::All);

    let response = agent.run(MARATHON, &mut Session::new()).await.unwrap();

    let first = response
        .stages
        .iter()
        .find(|stage| stage.stage == Stage::Decide)
        .unwrap();
    assert!(
        first.notes.iter().any(|note| note
            == "`value`: 165 - 120 not worked out: 165, 120 in neither the question nor the skill"),
        "{:?}",
        first.notes
    );
    // The script refused the text, and the call was asked again.
    let shown = server.requests()[3].contents("user").join("\n");
    assert!(shown.contains("invalid float value"), "{shown}");
    assert_eq!(runner.runs(), 2);
    assert_eq!(response.text(), "A marathon is 42.16 km.");
}

#[tokio::test]
async fn an_answer_repeating_an_input_the_script_echoes_is_asked_for_the_value_asked_for() {
    if !python() {
        return;
    }
    // The script echoes its input (`"value": 26.2`); the question asks for `result`.
    let server = TestServer::start().await;
    server.push(Reply::text(SELECT));
    server.push(Reply::text(LOOKUP));
    server.push(Reply::text(RUN));
    server.push(Reply::text(VALUES));
    server.push(Reply::text("A marathon is 26.2."));
    server.push(Reply::text("A marathon is 42.16 km."));
    let runner = Arc::new(CountingRunner::default());
    let agent = guided(&server, &runner, AutoApprove::All);

    let response = agent.run(MARATHON, &mut Session::new()).await.unwrap();

    assert_eq!(response.text(), "A marathon is 42.16 km.");
    let again = server.requests()[5].contents("user");
    assert!(
        again.last().unwrap().contains("result = 42.1648"),
        "{again:?}"
    );
    let answer = response.stages.last().unwrap();
    assert!(
        answer
            .notes
            .iter()
            .any(|note| note.contains("gave none of the values asked for")),
        "{:?}",
        answer.notes
    );
}

#[tokio::test]
async fn inputs_the_question_states_are_not_offered_as_values_asked_for() {
    if !python() {
        return;
    }
    // Both inputs the script echoes are in the question, so `result` is the one value left and
    // no model call chooses it.
    let (server, runner, agent) = marathon_agent().await;

    let question = "A marathon is 26.2 miles and a mile is 1.609344 km. How many km is that?";
    let response = agent.run(question, &mut Session::new()).await.unwrap();

    assert_eq!(runner.runs(), 1);
    assert!(!decisions(&server).contains(&"skillful_values".to_owned()));
    let answer = server
        .requests()
        .last()
        .unwrap()
        .contents("user")
        .join("\n");
    assert!(
        answer.contains("The values the question asks for:\nresult = 42.1648\n"),
        "{answer}"
    );
    let notes = &response.stages.last().unwrap().notes;
    assert!(
        notes
            .iter()
            .any(|note| note.contains("the one value the question does not give")),
        "{notes:?}"
    );
}

#[tokio::test]
async fn a_reply_that_does_not_fit_gets_one_repair_and_then_ends_the_step_with_a_typed_error() {
    if !python() {
        return;
    }
    let server = TestServer::start().await;
    server.push(Reply::text(SELECT));
    server.push(Reply::text(LOOKUP));
    server.push(Reply::text("Sure! I will run convert.py for you."));
    server.push(Reply::text(RUN));
    server.push(Reply::text(VALUES));
    server.push(Reply::text("A marathon is 42.16 km."));
    let runner = Arc::new(CountingRunner::default());
    let agent = guided(&server, &runner, AutoApprove::All);

    let response = agent.run(MARATHON, &mut Session::new()).await.unwrap();
    assert_eq!(runner.runs(), 1);
    let repair = server.requests()[3].contents("user");
    assert!(
        repair.last().unwrap().contains("That reply is not JSON"),
        "{repair:?}"
    );
    assert!(
        repair.last().unwrap().contains("scripts/convert.py"),
        "the schema"
    );
    let decide = response
        .stages
        .iter()
        .find(|record| record.stage == Stage::Decide)
        .unwrap();
    assert_eq!(decide.model_calls, 2);
    assert!(decide.error.is_none());

    // Twice out of shape: the step ends with the error; no script runs; an answer is given.
    let server = TestServer::start().await;
    server.push(Reply::text(SELECT));
    server.push(Reply::text(LOOKUP));
    server.push(Reply::text(
        r#"{"script": "scripts/rm.py", "arguments": {}}"#,
    ));
    server.push(Reply::text(
        r#"{"script": "scripts/rm.py", "arguments": {}}"#,
    ));
    server.push(Reply::text("I could not convert it."));
    let runner = Arc::new(CountingRunner::default());
    let agent = guided(&server, &runner, AutoApprove::All);
    let response = agent.run(MARATHON, &mut Session::new()).await.unwrap();
    assert_eq!(runner.runs(), 0);
    let decide = response
        .stages
        .iter()
        .find(|record| record.stage == Stage::Decide)
        .unwrap();
    assert!(
        matches!(
            decide.error,
            Some(DecisionError::Unfit {
                decision: "step",
                ..
            })
        ),
        "{:?}",
        decide.error
    );
    assert_eq!(response.text(), "I could not convert it.");
}

#[tokio::test]
async fn a_server_without_structured_outputs_is_asked_without_them_and_its_replies_checked() {
    if !python() {
        return;
    }
    let server = TestServer::start().await;
    server.respond(|request| {
        if request.get("response_format").is_some() {
            return Reply::error(400, "'response_format' is not supported by this server");
        }
        let system = request["messages"][0]["content"]
            .as_str()
            .unwrap_or_default();
        let user = request["messages"][1]["content"]
            .as_str()
            .unwrap_or_default();
        if system.contains("whether a skill fits") {
            Reply::text(&format!("Here you go:\n```json\n{SELECT}\n```"))
        } else if user.contains("Which row of the table") {
            Reply::text(LOOKUP)
        } else if user.contains("Choose the script") {
            Reply::text(RUN)
        } else if user.contains("Which of the output's values") {
            Reply::text(VALUES)
        } else {
            Reply::text("A marathon is 42.16 km.")
        }
    });
    let runner = Arc::new(CountingRunner::default());
    let agent = guided(&server, &runner, AutoApprove::All);

    let response = agent.run(MARATHON, &mut Session::new()).await.unwrap();

    assert_eq!(response.text(), "A marathon is 42.16 km.");
    assert_eq!(runner.runs(), 1);
    let requests = server.requests();
    let constrained: Vec<bool> = requests
        .iter()
        .map(|request| request.body.get("response_format").is_some())
        .collect();
    // Refused once; resent without it, and never sent again.
    assert_eq!(constrained, [true, false, false, false, false, false]);
    assert_eq!(requests[0].status, 400);
}

#[tokio::test]
async fn a_script_the_person_refuses_is_not_run_and_the_answer_says_what_there_is() {
    let server = TestServer::start().await;
    server.respond(stand_in(SELECT, RUN, "I could not run the conversion."));
    let runner = Arc::new(CountingRunner::default());
    let agent = guided(&server, &runner, AutoApprove::ReadOnly);
    let mut session = Session::new();

    let held = agent.run(MARATHON, &mut session).await.unwrap();
    assert_eq!(held.pending.len(), 1);
    assert_eq!(held.pending[0].call.name, "run_skill_script");
    assert!(held.text().is_empty());
    let refused = agent
        .run(
            vec![ApprovalResponse::reject(
                &held.pending[0].call.call_id,
                Some("not now".to_owned()),
            )],
            &mut session,
        )
        .await
        .unwrap();
    assert_eq!(runner.runs(), 0);
    assert!(refused.pending.is_empty());
    assert_eq!(refused.text(), "I could not run the conversion.");
    // No second decision after the refusal: select, lookup, step, then the answer.
    assert_eq!(server.requests().len(), 4);
    let rejected = refused.messages[0].contents.clone();
    assert!(format!("{rejected:?}").contains("Rejected"), "{rejected:?}");
}

#[tokio::test]
async fn a_guided_run_held_for_approval_resumes_in_another_agent_from_the_saved_session() {
    if !python() {
        return;
    }
    let server = TestServer::start().await;
    server.respond(stand_in(SELECT, RUN, "A marathon is 42.16 km."));
    let runner = Arc::new(CountingRunner::default());
    let mut session = Session::new();
    let mut response = guided(&server, &runner, AutoApprove::None)
        .run(MARATHON, &mut session)
        .await
        .unwrap();
    let mut held = Vec::new();
    while !response.pending.is_empty() {
        held.push(response.pending[0].call.name.clone());
        // The process ends: the session is saved, and a new agent resumes it.
        let saved = serde_json::to_string(&session).unwrap();
        session = serde_json::from_str(&saved).unwrap();
        let answers: Vec<ApprovalResponse> = response
            .pending
            .iter()
            .map(|request| ApprovalResponse::approve(&request.call.call_id))
            .collect();
        response = guided(&server, &runner, AutoApprove::None)
            .run(answers, &mut session)
            .await
            .unwrap();
    }
    assert_eq!(
        held,
        ["load_skill", "read_skill_resource", "run_skill_script"]
    );
    assert_eq!(response.text(), "A marathon is 42.16 km.");
    assert_eq!(runner.runs(), 1);
    // Each decision once: a resumed run goes on where it stopped.
    assert_eq!(
        decisions(&server),
        [
            "skillful_selection",
            "skillful_lookup",
            "skillful_step",
            "skillful_values",
            "answer"
        ]
    );
}

#[tokio::test]
async fn a_skill_the_user_names_skips_the_selection() {
    if !python() {
        return;
    }
    let (server, runner, agent) = marathon_agent().await;
    let response = agent
        .run_with(
            "How far is a marathon in km?",
            &mut Session::new(),
            &RunOptions::new().skill("unit-converter"),
        )
        .await
        .unwrap();
    assert_eq!(response.authors[0], Author::Invocation);
    assert_eq!(
        server.requests().len(),
        4,
        "the lookup, the step, the values asked for and the answer"
    );
    assert_eq!(runner.runs(), 1);
}

/// A span's name and its recorded fields.
type Recorded = (String, BTreeMap<String, String>);

/// Every span's name with its recorded fields.
#[derive(Clone, Default)]
struct Spans(Arc<Mutex<Vec<Recorded>>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.insert(
            field.name().to_owned(),
            format!("{value:?}").trim_matches('"').to_owned(),
        );
    }
}

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> tracing_subscriber::Layer<S> for Spans {
    fn on_new_span(&self, attrs: &span::Attributes<'_>, id: &span::Id, _: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        fields.insert("#id".to_owned(), id.into_u64().to_string());
        self.0
            .lock()
            .unwrap()
            .push((attrs.metadata().name().to_owned(), fields));
    }

    fn on_record(&self, id: &span::Id, values: &span::Record<'_>, _: Context<'_, S>) {
        let mut spans = self.0.lock().unwrap();
        if let Some((_, fields)) = spans
            .iter_mut()
            .find(|(_, fields)| fields["#id"] == id.into_u64().to_string())
        {
            values.record(&mut Fields(fields));
        }
    }
}

#[tokio::test]
async fn guided_calls_have_the_tool_loops_audit_records_and_spans() {
    if !python() {
        return;
    }
    let run = |mode: Mode| async move {
        let server = TestServer::start().await;
        match mode {
            Mode::Guided => server.respond(stand_in(SELECT, RUN, "A marathon is 42.16 km.")),
            _ => {
                server.push(Reply::tool_call(
                    "c1",
                    "run_skill_script",
                    json!({"skillName": "unit-converter", "scriptName": "scripts/convert.py",
                           "arguments": {"value": 26.2, "factor": 1.609344}}),
                ));
                server.push(Reply::text("A marathon is 42.16 km."));
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let sink = Arc::new(FileAuditSink::at(dir.path()).unwrap());
        let agent = Agent::builder(client(server.url()))
            .skills(example_provider(Arc::default()))
            .approval(ApprovalRules::new(AutoApprove::All).scripts_isolated(true))
            .audit(AuditSettings::new(sink, "guided-test"))
            .mode(mode)
            .build();
        // While only one dispatcher exists, tracing-core asks a new callsite's interest of the
        // registering thread's subscriber alone: another test's thread reaching `execute_tool`
        // first, with none, would cache it as never enabled for this one too. With a second
        // dispatcher alive it asks every live one, this test's among them.
        let _second = tracing::Dispatch::new(tracing_subscriber::registry());
        let spans = Spans::default();
        let subscriber = tracing_subscriber::registry().with(spans.clone());
        let _guard = tracing::subscriber::set_default(subscriber);
        agent.run(MARATHON, &mut Session::new()).await.unwrap();
        let records = AuditLog::at(dir.path()).records().unwrap();
        let spans = spans.0.lock().unwrap().clone();
        (records, spans)
    };
    let (guided_records, guided_spans) = run(Mode::Guided).await;
    let (tools_records, tools_spans) = run(Mode::Tools).await;

    let script = |records: &[skillful_audit::AuditRecord]| {
        records
            .iter()
            .find(|record| record.event.tool.as_deref() == Some("run_skill_script"))
            .map(|record| record.event.clone())
            .unwrap()
    };
    let (guided_run, tools_run) = (script(&guided_records), script(&tools_records));
    assert_eq!(guided_run.event, EventKind::ToolCall);
    assert_eq!(guided_run.script, tools_run.script);
    assert_eq!(guided_run.script_digest, tools_run.script_digest);
    assert_eq!(guided_run.skill, tools_run.skill);
    assert_eq!(guided_run.args_digest, tools_run.args_digest);
    assert_eq!(guided_run.decided_by, tools_run.decided_by);
    assert_eq!(guided_run.exit_code, Some(0));
    assert_eq!(guided_run.actor, tools_run.actor);
    // Every guided call is recorded, and the run with its tokens.
    let tools: Vec<Option<&str>> = guided_records
        .iter()
        .map(|record| record.event.tool.as_deref())
        .collect();
    assert_eq!(
        tools,
        [
            Some("load_skill"),
            Some("read_skill_resource"),
            Some("run_skill_script"),
            None
        ]
    );
    assert_eq!(guided_records[3].event.event, EventKind::Run);

    let execute = |spans: &[Recorded]| {
        spans
            .iter()
            .find(|(name, fields)| {
                name == "execute_tool"
                    && fields.get("gen_ai.tool.name").map(String::as_str)
                        == Some("run_skill_script")
            })
            .map(|(_, fields)| fields.clone())
            .unwrap()
    };
    let (guided_span, tools_span) = (execute(&guided_spans), execute(&tools_spans));
    assert_eq!(guided_span["skillful.skill.name"], "unit-converter");
    assert_eq!(guided_span["skillful.call.actor"], "model");
    assert_eq!(guided_span["outcome"], "ok");
    for field in [
        "skillful.skill.name",
        "skillful.script",
        "skillful.risk_tier",
        "skillful.call.actor",
        "skillful.approval.by",
        "outcome",
    ] {
        assert_eq!(guided_span.get(field), tools_span.get(field), "{field}");
    }
    assert!(guided_spans.iter().any(|(name, _)| name == "invoke_agent"));
    assert!(guided_spans.iter().any(|(name, fields)| name == "chat"
        || fields.get("gen_ai.operation.name").map(String::as_str) == Some("chat")));
}

#[tokio::test]
async fn a_skill_is_not_asked_about_for_a_request_holding_its_anti_trigger() {
    let (_dir, provider) = crate::common::distance_converter("nautical miles");
    let server = TestServer::start().await;
    server.respond(stand_in(r#"{"fits": "no"}"#, RUN, "I answer this myself."));
    let agent = Agent::builder(client(server.url()))
        .skills(provider)
        .mode(Mode::Guided)
        .build();

    agent
        .run("How many kilometres are 26.2 miles?", &mut Session::new())
        .await
        .unwrap();
    assert_eq!(decisions(&server), ["skillful_selection", "answer"]);
    let response = agent
        .run(
            "How many kilometres are 3 nautical miles?",
            &mut Session::new(),
        )
        .await
        .unwrap();
    assert_eq!(
        decisions(&server),
        ["skillful_selection", "answer", "answer"],
        "no selection asked"
    );
    let select = &response.stages[0];
    assert_eq!(select.stage, Stage::Select);
    assert!(select.detail.starts_with("none"), "{}", select.detail);
    assert_eq!(
        select.notes,
        [
            "not asked about distance-converter: the request holds its anti-trigger \"nautical miles\""
        ]
    );
}

#[tokio::test]
async fn a_script_that_becomes_a_task_is_waited_for_within_the_guided_turn() {
    if !python() {
        return;
    }
    let server = TestServer::start().await;
    server.respond(stand_in(SELECT, RUN, "A marathon is 42.16 km."));
    let runner = Arc::new(CountingRunner::default());
    let source = FileSkillsSource::builder()
        .root(crate::common::examples())
        .script_runner(Arc::clone(&runner) as _)
        .build()
        .unwrap();
    // Every script call is a task at once.
    let provider = SkillsProvider::builder(Arc::new(source))
        .tasks(skillful_provider::TaskSettings::default().after(std::time::Duration::ZERO))
        .build()
        .unwrap();
    let agent = Agent::builder(client(server.url()))
        .skills(Arc::new(provider))
        .approval(ApprovalRules::new(AutoApprove::All).scripts_isolated(true))
        .mode(Mode::Guided)
        .build();
    let mut session = Session::new();
    let response = agent.run(MARATHON, &mut session).await.unwrap();
    assert_eq!(response.text(), "A marathon is 42.16 km.");
    assert_eq!(runner.runs(), 1);
    let results = tool_results(&response.messages);
    assert!(
        results.iter().any(|result| result.contains("42.1648")),
        "{results:?}"
    );
    assert!(
        !results.iter().any(|result| result.contains("\"running\"")),
        "{results:?}"
    );
    // Nothing is left for a wake-up: the guided turn had the result.
    assert!(session.tasks().is_empty());
}
