//! The agent hosts whose skill directories skillful installs into and reads: one table, used by
//! `skills add|install|remove --agent`, by `[skills] agents` in the settings and by
//! `skills doctor`.

use std::path::{Path, PathBuf};

/// An agent host and where it reads the skills it owns, in the user's home directory and in a
/// project. Each host may read other directories too (the book's table names them); these are
/// the ones that are its own, where `--agent` installs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Host {
    /// The name `--agent` and `[skills] agents` take (`claude-code`).
    pub name: &'static str,
    /// The host's own name, for messages (`Claude Code`).
    pub title: &'static str,
    /// Its user skills directory, relative to the home directory (`.claude/skills`).
    pub user_dir: &'static str,
    /// Its project skills directory, relative to the project directory (`.claude/skills`).
    pub project_dir: &'static str,
}

/// The name of the default host: skillful's own `~/.agents/skills` and `.agents/skills`, which
/// Codex, Gemini CLI, Copilot and goose read as well.
pub const DEFAULT_HOST: &str = "agents";

/// Every host known, the default first.
pub const HOSTS: &[Host] = &[
    Host {
        name: DEFAULT_HOST,
        title: "the shared .agents directory",
        user_dir: ".agents/skills",
        project_dir: ".agents/skills",
    },
    Host {
        name: "claude-code",
        title: "Claude Code",
        user_dir: ".claude/skills",
        project_dir: ".claude/skills",
    },
    Host {
        name: "codex",
        title: "Codex",
        user_dir: ".codex/skills",
        project_dir: ".codex/skills",
    },
    Host {
        name: "gemini-cli",
        title: "Gemini CLI",
        user_dir: ".gemini/skills",
        project_dir: ".gemini/skills",
    },
    Host {
        name: "copilot",
        title: "GitHub Copilot",
        user_dir: ".copilot/skills",
        project_dir: ".github/skills",
    },
    Host {
        name: "goose",
        title: "goose",
        user_dir: ".config/goose/skills",
        project_dir: ".goose/skills",
    },
];

/// A host name that is not in [`HOSTS`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown agent {name:?}{}; known agents: {}",
    nearest.map(|nearest| format!(" (did you mean {nearest}?)")).unwrap_or_default(),
    HOSTS.iter().map(|host| host.name).collect::<Vec<_>>().join(", ")
)]
pub struct UnknownHost {
    /// The name given.
    pub name: String,
    /// The known name nearest to it, if one is near.
    pub nearest: Option<&'static str>,
}

impl Host {
    /// The host called `name` (as `--agent` takes it, ignoring ASCII case).
    ///
    /// # Errors
    /// [`UnknownHost`], with the nearest known name when one is close.
    ///
    /// # Example
    /// ```
    /// use skillful_core::hosts::Host;
    /// assert_eq!(Host::named("claude-code").unwrap().user_dir, ".claude/skills");
    /// assert_eq!(Host::named("claude").unwrap_err().nearest, Some("claude-code"));
    /// ```
    pub fn named(name: &str) -> Result<&'static Host, UnknownHost> {
        HOSTS
            .iter()
            .find(|host| host.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| UnknownHost {
                name: name.to_owned(),
                nearest: crate::text::closest(name, HOSTS.iter().map(|host| host.name)),
            })
    }

    /// Its user skills directory under the home directory `home`.
    pub fn user_skills(&self, home: &Path) -> PathBuf {
        home.join(self.user_dir)
    }

    /// Its skills directory in the project directory `project`.
    pub fn project_skills(&self, project: &Path) -> PathBuf {
        project.join(self.project_dir)
    }

    /// Whether this is the default host ([`DEFAULT_HOST`]).
    pub fn is_default(&self) -> bool {
        self.name == DEFAULT_HOST
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_directories_relative() {
        for (i, host) in HOSTS.iter().enumerate() {
            assert!(HOSTS[i + 1..].iter().all(|other| other.name != host.name));
            for dir in [host.user_dir, host.project_dir] {
                assert!(Path::new(dir).is_relative() && !dir.contains(".."), "{dir}");
            }
        }
    }

    #[test]
    fn an_unknown_name_says_the_nearest() {
        let error = Host::named("gemini").unwrap_err();
        assert_eq!(error.nearest, Some("gemini-cli"));
        assert!(error.to_string().contains("did you mean gemini-cli?"));
        assert_eq!(Host::named("zzzzzz").unwrap_err().nearest, None);
        assert_eq!(Host::named("Goose").unwrap().name, "goose");
    }
}
