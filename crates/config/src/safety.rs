//! What makes a directory unsafe to take a project from: it is (or holds) the home directory,
//! another user owns it, or every user may write in it; the same for its `.agents`.

use std::fs::Metadata;
use std::path::Path;

use crate::environment::AGENTS_DIR;

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
