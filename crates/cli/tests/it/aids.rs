//! The small-model aids on the command line, against a strict server on 127.0.0.1 (a loopback
//! server: activation is on by default): activation, `--skill NAME`, `/NAME` in chat, the
//! answer step.

use crate::common;
use serde_json::json;
use skillful_test_server::{Reply, TestServer};

use crate::common::{EXAMPLES, skills, text};

const MARATHON: &str = "A marathon is 26.2 miles. How many km is that?";

fn run_args(server: &TestServer, extra: &[&str]) -> Vec<String> {
    common::run_args(EXAMPLES, server.url(), extra)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_loopback_server_gets_the_matching_skill_activated_and_off_turns_it_off() {
    let server = TestServer::start().await;
    server.respond(|_| Reply::text("About 42.16 km."));
    let output = skills(run_args(&server, &[MARATHON, "--approve", "read-only"]), "").await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    let lines = common::transcript(&stdout);
    assert_eq!(
        lines[0], ">> activated unit-converter: it matches the request",
        "{stdout}"
    );
    assert!(lines[1].starts_with("<< tool result: --- name: unit-converter"));
    assert_eq!(lines[2], "  About 42.16 km.");
    assert!(server.requests()[0].contents("tool")[0].contains("# Unit converter"));

    let server = TestServer::start().await;
    server.respond(|_| Reply::text("About 42.16 km."));
    let output = skills(
        run_args(
            &server,
            &[MARATHON, "--approve", "read-only", "--activate", "off"],
        ),
        "",
    )
    .await;
    assert_eq!(
        text(&output.stdout),
        ">> mode: tools (--mode)\n  About 42.16 km.\n"
    );
    assert!(server.requests()[0].contents("tool").is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_skill_named_with_skill_is_loaded_and_an_unknown_name_is_a_usage_error() {
    let server = TestServer::start().await;
    server.respond(|_| Reply::text("Done."));
    let args = run_args(
        &server,
        &[
            "Convert it.",
            "--skill",
            "unit-converter",
            "--approve",
            "read-only",
            "--activate",
            "off",
        ],
    );
    let output = skills(args, "").await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert_eq!(
        common::transcript(&stdout)[0],
        ">> activated unit-converter: you asked for it",
        "{stdout}"
    );

    let server = TestServer::start().await;
    let args = run_args(&server, &["Convert it.", "--skill", "unit-convertor"]);
    let output = skills(args, "").await;
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("no skill `unit-convertor` is offered; did you mean unit-converter?"),
        "{stderr}"
    );
    assert!(server.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chat_line_starting_with_a_skill_name_loads_it_for_the_turn() {
    let server = TestServer::start().await;
    server.respond(|_| Reply::text("Done."));
    let mut args = run_args(&server, &["--approve", "read-only", "--activate", "off"]);
    args[0] = "chat".to_owned();
    let output = skills(
        args,
        "/unit-convertor 3 feet\n/unit-converter 3 feet in cm\nexit\n",
    )
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("did you mean unit-converter?"),
        "{}",
        text(&output.stderr)
    );
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains(">> activated unit-converter: you asked for it\n"),
        "{stdout}"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].contents("user"), ["3 feet in cm"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_looping_model_gets_the_answer_step_in_the_transcript() {
    let server = TestServer::start().await;
    server.respond(|request| {
        if request["tools"]
            .as_array()
            .is_some_and(|tools| !tools.is_empty())
        {
            Reply::load_skill("c", "unit-converter")
        } else {
            Reply::text("About 42.16 km.")
        }
    });
    let args = run_args(
        &server,
        &[MARATHON, "--approve", "read-only", "--activate", "off"],
    );
    let output = skills(args, "").await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    let lines = common::transcript(&stdout);
    let n = lines.len();
    assert!(lines[n - 3].starts_with("  Stopped:"), "{stdout}");
    assert_eq!(
        lines[n - 2],
        ">> answer step: the model was asked again, with the results and no tools"
    );
    assert_eq!(lines[n - 1], "  About 42.16 km.");
}

#[tokio::test(flavor = "multi_thread")]
async fn run_json_prints_one_object_with_every_step() {
    if !common::python_runs() {
        return;
    }
    let server = TestServer::start().await;
    server.respond(|request| {
        let ran = request["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|message| {
                message["content"]
                    .as_str()
                    .is_some_and(|c| c.contains("42.1648"))
            });
        if ran {
            Reply::text("About 42.16 km.")
        } else {
            Reply::tool_call(
                "c",
                "run_skill_script",
                json!({"skillName": "unit-converter", "scriptName": "scripts/convert.py",
                       "arguments": {"value": 26.2, "factor": 1.609344}}),
            )
        }
    });
    let args = run_args(&server, &[MARATHON, "--approve", "read-only", "--json"]);
    let output = skills(args, "y\n").await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    // One JSON object, nothing else.
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let mut keys: Vec<&str> = report
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "answer",
            "answer_by",
            "duration_ms",
            "mode",
            "pending",
            "stages",
            "steps",
            "usage",
            "version"
        ]
    );
    assert_eq!(report["version"], 1);
    assert_eq!(report["mode"], "tools");
    assert_eq!(
        report["stages"][report["stages"].as_array().unwrap().len() - 1]["stage"],
        "tool_loop"
    );
    assert_eq!(report["answer"], "About 42.16 km.");
    assert_eq!(report["answer_by"], "model");
    assert_eq!(report["pending"], 0);
    assert!(report["duration_ms"].is_u64());
    assert!(report["usage"]["prompt_tokens"].is_u64());
    assert!(report["usage"]["completion_tokens"].is_u64());
    let steps = report["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{steps:?}");
    assert_eq!(steps[0]["tool"], "load_skill");
    assert_eq!(
        steps[0]["arguments"],
        json!({"skillName": "unit-converter"})
    );
    assert_eq!(steps[0]["by"], "activation");
    assert_eq!(steps[0]["approval"], "auto");
    assert_eq!(steps[0]["is_error"], false);
    assert!(
        steps[0]["result"]
            .as_str()
            .unwrap()
            .contains("# Unit converter")
    );
    assert_eq!(steps[1]["tool"], "run_skill_script");
    assert_eq!(steps[1]["by"], "model");
    assert_eq!(steps[1]["approval"], "user");
    assert!(steps[1]["result"].as_str().unwrap().contains("42.1648"));
    // The question went to stderr.
    assert!(text(&output.stderr).contains("?? approve run_skill_script("));
}
