//! What tracing and auditing cost the tool loop, per tool call (issue 23: at most 1 ms).
//!
//! One iteration is one real `Agent::run` (fresh session) over a file skill in a temporary
//! directory: a deterministic stand-in model (an in-process `ChatClient`, so that no HTTP round
//! trip adds noise) asks in each of [`ROUNDS`] turns for `load_skill`, `read_skill_resource`
//! and `run_skill_script` (a `bash` script, through the real `ProcessRunner` with its sandbox
//! as `skills run` has it), then answers: [`CALLS`] tool calls per run. Four configurations:
//!
//! - `off`: no subscriber, no audit;
//! - `tracing`: `skillful-telemetry`'s layer exporting over OTLP/HTTP to a real receiver on
//!   127.0.0.1 (`skillful-test-server`'s, decoding every request), in a process of its own as a
//!   user's collector is: in the agent's process its memory (every span it decoded) would make
//!   each script call's `fork` copy more page tables, a cost no user pays;
//! - `audit`: a `FileAuditSink` on the disk (hash-chained; each record appended before the
//!   call's result goes on, flushed by `fdatasync` in the background, all before the run
//!   returns);
//! - `both`.
//!
//! The per-call overhead of a configuration is (its time per run - `off`'s) / [`CALLS`]; it
//! includes each run's own share (the `invoke_agent` and `chat` spans, the `run` record).
//!
//! `cargo bench -p skillful-agent --bench tool_loop`
//!
//! Criterion measures one configuration after the other, so a shared machine's drift between
//! them shows as overhead. `SKILLFUL_BENCH_INTERLEAVED=N cargo bench -p skillful-agent --bench
//! tool_loop` runs the configurations in turn instead, N rounds of one run each, and prints the
//! median of each round's difference from `off`, per call; `=NxB` makes it B runs back to back
//! per configuration and round (their mean), so that each run meets the disk work the runs
//! before it left.

use std::hint::black_box;
use std::io::{BufRead as _, BufReader, Read as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use criterion::{Criterion, criterion_group};
use serde_json::json;
use skillful_agent::{Agent, ApprovalRules, AuditSettings, AutoApprove, Session};
use skillful_audit::{AuditSink as _, FileAuditSink};
use skillful_chat::{
    ChatClient, ChatError, ChatRequest, ChatResponse, Content, FunctionCall, Message, Role, Usage,
};
use skillful_decorators::Limits;
use skillful_discovery::FileSkillsSource;
use skillful_provider::SkillsProvider;
use skillful_scripts::ProcessRunner;
use skillful_telemetry::Telemetry;
use skillful_test_server::otlp::{EXPORT_VARIABLES, OtlpReceiver};
use tracing::Dispatch;
use tracing::instrument::WithSubscriber;
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Set in the environment of the bench's second process: the OTLP receiver.
const RECEIVER_VARIABLE: &str = "SKILLFUL_BENCH_OTLP_RECEIVER";
/// A number of rounds: the configurations measured in turn instead of by criterion.
const INTERLEAVED_VARIABLE: &str = "SKILLFUL_BENCH_INTERLEAVED";

/// The receiver's process: prints its endpoint, receives until its stdin closes, then prints
/// how many spans it received and how many of them were a script call's.
fn receive() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("the receiver's runtime");
    let receiver = runtime.block_on(OtlpReceiver::http());
    println!("{}", receiver.endpoint());
    let mut rest = Vec::new();
    std::io::stdin().read_to_end(&mut rest).expect("stdin");
    let spans = receiver.spans();
    let scripts = spans
        .iter()
        .filter(|span| span.name() == "execute_tool run_skill_script")
        .count();
    println!("{} {scripts}", spans.len());
}

/// Model turns that call tools, per run.
const ROUNDS: usize = 3;
/// Tool calls per run: three per round.
const CALLS: usize = 3 * ROUNDS;

/// The stand-in model: while the conversation has fewer than [`ROUNDS`] assistant messages with
/// tool calls, three more calls; then an answer.
#[derive(Debug)]
struct ScriptedModel;

#[async_trait]
impl ChatClient for ScriptedModel {
    async fn get_response(&self, request: ChatRequest) -> Result<ChatResponse, ChatError> {
        let round = request
            .messages
            .iter()
            .filter(|message| message.function_calls().next().is_some())
            .count();
        let usage = Some(Usage {
            prompt_tokens: 100,
            completion_tokens: 10,
        });
        if round >= ROUNDS {
            return Ok(ChatResponse {
                messages: vec![Message::assistant("done")],
                model: Some("stand-in".to_owned()),
                finish_reason: Some("stop".to_owned()),
                usage,
                stopped: None,
            });
        }
        let call = |name: &str, arguments| {
            Content::FunctionCall(FunctionCall {
                call_id: format!("c{round}-{name}"),
                name: name.to_owned(),
                arguments,
            })
        };
        Ok(ChatResponse {
            messages: vec![Message::new(
                Role::Assistant,
                vec![
                    call("load_skill", json!({"skillName": "bench"})),
                    call(
                        "read_skill_resource",
                        json!({"skillName": "bench", "resourceName": "references/table.md"}),
                    ),
                    call(
                        "run_skill_script",
                        json!({"skillName": "bench", "scriptName": "scripts/echo.sh",
                               "arguments": {"round": round}}),
                    ),
                ],
            )],
            model: Some("stand-in".to_owned()),
            finish_reason: Some("tool_calls".to_owned()),
            usage,
            stopped: None,
        })
    }
}

/// The skill `bench` under `root`: instructions, a reference, a script.
fn write_skill(root: &Path) {
    let skill = root.join("bench");
    std::fs::create_dir_all(skill.join("references")).expect("references/");
    std::fs::create_dir_all(skill.join("scripts")).expect("scripts/");
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: bench\ndescription: Converts units for the benchmark.\nmetadata:\n  risk: read\n---\n\
         # Bench\n\nRead `references/table.md`, then run `scripts/echo.sh`.\n",
    )
    .expect("SKILL.md");
    std::fs::write(
        skill.join("references/table.md"),
        "| from | to | factor |\n|---|---|---|\n| mile | km | 1.609344 |\n".repeat(20),
    )
    .expect("table.md");
    std::fs::write(skill.join("scripts/echo.sh"), "echo converted\n").expect("echo.sh");
}

fn agent(root: &Path, audit: Option<&Path>) -> Agent {
    let runner = ProcessRunner::new();
    // Where the sandbox cannot hold the script to its tier, the rule still lets it run: the
    // bench measures the loop, not the approval question.
    let rules = ApprovalRules::new(AutoApprove::All).scripts_isolated(true);
    if !runner.isolates() {
        eprintln!("note: the script sandbox is not enforced on this machine");
    }
    let source = FileSkillsSource::builder()
        .root(root)
        .script_runner(Arc::new(runner))
        .build()
        .expect("the skills source");
    let mut limits = Limits::default();
    limits.max_identical_calls = 1_000;
    limits.max_auto_approvals = 1_000;
    let mut builder = Agent::builder(ScriptedModel)
        .skills(Arc::new(SkillsProvider::new(Arc::new(source))))
        .approval(rules)
        .limits(limits);
    if let Some(dir) = audit {
        let sink = FileAuditSink::at(dir).expect("the audit directory");
        builder = builder.audit(AuditSettings::new(Arc::new(sink), "bench"));
    }
    builder.build()
}

/// One run; checks that every call ran.
async fn run(agent: &Agent) {
    let mut session = Session::new();
    let response = agent
        .run("Convert 26.2 miles.", &mut session)
        .await
        .expect("the run");
    assert_eq!(response.text(), "done", "{:#?}", response.messages);
    let results = session
        .messages()
        .iter()
        .flat_map(|message| &message.contents)
        .filter(|content| matches!(content, Content::FunctionResult(result) if !result.is_error))
        .count();
    assert_eq!(results, CALLS, "every call ran: {:#?}", session.messages());
    black_box(session);
}

/// Warnings to stderr, as `skills` always has them (a bench writes its own diagnostics).
#[allow(clippy::disallowed_methods)]
fn warnings<S>() -> impl tracing_subscriber::Layer<S>
where
    S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
{
    tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(tracing_subscriber::filter::LevelFilter::WARN)
}

/// The bench's world: the receiver's process, the runtime, the two agents and the traced
/// subscriber.
struct Bench {
    receiver: std::process::Child,
    received: BufReader<std::process::ChildStdout>,
    runtime: tokio::runtime::Runtime,
    telemetry: Telemetry,
    traced: Dispatch,
    plain: Agent,
    audited: Agent,
    logs: tempfile::TempDir,
    _skills: tempfile::TempDir,
}

/// A configuration: its name, its agent and its subscriber.
type Configuration<'a> = (&'static str, &'a Agent, Option<&'a Dispatch>);

impl Bench {
    fn configurations(&self) -> [Configuration<'_>; 4] {
        [
            ("off", &self.plain, None),
            ("tracing", &self.plain, Some(&self.traced)),
            ("audit", &self.audited, None),
            ("both", &self.audited, Some(&self.traced)),
        ]
    }

    fn run(&self, (_, agent, dispatch): Configuration<'_>) {
        match dispatch {
            Some(dispatch) => self
                .runtime
                .block_on(run(agent).with_subscriber(dispatch.clone())),
            None => self.runtime.block_on(run(agent)),
        }
    }

    /// Stops the export and checks that the spans reached the receiver.
    fn finish(mut self) {
        let records = skillful_audit::AuditLog::at(self.logs.path().join("audit"))
            .records()
            .expect("the audit log")
            .len();
        self.telemetry.shutdown();
        drop(self.receiver.stdin.take());
        let mut counts = String::new();
        self.received
            .read_to_string(&mut counts)
            .expect("its counts");
        self.receiver.wait().expect("the receiver's exit");
        let (spans, scripts) = counts.trim().split_once(' ').expect("two counts");
        assert_ne!(scripts, "0", "the spans reached the receiver");
        eprintln!("{spans} spans received; {records} audit records written by the loop");
    }
}

fn set_up() -> Bench {
    let mut receiver = Command::new(std::env::current_exe().expect("the bench's executable"))
        .env(RECEIVER_VARIABLE, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the receiver's process");
    let mut received = BufReader::new(receiver.stdout.take().expect("its stdout"));
    let mut endpoint = String::new();
    received.read_line(&mut endpoint).expect("its endpoint");
    // SAFETY: no other thread runs yet; the exporter that reads these variables is built after.
    unsafe {
        for variable in EXPORT_VARIABLES
            .into_iter()
            .chain(["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"])
        {
            std::env::remove_var(variable);
        }
        std::env::set_var("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.trim());
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("the agent's runtime");
    let telemetry = {
        let _entered = runtime.enter();
        Telemetry::from_env("skillful-bench")
            .expect("the exporter")
            .expect("export is on")
    };
    // As `skills` has it: warnings to stderr always, the OTLP layer when export is on.
    tracing_subscriber::registry().with(warnings()).init();
    let traced = Dispatch::new(
        tracing_subscriber::registry()
            .with(telemetry.layer())
            .with(warnings()),
    );

    let skills = tempfile::tempdir().expect("a temporary directory");
    write_skill(skills.path());
    // On the disk the user's state directory is on (not a tmpfs): `target/`.
    let logs = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("a directory for logs");
    let plain = agent(skills.path(), None);
    let audited = agent(skills.path(), Some(&logs.path().join("audit")));
    Bench {
        receiver,
        received,
        runtime,
        telemetry,
        traced,
        plain,
        audited,
        logs,
        _skills: skills,
    }
}

fn tool_loop(c: &mut Criterion) {
    let bench = set_up();
    let mut group = c.benchmark_group(format!("tool_loop ({CALLS} calls per run)"));
    group.sample_size(20);
    group.warm_up_time(Duration::from_secs(2));
    group.measurement_time(Duration::from_secs(10));
    for configuration in bench.configurations() {
        group.bench_function(configuration.0, |b| b.iter(|| bench.run(configuration)));
    }
    group.finish();

    // Where the audit's time goes: one record of the loop's last run, written on its own (lock,
    // append, chain digest), with its `fdatasync` and without.
    let records = skillful_audit::AuditLog::at(bench.logs.path().join("audit"))
        .records()
        .expect("the audit log");
    let call = records
        .iter()
        .rev()
        .find(|record| record.event.tool.as_deref() == Some("run_skill_script"))
        .expect("a script call's record")
        .event
        .clone();
    let sink = FileAuditSink::at(bench.logs.path().join("alone")).expect("the audit directory");
    let mut group = c.benchmark_group("audit");
    group.sample_size(20);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(4));
    group.bench_function("FileAuditSink::record", |b| {
        b.iter(|| sink.record(call.clone()).expect("the record"));
    });
    // What the agent waits for: the append, its sync left to the background.
    group.bench_function("FileAuditSink::append", |b| {
        b.iter(|| sink.append(call.clone()).expect("the record"));
    });
    sink.sync().expect("the sync");
    group.finish();
    bench.finish();
}

/// `rounds` rounds of one run per configuration, in an order that turns each round; prints
/// each configuration's median run and the median of its rounds' differences from `off`.
fn interleaved(rounds: usize, block: usize) {
    let bench = set_up();
    let configurations = bench.configurations();
    for configuration in configurations {
        bench.run(configuration);
    }
    let mut times = vec![Vec::with_capacity(rounds); configurations.len()];
    for round in 0..rounds {
        for offset in 0..configurations.len() {
            let index = (round + offset) % configurations.len();
            let started = std::time::Instant::now();
            for _ in 0..block {
                bench.run(configurations[index]);
            }
            times[index].push(started.elapsed().as_secs_f64() * 1e3 / block as f64);
        }
    }
    println!("{rounds} rounds of {block} runs of {CALLS} calls per configuration, interleaved");
    for (index, (name, ..)) in configurations.iter().enumerate() {
        let mut differences: Vec<f64> =
            (0..rounds).map(|r| times[index][r] - times[0][r]).collect();
        println!(
            "{name:>8}: median run {:.2} ms, over `off` {:.3} ms per call",
            median(&mut times[index].clone()),
            median(&mut differences) / CALLS as f64
        );
    }
    bench.finish();
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

criterion_group!(benches, tool_loop);

fn main() {
    if std::env::var_os(RECEIVER_VARIABLE).is_some() {
        receive();
        return;
    }
    if let Some(value) = std::env::var_os(INTERLEAVED_VARIABLE) {
        let value = value.to_str().unwrap_or_default();
        let (rounds, block) = value.split_once('x').unwrap_or((value, "1"));
        match (rounds.parse(), block.parse()) {
            (Ok(rounds), Ok(block)) if block > 0 => interleaved(rounds, block),
            _ => panic!("{INTERLEAVED_VARIABLE}={value}: expected ROUNDS or ROUNDSxBLOCK"),
        }
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
