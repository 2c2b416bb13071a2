//! Inline suppressions: a comment in a skill's file that says why a finding of one rule on
//! that line or the next is not a problem,
//! `<!-- skills-scan: allow SKL012 reason="the user chose this" -->` in a document or
//! `# skills-scan: allow SKL040 reason: reads the example file only` in a script.
//!
//! The comment is the skill author's word, and a hostile skill would gladly give it: so it
//! suppresses only low and medium findings. A high or critical finding stands, and the comment
//! that tried is a finding of its own ([`SUPPRESSION_INVALID`]), as is one without a reason or
//! naming no rule. A suppressed finding is kept, marked, and counted ([`crate::Suppression`]).

use std::sync::LazyLock;

use regex::Regex;

use crate::pattern::regex;
use crate::rules::{FileScan, RULES, SUPPRESSION_INVALID, excerpt};
use crate::{Severity, Suppression, SuppressionKind};

static MARKER: LazyLock<Regex> = LazyLock::new(|| regex(r"(?i)\bskills-scan\s*:"));
static DIRECTIVE: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r#"(?i)skills-scan\s*:\s*allow\s+(?P<ids>[a-z0-9]+(?:\s*,\s*[a-z0-9]+)*)\s*(?:reason\s*=\s*"(?P<quoted>[^"]*)"|reason\s*:\s*(?P<plain>.*?))?\s*(?:-->|\*/)?\s*$"#,
    )
});

/// Applies the suppressions written in `text` to the findings of its file, those from `first`
/// on in `scan.findings`, and adds a finding for each suppression that is not honoured.
pub(crate) fn apply(text: &str, first: usize, scan: &mut FileScan<'_>) {
    if !MARKER.is_match(text) {
        return;
    }
    for (index, line) in text.lines().enumerate() {
        let Some(marker) = MARKER.find(line) else {
            continue;
        };
        let number = index + 1;
        let place = (number, line[..marker.start()].chars().count() + 1);
        let directive = &line[marker.start()..];
        let invalid = |scan: &mut FileScan<'_>, why: String| {
            scan.push(
                &SUPPRESSION_INVALID,
                SUPPRESSION_INVALID.severity,
                place,
                directive,
                why,
            );
        };
        let Some(captures) = DIRECTIVE.captures(directive) else {
            invalid(
                scan,
                format!(
                    "\"{}\" is not `skills-scan: allow RULE-ID reason=\"...\"`: nothing suppressed",
                    excerpt(directive)
                ),
            );
            continue;
        };
        let reason = captures
            .name("quoted")
            .or_else(|| captures.name("plain"))
            .map_or("", |reason| reason.as_str().trim());
        if reason.is_empty() {
            invalid(
                scan,
                "a suppression without a reason (reason=\"...\"): nothing suppressed".to_owned(),
            );
            continue;
        }
        for id in captures["ids"].split(',').map(str::trim) {
            let Some(rule) = RULES
                .iter()
                .find(|rule| rule.id.eq_ignore_ascii_case(id) && rule.id != SUPPRESSION_INVALID.id)
            else {
                invalid(
                    scan,
                    format!("suppression of {}: no such rule", excerpt(id)),
                );
                continue;
            };
            let mut refused = None;
            for finding in &mut scan.findings[first..] {
                if finding.rule_id != rule.id
                    || !(finding.line == number || finding.line == number + 1)
                    || finding.suppressed.is_some()
                {
                    continue;
                }
                if finding.severity >= Severity::High {
                    refused = Some(finding.severity);
                } else {
                    finding.suppressed = Some(Suppression {
                        kind: SuppressionKind::Inline,
                        reason: excerpt(reason),
                    });
                }
            }
            if let Some(severity) = refused {
                invalid(
                    scan,
                    format!(
                        "a {severity} {} finding cannot be suppressed inside the skill; it stands \
                         (a baseline given to `skills scan --baseline` can accept it)",
                        rule.id
                    ),
                );
            }
        }
    }
}
