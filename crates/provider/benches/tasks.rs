//! What tasks cost: a script call watched by the provider's tasks against the same call without
//! them, a call becoming a task (answered with its id) and asked about at once, and `get_task`
//! while 50 tasks run in the process. Each figure is the latency of one tool call, over many
//! calls, as p50 and p99 (the bounds: ≤ 5 ms added by turning a run into a task and
//! reporting its status; `get_task` under 10 ms p99 with 50 tasks running).
//!
//! Run: `cargo bench -p skillful-provider --bench tasks`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skillful_core::SourceContext;
use skillful_inline::InlineSkillsSource;
use skillful_provider::{RunContext, SkillsProvider, TaskSettings, ToolOutput};
use tokio::sync::Notify;

#[path = "../tests/it/jobs.rs"]
mod jobs;

const CALLS: usize = 2_000;
const RUNNING: usize = 50;

async fn run(tasks: bool) -> RunContext {
    let mut builder = SkillsProvider::builder(Arc::new(InlineSkillsSource::new([jobs::jobs(
        Arc::new(Notify::new()),
    )])));
    if tasks {
        builder = builder.tasks(
            TaskSettings::default()
                .after(Duration::from_secs(60))
                .poll_after(Duration::from_millis(1)),
        );
    }
    let provider = builder.build().expect("the provider builds");
    provider
        .context(&SourceContext::isolated("bench"))
        .await
        .expect("the run's context")
}

async fn call(run: &RunContext, tool: &str, arguments: Value) -> (Duration, String) {
    let started = Instant::now();
    let output = run.tool(tool).expect("the tool").invoke(arguments).await;
    let took = started.elapsed();
    match output {
        ToolOutput::Text(text) => (took, text),
        ToolOutput::Error(error) => panic!("{tool} failed: {error}"),
    }
}

/// p50 and p99 of `times`, in microseconds.
fn percentiles(mut times: Vec<Duration>) -> (f64, f64) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e6;
    (at(0.50), at(0.99))
}

fn report(what: &str, times: Vec<Duration>) {
    let (p50, p99) = percentiles(times);
    println!("{what:<58} p50 {p50:>8.1} µs   p99 {p99:>8.1} µs");
}

async fn bench() {
    let quick = json!({"skillName": "jobs", "scriptName": "quick"});
    for tasks in [false, true] {
        let run = run(tasks).await;
        let mut times = Vec::with_capacity(CALLS);
        for _ in 0..CALLS {
            times.push(call(&run, "run_skill_script", quick.clone()).await.0);
        }
        let label = if tasks {
            "run_skill_script, ends within the threshold, tasks on"
        } else {
            "run_skill_script, tasks off"
        };
        report(label, times);
    }

    let run = run(true).await;
    let forever = json!({"skillName": "jobs", "scriptName": "forever"});
    let mut started = Vec::with_capacity(RUNNING);
    let mut became = Vec::with_capacity(RUNNING);
    let mut asked = Vec::with_capacity(RUNNING);
    for _ in 0..RUNNING {
        let (took, text) = call(&run, "run_skill_script", forever.clone()).await;
        became.push(took);
        let id = serde_json::from_str::<Value>(&text).expect("the task's answer")["task"].clone();
        asked.push(call(&run, "get_task", json!({"taskId": id})).await.0);
        started.push(id);
    }
    report("a call becomes a task (answered with its id)", became);
    report("get_task right after", asked);

    let mut times = Vec::with_capacity(CALLS);
    for i in 0..CALLS {
        let id = &started[i % RUNNING];
        times.push(call(&run, "get_task", json!({"taskId": id})).await.0);
    }
    report(&format!("get_task with {RUNNING} tasks running"), times);
}

fn main() {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(bench());
}
