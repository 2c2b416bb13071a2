//! The report as SARIF 2.1.0.

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use serde_json::{Value, json};

use crate::{Report, Severity, SuppressionKind, rules::RULES};

/// What a path segment of a URI reference may not hold as is (RFC 3986 `pchar` plus `/`).
const PATH: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical | Severity::High => "error",
        Severity::Medium => "warning",
        Severity::Low => "note",
        Severity::Info => "none",
    }
}

/// The file as a URI reference: relative paths stay relative, absolute ones become `file://`.
fn uri(file: &str) -> String {
    let encoded = utf8_percent_encode(file, PATH).to_string();
    if file.starts_with('/') {
        format!("file://{encoded}")
    } else {
        encoded
    }
}

pub(crate) fn log(report: &Report) -> Value {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|rule| {
            json!({
                "id": rule.id,
                "name": rule.name,
                "shortDescription": { "text": rule.summary },
                "help": { "text": rule.help },
                "defaultConfiguration": { "level": level(rule.severity) },
                "properties": { "security-severity": security_severity(rule.severity), "severity": rule.severity.as_str() },
            })
        })
        .collect();
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|finding| {
            let rule_index = RULES
                .iter()
                .position(|rule| rule.id == finding.rule_id)
                .expect("every finding names a rule");
            let mut result = json!({
                "ruleId": finding.rule_id,
                "ruleIndex": rule_index,
                "level": level(finding.severity),
                "message": { "text": finding.message },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": uri(&finding.file) },
                        "region": { "startLine": finding.line, "startColumn": finding.column },
                    }
                }],
                "partialFingerprints": { "skillful/v2": finding.fingerprint },
                "properties": { "severity": finding.severity.as_str() },
            });
            if let Some(suppression) = &finding.suppressed {
                // SARIF's own field: a suppressed result is still a result.
                result["suppressions"] = json!([{
                    "kind": match suppression.kind {
                        SuppressionKind::Inline => "inSource",
                        SuppressionKind::Baseline => "external",
                    },
                    "status": "accepted",
                    "justification": suppression.reason,
                }]);
            }
            result
        })
        .collect();
    json!({
        "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "skillful-scan",
                    "version": env!("CARGO_PKG_VERSION"),
                    "informationUri": env!("CARGO_PKG_REPOSITORY"),
                    "rules": rules,
                }
            },
            "results": results,
        }]
    })
}

/// GitHub code scanning's numeric severity (critical ≥ 9, high ≥ 7, medium ≥ 4; 0 is none).
fn security_severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical => "9.5",
        Severity::High => "8.0",
        Severity::Medium => "5.0",
        Severity::Low => "2.0",
        Severity::Info => "0.0",
    }
}
