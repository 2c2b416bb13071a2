//! `skills verify`: the installed skills checked against the digests of `skills-lock.json`.

use skillful_core::text::one_line;
use skillful_install::{Verification, Verified};

use crate::supply::ScopeArgs;
use crate::{Outcome, output};

/// The help of `--json`, naming this command's schema.
const JSON_HELP: &str = "Print one JSON document on stdout (schema: verify.schema.json in the \
    book); the exit  code is the same.";

#[derive(Debug, clap::Args)]
#[command(mut_arg("json", |json| json.help(JSON_HELP)))]
pub(crate) struct Args {
    /// The skills to check (all locked skills when none).
    names: Vec<String>,
    #[command(flatten)]
    scope: ScopeArgs,
}

/// Runs `skills verify`.
pub(crate) fn run(args: Args) -> anyhow::Result<Outcome> {
    let installer = args.scope.installer()?;
    let results = installer.verify(&args.names)?;
    let mut out = output::stdout();
    if args.scope.json {
        let verification = Verification::new(installer.lock_path().to_owned(), results);
        out.json(&verification)?;
        return Ok(if verification.intact {
            Outcome::Ok
        } else {
            Outcome::Invalid
        });
    }
    let mut differ = false;
    for (name, verified) in &results {
        let name = one_line(name);
        match verified {
            Verified::Intact => {}
            Verified::Missing => {
                differ = true;
                writeln!(out, "{name}: missing")?;
            }
            Verified::Unreadable(reason) => {
                differ = true;
                writeln!(out, "{name}: unreadable: {}", one_line(reason))?;
            }
            Verified::Modified(diff) => {
                differ = true;
                for (what, paths) in [
                    ("added", &diff.added),
                    ("removed", &diff.removed),
                    ("changed", &diff.changed),
                ] {
                    for path in paths {
                        writeln!(out, "{name}: {what} {}", one_line(path))?;
                    }
                }
            }
        }
    }
    writeln!(
        out,
        "{} skill(s) verified against {}: {}",
        results.len(),
        installer.lock_path().display(),
        if differ {
            "differences found"
        } else {
            "all intact"
        }
    )?;
    Ok(if differ {
        Outcome::Invalid
    } else {
        Outcome::Ok
    })
}
