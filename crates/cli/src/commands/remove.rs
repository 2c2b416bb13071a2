//! `skills remove`: skills removed from the scope's skills directory (or each `--agent`'s) and
//! its lock.

use skillful_core::text::one_line;
use skillful_install::Removal;

use crate::supply::ScopeArgs;
use crate::{Outcome, UsageError, output};

/// The help of `--json`, naming this command's schema.
const JSON_HELP: &str = "Print one JSON document on stdout (schema: remove.schema.json in the \
    book).";

#[derive(Debug, clap::Args)]
#[command(mut_arg("json", |json| json.help(JSON_HELP)))]
pub(crate) struct Args {
    /// The skills to remove.
    #[arg(required = true, value_name = "NAME")]
    names: Vec<String>,
    #[command(flatten)]
    scope: ScopeArgs,
}

/// Runs `skills remove`: every name is checked against the lock of every directory named
/// before any is removed; a name the other scope's lock lists is named with the flag that
/// reaches it.
pub(crate) fn run(args: Args) -> anyhow::Result<Outcome> {
    args.scope.one_report()?;
    let installers = args.scope.installers()?;
    // The same hosts' directories in the other scope, in the same order.
    let (other, flag) = args.scope.other();
    let others = other.installers().unwrap_or_default();
    for (index, installer) in installers.iter().enumerate() {
        let lock = installer.lock()?;
        if let Some(missing) = args
            .names
            .iter()
            .find(|name| !lock.skills.contains_key(name.as_str()))
        {
            let elsewhere = others
                .get(index)
                .and_then(|other| other.lock().ok())
                .is_some_and(|other| other.skills.contains_key(missing.as_str()));
            let hint = if elsewhere {
                format!("; it is installed in the other scope: pass {flag}")
            } else {
                "; `skills list` shows what is there".to_owned()
            };
            return Err(UsageError(format!(
                "{} is not in {}{hint}; nothing was removed",
                one_line(missing),
                installer.lock_path().display()
            ))
            .into());
        }
    }
    for installer in &installers {
        for name in &args.names {
            installer.remove(name)?;
            if !args.scope.json {
                let from = if installers.len() > 1 {
                    format!(" from {}", installer.skills_dir().display())
                } else {
                    String::new()
                };
                writeln!(output::stdout(), "removed {}{from}", one_line(name))?;
            }
        }
    }
    if args.scope.json {
        output::stdout().json(&Removal {
            lock: installers[0].lock_path().to_owned(),
            removed: args.names,
        })?;
    }
    Ok(Outcome::Ok)
}
