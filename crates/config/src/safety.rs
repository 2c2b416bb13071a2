//! What makes a directory unsafe to take a project from: it is (or holds) the home directory,
//! another user owns it, or every user may write in it; the same for its `.agents` and for what
//! would be loaded from there (the skills directory, each skill, the settings), where it
//! resolves to, which must also stay inside the project.

use std::fs::Metadata;
use std::path::Path;

use crate::environment::{AGENTS_DIR, PLUGINS_DIR, PROJECT_CONFIG_FILE, SKILLS_DIR};

/// Why a directory is not trusted by default, and a project in it refused (as git refuses a
/// repository of dubious ownership).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Risk {
    /// It is the user's home directory: every project the user ever clones or creates is below
    /// it.
    Home,
    /// It holds the user's home directory.
    AboveHome,
    /// Another user (neither this user nor root) owns it.
    Owner {
        /// Its owner.
        uid: u32,
    },
    /// Every user may write in it, or it is sticky (a shared directory such as `/tmp`).
    Shared {
        /// Its mode bits.
        mode: u32,
    },
    /// Its `.agents` belongs to another user.
    AgentsOwner {
        /// The owner of `.agents`.
        uid: u32,
    },
    /// Every user may write in its `.agents`.
    AgentsShared {
        /// The mode bits of `.agents`.
        mode: u32,
    },
    /// What would be loaded from its `.agents` (the skills directory, a skill in it, the
    /// settings), where it resolves to, belongs to another user.
    LoadedOwner {
        /// The owner.
        uid: u32,
    },
    /// Every user may write in what would be loaded from its `.agents`.
    LoadedShared {
        /// The mode bits.
        mode: u32,
    },
    /// What would be loaded from its `.agents` resolves outside the project (a symbolic link
    /// into another directory, whose owner may change what it holds).
    LoadedOutside,
}

impl std::fmt::Display for Risk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Home => f.write_str(
                "is your home directory, which holds every repository you will ever clone",
            ),
            Self::AboveHome => f.write_str("holds your home directory"),
            Self::Owner { uid } => write!(f, "is owned by another user (uid {uid})"),
            Self::Shared { mode } => write!(
                f,
                "is writable by every user or sticky (mode {mode:o}, as /tmp is), so anyone can plant .agents in it"
            ),
            Self::AgentsOwner { uid } => {
                write!(
                    f,
                    "has a {AGENTS_DIR} that is owned by another user (uid {uid})"
                )
            }
            Self::AgentsShared { mode } => write!(
                f,
                "has a {AGENTS_DIR} that is writable by every user (mode {mode:o})"
            ),
            Self::LoadedOwner { uid } => write!(
                f,
                "has skills or settings in {AGENTS_DIR} that are owned by another user (uid {uid})"
            ),
            Self::LoadedShared { mode } => write!(
                f,
                "has skills or settings in {AGENTS_DIR} that every user may write (mode {mode:o})"
            ),
            Self::LoadedOutside => write!(
                f,
                "has skills or settings in {AGENTS_DIR} that lead outside the project (a symbolic \
                 link); trust it with --force if that directory is yours"
            ),
        }
    }
}

impl Risk {
    /// The risks, joined for a message (each says what the directory "is" or "has").
    pub fn describe(risks: &[Self]) -> String {
        risks
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", and ")
    }
}

/// Whether `dir` is `home` or holds it ([`Risk::Home`], [`Risk::AboveHome`]); both canonical.
pub(crate) fn home_risk(dir: &Path, home: Option<&Path>) -> Option<Risk> {
    let home = home?;
    if dir == home {
        Some(Risk::Home)
    } else if home.starts_with(dir) {
        Some(Risk::AboveHome)
    } else {
        None
    }
}

/// The risks of `dir` itself and of its `.agents` (when it has one). A directory that cannot be read is no risk here: it
/// holds nothing that could be loaded.
pub(crate) fn ownership_risks(dir: &Path) -> Vec<Risk> {
    let mut risks = Vec::new();
    if let Ok(metadata) = std::fs::metadata(dir) {
        if let Some(uid) = foreign_owner(&metadata) {
            risks.push(Risk::Owner { uid });
        }
        if let Some(mode) = shared_mode(&metadata) {
            risks.push(Risk::Shared { mode });
        }
    }
    if let Ok(metadata) = std::fs::metadata(dir.join(AGENTS_DIR)) {
        if let Some(uid) = foreign_owner(&metadata) {
            risks.push(Risk::AgentsOwner { uid });
        }
        if let Some(mode) = shared_mode(&metadata) {
            risks.push(Risk::AgentsShared { mode });
        }
    }
    risks.extend(loaded_risks(dir));
    risks
}

/// The risks (each once) of what would be loaded from `dir`'s `.agents` where it resolves to:
/// the skills and plugins directories, each entry of the skills directory and the settings
/// file, each the user's (or root's), not writable by every user, and inside `dir`.
fn loaded_risks(dir: &Path) -> Vec<Risk> {
    let agents = dir.join(AGENTS_DIR);
    let skills = agents.join(SKILLS_DIR);
    let mut loaded = vec![
        skills.clone(),
        agents.join(PLUGINS_DIR),
        agents.join(PROJECT_CONFIG_FILE),
    ];
    if let Ok(entries) = std::fs::read_dir(&skills) {
        loaded.extend(entries.flatten().map(|entry| entry.path()));
    }
    let inside = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut risks = Vec::new();
    for path in loaded {
        let Ok(resolved) = std::fs::canonicalize(&path) else {
            continue;
        };
        let Ok(metadata) = std::fs::metadata(&resolved) else {
            continue;
        };
        let found = [
            foreign_owner(&metadata).map(|uid| Risk::LoadedOwner { uid }),
            shared_mode(&metadata).map(|mode| Risk::LoadedShared { mode }),
            (!resolved.starts_with(&inside)).then_some(Risk::LoadedOutside),
        ];
        for risk in found.into_iter().flatten() {
            if !risks.contains(&risk) {
                risks.push(risk);
            }
        }
    }
    risks
}

/// The owner of what `metadata` describes when it is neither this user nor root.
#[cfg(unix)]
fn foreign_owner(metadata: &Metadata) -> Option<u32> {
    skillful_state::Ownership::of(metadata).foreign_owner()
}

#[cfg(not(unix))]
fn foreign_owner(_metadata: &Metadata) -> Option<u32> {
    None
}

/// The mode of what `metadata` describes when every user may write in it or it is sticky.
#[cfg(unix)]
fn shared_mode(metadata: &Metadata) -> Option<u32> {
    let ownership = skillful_state::Ownership::of(metadata);
    (ownership.writable_by_everyone() || ownership.sticky()).then_some(ownership.mode)
}

#[cfg(not(unix))]
fn shared_mode(_metadata: &Metadata) -> Option<u32> {
    None
}
