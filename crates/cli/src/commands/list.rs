//! `skills list`: the skills the roots and settings offer (and, with `--all`, those they do
//! not), by name and description, or every field as JSON.

use skillful_config::{ListedSkill, Status};
use skillful_core::SourceContext;
use skillful_core::text::one_line;
use skillful_eval::{EvalRecord, EvalSummary};

use crate::inspect::{Roots, outcome, print_findings, say_where_looked};
use crate::{Outcome, output};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Print a JSON array with every field of every skill.
    #[arg(long)]
    json: bool,
    /// Also list the skills that are not offered: disabled, or shadowed by a skill of the same
    /// name with higher precedence.
    #[arg(short, long)]
    all: bool,
    #[command(flatten)]
    roots: Roots,
}

/// Runs `skills list`.
pub(crate) async fn run(args: Args) -> anyhow::Result<Outcome> {
    let composition = args.roots.compose()?;
    let loaded = composition.load(&SourceContext::default()).await?;
    let entries: Vec<_> = loaded
        .entries
        .iter()
        .filter(|entry| args.all || entry.status.is_offered())
        .collect();
    if loaded.entries.is_empty() {
        say_where_looked(&composition)?;
    }
    let mut out = output::stdout();
    if args.json {
        let listed: Vec<ListedSkill> = entries
            .iter()
            .map(|entry| ListedSkill::from(*entry))
            .collect();
        out.json(&listed)?;
        print_findings(&[], &loaded.plugin_errors)?;
    } else {
        print_findings(&loaded.diagnostics, &loaded.plugin_errors)?;
        // A record that cannot be read leaves the column out, not the listing.
        let evaluations = EvalRecord::per_user()
            .and_then(|record| record.summaries())
            .unwrap_or_default();
        let width = entries
            .iter()
            .map(|entry| one_line(entry.skill.name()).chars().count())
            .max()
            .unwrap_or(0);
        for entry in entries {
            let frontmatter = entry.skill.frontmatter();
            let status = match &entry.status {
                Status::Active => String::new(),
                Status::Modified { offered: true, .. } => "[modified] ".to_owned(),
                Status::Modified { offered: false, .. } => "[modified, not offered] ".to_owned(),
                Status::Disabled { by } => format!("[disabled by {} settings] ", by_word(*by)),
                Status::Shadowed { by_name, by } => {
                    format!("[shadowed by {} of {by}] ", one_line(by_name))
                }
                _ => "[not offered] ".to_owned(),
            };
            let lifecycle = entry.skill.lifecycle();
            let version = lifecycle
                .version
                .map(|version| format!(" (v{})", one_line(&version)))
                .unwrap_or_default();
            let evaluated = last_evaluation(&evaluations, entry.skill.name());
            writeln!(
                out,
                "{:width$}  {status}{}{version}{evaluated}",
                one_line(&frontmatter.name),
                one_line(&frontmatter.description)
            )?;
        }
    }
    Ok(outcome(&loaded, &args.roots))
}

fn by_word(level: skillful_config::SettingsLevel) -> &'static str {
    match level {
        skillful_config::SettingsLevel::User => "the user's",
        skillful_config::SettingsLevel::Project => "the project's",
        _ => "this run's",
    }
}

/// ` · eval 2026-12-07: 83%, passed` (or `not passed, last passed 2026-11-30`, or `never
/// passed`): the newest evaluation of `skill` in the user's record; empty when it has none.
fn last_evaluation(evaluations: &[EvalSummary], skill: &str) -> String {
    let mut of_skill = evaluations.iter().filter(|summary| summary.skill == skill);
    let Some(last) = of_skill.clone().next_back() else {
        return String::new();
    };
    let day = |summary: &EvalSummary| summary.time.chars().take(10).collect::<String>();
    let rate = last.pass_rate.map_or("no grade".to_owned(), |rate| {
        format!("{:.0}%", rate * 100.0)
    });
    let verdict = if last.passed {
        "passed".to_owned()
    } else {
        match of_skill.rfind(|summary| summary.passed) {
            Some(passed) => format!("not passed, last passed {}", day(passed)),
            None => "never passed".to_owned(),
        }
    };
    format!(" · eval {}: {rate}, {verdict}", day(last))
}
