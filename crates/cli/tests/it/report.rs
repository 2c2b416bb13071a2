//! `skills stats` and `skills report` from a known audit log (written through the library's
//! writer at fixed times) and known eval workspaces: the figures, the report's tables, its
//! escaping of hostile names, and the page in a real headless browser (Chromium): it renders
//! without a JavaScript error and its charts draw the expected number of data points.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use skillful_audit::{Actor, AuditEvent, EventKind, FileAuditSink, SkillRef, Tokens};

use crate::common::{command_with_state, json_of, text};

/// 2026-11-28T09:00:00Z: the first record's time.
const FIRST: u64 = 1_795_856_400;
const HOUR: u64 = 3600;
const DAY: u64 = 86_400;
/// A skill name no file skill could have, as a record may still carry it (an MCP server's).
const HOSTILE: &str = "<script>alert(1)</script>";
/// A skill name in a benchmark, as a tampered workspace may hold it.
const HOSTILE_EVAL: &str = "<img src=x onerror=alert(2)>";

fn event(kind: EventKind, actor: Actor, tool: &str, skill: &str, session: &str) -> AuditEvent {
    let mut event = AuditEvent::new(kind, "ada", "skills run", actor);
    event.tool = Some(tool.to_owned());
    event.session = Some(session.to_owned());
    event.skill = Some(SkillRef::new(skill, "files", "explicit"));
    event
}

fn ran(mut event: AuditEvent, micros: u64, is_error: bool) -> AuditEvent {
    event.duration_us = Some(micros);
    event.is_error = Some(is_error);
    event.decision = Some("approved".to_owned());
    event
}

fn run_ended(session: &str, input: u64, output: u64) -> AuditEvent {
    let mut event = AuditEvent::new(EventKind::Run, "ada", "skills run", Actor::Model);
    event.session = Some(session.to_owned());
    event.tokens = Some(Tokens { input, output });
    event
}

fn at(offset: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(FIRST + offset)
}

/// The known log: two sessions of `converter` two days apart, a runtime activation of a skill
/// with a hostile name, and one record before the period.
fn write_log(state: &Path) {
    let sink = FileAuditSink::at(state.join("skillful/audit")).unwrap();
    let model = Actor::Model;
    let records = [
        // Before `--since`: counted nowhere.
        (
            0,
            ran(
                event(EventKind::ToolCall, model, "load_skill", "converter", "s0"),
                1_000_000,
                false,
            ),
        ),
        (
            DAY,
            ran(
                event(EventKind::ToolCall, model, "load_skill", "converter", "s1"),
                2000,
                false,
            ),
        ),
        (
            DAY + HOUR,
            ran(
                event(
                    EventKind::ToolCall,
                    model,
                    "run_skill_script",
                    "converter",
                    "s1",
                ),
                10_000,
                true,
            ),
        ),
        (DAY + 2 * HOUR, run_ended("s1", 100, 20)),
        (
            3 * DAY,
            ran(
                event(
                    EventKind::ToolCall,
                    Actor::Runtime,
                    "load_skill",
                    HOSTILE,
                    "s3",
                ),
                4000,
                false,
            ),
        ),
        (
            3 * DAY + HOUR,
            event(
                EventKind::Refusal,
                model,
                "run_skill_script",
                "converter",
                "s2",
            ),
        ),
        (
            3 * DAY + 2 * HOUR,
            ran(
                event(
                    EventKind::ToolCall,
                    model,
                    "read_skill_resource",
                    "converter",
                    "s2",
                ),
                6000,
                false,
            ),
        ),
        (3 * DAY + 3 * HOUR, run_ended("s2", 50, 5)),
    ];
    for (offset, event) in records {
        sink.record_at(event, at(offset)).unwrap();
    }
}

/// A `benchmark.json` as `skills eval` writes it.
fn benchmark(skill: &str, with: Option<f64>, without: Option<f64>) -> Value {
    let summary = |rate: Option<f64>| {
        json!({
            "pass_rate": rate.map(|mean| json!({"mean": mean, "stddev": 0.0})),
            "time_seconds": {"mean": 1.5, "stddev": 0.0},
            "tokens": {"mean": 300.0, "stddev": 0.0},
            "runs": 2,
            "tool_call_validity": 1.0,
            "skill_loaded": 2,
            "errors": 0
        })
    };
    json!({
        "metadata": {
            "skill_name": skill,
            "skill_path": "/skills/x",
            "executor_model": "qwen2.5-coder-0.5b",
            "timestamp": "Sat, 28 Nov 2026 10:00:00 GMT",
            "evals_run": [1, 2],
            "runs_per_configuration": 1,
            "seed": 1,
            "temperature": 0.0
        },
        "runs": [],
        "run_summary": {
            "with_skill": summary(with),
            "without_skill": summary(without),
            "delta": {
                "pass_rate": with.zip(without).map(|(a, b)| a - b),
                "time_seconds": 0.0,
                "tokens": 0.0
            }
        },
        "triggers": null
    })
}

/// The eval workspaces: `converter` over three iterations (the last unfinished), and one whose
/// benchmark names a hostile skill.
fn write_evals(dir: &Path) {
    let iterations = [
        (
            "converter-0123456789abcdef/iteration-1",
            benchmark("converter", Some(0.5), Some(0.25)),
        ),
        (
            "converter-0123456789abcdef/iteration-2",
            benchmark("converter", Some(1.0), None),
        ),
        (
            "hostile/iteration-1",
            benchmark(HOSTILE_EVAL, Some(0.75), Some(0.5)),
        ),
    ];
    for (iteration, benchmark) in iterations {
        let iteration = dir.join(iteration);
        std::fs::create_dir_all(&iteration).unwrap();
        std::fs::write(iteration.join("benchmark.json"), benchmark.to_string()).unwrap();
    }
    std::fs::create_dir_all(dir.join("converter-0123456789abcdef/iteration-3")).unwrap();
    // A comparison of two versions of converter (`skills eval --compare`), with a hostile label.
    let version = |label: &str, passed: usize| {
        let mut benchmark = benchmark("converter", Some(passed as f64 / 2.0), None);
        benchmark["runs"] = json!([{
            "eval_id": 1, "eval_name": "eval-1", "configuration": "with_skill",
            "run_number": 1, "seed": 1, "expectations": [],
            "result": {
                "pass_rate": passed as f64 / 2.0, "passed": passed, "failed": 2 - passed,
                "total": 2, "ungraded": 0, "time_seconds": 1.5, "tokens": 300,
                "tokens_in": 250, "tokens_out": 50, "tool_calls": 2, "failed_tool_calls": 0,
                "skill_loaded": true, "errors": 0
            }
        }]);
        skillful_eval::Version::new(label, None, serde_json::from_value(benchmark).unwrap())
    };
    let comparison =
        skillful_eval::Comparison::of(version(HOSTILE_EVAL, 1), version("converter@v2", 2));
    let compare = dir.join("converter-0123456789abcdef/compare");
    std::fs::create_dir_all(&compare).unwrap();
    std::fs::write(
        compare.join("comparison.json"),
        serde_json::to_string(&comparison).unwrap(),
    )
    .unwrap();
}

/// A skill root with `converter` and `never-used`.
fn write_roots(root: &Path) {
    for name in ["converter", "never-used"] {
        std::fs::create_dir_all(root.join(name)).unwrap();
        std::fs::write(
            root.join(name).join("SKILL.md"),
            format!("---\nname: {name}\ndescription: A skill for the report tests.\n---\nBody.\n"),
        )
        .unwrap();
    }
}

struct Fixture {
    state: tempfile::TempDir,
    root: tempfile::TempDir,
    evals: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        let fixture = Self {
            state: tempfile::tempdir().unwrap(),
            root: tempfile::tempdir().unwrap(),
            evals: tempfile::tempdir().unwrap(),
        };
        write_log(fixture.state.path());
        write_roots(fixture.root.path());
        write_evals(fixture.evals.path());
        fixture
    }

    fn skills(&self, args: &[&str]) -> (Option<i32>, String, String) {
        let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        let output = command_with_state(&args, self.state.path())
            .output()
            .unwrap();
        (
            output.status.code(),
            text(&output.stdout),
            text(&output.stderr),
        )
    }

    /// `skills report` of the fixture from 2026-11-29 on, written to `out`.
    fn report(&self, out: &Path) -> String {
        let (code, stdout, stderr) = self.skills(&[
            "report",
            self.root.path().to_str().unwrap(),
            "--since",
            "2026-11-29",
            "--evals",
            self.evals.path().to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(0), "{stderr}");
        assert_eq!(stdout.trim_end(), out.display().to_string());
        std::fs::read_to_string(out).unwrap()
    }
}

/// The days from 2026-11-29 to today (UTC), both included: the usage chart's bars per skill.
fn days_to_today() -> usize {
    let today = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
        / DAY;
    (today - (FIRST + DAY) / DAY + 1) as usize
}

/// The figures themselves are skillful-report's test
/// (`each_skills_figures_count_its_calls_failures_refusals_times_and_tokens`); here, that
/// `skills stats` reads the user's log, knows the skills of the root it is given and takes
/// `--since`.
#[test]
fn stats_count_the_known_log() {
    let fixture = Fixture::new();
    let root = fixture.root.path().to_str().unwrap();
    let output = command_with_state(
        &["stats", root, "--json", "--since", "2026-11-29"].map(str::to_owned),
        fixture.state.path(),
    )
    .output()
    .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stats = json_of("stats", &output);
    assert_eq!(stats["since"], "2026-11-29T00:00:00.000Z");
    assert_eq!(stats["unused"], json!(["never-used"]));
    let converter = &stats["skills"]["converter"];
    assert_eq!(converter["activations"], json!({"model": 1}), "{stats}");
    assert_eq!(converter["tokens"], 175, "{stats}");
    assert_eq!(
        stats["skills"][HOSTILE]["activations"],
        json!({"runtime": 1})
    );

    // The whole log: the first session's activation too.
    let (_, stdout, _) = fixture.skills(&["stats", root, "--json"]);
    let stats: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        stats["skills"]["converter"]["activations"],
        json!({"model": 2})
    );
}

#[test]
fn the_report_holds_the_stats_and_eval_tables_and_escapes_every_name() {
    let fixture = Fixture::new();
    let out = fixture.evals.path().join("report.html");
    let html = fixture.report(&out);

    // The usage table: the `skills stats` figures.
    assert!(
        html.contains(
            "<tr><td>converter</td><td>1</td><td title=\"load_skill: 1, read_skill_resource: 1, \
             run_skill_script: 1\">3</td><td>1</td><td>1</td><td>6.0 ms</td><td>10.0 ms</td>\
             <td>175</td><td>2026-12-01T11:00:00.000Z</td></tr>"
        ),
        "{html}"
    );
    assert!(
        html.contains(
            "<tr><td>&lt;script&gt;alert(1)&lt;/script&gt;</td><td>1</td><td \
             title=\"load_skill: 1\">1</td><td>0</td><td>0</td><td>4.0 ms</td><td>4.0 ms</td>\
             <td>0</td><td>2026-12-01T09:00:00.000Z</td></tr>"
        ),
        "{html}"
    );
    assert!(
        html.contains("Never used in the period: <code>never-used</code>."),
        "{html}"
    );
    // The eval tables, newest iteration first (how each is shown is the report crate's to test).
    assert!(
        html.contains(
            "<tr><td>2</td><td>Sat, 28 Nov 2026 10:00:00 GMT</td><td>qwen2.5-coder-0.5b</td>\
             <td>2 × 1</td><td>100% ± 0</td><td>–</td><td>–</td><td>2/2</td><td>–</td></tr>\n\
             <tr><td>1</td>"
        ),
        "{html}"
    );
    assert!(
        html.contains("<h3>&lt;img src=x onerror=alert(2)&gt;</h3>"),
        "{html}"
    );

    // No name became markup: the only script elements are the page's own.
    assert!(
        !html.contains(HOSTILE) && !html.contains(HOSTILE_EVAL),
        "{html}"
    );
    assert_eq!(html.matches("<script").count(), 2, "{html}");

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&out).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[test]
fn without_out_the_report_goes_to_the_state_directory_and_dash_is_stdout() {
    let fixture = Fixture::new();
    let (code, stdout, stderr) = fixture.skills(&[
        "report",
        fixture.root.path().to_str().unwrap(),
        "--evals",
        fixture.evals.path().to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    let path = fixture.state.path().join("skillful/report.html");
    assert_eq!(stdout.trim_end(), path.display().to_string());
    assert!(
        std::fs::read_to_string(path)
            .unwrap()
            .contains("<td>converter</td>")
    );
}

/// Chromium, when it can run here: its path and whether it needs `--no-sandbox` (as root).
fn chromium() -> Option<(PathBuf, bool)> {
    let path = PathBuf::from("chromium");
    let runs = Command::new(&path)
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    if !runs {
        skillful_test_support::prerequisite_missing(
            "Chromium is missing (apt-get install chromium): the report is checked in a real browser",
        );
        return None;
    }
    #[cfg(unix)]
    let root = {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata("/proc/self").is_ok_and(|proc| proc.uid() == 0)
    };
    #[cfg(not(unix))]
    let root = false;
    Some((path, root))
}

/// What Chromium made of `page`: the DOM after its scripts ran, and what it logged.
fn render(browser: &(PathBuf, bool), page: &Path) -> (String, String) {
    let profile = tempfile::tempdir().unwrap();
    let mut command = Command::new(&browser.0);
    command
        .args([
            "--headless",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .env("HOME", profile.path());
    if browser.1 {
        command.arg("--no-sandbox");
    }
    let output = command
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    (text(&output.stdout), text(&output.stderr))
}

/// The value of the attribute `name` of the dumped `<html>` element.
fn html_attribute(dom: &str, name: &str) -> Option<String> {
    let start = dom.find("<html")?;
    let tag = &dom[start..start + dom[start..].find('>')?];
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    Some(tag[at..at + tag[at..].find('"')?].to_owned())
}

/// The lines of the page's console (errors, uncaught exceptions, CSP refusals).
fn console(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|line| line.contains(":CONSOLE"))
        .collect()
}

#[test]
fn the_report_renders_in_chromium_without_errors_and_draws_every_point() {
    let Some(browser) = chromium() else {
        return;
    };
    let fixture = Fixture::new();
    let out = fixture.evals.path().join("report.html");
    let html = fixture.report(&out);

    let (dom, log) = render(&browser, &out);
    assert_eq!(html_attribute(&dom, "data-errors"), None, "{dom}");
    assert_eq!(console(&log), Vec::<&str>::new(), "{log}");
    assert_eq!(
        html_attribute(&dom, "data-status").as_deref(),
        Some("ok"),
        "{dom}"
    );
    // A bar per day per skill that was called (two), a dot per graded pass rate: converter's
    // 0.5 and 0.25, then 1.0 (nothing graded without it); the other's 0.75 and 0.5.
    let bars = 2 * days_to_today();
    let dots = 5;
    assert_eq!(dom.matches("<rect class=\"point").count(), bars, "{dom}");
    assert_eq!(dom.matches("<circle class=\"point").count(), dots, "{dom}");
    // The comparison's one share with both sides measured (the pass rate): A's bar and B's.
    assert_eq!(
        dom.matches("<rect class=\"bar version-").count(),
        2,
        "{dom}"
    );
    assert_eq!(
        html_attribute(&dom, "data-points"),
        Some((bars + dots + 2).to_string())
    );
    assert_eq!(dom.matches("<svg class=\"chart eval\"").count(), 2);
    // The hostile names are text in the drawn charts, never elements.
    assert!(
        dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{dom}"
    );
    assert!(dom.contains("&lt;img src=x onerror=alert(2)&gt;"), "{dom}");
    assert!(!dom.contains("<img"), "{dom}");
    assert_eq!(dom.matches("<script").count(), 2, "{dom}");

    // The check sees a thrown error: the same page with data its script cannot parse.
    let start = html.find("id=\"report-data\">").unwrap() + "id=\"report-data\">".len();
    let broken = format!("{}{{\"usage\": [{}", &html[..start], &html[start..]);
    let broken_page = fixture.evals.path().join("broken.html");
    std::fs::write(&broken_page, broken).unwrap();
    let (dom, log) = render(&browser, &broken_page);
    assert_ne!(html_attribute(&dom, "data-status").as_deref(), Some("ok"));
    assert!(
        html_attribute(&dom, "data-errors").is_some_and(|errors| errors.contains("SyntaxError")),
        "{dom}"
    );
    assert!(
        console(&log)
            .iter()
            .any(|line| line.contains("Uncaught SyntaxError")),
        "{log}"
    );
    // And a script the page did not bring is refused (the Content Security Policy), which the
    // console shows.
    let injected = html.replace("</body>", "<script>document.title = 'ran';</script></body>");
    std::fs::write(&broken_page, injected).unwrap();
    let (dom, log) = render(&browser, &broken_page);
    assert!(dom.contains("<title>Skills report</title>"), "{dom}");
    assert!(
        console(&log)
            .iter()
            .any(|line| line.contains("Content Security Policy")),
        "{log}"
    );
}
