//! `skills show`: a skill's instructions as `load_skill` gives them to a model.

use serde_json::json;
use skillful_core::text::one_line;
use skillful_core::{Lifecycle, SourceContext};

use crate::inspect::{Roots, call_tool};
use crate::{Outcome, output};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The skill's name (after `--` when it starts with `-`).
    name: String,
    #[command(flatten)]
    roots: Roots,
}

/// Runs `skills show`: on standard error, when the skill declares any, one line of what it
/// says of its own life (`metadata.version`, `owner`, `domain`, `triggers`, `anti-triggers`),
/// which a model is not shown; on standard output exactly what `load_skill` gives.
pub(crate) async fn run(args: Args) -> anyhow::Result<Outcome> {
    let composition = args.roots.compose()?;
    let source = composition.source();
    let skills = source.skills(&SourceContext::default()).await?;
    if let Some(skill) = skills.iter().find(|skill| skill.name() == args.name) {
        let line = lifecycle_line(&skill.lifecycle());
        if !line.is_empty() {
            writeln!(
                output::stderr(),
                "skills: {}: {}",
                one_line(skill.name()),
                one_line(&line)
            )?;
        }
    }
    call_tool(&args.roots, "load_skill", json!({ "skillName": args.name })).await
}

/// `version 1.4.0 · owner data@example.com · domain finance · for: a; b · not for: c`, the parts
/// declared.
fn lifecycle_line(lifecycle: &Lifecycle) -> String {
    let mut parts = Vec::new();
    for (label, value) in [
        ("version", &lifecycle.version),
        ("owner", &lifecycle.owner),
        ("domain", &lifecycle.domain),
    ] {
        if let Some(value) = value {
            parts.push(format!("{label} {value}"));
        }
    }
    for (label, phrases) in [
        ("for", &lifecycle.triggers),
        ("not for", &lifecycle.anti_triggers),
    ] {
        if !phrases.is_empty() {
            parts.push(format!("{label}: {}", phrases.join("; ")));
        }
    }
    parts.join(" · ")
}
