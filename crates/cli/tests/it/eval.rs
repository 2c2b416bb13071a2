//! `skills eval` end to end: a skill of its own (real files, real scripts) against a
//! deterministic stand-in model on 127.0.0.1 whose answer is right only when it loaded the skill
//! and ran its script; the workspace's files and fields; every expectation kind; approvals;
//! trigger precision and recall; and the embedded engine's fallback with a stand-in engine.

use crate::common::{self, text};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use skillful_test_server::{Reply, TestServer};

const SKILL_MD: &str = "---
name: unit-converter
description: Converts values between units with a conversion script. Use for unit conversions.
metadata:
  risk.scripts/convert.py: write-low
---
# Unit converter

Run `scripts/convert.py` with `--value` and `--factor`.
";

/// Prints the result as JSON, and leaves `conversion.json` in the working directory.
const CONVERT_PY: &str = r#"import argparse, json
parser = argparse.ArgumentParser()
parser.add_argument("--value", type=float)
parser.add_argument("--factor", type=float)
args = parser.parse_args()
result = {"result": round(args.value * args.factor, 4)}
open("conversion.json", "w").write(json.dumps(result))
print(json.dumps(result))
"#;

/// A script of the default tier (write-high): refused unless approved.
const TIDY_PY: &str = r#"open("tidied", "w").write("ran")
print("tidied")
"#;

/// The graded run's check: the answer gives 42.16 and the input file was copied beside it.
const CHECK_PY: &str = r#"import pathlib, sys
out = pathlib.Path(sys.argv[1])
answer = (out / "answer.md").read_text()
if "42.16" in answer and (out / "route.txt").read_text() == "26.2 miles\n":
    print("42.16 in the answer; route.txt is there")
    sys.exit(0)
print("the answer lacks 42.16 or route.txt is missing")
sys.exit(1)
"#;

const EVALS: &str = r#"{
  "skill_name": "unit-converter",
  "evals": [
    {
      "id": 1,
      "prompt": "Please convert the route in route.txt to km.",
      "expected_output": "42.16 km",
      "files": ["evals/files/route.txt"],
      "expectations": [
        {"contains": "42.16"},
        {"regex": "\\bkm\\b"},
        {"script": "evals/check.py"},
        "The answer gives the distance in kilometres"
      ]
    },
    {
      "id": "JSON answer",
      "prompt": "Convert 26.2 miles to km; reply in JSON.",
      "expected_output": "{\"km\": 42.1648}",
      "expectations": [{"json_path": "$.km", "equals": 42.1648}]
    },
    {
      "id": "tidy",
      "prompt": "Please tidy the workspace.",
      "expected_output": "The script is refused and the answer says so.",
      "expectations": [{"contains": "refused"}]
    }
  ]
}"#;

/// 1 true positive, 1 false negative, 1 false positive, 1 true negative (the stand-in loads
/// the skill when the query says "convert"). The last one carries a terminal escape.
const TRIGGERS: &str = r#"[
  {"query": "convert 3 miles to km", "should_trigger": true},
  {"query": "how far is 5 miles in km?", "should_trigger": true},
  {"query": "convert this CSV to JSON", "should_trigger": false},
  {"query": "what is the capital of France?\u001b[2J", "should_trigger": false}
]"#;

/// The skill under test, in a directory of its own; its workspace goes into the state directory
/// `home/state`.
struct Fixture {
    root: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        let skill = root.path().join("unit-converter");
        for (name, text) in [
            ("SKILL.md", SKILL_MD),
            ("scripts/convert.py", CONVERT_PY),
            ("scripts/tidy.py", TIDY_PY),
            ("evals/evals.json", EVALS),
            ("evals/triggers.json", TRIGGERS),
            ("evals/check.py", CHECK_PY),
            ("evals/files/route.txt", "26.2 miles\n"),
        ] {
            let path = skill.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Self { root }
    }

    fn skill(&self) -> PathBuf {
        self.root.path().join("unit-converter")
    }

    /// The user's state directory (`XDG_STATE_HOME`).
    fn state(&self) -> PathBuf {
        self.root.path().join("home/state")
    }

    /// The default workspace, once an evaluation made it: `eval/unit-converter-<key>` in the
    /// state directory.
    fn workspace(&self) -> PathBuf {
        let eval = self.state().join("skillful/eval");
        let entries: Vec<PathBuf> = std::fs::read_dir(&eval)
            .unwrap_or_else(|error| panic!("{}: {error}", eval.display()))
            .map(|entry| entry.unwrap().path())
            .collect();
        match entries.as_slice() {
            [one] => one.clone(),
            other => panic!("one workspace in {}, not {other:?}", eval.display()),
        }
    }

    fn json(&self, relative: &str) -> Value {
        let path = self.workspace().join(relative);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        serde_json::from_str(&text).unwrap()
    }
}

/// The deterministic stand-in: with tools it loads the skill, runs its script and answers with
/// the script's result; without tools it cannot know the answer. As judge, it passes an answer
/// that gives 42.16.
fn stand_in(body: &Value) -> Reply {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let content = |message: &Value| message["content"].as_str().unwrap_or_default().to_owned();
    let system = messages
        .iter()
        .find(|m| m["role"] == "system")
        .map(content)
        .unwrap_or_default();
    let prompt = messages
        .iter()
        .find(|m| m["role"] == "user")
        .map(content)
        .unwrap_or_default();
    if system.starts_with("You grade") {
        let answer = prompt
            .split("<<<ANSWER\n")
            .nth(1)
            .and_then(|rest| rest.split("\nANSWER>>>").next())
            .unwrap_or_default();
        let verdict = json!({"passed": answer.contains("42.16"), "evidence": format!("the answer says {answer:?}")});
        return Reply::text(&verdict.to_string());
    }
    let offered = body["tools"]
        .as_array()
        .is_some_and(|tools| !tools.is_empty());
    if !offered {
        return Reply::text("I cannot tell without a conversion table.");
    }
    let last = messages.last().cloned().unwrap_or_default();
    if last["role"] == "user" {
        return if prompt.contains("convert")
            || prompt.contains("Convert")
            || prompt.contains("tidy")
        {
            Reply::load_skill("call-1", "unit-converter")
        } else {
            Reply::text("Paris.")
        };
    }
    let result = content(&last);
    if result.contains("# Unit converter") {
        return if prompt.contains("tidy") {
            Reply::run_skill_script("call-2", "unit-converter", "scripts/tidy.py")
        } else {
            Reply::tool_call(
                "call-2",
                "run_skill_script",
                json!({"skillName": "unit-converter", "scriptName": "scripts/convert.py",
                       "arguments": {"value": 26.2, "factor": 1.609344}}),
            )
        };
    }
    if result.contains("\"result\": 42.1648") {
        return if prompt.contains("JSON") {
            Reply::text(r#"{"km": 42.1648}"#)
        } else {
            Reply::text("The route is 42.1648 km.")
        };
    }
    if result.contains("Rejected") {
        return Reply::text("The tidy script was refused, so I could not tidy.");
    }
    Reply::text("unexpected")
}

/// Runs `skills ARGS` off the runtime, so that the server keeps answering, with `state` as the
/// user's state directory.
async fn skills(state: &Path, args: Vec<String>) -> Output {
    let state = state.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        Command::new(env!("CARGO_BIN_EXE_skills"))
            .args(&args)
            .current_dir(here)
            .env("HOME", here)
            .env("XDG_STATE_HOME", state)
            .env_remove("RUST_LOG")
            .env_remove("SKILLS_ENDPOINT")
            .env_remove("SKILLS_MODEL")
            .env_remove("SKILLS_SEED")
            .env_remove("SKILLS_TEMPERATURE")
            .env_remove("SKILLS_API_KEY")
            .stdin(Stdio::null())
            .output()
            .expect("the skills binary runs")
    })
    .await
    .unwrap()
}

fn eval_args(fixture: &Fixture, server: &TestServer, extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "eval".to_owned(),
        fixture.skill().display().to_string(),
        "--endpoint".to_owned(),
        server.url().to_owned(),
        // `convert.py` writes its working directory: it is `write-low`, above eval's default.
        "--approve-up-to".to_owned(),
        "write-low".to_owned(),
        // The stand-in model scripts the tool loop (a loopback server gets guided by default).
        "--mode".to_owned(),
        "tools".to_owned(),
    ];
    args.extend(extra.iter().map(|arg| (*arg).to_owned()));
    args
}

/// Whether `python3` runs here (the skill's scripts and checks are Python): when it does not,
/// the test fails under CI and is skipped, saying why, elsewhere (the caller returns).
#[track_caller]
fn python_runs() -> bool {
    skillful_test_support::program_runs(
        "python3",
        "apt install python3: the skill scripts, their checks and the stand-in engine are Python",
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn the_skill_wins_every_expectation_and_every_file_is_written() {
    if !python_runs() {
        return;
    }
    let fixture = Fixture::new();
    let server = TestServer::start().await;
    server.respond(stand_in);

    let output = skills(&fixture.state(), eval_args(&fixture, &server, &[])).await;
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");

    // The workspace is the user's own: in the state directory, keyed by the skill, private all
    // the way down; nothing is written beside the skill.
    let workspace = fixture.workspace();
    let key = workspace.file_name().unwrap().to_str().unwrap();
    let digits = key.strip_prefix("unit-converter-").unwrap();
    assert!(
        digits.len() == 16 && digits.bytes().all(|b| b.is_ascii_hexdigit()),
        "{key}"
    );
    assert_eq!(
        std::fs::read_dir(fixture.root.path()).unwrap().count(),
        2,
        "only the skill and home/ in the skill's parent"
    );
    #[cfg(unix)]
    for dir in ["", "iteration-1", "iteration-1/eval-1/with_skill/outputs"] {
        use std::os::unix::fs::MetadataExt;
        let mode = std::fs::metadata(workspace.join(dir)).unwrap().mode();
        assert_eq!(mode & 0o777, 0o700, "{dir}");
    }
    assert!(
        stdout.contains(&format!("written: {}", workspace.display())),
        "{stdout}"
    );

    // The guide's layout, with the eval ids as directory names.
    let iteration = "iteration-1";
    for eval in ["eval-1", "eval-json-answer", "eval-tidy"] {
        for configuration in ["with_skill", "without_skill"] {
            let run = fixture
                .workspace()
                .join(iteration)
                .join(eval)
                .join(configuration);
            for file in [
                "timing.json",
                "grading.json",
                "outputs/answer.md",
                "outputs/transcript.json",
            ] {
                assert!(run.join(file).is_file(), "{}/{file}", run.display());
            }
        }
    }
    let with = fixture.workspace().join("iteration-1/eval-1/with_skill");
    let without = fixture.workspace().join("iteration-1/eval-1/without_skill");
    // The input file was copied into both working directories; the skill's script ran in it.
    assert_eq!(
        std::fs::read_to_string(with.join("outputs/route.txt")).unwrap(),
        "26.2 miles\n"
    );
    assert!(without.join("outputs/route.txt").is_file());
    assert_eq!(
        std::fs::read_to_string(with.join("outputs/conversion.json")).unwrap(),
        r#"{"result": 42.1648}"#
    );
    assert!(!without.join("outputs/conversion.json").exists());
    assert!(!fixture.skill().join("scripts/conversion.json").exists());
    assert_eq!(
        std::fs::read_to_string(with.join("outputs/answer.md")).unwrap(),
        "The route is 42.1648 km."
    );

    // timing.json: the tokens of the three model calls (15 each, as the server reports).
    let timing = fixture.json("iteration-1/eval-1/with_skill/timing.json");
    assert_eq!(timing["total_tokens"], 45);
    assert!(timing["duration_ms"].is_u64(), "{timing}");
    assert_eq!(
        fixture.json("iteration-1/eval-1/without_skill/timing.json")["total_tokens"],
        15
    );

    // grading.json: every kind of expectation, with evidence.
    let grading = fixture.json("iteration-1/eval-1/with_skill/grading.json");
    let expectations = grading["expectations"].as_array().unwrap();
    assert_eq!(expectations.len(), 4);
    assert!(
        expectations.iter().all(|e| e["passed"] == true),
        "{grading}"
    );
    assert_eq!(expectations[0]["text"], "the answer contains \"42.16\"");
    assert!(
        expectations[0]["evidence"]
            .as_str()
            .unwrap()
            .contains("42.1648 km"),
        "{grading}"
    );
    assert_eq!(
        expectations[2]["evidence"],
        "42.16 in the answer; route.txt is there"
    );
    assert_eq!(
        expectations[3]["text"],
        "The answer gives the distance in kilometres"
    );
    assert!(
        expectations[3]["evidence"]
            .as_str()
            .unwrap()
            .contains("42.1648 km")
    );
    assert_eq!(
        grading["summary"],
        json!({"passed": 4, "failed": 0, "total": 4, "pass_rate": 1.0, "ungraded": 0})
    );
    let failed = fixture.json("iteration-1/eval-1/without_skill/grading.json");
    assert_eq!(
        failed["summary"],
        json!({"passed": 0, "failed": 4, "total": 4, "pass_rate": 0.0, "ungraded": 0})
    );
    assert_eq!(
        failed["expectations"][2]["evidence"],
        "exit code 1: the answer lacks 42.16 or route.txt is missing"
    );
    assert_eq!(
        fixture.json("iteration-1/eval-json-answer/with_skill/grading.json")["expectations"][0]["evidence"],
        "found 42.1648"
    );

    // The write-high script was refused, the refusal is in the transcript, and it never ran.
    let tidy = fixture.workspace().join("iteration-1/eval-tidy/with_skill");
    let transcript = std::fs::read_to_string(tidy.join("outputs/transcript.json")).unwrap();
    assert!(
        transcript.contains("Rejected: the user did not approve this call of `run_skill_script`")
            && transcript.contains("nobody is there to approve it"),
        "{transcript}"
    );
    assert!(!tidy.join("outputs/tidied").exists());
    assert!(!fixture.skill().join("scripts/tidied").exists());

    // benchmark.json: the summary, the delta and the triggers.
    let benchmark = fixture.json("iteration-1/benchmark.json");
    let summary = &benchmark["run_summary"];
    assert_eq!(
        summary["with_skill"]["pass_rate"],
        json!({"mean": 1.0, "stddev": 0.0})
    );
    assert_eq!(
        summary["without_skill"]["pass_rate"],
        json!({"mean": 0.0, "stddev": 0.0})
    );
    assert_eq!(summary["delta"]["pass_rate"], 1.0);
    assert!(summary["with_skill"]["time_seconds"]["mean"].is_f64());
    assert_eq!(summary["with_skill"]["tokens"]["mean"], 45.0);
    assert_eq!(summary["without_skill"]["tokens"]["mean"], 15.0);
    assert_eq!(summary["delta"]["tokens"], 30.0);
    assert_eq!(summary["with_skill"]["skill_loaded"], 3);
    assert_eq!(summary["without_skill"]["skill_loaded"], 0);
    // Six calls, one refused.
    assert_eq!(
        summary["with_skill"]["tool_call_validity"],
        json!(5.0 / 6.0)
    );
    assert_eq!(benchmark["runs"].as_array().unwrap().len(), 6);
    assert_eq!(benchmark["runs"][0]["configuration"], "with_skill");
    assert_eq!(benchmark["runs"][0]["eval_name"], "eval-1");
    assert_eq!(benchmark["runs"][2]["eval_id"], "JSON answer");
    assert_eq!(
        benchmark["triggers"],
        json!({"queries": 4, "true_positives": 1, "false_positives": 1, "true_negatives": 1,
               "false_negatives": 1, "precision": 0.5, "recall": 0.5})
    );
    let triggers = fixture.json("iteration-1/triggers.json");
    assert_eq!(triggers[0]["triggered"], true);
    assert_eq!(triggers[1]["triggered"], false);

    // The short table, and no raw control character from the skill's files on the terminal.
    assert!(
        stdout.contains("unit-converter: 3 evals, 1 run each"),
        "{stdout}"
    );
    assert!(
        stdout.lines().any(|line| line.contains("pass rate")
            && line.contains("1.00 ± 0.00")
            && line.contains("0.00 ± 0.00")
            && line.ends_with("delta +1.00")),
        "{stdout}"
    );
    assert!(
        stdout.contains("triggers: precision 0.50, recall 0.50 (4 queries"),
        "{stdout}"
    );
    assert!(
        !stdout.contains('\u{1b}') && !stderr.contains('\u{1b}'),
        "{stderr}"
    );
    assert!(stderr.contains("\\u{1b}[2J"), "{stderr}");

    // Each trigger query is asked once and stops at the model's first answer.
    let requests = server.answered();
    for query in ["convert 3 miles to km", "convert this CSV to JSON"] {
        let asked = requests
            .iter()
            .filter(|request| request.contents("user") == [query])
            .count();
        assert_eq!(asked, 1, "{query}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn runs_seeds_iterations_json_and_ungraded_statements() {
    if !python_runs() {
        return;
    }
    let fixture = Fixture::new();
    let server = TestServer::start().await;
    server.respond(stand_in);

    let first = skills(
        &fixture.state(),
        eval_args(&fixture, &server, &["--no-judge"]),
    )
    .await;
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let before = server.answered().len();
    let output = skills(
        &fixture.state(),
        eval_args(
            &fixture,
            &server,
            &["--no-judge", "--runs", "2", "--seed", "7", "--json"],
        ),
    )
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));

    // The next free iteration, a directory per run, and the benchmark on stdout.
    let printed = common::json_of("eval", &output);
    assert_eq!(printed, fixture.json("iteration-2/benchmark.json"));
    for run in ["run-1", "run-2"] {
        assert!(
            fixture
                .workspace()
                .join("iteration-2/eval-1/with_skill")
                .join(run)
                .join("grading.json")
                .is_file()
        );
    }
    assert_eq!(printed["metadata"]["runs_per_configuration"], 2);
    assert_eq!(printed["metadata"]["seed"], 7);
    assert_eq!(printed["runs"].as_array().unwrap().len(), 12);
    assert_eq!(printed["triggers"]["queries"], 8);
    assert_eq!(printed["triggers"]["precision"], 0.5);

    // Run k sends seed 7 + k - 1 with every call.
    let seeds: std::collections::BTreeSet<u64> = server.answered()[before..]
        .iter()
        .map(|request| request.body["seed"].as_u64().unwrap())
        .collect();
    assert_eq!(seeds.into_iter().collect::<Vec<_>>(), [7, 8]);

    // Without a judge the statement is ungraded and left out of the pass rate.
    let grading = fixture.json("iteration-2/eval-1/with_skill/run-1/grading.json");
    assert_eq!(grading["expectations"][3]["passed"], Value::Null);
    assert!(
        grading["expectations"][3]["evidence"]
            .as_str()
            .unwrap()
            .starts_with("ungraded"),
        "{grading}"
    );
    assert_eq!(
        grading["summary"],
        json!({"passed": 3, "failed": 0, "total": 3, "pass_rate": 1.0, "ungraded": 1})
    );

    // Both evaluations are in the user's record, by the digest of the SKILL.md they ran, and
    // `skills list` says when the skill last passed.
    let record =
        std::fs::read_to_string(fixture.state().join("skillful/eval-record.jsonl")).unwrap();
    let summaries: Vec<Value> = record
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(summaries.len(), 2, "{record}");
    let skill_md = std::fs::read(fixture.skill().join("SKILL.md")).unwrap();
    assert_eq!(
        summaries[1]["digest"],
        skillful_audit::sha256_hex(&skill_md).as_str()
    );
    assert_eq!(summaries[1]["runs"], 2);
    assert_eq!(summaries[1]["passed"], true);
    let root = fixture.skill().parent().unwrap().display().to_string();
    let listed = skills(&fixture.state(), vec!["list".to_owned(), root]).await;
    let day = &summaries[1]["time"].as_str().unwrap()[..10];
    let listed = text(&listed.stdout);
    assert!(
        listed.contains(&format!(" · eval {day}: 100%, passed\n")),
        "{listed}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn runs_the_server_failed_are_left_out_of_the_pass_rates_and_fail_the_command() {
    if !python_runs() {
        return;
    }
    let fixture = Fixture::new();
    let server = TestServer::start().await;
    // The baseline's requests (no skill tools offered, not the grader's) fail as a strict
    // server fails them.
    server.respond(|body: &Value| {
        let offered = body["tools"]
            .as_array()
            .is_some_and(|tools| !tools.is_empty());
        let grading = body["messages"][0]["content"]
            .as_str()
            .is_some_and(|system| system.starts_with("You grade"));
        if offered || grading {
            stand_in(body)
        } else {
            Reply::error(400, "No user query found in messages.")
        }
    });

    let output = skills(
        &fixture.state(),
        eval_args(&fixture, &server, &["--no-judge", "--json"]),
    )
    .await;

    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let said = text(&output.stderr);
    assert!(
        said.contains("runs ended with an error and are left out of the pass rates"),
        "{said}"
    );
    assert!(said.contains("400"), "{said}");
    let printed = common::json_of("eval", &output);
    let summary = &printed["run_summary"];
    // No baseline was measured: no pass rate for it, and no difference claimed.
    assert_eq!(
        summary["without_skill"]["pass_rate"],
        Value::Null,
        "{summary}"
    );
    assert_eq!(summary["delta"]["pass_rate"], Value::Null, "{summary}");
    assert!(summary["without_skill"]["errors"].as_u64().unwrap() > 0);
    assert_eq!(summary["with_skill"]["pass_rate"]["mean"], 1.0, "{summary}");
}

/// The refusals themselves are skillful-eval's tests
/// (`an_input_file_outside_the_skill_is_refused_when_the_skill_loads`,
/// `a_workspace_inside_the_skill_is_refused_before_anything_runs`); here, the exit code of each
/// and the line that names it.
#[tokio::test(flavor = "multi_thread")]
async fn a_file_outside_the_skill_is_a_usage_error_and_a_workspace_inside_it_an_error() {
    let fixture = Fixture::new();
    let server = TestServer::start().await;
    server.respond(stand_in);
    std::fs::write(fixture.root.path().join("secret.txt"), "secret").unwrap();
    let evals = EVALS.replace("evals/files/route.txt", "../secret.txt");
    std::fs::write(fixture.skill().join("evals/evals.json"), evals).unwrap();

    let output = skills(&fixture.state(), eval_args(&fixture, &server, &[])).await;
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("evals.json: eval 1: file \"../secret.txt\""),
        "{stderr}"
    );

    std::fs::write(fixture.skill().join("evals/evals.json"), EVALS).unwrap();
    let inside = fixture.skill().join("scratch");
    let output = skills(
        &fixture.state(),
        eval_args(
            &fixture,
            &server,
            &["--workspace", &inside.display().to_string()],
        ),
    )
    .await;
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("lies inside the skill's directory"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_is_not_there_is_an_error() {
    let fixture = Fixture::new();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let output = skills(
        &fixture.state(),
        vec![
            "eval".to_owned(),
            fixture.skill().display().to_string(),
            "--endpoint".to_owned(),
            format!("http://127.0.0.1:{port}/v1"),
        ],
    )
    .await;
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot connect"), "{stderr}");

    // A malformed URL is a usage error, refused before anything starts.
    for endpoint in ["127.0.0.1:1234/v1", "ftp://127.0.0.1/v1", "http://"] {
        let output = skills(
            &fixture.state(),
            vec![
                "eval".to_owned(),
                fixture.skill().display().to_string(),
                "--endpoint".to_owned(),
                endpoint.to_owned(),
            ],
        )
        .await;
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{endpoint}: {stderr}");
        assert!(stderr.contains("is not a usable endpoint"), "{stderr}");
    }
}

/// With nothing configured, the embedded engine (here the stand-in engine of the engine's
/// tests) is started for the command and stopped after it.
#[cfg(target_os = "linux")]
#[test]
fn with_nothing_configured_the_engine_is_started_for_the_evaluation_and_stopped() {
    if !python_runs() {
        return;
    }
    const FAKE_ENGINE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../engine/tests/fixtures/fake_engine.py"
    );
    assert!(
        std::net::TcpStream::connect("127.0.0.1:1234").is_err(),
        "something listens on 127.0.0.1:1234 (LM Studio?): this test needs it free"
    );
    let fixture = Fixture::new();
    let home = fixture.root.path().join("home");
    let events = home.join("events");
    let child = Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(["eval", &fixture.skill().display().to_string(), "--no-judge"])
        .env("HOME", &home)
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("SKILLS_ENGINE_COMMAND", FAKE_ENGINE)
        .env("FAKE_ENGINE_EVENTS", &events)
        .env(
            "SKILLS_ENGINE_ALLOW_ENV",
            "FAKE_ENGINE_EVENTS,FAKE_ENGINE_DELAY,FAKE_ENGINE_FINISH,FAKE_ENGINE_EXIT",
        )
        .env_remove("RUST_LOG")
        .env_remove("SKILLS_ENDPOINT")
        .env_remove("SKILLS_MODEL")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = skillful_test_support::wait::output_within(child, Duration::from_secs(120))
        .expect("skills eval did not finish within 120 s");
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("started the embedded engine at http://127.0.0.1:"),
        "{stderr}"
    );
    assert!(
        fixture
            .workspace()
            .join("iteration-1/benchmark.json")
            .is_file()
    );
    let events = std::fs::read_to_string(events).unwrap();
    let lines: Vec<&str> = events.lines().collect();
    assert!(lines.first().unwrap().starts_with("started "), "{events}");
    assert!(lines.last().unwrap().starts_with("stopped "), "{events}");
}

/// `skills eval` of the example skill against the real engine of `cargo xtask llm-server`
/// (opt-in, run by CI): `SKILLS_REAL_ENGINE=http://127.0.0.1:8090/v1 cargo test -p skillful-cli
/// --test it -- --ignored eval::real_engine`. It checks that every file is written and well formed,
/// not the model's score.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the real engine: SKILLS_REAL_ENGINE"]
async fn real_engine_evaluation_of_the_example_skill_writes_the_workspace() {
    let endpoint = std::env::var("SKILLS_REAL_ENGINE").expect(
        "set SKILLS_REAL_ENGINE to the engine's base URL, e.g. http://127.0.0.1:8090/v1, after \
         `cargo xtask llm-server --port 8090 --require-user`",
    );
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/skills/unit-converter"
    );
    let workspace = tempfile::tempdir().unwrap();
    let output = skills(
        &workspace.path().join("state"),
        [
            "eval",
            example,
            "--endpoint",
            &endpoint,
            "--workspace",
            &workspace.path().display().to_string(),
            "--seed",
            "1",
            "--temperature",
            "0",
            // Short answers keep CI short; the score is not what is checked.
            "--max-tokens",
            "200",
        ]
        .iter()
        .map(|arg| (*arg).to_owned())
        .collect(),
    )
    .await;
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("pass rate"), "{stdout}");

    let read = |relative: &str| -> Value {
        let path = workspace.path().join(relative);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
    };
    let evals = read(&format!("{example}/evals/evals.json"));
    let benchmark = read("iteration-1/benchmark.json");
    let cases = evals["evals"].as_array().unwrap();
    assert_eq!(benchmark["runs"].as_array().unwrap().len(), cases.len() * 2);
    for case in cases {
        for configuration in ["with_skill", "without_skill"] {
            let run = format!("iteration-1/eval-{}/{configuration}", case["id"]);
            let timing = read(&format!("{run}/timing.json"));
            assert!(timing["total_tokens"].as_u64().unwrap() > 0, "{timing}");
            assert!(timing["duration_ms"].is_u64(), "{timing}");
            let grading = read(&format!("{run}/grading.json"));
            assert_eq!(
                grading["expectations"].as_array().unwrap().len(),
                case["expectations"].as_array().unwrap().len()
            );
            let summary = &grading["summary"];
            assert_eq!(
                summary["total"].as_u64().unwrap() + summary["ungraded"].as_u64().unwrap(),
                case["expectations"].as_array().unwrap().len() as u64
            );
            assert!(
                workspace
                    .path()
                    .join(format!("{run}/outputs/answer.md"))
                    .is_file()
            );
            read(&format!("{run}/outputs/transcript.json"));
        }
    }
    for configuration in ["with_skill", "without_skill"] {
        let summary = &benchmark["run_summary"][configuration];
        let rate = summary["pass_rate"]["mean"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&rate), "{summary}");
        assert!(summary["time_seconds"]["stddev"].as_f64().unwrap() >= 0.0);
    }
    assert!(benchmark["run_summary"]["delta"]["pass_rate"].is_f64());
    let triggers = &benchmark["triggers"];
    assert_eq!(triggers["queries"], 6, "{triggers}");
    assert_eq!(
        read("iteration-1/triggers.json").as_array().unwrap().len(),
        6
    );
}

/// Tries to plant a file in the skill's own scripts, then converts (writing its working
/// directory, which `write-low` may).
const PLANTING_CONVERT_PY: &str = r#"import json, os
here = os.path.dirname(os.path.abspath(__file__))
try:
    open(os.path.join(here, "planted.py"), "w").write("print('planted')")
    print("planting: allowed")
except OSError as error:
    print(f"planting: denied ({error.strerror})")
open("conversion.json", "w").write(json.dumps({"result": 42.1648}))
print(json.dumps({"result": 42.1648}))
"#;

/// A check that reads the run's outputs and tries to write them and the skill: it passes only
/// when it may read and may not write.
const PROBING_CHECK_PY: &str = r#"import os, pathlib, sys
out = pathlib.Path(sys.argv[1])
answer = (out / "answer.md").read_text()
written = []
for path in [out / "check-was-here", pathlib.Path(__file__).parent / "planted"]:
    try:
        path.write_text("x")
        written.append(str(path))
    except OSError:
        pass
print(f"read {len(answer)} characters; wrote {written}")
sys.exit(1 if written else 0)
"#;

/// Evaluating runs the skill's code, said first; the skill's scripts run in the sandbox of their
/// tier and the checks as `read` (outputs readable, nothing writable). With `--sandbox off` the
/// first line says scripts are not isolated, and none runs: the skill's script is refused and
/// the check is left ungraded.
#[tokio::test(flavor = "multi_thread")]
async fn the_skill_s_scripts_and_checks_run_sandboxed_and_with_the_sandbox_off_none_runs() {
    if !python_runs() {
        return;
    }
    if !skillful_scripts::SandboxSupport::detect().isolates() {
        skillful_test_support::prerequisite_missing(
            "this test needs a kernel with Landlock and seccomp",
        );
        return;
    }
    let fixture = Fixture::new();
    let skill = fixture.skill();
    std::fs::write(skill.join("scripts/convert.py"), PLANTING_CONVERT_PY).unwrap();
    std::fs::write(skill.join("evals/check.py"), PROBING_CHECK_PY).unwrap();
    std::fs::remove_file(skill.join("evals/triggers.json")).unwrap();
    let evals = json!({"skill_name": "unit-converter", "evals": [{
        "id": 1,
        "prompt": "Please convert the route in route.txt to km.",
        "files": ["evals/files/route.txt"],
        "expectations": [{"script": "evals/check.py"}]
    }]});
    std::fs::write(skill.join("evals/evals.json"), evals.to_string()).unwrap();
    let server = TestServer::start().await;
    server.respond(stand_in);
    let workspace = fixture.root.path().join("ws");
    let workspace_arg = workspace.display().to_string();

    let output = skills(
        &fixture.state(),
        eval_args(
            &fixture,
            &server,
            &["--no-judge", "--workspace", &workspace_arg],
        ),
    )
    .await;
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(
        stderr.lines().next().unwrap_or_default(),
        "skills: evaluating a skill runs its code: its scripts run in the sandbox of their risk \
         tier (up to `write-low` without asking: write-low — writes only in the working \
         directory and $TMPDIR, no network), its check scripts as `read`",
        "{stderr}"
    );
    let run = workspace.join("iteration-1/eval-1/with_skill");
    let transcript = std::fs::read_to_string(run.join("outputs/transcript.json")).unwrap();
    assert!(transcript.contains("planting: denied"), "{transcript}");
    assert!(
        transcript.contains("[sandbox: write-low"),
        "the profile is named: {transcript}"
    );
    assert!(!skill.join("scripts/planted.py").exists());
    assert!(run.join("outputs/conversion.json").is_file());
    let grading: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("grading.json")).unwrap()).unwrap();
    assert_eq!(grading["expectations"][0]["passed"], true, "{grading}");
    assert!(!run.join("outputs/check-was-here").exists());
    assert!(!skill.join("evals/planted").exists());

    let output = skills(
        &fixture.state(),
        eval_args(
            &fixture,
            &server,
            &[
                "--no-judge",
                "--workspace",
                &workspace_arg,
                "--sandbox",
                "off",
            ],
        ),
    )
    .await;
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let first = stderr.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("skills: scripts are not isolated (--sandbox off): ")
            && first.ends_with(
                "evaluating a skill runs its code, so none of its scripts runs: skill scripts \
                 are refused and script checks left ungraded"
            ),
        "{stderr}"
    );
    let run = workspace.join("iteration-2/eval-1/with_skill");
    let transcript = std::fs::read_to_string(run.join("outputs/transcript.json")).unwrap();
    assert!(
        transcript.contains("Rejected: the user did not approve this call of `run_skill_script`"),
        "{transcript}"
    );
    assert!(!run.join("outputs/conversion.json").exists());
    let grading: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("grading.json")).unwrap()).unwrap();
    assert_eq!(
        grading["expectations"][0]["passed"],
        Value::Null,
        "{grading}"
    );
    assert!(
        grading["expectations"][0]["evidence"]
            .as_str()
            .unwrap()
            .starts_with("ungraded: the check was not run: scripts are not isolated"),
        "{grading}"
    );
}

/// The stand-in model of both modes: the guided strategy's decisions by their schema's name;
/// in the tool loop, the script's call first, then the answer.
fn both_modes(request: &Value) -> Reply {
    match request["response_format"]["json_schema"]["name"].as_str() {
        Some("skillful_selection") => return Reply::text(r#"{"fits": "yes"}"#),
        // The first row offered (the rows sharing the most with the question).
        Some("skillful_lookup") => {
            return Reply::text(
                &json!({"row": request["response_format"]["json_schema"]["schema"]
                    ["properties"]["row"]["enum"][0]})
                .to_string(),
            );
        }
        Some("skillful_values") => return Reply::text(r#"{"values": ["result"]}"#),
        Some("skillful_step") => {
            return Reply::text(
                r#"{"script": "scripts/convert.py", "arguments": {"value": 26.2, "factor": 1.609344}}"#,
            );
        }
        _ => {}
    }
    let called = request["messages"]
        .as_array()
        .is_some_and(|messages| messages.iter().any(|message| message["role"] == "tool"));
    if request.get("tools").is_some() && !called {
        return Reply::tool_call(
            "c1",
            "run_skill_script",
            json!({"skillName": "unit-converter", "scriptName": "scripts/convert.py",
                   "arguments": {"value": 26.2, "factor": 1.609344}}),
        );
    }
    Reply::text("It is 42.16 km.")
}

#[tokio::test(flavor = "multi_thread")]
async fn compare_modes_evaluates_guided_then_tools_and_shows_them_side_by_side() {
    if !python_runs() {
        return;
    }
    let fixture = Fixture::new();
    let server = TestServer::start().await;
    server.respond(both_modes);
    let mut args = eval_args(&fixture, &server, &["--no-judge", "--compare-modes"]);
    // --compare-modes takes no --mode.
    let at = args.iter().position(|arg| arg == "--mode").unwrap();
    args.drain(at..at + 2);
    let output = skills(&fixture.state(), args).await;
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("unit-converter: 3 evals, 1 run each, mode guided"),
        "{stdout}"
    );
    assert!(
        stdout.contains("unit-converter: 3 evals, 1 run each, mode tools"),
        "{stdout}"
    );
    assert!(
        stdout.contains("unit-converter: B guided against A tools"),
        "{stdout}"
    );
    let compared = stdout.split("B guided against A tools").nth(1).unwrap();
    for figure in ["pass rate", "tokens in", "seconds", "consistency"] {
        assert!(
            compared
                .lines()
                .any(|line| line.trim_start().starts_with(figure)),
            "{figure}: {stdout}"
        );
    }
    assert!(compared.contains("test: Fisher's exact test"), "{stdout}");
    for mode in ["guided", "tools"] {
        let benchmark = fixture
            .workspace()
            .join(mode)
            .join("iteration-1/benchmark.json");
        let benchmark: Value = serde_json::from_slice(&std::fs::read(&benchmark).unwrap()).unwrap();
        assert_eq!(benchmark["metadata"]["mode"], mode);
    }
    assert!(stderr.contains("mode guided) against"), "{stderr}");

    // --mode and --compare-modes do not go together (a usage error).
    let output = skills(
        &fixture.state(),
        eval_args(&fixture, &server, &["--compare-modes"]),
    )
    .await;
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
}

/// A copy of the fixture's skill at `to`, with `change` made to the file `file`.
fn version_of(fixture: &Fixture, to: &Path, file: &str, change: impl Fn(&str) -> String) {
    for entry in walk(&fixture.skill()) {
        let relative = entry.strip_prefix(fixture.skill()).unwrap();
        let target = to.join(relative);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        let text = std::fs::read_to_string(&entry).unwrap();
        let text = if relative == Path::new(file) {
            change(&text)
        } else {
            text
        };
        std::fs::write(target, text).unwrap();
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[tokio::test(flavor = "multi_thread")]
async fn compare_judges_a_better_version_better_and_a_reworded_one_no_different() {
    if !python_runs() {
        return;
    }
    let fixture = Fixture::new();
    let server = TestServer::start().await;
    server.respond(stand_in);
    let versions = tempfile::tempdir().unwrap();
    // A: the old version, whose script gets the factor wrong.
    let broken = versions.path().join("old/unit-converter");
    version_of(&fixture, &broken, "scripts/convert.py", |text| {
        text.replace("args.value * args.factor", "args.value * 1.6")
    });
    // A reworded version: the same behaviour in other words.
    let reworded = versions.path().join("reworded/unit-converter");
    version_of(&fixture, &reworded, "SKILL.md", |text| {
        text.replace("Use for unit conversions.", "Use it to convert units.")
    });
    let compare = |a: &Path, b: &Path| {
        let mut args = eval_args(
            &fixture,
            &server,
            &["--no-judge", "--runs", "3", "--seed", "1"],
        );
        // The skill directory is given by --compare instead.
        args.remove(1);
        args.extend([
            "--compare".to_owned(),
            a.display().to_string(),
            b.display().to_string(),
        ]);
        args
    };

    let mut args = compare(&broken, &fixture.skill());
    args.push("--json".to_owned());
    let output = skills(&fixture.state(), args).await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let comparison = common::json_of("eval-compare", &output);
    let figure = |name: &str| -> Value {
        comparison["figures"]
            .as_array()
            .unwrap()
            .iter()
            .find(|figure| figure["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{name} in {comparison}"))
    };
    let pass_rate = figure("pass rate");
    assert_eq!(pass_rate["verdict"], "better", "{pass_rate}");
    assert!(pass_rate["b"].as_f64().unwrap() > pass_rate["a"].as_f64().unwrap());
    assert!(pass_rate["p_value"].as_f64().unwrap() < 0.05, "{pass_rate}");
    assert_eq!(pass_rate["test"], "Fisher's exact test, two-sided, 95%");
    assert_eq!(figure("consistency")["verdict"], "no-difference");
    assert_eq!(comparison["a"]["label"], broken.display().to_string());
    // No run without the skill: only the versions are compared.
    let runs = comparison["b"]["benchmark"]["runs"].as_array().unwrap();
    assert!(runs.iter().all(|run| run["configuration"] == "with_skill"));
    let written = fixture.workspace().join("compare/comparison.json");
    assert_eq!(
        serde_json::from_str::<Value>(&std::fs::read_to_string(written).unwrap()).unwrap(),
        comparison
    );

    let output = skills(&fixture.state(), compare(&fixture.skill(), &reworded)).await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let shown = text(&output.stdout);
    let line = shown
        .lines()
        .find(|line| line.trim_start().starts_with("pass rate"))
        .unwrap_or_else(|| panic!("{shown}"));
    assert!(line.ends_with("no difference (p = 1.000)"), "{shown}");
    assert!(
        shown.contains("  test: Fisher's exact test, two-sided, 95%\n"),
        "{shown}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn compare_takes_an_installed_skill_and_a_git_ref_of_its_source() {
    if !python_runs() {
        return;
    }
    let fixture = Fixture::new();
    let server = TestServer::start().await;
    server.respond(stand_in);
    let home = tempfile::tempdir().unwrap();
    let repo = home.path().join("repo");
    let skill = repo.join("skills/unit-converter");
    let git = |args: &[&str]| {
        let done = Command::new("git")
            .arg("-C")
            .arg(&repo)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .output()
            .unwrap();
        assert!(done.status.success(), "git {args:?}: {done:?}");
    };
    // v1 gets the factor wrong; main has it right.
    version_of(&fixture, &skill, "scripts/convert.py", |text| {
        text.replace("args.value * args.factor", "args.value * 1.6")
    });
    git(&["init", "--quiet", "--initial-branch=main"]);
    git(&["add", "-A"]);
    git(&["commit", "--quiet", "-m", "v1"]);
    git(&["tag", "v1"]);
    version_of(&fixture, &skill, "scripts/convert.py", str::to_owned);
    git(&["commit", "--quiet", "-am", "fixed"]);
    let skills_at_home = |args: Vec<String>| {
        let home = home.path().to_path_buf();
        tokio::task::spawn_blocking(move || {
            common::command_at_home(&home, &home)
                .args(&args)
                .env_remove("SKILLS_ENDPOINT")
                .env_remove("SKILLS_MODEL")
                .stdin(Stdio::null())
                .output()
                .unwrap()
        })
    };
    let added = skills_at_home(vec![
        "add".to_owned(),
        format!("file://{}@main", repo.display()),
        "--yes".to_owned(),
    ])
    .await
    .unwrap();
    assert_eq!(added.status.code(), Some(0), "{}", text(&added.stderr));

    let mut args = eval_args(
        &fixture,
        &server,
        &["--no-judge", "--runs", "3", "--seed", "1", "--json"],
    );
    args.remove(1);
    args.extend(["--compare", "unit-converter@v1", "unit-converter"].map(String::from));
    let output = skills_at_home(args).await.unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let comparison = common::json_of("eval-compare", &output);
    assert_eq!(comparison["a"]["label"], "unit-converter@v1");
    assert_eq!(comparison["b"]["label"], "unit-converter");
    assert_eq!(comparison["figures"][0]["name"], "pass rate");
    assert_eq!(
        comparison["figures"][0]["verdict"], "better",
        "{comparison}"
    );

    let mut args = eval_args(&fixture, &server, &["--no-judge"]);
    args.remove(1);
    args.extend(["--compare", "unit-converter@v9", "unit-converter"].map(String::from));
    let output = skills_at_home(args).await.unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("--compare unit-converter@v9"),
        "{}",
        text(&output.stderr)
    );
}
