//! `skills validate`: checks SKILL.md files with the same discovery and validation that loading
//! uses (`skillful_discovery::validate_paths`), and prints one line per diagnostic.

use std::path::PathBuf;

use skillful_discovery::{ValidateError, validate_paths};
use skillful_frontmatter::ValidationMode;

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
    let validation = match validate_paths(&args.paths, mode).await {
        Err(error @ ValidateError::Missing { .. }) => {
            return Err(UsageError(error.to_string()).into());
        }
        other => other?,
    };
    let mut out = output::stdout();
    if args.json {
        out.json(&validation.diagnostics)?;
    } else {
        for diagnostic in &validation.diagnostics {
            out.diagnostic(diagnostic)?;
        }
        writeln!(
            out,
            "{} skill(s) checked: {} error(s), {} warning(s)",
            validation.checked,
            validation.errors(),
            validation.warnings()
        )?;
    }
    Ok(if validation.errors() > 0 {
        Outcome::Invalid
    } else {
        Outcome::Ok
    })
}
