//! What the user should know about how the skills were composed: a project whose skills were
//! not read, and why; and the trust check of commands acting on a project's own files.

use std::path::PathBuf;

use crate::environment::{Environment, Project};
use crate::error::ConfigError;
use crate::error::shown_path;
use crate::safety::Risk;
use crate::trust::{TrustStore, Verdict};

/// Something the user should know about how the skills were composed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Note {
    /// The directory the note is about.
    pub path: PathBuf,
    /// One line saying what happened and what to do.
    pub message: String,
}

impl Note {
    /// Why `project`'s skills and settings were not loaded, after `verdict`.
    pub(super) fn not_loaded(project: &Project, verdict: &Verdict) -> Self {
        let dir = shown_path(&project.dir);
        let message = match verdict {
            Verdict::Refused { risks } => format!(
                "{dir}: project refused: it {}; its skills, settings and plugins are not read (as git refuses a repository of dubious ownership)",
                Risk::describe(risks)
            ),
            Verdict::Replaced { dir: trusted } => {
                let trusted = shown_path(trusted);
                format!(
                    "{dir}: project skills and settings not loaded: {trusted} was trusted, but it has been removed and re-created since; run `skills trust {trusted}` if it is yours"
                )
            }
            Verdict::Trusted { .. } | Verdict::Untrusted => format!(
                "{dir}: project skills and settings not loaded: the project is not trusted; run `skills trust {dir}` to trust it, or pass --trust-project for this run"
            ),
        };
        Self {
            path: project.dir.clone(),
            message,
        }
    }
}

/// Succeeds when the user trusts `project`; `action` says, in the error, what is refused
/// otherwise. For commands that act on what a project's own files name (the sources of its
/// skills lock): a cloned repository must not make them fetch or install before it is trusted.
///
/// # Errors
/// [`ConfigError::UntrustedProject`] saying why and how to trust it; [`ConfigError::State`]
/// when the trust store cannot be read.
pub fn require_trusted(
    environment: &Environment,
    project: &Project,
    action: &str,
) -> Result<(), ConfigError> {
    let dir = shown_path(&project.dir);
    let reason = match TrustStore::load(environment)?.verdict(project) {
        Verdict::Trusted { .. } => return Ok(()),
        Verdict::Untrusted => {
            format!("{dir}: the project is not trusted; run `skills trust {dir}` if it is yours")
        }
        Verdict::Refused { risks } => {
            format!("{dir}: project refused: it {}", Risk::describe(&risks))
        }
        Verdict::Replaced { dir: trusted } => {
            let trusted = shown_path(&trusted);
            format!(
                "{dir}: {trusted} was trusted, but it has been removed and re-created since; run `skills trust {trusted}` if it is yours"
            )
        }
    };
    Err(ConfigError::UntrustedProject {
        path: project.dir.clone(),
        reason,
        action: action.to_owned(),
    })
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&skillful_core::text::one_line(&self.message))
    }
}
