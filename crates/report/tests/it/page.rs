//! A report of known audit records and eval workspaces: the period's figures, the eval
//! iterations, and hostile names kept as text.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::json;
use skillful_audit::{Actor, AuditEvent, AuditRecord, EventKind, SkillRef, Tokens, format_time};
use skillful_eval::History;
use skillful_report::Report;

/// 2026-11-28T09:00:00Z: the first record's time.
const FIRST: u64 = 1_795_856_400;
const HOUR: u64 = 3600;
const DAY: u64 = 86_400;
/// A skill name no file skill could have, as a record may still carry it (an MCP server's).
const HOSTILE: &str = "<script>alert(1)</script>";

fn at(offset: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(FIRST + offset)
}

/// A call of `tool` on `skill` by `actor` in `session` that took `micros`.
fn call(actor: Actor, tool: &str, skill: &str, session: &str, micros: u64) -> AuditEvent {
    let mut event = AuditEvent::new(EventKind::ToolCall, "ada", "skills run", actor);
    event.tool = Some(tool.to_owned());
    event.session = Some(session.to_owned());
    event.duration_us = Some(micros);
    event.is_error = Some(false);
    event.skill = Some(SkillRef::new(skill, "files", "explicit"));
    event
}

/// `event` as the `seq`th record, `offset` seconds after [`FIRST`].
fn record(seq: u64, offset: u64, event: AuditEvent) -> AuditRecord {
    AuditRecord {
        seq,
        time: format_time(at(offset)),
        prev: None,
        event,
    }
}

/// A `load_skill` call of `skill` by the model, `offset` seconds after [`FIRST`].
fn loaded(seq: u64, offset: u64, skill: &str) -> AuditRecord {
    let session = format!("s{seq}");
    record(
        seq,
        offset,
        call(Actor::Model, "load_skill", skill, &session, 2000),
    )
}

/// A finished iteration's `benchmark.json` of `converter` with these mean pass rates.
fn benchmark(with: f64, without: Option<f64>) -> String {
    let summary = |rate: Option<f64>| {
        json!({"pass_rate": rate.map(|mean| json!({"mean": mean, "stddev": 0.0})),
               "time_seconds": null, "tokens": null, "runs": 1, "tool_call_validity": null,
               "skill_loaded": 1, "errors": 0})
    };
    json!({
        "metadata": {"skill_name": "converter", "skill_path": "/skills/converter",
                     "executor_model": "a-model", "timestamp": "Sat, 28 Nov 2026 10:00:00 GMT",
                     "evals_run": [1], "runs_per_configuration": 1, "seed": null,
                     "temperature": null},
        "runs": [],
        "run_summary": {"with_skill": summary(Some(with)), "without_skill": summary(without),
                        "delta": {"pass_rate": without.map(|without| with - without),
                                  "time_seconds": null, "tokens": null}},
        "triggers": null
    })
    .to_string()
}

#[test]
fn the_period_s_usage_is_counted_and_every_name_stays_text() {
    let records = [
        // Before the period: counted nowhere.
        loaded(0, 0, "converter"),
        loaded(1, DAY, "converter"),
        loaded(2, 2 * DAY, "converter"),
        loaded(3, 3 * DAY, HOSTILE),
    ];
    let known = ["converter".to_owned(), "never-used".to_owned()];
    let report = Report::new(
        &records,
        Some("2026-11-29T00:00:00.000Z"),
        &known,
        &[],
        at(3 * DAY),
    );

    assert_eq!(
        report.stats.skills["converter"].calls["load_skill"], 2,
        "{:?}",
        report.stats
    );
    assert_eq!(report.stats.unused, ["never-used"]);
    assert_eq!(
        report.usage.days,
        ["2026-11-29", "2026-11-30", "2026-12-01"]
    );

    let html = report.html();
    assert!(
        html.contains("Never used in the period: <code>never-used</code>."),
        "{html}"
    );
    assert!(
        html.contains("<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>"),
        "{html}"
    );
    // The only script elements are the page's own; the data's copy of the name cannot end one.
    assert!(!html.contains(HOSTILE), "{html}");
    assert_eq!(html.matches("<script").count(), 2, "{html}");
    assert!(html.contains(r"\u003cscript\u003ealert(1)\u003c/script\u003e"));
    assert!(html.contains("default-src 'none'"));
    // Nothing is fetched: no URL other than the SVG namespace's, which names and loads nothing.
    let urls: Vec<&str> = html
        .match_indices("://")
        .map(|(at, _)| &html[at.saturating_sub(4)..(at + 26).min(html.len())])
        .collect();
    assert!(
        urls.iter()
            .all(|url| url.starts_with("http://www.w3.org/2000/svg")),
        "{urls:?}"
    );
}

#[test]
fn an_eval_workspace_shows_each_finished_iteration_and_names_the_unfinished_one() {
    let evals = tempfile::tempdir().unwrap();
    let workspace = evals.path().join("converter-0123456789abcdef");
    for (iteration, text) in [
        ("iteration-1", benchmark(0.5, Some(0.25))),
        ("iteration-2", benchmark(1.0, None)),
    ] {
        std::fs::create_dir_all(workspace.join(iteration)).unwrap();
        std::fs::write(workspace.join(iteration).join("benchmark.json"), text).unwrap();
    }
    std::fs::create_dir_all(workspace.join("iteration-3")).unwrap();
    let histories = History::all_in(evals.path()).unwrap();

    let report = Report::new(&[], None, &[], &histories, at(0));

    let points = report.eval_points();
    let [(skill, points)] = points.as_slice() else {
        panic!("one skill: {points:?}");
    };
    assert_eq!(skill, "converter");
    let rates: Vec<_> = points
        .iter()
        .map(|point| (point.number, point.with, point.without))
        .collect();
    assert_eq!(rates, [(1, Some(0.5), Some(0.25)), (2, Some(1.0), None)]);
    let html = report.html();
    assert!(
        html.contains("<td>50% ± 0</td><td>25% ± 0</td><td>+25 pts</td>"),
        "{html}"
    );
    assert!(
        html.contains("iteration-3/benchmark.json</code>: missing (the evaluation did not finish)"),
        "{html}"
    );
}

#[test]
fn each_skills_figures_count_its_calls_failures_refusals_times_and_tokens() {
    let run_ended = |session: &str, input: u64, output: u64| {
        let mut event = AuditEvent::new(EventKind::Run, "ada", "skills run", Actor::Model);
        event.session = Some(session.to_owned());
        event.tokens = Some(Tokens { input, output });
        event
    };
    let mut failed = call(Actor::Model, "run_skill_script", "converter", "s1", 10_000);
    failed.is_error = Some(true);
    let mut refused = call(Actor::Model, "run_skill_script", "converter", "s2", 0);
    refused.event = EventKind::Refusal;
    refused.duration_us = None;
    refused.is_error = None;
    let records = [
        // Before the period: counted only in the whole log.
        record(
            0,
            0,
            call(Actor::Model, "load_skill", "converter", "s0", 1_000_000),
        ),
        record(
            1,
            DAY,
            call(Actor::Model, "load_skill", "converter", "s1", 2000),
        ),
        record(2, DAY + HOUR, failed),
        record(3, DAY + 2 * HOUR, run_ended("s1", 100, 20)),
        record(
            4,
            3 * DAY,
            call(Actor::Runtime, "load_skill", HOSTILE, "s3", 4000),
        ),
        record(5, 3 * DAY + HOUR, refused),
        record(
            6,
            3 * DAY + 2 * HOUR,
            call(Actor::Model, "read_skill_resource", "converter", "s2", 6000),
        ),
        record(7, 3 * DAY + 3 * HOUR, run_ended("s2", 50, 5)),
    ];
    let known = ["converter".to_owned(), "never-used".to_owned()];
    let stats = |since| Report::new(&records, since, &known, &[], at(4 * DAY)).stats;

    let period = stats(Some("2026-11-29T00:00:00.000Z"));
    assert_eq!(
        serde_json::to_value(&period.skills["converter"]).unwrap(),
        json!({
            "activations": {"model": 1},
            "calls": {"load_skill": 1, "read_skill_resource": 1, "run_skill_script": 1},
            "failures": 1,
            "refusals": 1,
            // Nearest rank over 2, 6 and 10 ms; the record before the period is left out.
            "median_ms": 6.0,
            "p95_ms": 10.0,
            // The two sessions that used it: 100 + 20 and 50 + 5.
            "tokens": 175,
            "last_used": "2026-12-01T11:00:00.000Z"
        })
    );
    assert_eq!(
        serde_json::to_value(&period.skills[HOSTILE]).unwrap(),
        json!({
            "activations": {"runtime": 1},
            "calls": {"load_skill": 1},
            "failures": 0,
            "refusals": 0,
            "median_ms": 4.0,
            "p95_ms": 4.0,
            "tokens": 0,
            "last_used": "2026-12-01T09:00:00.000Z"
        })
    );
    assert_eq!(period.unused, ["never-used"]);

    // The whole log: the first session's activation too.
    let whole = stats(None);
    assert_eq!(whole.skills["converter"].activations["model"], 2);
    assert_eq!(whole.skills["converter"].p95_ms, Some(1000.0));
}
