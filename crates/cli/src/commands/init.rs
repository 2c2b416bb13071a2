//! `skills init`: a new skill's files (`SKILL.md`, `references/`, `scripts/`, `evals/`), from
//! the installer's scaffold (`skillful_install::scaffold_skill`), which `cargo xtask new-skill`
//! uses too.

use std::path::PathBuf;

use anyhow::Context;
use skillful_core::text::one_line;
use skillful_install::{ScaffoldError, scaffold_skill, scaffold_skill_in, skill_dir_name};

use crate::{Outcome, UsageError, output};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The skill's name (made a valid one, with a warning: `Zoho Books` is `zoho-books`).
    /// Without it, the current directory becomes the skill, named after it.
    name: Option<String>,
    /// Where the skill's directory is made (`DIR/NAME/`). Default: the current directory.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Runs `skills init`.
pub(crate) fn run(args: Args) -> anyhow::Result<Outcome> {
    let here = std::env::current_dir().context("cannot read the current directory")?;
    let made = match &args.name {
        Some(name) => scaffold_skill_in(args.dir.as_deref().unwrap_or(&here), name),
        None => {
            let dir = args.dir.unwrap_or(here);
            let name = dir
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default();
            if skill_dir_name(&name) != name {
                return Err(UsageError(format!(
                    "{}: a skill's directory is named as the skill is, and `{}` is not a valid \
                     name; give a NAME (`skills init {}`) to make `{}/` here",
                    one_line(&dir.display().to_string()),
                    one_line(&name),
                    skill_dir_name(&name),
                    skill_dir_name(&name)
                ))
                .into());
            }
            scaffold_skill(&dir, &name)
        }
    };
    let made = made.map_err(|error| match error {
        ScaffoldError::Io { .. } => anyhow::Error::new(error),
        other => UsageError(other.to_string()).into(),
    })?;
    if let Some(asked) = &made.asked {
        writeln!(
            output::stderr(),
            "skills: warning: `{}` is not a valid skill name; the skill is called `{}`",
            one_line(asked),
            made.name
        )?;
    }
    writeln!(
        output::stdout(),
        "created skill {} in {} ({}); fill in the TODOs, then add test cases to \
         evals/evals.json for `skills eval`",
        made.name,
        one_line(&made.dir.display().to_string()),
        made.files.join(", ")
    )?;
    Ok(Outcome::Ok)
}
