//! What comparing two versions costs beyond their runs: `Comparison::of` over two benchmarks of
//! 20 evals × 10 runs with the skill (400 runs, 8 expectations each, 50 trigger queries a side),
//! the tests included (Fisher's exact test, permutation tests drawing 20,000 relabellings).
//! Against a run of a small model (seconds each), the figure is the overhead the issue bounds at
//! 5% of the runs.

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use skillful_eval::{Benchmark, Comparison, Version};

fn benchmark(skill_passes: usize, seconds: f64) -> Benchmark {
    let runs: Vec<serde_json::Value> = (0..20)
        .flat_map(|eval| (1..=10).map(move |run| (eval, run)))
        .map(|(eval, run)| {
            let passed = (eval + run + skill_passes) % 9;
            let passed = passed.min(8);
            json!({
                "eval_id": eval + 1, "eval_name": format!("eval-{}", eval + 1),
                "configuration": "with_skill", "run_number": run, "seed": run,
                "expectations": [],
                "result": {
                    "pass_rate": passed as f64 / 8.0, "passed": passed, "failed": 8 - passed,
                    "total": 8, "ungraded": 0, "time_seconds": seconds + (run as f64) / 10.0,
                    "tokens": 1_500 + 10 * run, "tokens_in": 1_200 + 10 * run,
                    "tokens_out": 300, "tool_calls": 3, "failed_tool_calls": 0,
                    "skill_loaded": true, "errors": 0
                }
            })
        })
        .collect();
    let summary = json!({
        "pass_rate": {"mean": 0.5, "stddev": 0.1}, "time_seconds": {"mean": seconds, "stddev": 0.1},
        "tokens": {"mean": 1500.0, "stddev": 10.0}, "runs": 200, "tool_call_validity": 1.0,
        "skill_loaded": 200, "errors": 0
    });
    serde_json::from_value(json!({
        "metadata": {
            "skill_name": "bench", "skill_path": "/skills/bench", "executor_model": null,
            "timestamp": "Mon, 07 Dec 2026 00:00:00 GMT", "evals_run": (1..=20).collect::<Vec<_>>(),
            "runs_per_configuration": 10, "seed": 1, "temperature": null, "mode": "guided"
        },
        "runs": runs,
        "run_summary": {"with_skill": summary, "without_skill": summary,
                        "delta": {"pass_rate": 0.0, "time_seconds": 0.0, "tokens": 0.0}},
        "triggers": {"queries": 50, "true_positives": 20, "false_positives": 5,
                     "true_negatives": 20, "false_negatives": 5, "precision": 0.8, "recall": 0.8}
    }))
    .expect("a benchmark")
}

fn compare(c: &mut Criterion) {
    let (a, b) = (benchmark(0, 6.0), benchmark(2, 5.5));
    c.bench_function("Comparison::of, 2 x 200 runs", |bencher| {
        bencher.iter(|| {
            Comparison::of(
                Version::new("a", None, a.clone()),
                Version::new("b", None, b.clone()),
            )
        });
    });
}

criterion_group!(benches, compare);
criterion_main!(benches);
