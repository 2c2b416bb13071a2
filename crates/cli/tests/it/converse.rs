//! `skills run` against a strict OpenAI-compatible server on 127.0.0.1, approvals answered on a
//! piped stdin.

use crate::common;
use std::time::Duration;

use serde_json::json;
use skillful_chat::{Content, Role};
use skillful_test_server::{Reply, TestServer, completion};

use crate::common::{EXAMPLES, skills, text};

const MARATHON: &str = "A marathon is 26.2 miles. How many km?";

/// `run` over the examples, activation off: these tests script the model's own protocol
/// (`tests/aids.rs` tests activation, on by default for this loopback server).
fn run_args(server: &TestServer, extra: &[&str]) -> Vec<String> {
    let mut args = common::run_args(EXAMPLES, server.url(), extra);
    args.extend(["--activate".to_owned(), "off".to_owned()]);
    args
}

#[tokio::test(flavor = "multi_thread")]
async fn run_asks_on_the_terminal_and_shows_the_transcript() {
    let server = TestServer::start().await;
    server.push(Reply::load_skill("c1", "unit-converter"));
    server.push(Reply::read_skill_resource(
        "c2",
        "unit-converter",
        "references/conversion-table.md",
    ));
    // Another resource: a repeat of the same call would be answered by the answer step.
    server.push(Reply::read_skill_resource(
        "c3",
        "unit-converter",
        "references/units.md",
    ));
    server.push(Reply::text("A marathon is about 42.16 km."));

    // The example skill with a second resource.
    let root = tempfile::tempdir().unwrap();
    let copied = std::process::Command::new("cp")
        .arg("-r")
        .arg(std::path::Path::new(EXAMPLES).join("unit-converter"))
        .arg(root.path())
        .status()
        .unwrap();
    assert!(copied.success());
    std::fs::write(
        root.path().join("unit-converter/references/units.md"),
        "# Units\n\nkm: kilometre; mi: mile.\n",
    )
    .unwrap();
    let examples = root.path().canonicalize().unwrap();

    // "maybe" is not an answer: asked again. Then yes, always (for read_skill_resource).
    let mut args = common::run_args(
        examples.to_str().unwrap(),
        server.url(),
        &[MARATHON, "--approve", "ask"],
    );
    args.extend(["--activate".to_owned(), "off".to_owned()]);
    let output = skills(args, "maybe\ny\na\n").await;
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));

    let lines = common::transcript(&stdout);
    let skill_dir = examples.join("unit-converter");
    let about = format!(
        "?? skill unit-converter · risk read · from files {}: {} (explicit scope)",
        examples.display(),
        skill_dir.display()
    );
    let manifest = skillful_manifest::Manifest::of_dir(&skill_dir, &Default::default()).unwrap();
    let ask = format!(
        "?? [y]es / [n]o / [a]lways (this tool for this skill, until anything in the skill's {} \
         files (sha256 {}…) changes): ",
        manifest.files().len(),
        &manifest.digest()[..12]
    );
    let approve_load = r#"?? approve load_skill({"skillName":"unit-converter"})"#;
    assert_eq!(
        lines[..7],
        [
            r#">> calling tool load_skill({"skillName":"unit-converter"})"#,
            approve_load,
            &about,
            &format!("{ask}maybe"),
            approve_load,
            &about,
            &format!("{ask}y"),
        ],
        "{stdout}"
    );
    assert!(
        lines[7].starts_with("<< tool result: --- name: unit-converter"),
        "{stdout}"
    );
    assert!(lines[8].starts_with(">> calling tool read_skill_resource("));
    assert!(lines[9].starts_with("?? approve read_skill_resource("));
    assert_eq!(lines[10], about);
    assert_eq!(lines[11], format!("{ask}a"));
    assert!(
        lines[12].starts_with("<< tool result: # Conversion table"),
        "{stdout}"
    );
    assert!(lines[13].starts_with(">> calling tool read_skill_resource("));
    assert!(
        lines[14].starts_with("<< tool result: # Units"),
        "always: not asked again: {stdout}"
    );
    assert_eq!(lines[15], "  A marathon is about 42.16 km.");
    assert_eq!(lines.len(), 16, "{stdout}");
    assert!(
        server
            .requests()
            .iter()
            .all(|request| request.status == 200)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unanswered_approval_waits_in_the_session_file() {
    let server = TestServer::start().await;
    server.push(Reply::load_skill("c1", "unit-converter"));
    server.push(Reply::text("Loaded it."));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("session.json");
    let session = file.to_str().unwrap();

    let first = skills(run_args(&server, &[MARATHON, "--session", session]), "").await;
    // Exit 3: no answer yet, a call waits for an approval.
    assert_eq!(first.status.code(), Some(3), "{}", text(&first.stderr));
    assert!(
        text(&first.stdout).contains(&format!(
            "(approval pending; answer it later with `skills run --session {session}`)"
        )),
        "{}",
        text(&first.stdout)
    );
    assert_eq!(server.requests().len(), 1);

    let second = skills(run_args(&server, &["--session", session]), "y\n").await;
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));
    let stdout = text(&second.stdout);
    assert!(
        stdout.contains("<< tool result: --- name: unit-converter"),
        "{stdout}"
    );
    assert!(stdout.ends_with("  Loaded it.\n"), "{stdout}");
    let resumed = &server.requests()[1];
    assert_eq!(resumed.status, 200);
    assert_eq!(resumed.contents("user"), [MARATHON]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_api_key_never_goes_to_the_implicit_default_endpoint() {
    // Whoever holds 127.0.0.1:1234 (any local user) answers a run without --endpoint: it must
    // not receive the user's API key.
    let Some(squatter) = TestServer::start_at(1234).await else {
        skillful_test_support::prerequisite_missing("127.0.0.1:1234 is in use");
        return;
    };
    squatter.push(Reply::text("Hello."));
    let mut command = common::command(&[
        "run".to_owned(),
        "hi".to_owned(),
        "--skills".to_owned(),
        EXAMPLES.to_owned(),
    ]);
    command.env("SKILLS_API_KEY", "s3cret-key");
    let output = common::run_with(command, String::new()).await;
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let requests = squatter.requests();
    assert!(!requests.is_empty());
    assert!(
        requests
            .iter()
            .all(|request| request.authorization.is_none()),
        "{:?}",
        requests
            .iter()
            .map(|r| &r.authorization)
            .collect::<Vec<_>>()
    );
    assert!(
        stderr.contains("SKILLS_API_KEY is not sent to http://127.0.0.1:1234/v1"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn no_server_is_one_line_naming_the_url() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let endpoint = format!("http://{address}/v1");
    let args = vec![
        "run".to_owned(),
        MARATHON.to_owned(),
        "--skills".to_owned(),
        EXAMPLES.to_owned(),
        "--endpoint".to_owned(),
        endpoint.clone(),
        "--activate".to_owned(),
        "off".to_owned(),
    ];
    let output = skills(args, "").await;
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with(&format!(
        "skills: cannot connect to {endpoint}/chat/completions ("
    )));
    assert!(stderr.contains("or pass --endpoint URL"));
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_answers_one_prompt_per_line_in_one_session() {
    let server = TestServer::start().await;
    server.push(Reply::text("Hello."));
    server.push(Reply::text("Still here."));
    let mut args = run_args(&server, &[]);
    args[0] = "chat".to_owned();
    let output = skills(args, "Hi\n\nAre you there?\nexit\n").await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        ">> mode: tools (--mode)\n> Hi\n  Hello.\n> \n> Are you there?\n  Still here.\n> exit\n"
    );
    let second = &server.requests()[1];
    assert_eq!(second.contents("user"), ["Hi", "Are you there?"]);
    assert_eq!(second.contents("assistant"), ["Hello."]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_call_written_as_text_runs_unless_turned_off() {
    let written = "Let me load the skill.\n```json\n{\"name\": \"load_skill\", \"arguments\": {\"skillName\": \"unit-converter\"}}\n```";
    let server = TestServer::start().await;
    server.push(Reply::text(written));
    server.push(Reply::text("A marathon is about 42.16 km."));
    let output = skills(run_args(&server, &[MARATHON, "--approve", "read-only"]), "").await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    let lines = common::transcript(&stdout);
    assert_eq!(lines[0], "  Let me load the skill.", "{stdout}");
    assert_eq!(
        lines[1], r#">> calling tool load_skill({"skillName":"unit-converter"})"#,
        "{stdout}"
    );
    assert!(
        lines[2].starts_with("<< tool result: --- name: unit-converter"),
        "{stdout}"
    );
    assert_eq!(lines[3], "  A marathon is about 42.16 km.", "{stdout}");
    assert_eq!(server.requests()[1].status, 200);

    let server = TestServer::start().await;
    server.push(Reply::text(written));
    let output = skills(
        run_args(
            &server,
            &[MARATHON, "--approve", "read-only", "--no-text-tool-calls"],
        ),
        "",
    )
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let indented: Vec<String> = written.lines().map(|line| format!("  {line}")).collect();
    assert_eq!(
        common::transcript(&text(&output.stdout)).join("\n"),
        indented.join("\n")
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn generation_is_bounded_by_default_and_a_cut_off_answer_is_reported() {
    let server = TestServer::start().await;
    server.push(Reply::Completion(completion(
        json!({"role": "assistant", "content": "A marathon is 42"}),
        "length",
    )));
    server.push(Reply::text("A marathon is about 42.16 km."));

    let output = skills(run_args(&server, &[MARATHON]), "").await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        ">> mode: tools (--mode)\n  A marathon is 42\n"
    );
    assert_eq!(
        text(&output.stderr),
        "skills: the model's answer was cut off at the token limit (1024 tokens per call); raise \
         --max-tokens for longer answers\n"
    );
    assert_eq!(server.requests()[0].body["max_tokens"], 1024);

    let output = skills(run_args(&server, &[MARATHON, "--max-tokens", "64"]), "").await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stderr),
        "",
        "a complete answer is not reported"
    );
    assert_eq!(server.requests()[1].body["max_tokens"], 64);
}

/// `skills run --approve ask` against the real engine of `cargo xtask llm-server --require-user`
/// (opt-in, run by CI): `SKILLS_REAL_ENGINE=http://127.0.0.1:8090/v1 cargo test -p skillful-cli
/// --test it -- --ignored converse::real_engine`. With no answer on stdin, the first call waits in
/// the session file; a second process answers it, the call runs, and the engine accepts the
/// follow-up (HTTP 200: any error status ends `skills run` with exit code 1).
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the real engine: SKILLS_REAL_ENGINE"]
async fn real_engine_pending_approval_resumes_in_a_second_process() {
    let endpoint = std::env::var("SKILLS_REAL_ENGINE").expect(
        "set SKILLS_REAL_ENGINE to the engine's base URL, e.g. http://127.0.0.1:8090/v1, after \
         `cargo xtask llm-server --port 8090 --require-user`",
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("session.json");
    let session = file.to_str().unwrap().to_owned();
    let args = |prompt: Option<&str>| -> Vec<String> {
        let mut args = vec!["run".to_owned()];
        args.extend(prompt.map(str::to_owned));
        for arg in [
            "--endpoint",
            &endpoint,
            "--approve",
            "ask",
            "--session",
            &session,
            "--temperature",
            "0",
            "--max-tokens",
            "48",
            "--skills",
            EXAMPLES,
        ] {
            args.push(arg.to_owned());
        }
        args
    };
    let bounded = |args, stdin| async move {
        tokio::time::timeout(Duration::from_secs(300), skills(args, stdin))
            .await
            .expect("skills run finished within 300 s")
    };
    let read_session = || -> skillful_agent::Session {
        serde_json::from_slice(&std::fs::read(&file).unwrap()).expect("a session file")
    };
    let prompt = "Use the unit-converter skill: a marathon is 26.2 miles, how many km?";

    let first = bounded(args(Some(prompt)), "").await;
    let stdout = text(&first.stdout);
    eprintln!("{stdout}");
    assert_eq!(first.status.code(), Some(3), "{}", text(&first.stderr));
    assert!(
        stdout.ends_with(&format!(
            "(approval pending; answer it later with `skills run --session {session}`)\n"
        )),
        "{stdout}"
    );
    let pending = read_session().pending_approvals();
    assert!(
        !pending.is_empty(),
        "the first call waits in the session file"
    );
    let skill_tools = ["load_skill", "read_skill_resource", "run_skill_script"];
    assert!(
        skill_tools.contains(&pending[0].call.name.as_str()),
        "{pending:?}"
    );

    // One `y` per pending call; the process ends at the next question, if any.
    let answers: &'static str = "y\n".repeat(pending.len()).leak();
    let second = bounded(args(None), answers).await;
    let stdout = text(&second.stdout);
    eprintln!("{stdout}");
    // Exit 3 when it stopped at a later question, 0 when it answered.
    let stopped_again = stdout.contains("(approval pending");
    assert_eq!(
        second.status.code(),
        Some(if stopped_again { 3 } else { 0 }),
        "{}",
        text(&second.stderr)
    );
    assert!(stdout.contains("<< tool result: "), "{stdout}");

    let resumed = read_session();
    let messages = resumed.messages();
    let answered = messages
        .iter()
        .rposition(|message| {
            message.contents.iter().any(|content| {
                matches!(content, Content::FunctionResult(result) if result.call_id == pending[0].call.call_id)
            })
        })
        .expect("the approved call ran and its result is in the session");
    assert!(
        messages[answered + 1..]
            .iter()
            .any(|message| message.role == Role::Assistant),
        "the engine answered the follow-up: {messages:?}"
    );
}

/// The guided strategy's stand-in model: the reply of each decision's schema, else the answer.
fn guided_model(request: &serde_json::Value) -> Reply {
    match request["response_format"]["json_schema"]["name"].as_str() {
        Some("skillful_selection") => Reply::text(r#"{"fits": "yes"}"#),
        // The first row offered (the rows sharing the most with the question).
        Some("skillful_lookup") => Reply::text(
            &serde_json::json!({"row": request["response_format"]["json_schema"]["schema"]
                ["properties"]["row"]["enum"][0]})
            .to_string(),
        ),
        Some("skillful_values") => Reply::text(r#"{"values": ["result"]}"#),
        Some("skillful_step") => Reply::text(
            r#"{"script": "scripts/convert.py", "arguments": {"value": 26.2, "factor": 1.609344}}"#,
        ),
        _ => Reply::text("A marathon is 42.16 km."),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_loopback_server_gets_the_guided_strategy_whose_stages_the_transcript_shows() {
    if !common::python_runs() {
        return;
    }
    let server = TestServer::start().await;
    server.respond(guided_model);
    // No --mode: the default, auto, picks guided for a server on this machine.
    let args: Vec<String> = [
        "run",
        MARATHON,
        "--skills",
        EXAMPLES,
        "--endpoint",
        server.url(),
        "--approve",
        "all",
    ]
    .map(str::to_owned)
    .to_vec();
    let output = skills(args, "").await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0],
        ">> mode: guided (auto, the default: the server is on this machine)"
    );
    let stage = |name: &str| {
        lines
            .iter()
            .position(|line| line.starts_with(&format!(">> {name}: ")))
            .unwrap_or_else(|| panic!("no {name} stage: {stdout}"))
    };
    assert!(lines[stage("select")].contains("unit-converter (asked about unit-converter)"));
    assert!(stage("select") < stage("disclose"));
    assert!(stage("disclose") < stage("decide"));
    assert!(
        lines[stage("decide")]
            .contains(r#"run scripts/convert.py {"value":26.2,"factor":1.609344}"#)
    );
    assert!(stage("decide") < stage("run"));
    assert!(stage("run") < stage("answer"));
    assert!(
        lines.contains(&">> loading unit-converter: the model chose it"),
        "{stdout}"
    );
    assert!(
        lines.contains(
            &">> reading references/conversion-table.md: the skill's instructions name it"
        ),
        "{stdout}"
    );
    assert_eq!(lines.last(), Some(&"  A marathon is 42.16 km."), "{stdout}");
    assert!(
        server
            .requests()
            .iter()
            .all(|request| request.body.get("tools").is_none())
    );

    // --json: the mode and each stage with its time and model calls.
    let mut args = common::run_args(
        EXAMPLES,
        server.url(),
        &[MARATHON, "--approve", "all", "--json"],
    );
    args.extend(["--mode".to_owned(), "guided".to_owned()]);
    let output = skills(args, "").await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let report = common::json_of("run", &output);
    assert_eq!(report["mode"], "guided");
    assert_eq!(report["answer_by"], "answer");
    let stages: Vec<&str> = report["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|stage| stage["stage"].as_str().unwrap())
        .collect();
    assert_eq!(
        stages,
        ["select", "disclose", "lookup", "decide", "run", "answer"]
    );
    for stage in report["stages"].as_array().unwrap() {
        assert!(stage["duration_ms"].is_u64(), "{stage}");
    }
    assert_eq!(report["stages"][0]["model_calls"], 1);
    let by: Vec<&str> = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| step["by"].as_str().unwrap())
        .collect();
    assert_eq!(by, ["selection", "disclosure", "decision"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_users_settings_choose_the_mode_and_the_flag_wins() {
    let server = TestServer::start().await;
    server.respond(|_| Reply::text("Hello."));
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join(".config/skillful");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "[agent]\nmode = \"tools\"\n").unwrap();
    let run = |extra: &[&str]| {
        let mut command = common::command_at_home(home.path(), home.path());
        command
            .args([
                "run",
                "Hi",
                "--skills",
                EXAMPLES,
                "--endpoint",
                server.url(),
            ])
            .args(extra)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        command
    };
    let output = common::run_with(run(&[]), String::new()).await;
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout).lines().next(),
        Some(">> mode: tools ([agent] mode)")
    );
    let output = common::run_with(run(&["--mode", "guided"]), String::new()).await;
    assert_eq!(
        text(&output.stdout).lines().next(),
        Some(">> mode: guided (--mode)")
    );

    std::fs::write(config.join("config.toml"), "[agent]\nmode = \"fast\"\n").unwrap();
    let output = common::run_with(run(&[]), String::new()).await;
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("`agent.mode` must be"), "{stderr}");
    assert!(stderr.contains("config.toml"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_long_script_shows_its_progress_the_model_answers_meanwhile_and_its_result_continues_the_run()
 {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("slow-job");
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: slow-job\ndescription: Runs the slow job.\nmetadata:\n  risk: read\n  long-running: \"true\"\n---\nRun scripts/job.sh.\n",
    )
    .unwrap();
    // Its first line carries a terminal title sequence; it cannot end before the gate opens,
    // which the test opens once the first line was shown.
    std::fs::write(
        dir.join("scripts/job.sh"),
        "printf 'step 1 \\033]0;pwned\\007\\n'\nwhile [ ! -e \"$1\" ]; do sleep 0.05; done\necho 'step 2'\n",
    )
    .unwrap();
    let gate = root.path().join("gate");
    let server = TestServer::start().await;
    server.push(Reply::tool_call(
        "c1",
        "run_skill_script",
        json!({"skillName": "slow-job", "scriptName": "scripts/job.sh", "arguments": [gate]}),
    ));
    server.push(Reply::text("It is running; I will say when it is done."));
    server.push(Reply::text("The job is done."));
    let args = run_args_at(
        root.path(),
        &server,
        &["Run the slow job.", "--approve", "all"],
    );
    let mut child = common::command(&args).spawn().unwrap();
    let stdin = child.stdin.take().unwrap();
    // Answers a question if the sandbox cannot isolate scripts here (then every script asks).
    let stderr = child.stderr.take().unwrap();
    let (shown, output) = tokio::task::spawn_blocking(move || {
        use std::io::{BufRead, Write};
        let mut stdin = stdin;
        stdin.write_all(b"y\n").unwrap();
        drop(stdin);
        let mut shown = Vec::new();
        for line in std::io::BufReader::new(stderr).lines() {
            let line = line.unwrap();
            if line.contains("step 1") {
                std::fs::write(&gate, "").unwrap();
            }
            shown.push(line);
        }
        (shown, child.wait_with_output().unwrap())
    })
    .await
    .unwrap();
    let stderr = shown.join("\n");
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let stdout = text(&output.stdout);
    let running = stdout.find("It is running").expect("the first answer");
    let done = stdout
        .find("The job is done.")
        .expect("the answer to the result");
    assert!(running < done, "{stdout}");

    // The progress: the script's lines with the time it ran, escaped; the task's start and end.
    assert!(!common::has_controls(&stderr), "{stderr:?}");
    let step = shown
        .iter()
        .find(|line| line.contains("step 1"))
        .expect("the first line shown live");
    assert!(step.starts_with("   [slow-job scripts/job.sh "), "{step}");
    assert!(step.ends_with("] step 1 \\u{1b}]0;pwned\\u{7}"), "{step}");
    assert!(
        stderr.contains("started: slow-job scripts/job.sh goes on"),
        "{stderr}"
    );
    assert!(stderr.contains("ended: completed, exit code 0"), "{stderr}");
    assert!(stderr.contains("[waiting for task-"), "{stderr}");

    // The model was woken once, with the result.
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let users = requests[2].contents("user");
    assert_eq!(
        users.iter().filter(|text| text.contains("step 2")).count(),
        1,
        "{users:?}"
    );
}

/// `run` over `root`, activation off.
fn run_args_at(root: &std::path::Path, server: &TestServer, extra: &[&str]) -> Vec<String> {
    let mut args = common::run_args(root.to_str().unwrap(), server.url(), extra);
    args.extend(["--activate".to_owned(), "off".to_owned()]);
    args
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_resumed_after_its_process_died_says_its_task_was_lost_and_how_to_run_it_again() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("forever");
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: forever\ndescription: Never ends.\nmetadata:\n  risk: read\n  long-running: \"true\"\n---\nRun scripts/wait.sh.\n",
    )
    .unwrap();
    // It says where it runs, so that the test can see it stopped with the program.
    std::fs::write(
        dir.join("scripts/wait.sh"),
        "echo \"pid $$\"\nexec sleep 300\n",
    )
    .unwrap();
    let session = root.path().join("session.json");
    let server = TestServer::start().await;
    server.push(Reply::run_skill_script("c1", "forever", "scripts/wait.sh"));
    server.push(Reply::text("It runs."));
    server.push(Reply::text("Noted."));
    let session_arg = session.to_str().unwrap();
    let args = run_args_at(
        root.path(),
        &server,
        &["Start it.", "--approve", "all", "--session", session_arg],
    );
    let mut child = common::command(&args).spawn().unwrap();
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(b"y\n").unwrap();
    }
    let stderr = child.stderr.take().unwrap();
    // Killed while it waits for the task: the session file holds the task as running, and the
    // script does not outlive the program that ran it.
    let script = tokio::task::spawn_blocking(move || {
        use std::io::BufRead;
        let (mut script, mut waiting) = (None, false);
        for line in std::io::BufReader::new(stderr).lines() {
            let line = line.unwrap();
            if let Some((_, pid)) = line.split_once("] pid ") {
                script = pid.trim().parse::<u32>().ok();
            }
            waiting |= line.contains("[waiting for task-");
            if waiting && script.is_some() {
                break;
            }
        }
        child.kill().unwrap();
        child.wait().unwrap();
        script.expect("the script said its pid")
    })
    .await
    .unwrap();
    let gone = tokio::task::spawn_blocking(move || {
        skillful_test_support::wait::gone_within(script, Duration::from_secs(10))
    })
    .await
    .unwrap();
    assert!(
        gone,
        "the task's script {script} outlived the killed program"
    );
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&session).unwrap()).unwrap();
    assert_eq!(saved["tasks"][0]["state"], "running", "{saved}");

    let args = run_args_at(
        root.path(),
        &server,
        &[
            "Anything new?",
            "--approve",
            "all",
            "--session",
            session_arg,
        ],
    );
    let output = skills(args, "").await;
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("(forever scripts/wait.sh) was lost: the program that ran it ended"),
        "{stderr}"
    );
    assert!(
        stderr.contains("to run it again, ask for it in this session"),
        "{stderr}"
    );
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&session).unwrap()).unwrap();
    assert_eq!(saved["tasks"][0]["state"], "lost", "{saved}");
}
