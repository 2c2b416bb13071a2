//! `skills validate`: checks SKILL.md files with the same discovery and validation that loading
//! uses, and prints one line per diagnostic.

use std::collections::BTreeSet;
use std::path::PathBuf;

use skillful_core::validate::body_warning;
use skillful_core::{Diagnostic, Skill};
use skillful_discovery::FileSkillsSource;
use skillful_frontmatter::{FrontmatterLoader, ValidationMode};

use crate::{Outcome, UsageError, output};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Apply the specification strictly (as `skills-ref` does): every violation is an error.
    #[arg(long)]
    strict: bool,
    /// Print a JSON array of `{path, severity, field, message}` instead of lines.
    #[arg(long)]
    json: bool,
    /// Skill directories, SKILL.md files, or roots holding skills.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
}

pub(crate) async fn run(args: Args) -> anyhow::Result<Outcome> {
    let mode = if args.strict {
        ValidationMode::Strict
    } else {
        ValidationMode::Lenient
    };
    let mut diagnostics = Vec::new();
    let mut loaded = 0;
    for path in &args.paths {
        let metadata = std::fs::metadata(path)
            .map_err(|e| UsageError(format!("{}: {e}; give an existing path", path.display())))?;
        // A SKILL.md stands for its directory, which discovery then treats as one skill.
        let root = if metadata.is_file() {
            if path.file_name().is_none_or(|name| name != "SKILL.md") {
                diagnostics.push(
                    Diagnostic::error(
                        "SKILL.md",
                        "not a SKILL.md; point at a skill directory or its SKILL.md",
                    )
                    .with_path(path),
                );
                continue;
            }
            path.parent()
                .map_or_else(|| PathBuf::from("."), PathBuf::from)
        } else {
            path.clone()
        };
        let discovery = FileSkillsSource::builder()
            .root(root)
            .loader(FrontmatterLoader::new(mode))
            .build()?
            .discover()
            .await;
        if discovery.skills.is_empty() && discovery.diagnostics.is_empty() {
            diagnostics.push(
                Diagnostic::error(
                    "SKILL.md",
                    "no SKILL.md found here or in the two levels below; point at a skill directory",
                )
                .with_path(path),
            );
        }
        for skill in &discovery.skills {
            // Bodies are not the specification's business, but what hides in one is worth a
            // warning.
            let diagnostic = match skill.document().await {
                Ok(document) => body_warning(&document.body),
                Err(error) => Some(Diagnostic::error("body", error.to_string())),
            };
            diagnostics.extend(diagnostic.map(|d| d.with_path(skill.skill_md_path())));
        }
        loaded += discovery.skills.len();
        diagnostics.extend(discovery.diagnostics);
    }
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let rejected: BTreeSet<_> = diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.path.clone())
        .collect();
    let mut out = output::stdout();
    if args.json {
        out.json(&diagnostics)?;
    } else {
        for diagnostic in &diagnostics {
            writeln!(out, "{diagnostic}")?;
        }
        writeln!(
            out,
            "{} skill(s) checked: {errors} error(s), {} warning(s)",
            loaded + rejected.len(),
            diagnostics.len() - errors
        )?;
    }
    Ok(if errors > 0 {
        Outcome::Invalid
    } else {
        Outcome::Ok
    })
}
