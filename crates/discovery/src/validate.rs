//! `skills validate`'s rules as a library: which paths name skills, and every diagnostic of the
//! skills they name, with the same discovery and validation that loading uses.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use skillful_core::validate::body_warning;
use skillful_core::{
    ANTI_TRIGGERS_KEY, AUTHOR_KEY, DOMAIN_KEY, Diagnostic, LONG_RUNNING_KEY, OWNER_KEY, Severity,
    Skill, TRIGGERS_KEY, VERSION_KEY,
};
use skillful_frontmatter::{FrontmatterLoader, ValidationMode};

use crate::{BuildError, FileSkill, FileSkillsSource, MAX_SKILL_DEPTH};

/// Why [`validate_paths`] could not check a path at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ValidateError {
    /// The path does not exist (or cannot be looked at).
    #[error("{}: {source}; give an existing path", path.display())]
    Missing {
        /// The path as given.
        path: PathBuf,
        /// Why it could not be looked at.
        source: std::io::Error,
    },
    /// The discovery of a path could not be set up.
    #[error(transparent)]
    Build(#[from] BuildError),
}

/// What [`validate_paths`] found: every diagnostic, and how many skills were checked.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Validation {
    /// Every diagnostic, in the order the paths were given.
    pub diagnostics: Vec<Diagnostic>,
    /// The skills checked: those loaded and those rejected (a rejected file counted once).
    pub checked: usize,
}

impl Validation {
    /// How many diagnostics are errors.
    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// How many diagnostics are warnings.
    pub fn warnings(&self) -> usize {
        self.diagnostics.len() - self.errors()
    }
}

/// Checks the skills `paths` name, each a skill directory, its `SKILL.md`, or a root holding
/// skills (as deep as discovery looks), under `mode`.
///
/// A file that is not a `SKILL.md`, and a path under which no skill is found, are error
/// diagnostics of their own; a body is not the specification's business, but what hides in one
/// is a warning (as when loading).
///
/// # Errors
/// A path that does not exist ([`ValidateError::Missing`]): nothing was checked.
pub async fn validate_paths(
    paths: &[PathBuf],
    mode: ValidationMode,
) -> Result<Validation, ValidateError> {
    let mut diagnostics = Vec::new();
    let mut loaded = BTreeSet::new();
    for path in paths {
        let Some(root) = skill_root(path, &mut diagnostics)? else {
            continue;
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
                    format!(
                        "no SKILL.md found here or in the {MAX_SKILL_DEPTH} levels below; point at a skill directory"
                    ),
                )
                .with_path(path),
            );
        }
        for skill in &discovery.skills {
            let diagnostic = match skill.document().await {
                Ok(document) => body_warning(&document.body),
                Err(error) => Some(Diagnostic::error("body", error.to_string())),
            };
            diagnostics.extend(diagnostic.map(|d| d.with_path(skill.skill_md_path())));
        }
        loaded.extend(
            discovery
                .skills
                .iter()
                .map(|skill| Some(skill.skill_md_path())),
        );
        let mut found = discovery.diagnostics;
        if mode == ValidationMode::Strict {
            strict_lifecycle(&discovery.skills, &mut found);
        }
        diagnostics.extend(found);
    }
    // A skill with an error that still loaded (strict lifecycle metadata) counts once.
    let rejected: BTreeSet<_> = diagnostics
        .iter()
        .filter(|d| d.is_error() && !loaded.contains(&d.path))
        .map(|d| d.path.clone())
        .collect();
    Ok(Validation {
        checked: loaded.len() + rejected.len(),
        diagnostics,
    })
}

/// Strict validation of the skills' lifecycle `metadata`: a key that cannot be taken is an
/// error (discovery found it as a warning), and a skill that declares no owner or no version
/// gets a warning: without them nobody answers for it, and its versions cannot be told apart.
fn strict_lifecycle(skills: &[Arc<FileSkill>], diagnostics: &mut Vec<Diagnostic>) {
    let lifecycle_fields: Vec<String> = LIFECYCLE_KEYS
        .iter()
        .map(|key| format!("metadata.{key}"))
        .collect();
    for diagnostic in diagnostics.iter_mut() {
        if diagnostic.severity == Severity::Warning && lifecycle_fields.contains(&diagnostic.field)
        {
            diagnostic.severity = Severity::Error;
        }
    }
    for skill in skills {
        let lifecycle = skill.lifecycle();
        let metadata = &skill.frontmatter().metadata;
        for (key, declared) in [
            (OWNER_KEY, lifecycle.owner.is_some()),
            (VERSION_KEY, lifecycle.version.is_some()),
        ] {
            // One declared but invalid has its error already.
            let written = metadata.contains_key(key)
                || (key == OWNER_KEY && metadata.contains_key(AUTHOR_KEY));
            if !declared && !written {
                diagnostics.push(
                    Diagnostic::warning(
                        format!("metadata.{key}"),
                        format!(
                            "not declared: a skill with `metadata.{OWNER_KEY}` and `metadata.{VERSION_KEY}` says who answers for it and which version ran (eval history, skills stale)"
                        ),
                    )
                    .with_path(skill.skill_md_path()),
                );
            }
        }
    }
}

/// The `metadata` keys of [`skillful_core::Lifecycle`], and `long-running`
/// ([`skillful_core::LongRunning`]), which share its errors.
const LIFECYCLE_KEYS: [&str; 7] = [
    VERSION_KEY,
    OWNER_KEY,
    AUTHOR_KEY,
    DOMAIN_KEY,
    TRIGGERS_KEY,
    ANTI_TRIGGERS_KEY,
    LONG_RUNNING_KEY,
];

/// The root discovery walks for `path`: a `SKILL.md` stands for its directory (then one
/// skill); `None`, with an error diagnostic, for any other file.
fn skill_root(
    path: &Path,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<Option<PathBuf>, ValidateError> {
    let metadata = std::fs::metadata(path).map_err(|source| ValidateError::Missing {
        path: path.to_path_buf(),
        source,
    })?;
    if !metadata.is_file() {
        return Ok(Some(path.to_path_buf()));
    }
    if path.file_name().is_none_or(|name| name != "SKILL.md") {
        diagnostics.push(
            Diagnostic::error(
                "SKILL.md",
                "not a SKILL.md; point at a skill directory or its SKILL.md",
            )
            .with_path(path),
        );
        return Ok(None);
    }
    Ok(Some(
        path.parent()
            .map_or_else(|| PathBuf::from("."), PathBuf::from),
    ))
}
