//! `skills rollback`: an installed skill put back to a version its lock entry kept.

use skillful_core::text::one_line;
use skillful_install::InstallError;

use crate::supply::ScopeArgs;
use crate::{Outcome, UsageError, output};

/// The help of `--json`, naming this command's schema.
const JSON_HELP: &str = "Print one JSON document on stdout (schema: rollback.schema.json in the \
    book).";

#[derive(Debug, clap::Args)]
#[command(mut_arg("json", |json| json.help(JSON_HELP)))]
pub(crate) struct Args {
    /// The skill to roll back.
    #[arg(value_name = "NAME")]
    name: String,
    /// The version to put back: a commit (its first 4 characters or more) or a ref the lock
    /// kept; by default the one the last update or add replaced.
    #[arg(long, value_name = "REF")]
    to: Option<String>,
    #[command(flatten)]
    scope: ScopeArgs,
}

/// Runs `skills rollback`.
pub(crate) fn run(args: Args) -> anyhow::Result<Outcome> {
    args.scope.one_report()?;
    for installer in args.scope.installers()? {
        let rolled = match installer.rollback(&args.name, args.to.as_deref()) {
            Err(error @ (InstallError::NotLocked { .. } | InstallError::NoSkills { .. })) => {
                return Err(UsageError(error.to_string()).into());
            }
            result => result?,
        };
        if args.scope.json {
            output::stdout().json(&rolled)?;
        } else {
            writeln!(
                output::stdout(),
                "rolled {} back from {} to {}; `skills rollback {}` again returns to {}",
                one_line(&rolled.name),
                one_line(&rolled.from),
                one_line(&rolled.to),
                one_line(&rolled.name),
                one_line(&rolled.from)
            )?;
        }
    }
    Ok(Outcome::Ok)
}
