//! The page: HTML tables written here (every text escaped), the charts' data as JSON in a
//! `<script type="application/json">`, the inline style and script, and a Content Security
//! Policy that admits only them.

use std::fmt::Write as _;

use base64::Engine as _;
use sha2::{Digest, Sha256};
use skillful_audit::Stats;
use skillful_eval::{ConfigurationSummary, EvalSummary, History, Stat};

use crate::Report;

/// The charts' script.
const SCRIPT: &str = include_str!("report.js");
/// The page's style.
const STYLE: &str = include_str!("report.css");

/// `text` as HTML text or attribute value: `&`, `<`, `>`, `"` and `'` as character references.
pub(crate) fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            other => escaped.push(other),
        }
    }
    escaped
}

/// `value` as JSON that can stand inside a `<script>` element: `<`, `>` and `&` (and the line
/// separators JavaScript once treated as line ends) as `\u` escapes, so that no text can close
/// the element or open a comment.
fn script_json(value: &serde_json::Value) -> String {
    let mut json = String::new();
    for character in value.to_string().chars() {
        match character {
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(json, "\\u{:04x}", u32::from(character));
            }
            other => json.push(other),
        }
    }
    json
}

/// The CSP source of an inline element's text: `'sha256-…'`.
fn hash_source(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

pub(crate) fn page(report: &Report) -> String {
    let data = serde_json::json!({
        "usage": report.usage,
        "evals": report
            .eval_points()
            .into_iter()
            .map(|(skill, iterations)| serde_json::json!({"skill": skill, "iterations": iterations}))
            .collect::<Vec<_>>(),
        "comparisons": report
            .comparisons
            .iter()
            .map(|comparison| serde_json::json!({
                "skill": comparison.skill,
                "a": comparison.a.label,
                "b": comparison.b.label,
                "figures": comparison.figures,
            }))
            .collect::<Vec<_>>(),
    });
    let mut page = String::new();
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src {}; \
         script-src {}; base-uri 'none'; form-action 'none'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Skills report</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>Skills report</h1>\n<p class=\"meta\">Made {}{}.</p>\n",
        hash_source(STYLE),
        hash_source(SCRIPT),
        escape(&report.generated),
        report
            .stats
            .since
            .as_deref()
            .map(|since| format!(", usage since {}", escape(since)))
            .unwrap_or_default(),
    );
    usage_section(&mut page, report);
    eval_section(&mut page, report);
    comparison_section(&mut page, report);
    let _ = write!(
        page,
        "<script type=\"application/json\" id=\"report-data\">{}</script>\n\
         <script>{SCRIPT}</script>\n</body>\n</html>\n",
        script_json(&data)
    );
    page
}

fn usage_section(page: &mut String, report: &Report) {
    let stats = &report.stats;
    page.push_str("<h2>Usage per skill</h2>\n");
    if report.usage.skills.is_empty() {
        page.push_str("<p class=\"note\">No skill was called in the period.</p>\n");
    } else {
        let _ = writeln!(
            page,
            "<p class=\"note\">Tool calls per day, {} to {}.</p>",
            escape(&report.usage.days[0]),
            escape(report.usage.days.last().map_or("", String::as_str))
        );
    }
    page.push_str("<div id=\"usage-chart\"></div>\n");
    if !stats.skills.is_empty() {
        usage_table(page, stats);
    }
    if !stats.unused.is_empty() {
        let names = stats
            .unused
            .iter()
            .map(|name| format!("<code>{}</code>", escape(name)))
            .collect::<Vec<_>>()
            .join(", ");
        let _ = writeln!(
            page,
            "<p id=\"unused\">Never used in the period: {names}.</p>"
        );
    }
}

/// The `skills stats` figures, a row per skill.
fn usage_table(page: &mut String, stats: &Stats) {
    page.push_str(
        "<table id=\"usage-table\">\n<thead><tr><th>Skill</th><th>Activations</th>\
         <th>Calls</th><th>Failed</th><th>Refused</th><th>Median</th><th>p95</th>\
         <th>Tokens</th><th>Last used</th></tr></thead>\n<tbody>\n",
    );
    let ms = |value: Option<f64>| value.map_or("–".to_owned(), |ms| format!("{ms:.1} ms"));
    for (name, skill) in &stats.skills {
        let activations: u64 = skill.activations.values().sum();
        let calls: u64 = skill.calls.values().sum();
        let by_tool = skill
            .calls
            .iter()
            .map(|(tool, count)| format!("{tool}: {count}"))
            .collect::<Vec<_>>()
            .join(", ");
        let _ = writeln!(
            page,
            "<tr><td>{}</td><td>{activations}</td><td title=\"{}\">{calls}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(name),
            escape(&by_tool),
            skill.failures,
            skill.refusals,
            ms(skill.median_ms),
            ms(skill.p95_ms),
            skill.tokens,
            escape(skill.last_used.as_deref().unwrap_or("–")),
        );
    }
    page.push_str("</tbody>\n</table>\n");
}

fn eval_section(page: &mut String, report: &Report) {
    page.push_str("<h2>Evaluations</h2>\n");
    if report.evals.is_empty() && report.record.is_empty() {
        page.push_str(
            "<p class=\"note\">No evaluation found; run <code>skills eval SKILL_DIR</code>.</p>\n",
        );
    } else {
        page.push_str(
            "<p class=\"note\">Mean pass rate of the evals with and without the skill, per \
             iteration of <code>skills eval</code>.</p>\n",
        );
    }
    page.push_str("<div id=\"eval-charts\" class=\"charts\"></div>\n");
    for history in &report.evals {
        eval_table(page, history);
    }
    for (skill, summaries) in report.recorded() {
        record_table(page, skill, &summaries);
    }
}

fn comparison_section(page: &mut String, report: &Report) {
    if report.comparisons.is_empty() {
        return;
    }
    page.push_str(
        "<h2>Comparisons of two versions</h2>\n<p class=\"note\">Each figure of version A \
         beside version B, on the same evals and seeds (<code>skills eval --compare A B</code>), \
         with the verdict on B at 95%.</p>\n<div id=\"comparison-charts\" class=\"charts\"></div>\n",
    );
    for comparison in &report.comparisons {
        let _ = writeln!(
            page,
            "<h3>{}: {} (A), {} (B)</h3>\n<table class=\"eval-table\">\n<thead><tr>\
             <th>Figure</th><th>A</th><th>B</th><th>B against A</th><th>p</th><th>Test</th>\
             </tr></thead>\n<tbody>",
            escape(&comparison.skill),
            escape(&comparison.a.label),
            escape(&comparison.b.label)
        );
        for figure in &comparison.figures {
            let number =
                |value: Option<f64>| value.map_or("–".to_owned(), |value| format!("{value:.2}"));
            let verdict = serde_json::to_value(figure.verdict)
                .ok()
                .and_then(|value| value.as_str().map(str::to_owned))
                .unwrap_or_default();
            let _ = writeln!(
                page,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&figure.name),
                number(figure.a),
                number(figure.b),
                escape(&verdict),
                number(figure.p_value),
                escape(&figure.test)
            );
        }
        page.push_str("</tbody>\n</table>\n");
    }
}

/// One skill's every evaluation, newest first: when, the `SKILL.md` it ran, the model, the pass
/// rates and whether it passed.
fn record_table(page: &mut String, skill: &str, summaries: &[&EvalSummary]) {
    let _ = writeln!(
        page,
        "<h3>{} (every evaluation)</h3>\n<table class=\"eval-table\">\n<thead><tr><th>When</th>\
         <th>SKILL.md</th><th>Model</th><th>Mode</th><th>With the skill</th><th>Without</th>\
         <th>Passed</th></tr></thead>\n<tbody>",
        escape(skill)
    );
    for summary in summaries.iter().rev() {
        let digest: String = summary
            .digest
            .as_deref()
            .unwrap_or("–")
            .chars()
            .take(12)
            .collect();
        let _ = writeln!(
            page,
            "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td></tr>",
            escape(&summary.time),
            escape(&digest),
            escape(summary.model.as_deref().unwrap_or("–")),
            escape(&summary.mode),
            percent(summary.pass_rate),
            percent(summary.baseline),
            if summary.passed { "yes" } else { "no" },
        );
    }
    page.push_str("</tbody>\n</table>\n");
}

fn percent(value: Option<f64>) -> String {
    value.map_or("–".to_owned(), |value| format!("{:.0}%", value * 100.0))
}

fn eval_table(page: &mut String, history: &History) {
    let name = history.skill_name().unwrap_or("(no finished iteration)");
    let _ = writeln!(
        page,
        "<h3>{}</h3>\n<p class=\"meta\"><code>{}</code></p>",
        escape(name),
        escape(&history.workspace.display().to_string())
    );
    if !history.iterations.is_empty() {
        page.push_str(
            "<table class=\"eval-table\">\n<thead><tr><th>Iteration</th><th>When</th>\
             <th>Model</th><th>Evals × runs</th><th>With the skill</th><th>Without</th>\
             <th>Delta</th><th>Skill loaded</th><th>Triggers (precision / recall)</th></tr>\
             </thead>\n<tbody>\n",
        );
        for iteration in history.iterations.iter().rev() {
            let benchmark = &iteration.benchmark;
            let summary = &benchmark.run_summary;
            let triggers = benchmark.triggers.map_or("–".to_owned(), |triggers| {
                format!("{} / {}", share(triggers.precision), share(triggers.recall))
            });
            let _ = writeln!(
                page,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{} × {}</td><td>{}</td><td>{}</td>\
                 <td>{}</td><td>{}/{}</td><td>{}</td></tr>",
                iteration.number,
                escape(&benchmark.metadata.timestamp),
                escape(benchmark.metadata.executor_model.as_deref().unwrap_or("–")),
                benchmark.metadata.evals_run.len(),
                benchmark.metadata.runs_per_configuration,
                pass_rate(&summary.with_skill),
                pass_rate(&summary.without_skill),
                summary
                    .delta
                    .pass_rate
                    .map_or("–".to_owned(), |delta| format!(
                        "{:+.0} pts",
                        delta * 100.0
                    )),
                summary.with_skill.skill_loaded,
                summary.with_skill.runs,
                triggers,
            );
        }
        page.push_str("</tbody>\n</table>\n");
    }
    if !history.skipped.is_empty() {
        page.push_str("<ul class=\"note\">\n");
        for (path, reason) in &history.skipped {
            let _ = writeln!(
                page,
                "<li>Left out <code>{}</code>: {}</li>",
                escape(&path.display().to_string()),
                escape(reason)
            );
        }
        page.push_str("</ul>\n");
    }
}

/// A configuration's mean pass rate and its standard deviation, in percent.
fn pass_rate(summary: &ConfigurationSummary) -> String {
    summary
        .pass_rate
        .map_or("–".to_owned(), |Stat { mean, stddev, .. }| {
            format!("{:.0}% ± {:.0}", mean * 100.0, stddev * 100.0)
        })
}

fn share(value: Option<f64>) -> String {
    value.map_or("–".to_owned(), |value| format!("{value:.2}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_leaves_no_markup() {
        assert_eq!(
            escape("<script>alert('x & \"y\"')</script>"),
            "&lt;script&gt;alert(&#39;x &amp; &quot;y&quot;&#39;)&lt;/script&gt;"
        );
        let json = script_json(&serde_json::json!({"name": "</script><!--\u{2028}"}));
        assert_eq!(json, r#"{"name":"\u003c/script\u003e\u003c!--\u2028"}"#);
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back["name"], "</script><!--\u{2028}");
    }

    #[test]
    fn each_skills_recorded_evaluations_are_drawn_and_listed_newest_first() {
        let summary = |time: &str, rate: f64, passed: bool| -> EvalSummary {
            serde_json::from_value(serde_json::json!({
                "time": time, "skill": "<loan>", "digest": "0123456789abcdef", "model": "m",
                "mode": "guided", "runs": 3, "pass_rate": rate, "baseline": 0.25,
                "passed": passed,
            }))
            .unwrap()
        };
        let report =
            Report::new(&[], None, &[], &[], std::time::SystemTime::now()).with_record(vec![
                summary("2026-12-01T00:00:00Z", 0.9, true),
                summary("2026-12-07T00:00:00Z", 0.4, false),
            ]);
        let points = report.eval_points();
        assert_eq!(points.len(), 1);
        assert_eq!(points[0].0, "<loan> (every evaluation)");
        let rates: Vec<Option<f64>> = points[0].1.iter().map(|point| point.with).collect();
        assert_eq!(rates, [Some(0.9), Some(0.4)]);
        let html = report.html();
        assert!(
            html.contains("<h3>&lt;loan&gt; (every evaluation)</h3>"),
            "{html}"
        );
        let newest = html.find("2026-12-07T00:00:00Z").unwrap();
        let oldest = html.find("2026-12-01T00:00:00Z").unwrap();
        assert!(newest < oldest);
        assert!(html.contains("<td><code>0123456789ab</code></td>"));
        assert!(!html.contains("No evaluation found"));
    }
}
