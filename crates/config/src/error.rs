use std::path::{Path, PathBuf};

/// Why skills could not be composed, or a setting not read or changed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// Where the default roots or the per-user state are is unknown.
    #[error("{0}")]
    Environment(String),
    /// A root given explicitly does not exist.
    #[error("{}: no such directory; give an existing skills root", path.display())]
    MissingRoot {
        /// The root.
        path: PathBuf,
    },
    /// A plugin path given explicitly does not exist.
    #[error("{}: no such directory; give a directory of plugins or a plugin file", path.display())]
    MissingPlugins {
        /// The path.
        path: PathBuf,
    },
    /// The per-user state (trust store, configuration file) cannot be used.
    #[error(transparent)]
    State(#[from] skillful_state::StateError),
    /// A configuration, trust or lock file cannot be read, written or locked safely.
    #[error(transparent)]
    Fs(#[from] skillful_fs::FsError),
    /// A configuration or trust file is not valid TOML of the expected shape.
    #[error("{}: {message}; fix the file or remove it", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A directory that is not trusted unless forced: the home directory or one above it,
    /// another user's, one every user may write in, or one whose `.agents` is such.
    #[error(
        "{}: not trusted: it {risks}; trusting it would load (and run) the skills, settings and plugins of whatever anyone puts below it; trust a project's own directory instead, or pass --force to trust this one anyway",
        shown_path(path)
    )]
    Risky {
        /// The directory, canonical.
        path: PathBuf,
        /// What is wrong with it.
        risks: String,
    },
    /// A project the user does not trust, asked to act on what its own files name (the
    /// sources of its skills lock).
    #[error("{reason}; {action} only in a trusted project")]
    UntrustedProject {
        /// The project's directory.
        path: PathBuf,
        /// Why it is not trusted, and how to trust it.
        reason: String,
        /// What was refused.
        action: String,
    },
    /// A skill name that cannot be enabled or disabled.
    #[error(
        "skill name \"{name}\" cannot be enabled or disabled: {reason}; give the name as `skills list --all` shows it"
    )]
    InvalidName {
        /// The name, its control characters escaped.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A file skills source could not be configured.
    #[error(transparent)]
    Files(#[from] skillful_discovery::BuildError),
    /// An MCP server was given in a way that cannot be used.
    #[error("{0}")]
    Mcp(String),
}

/// `path` as text, losslessly: bytes that are not UTF-8 as `\xNN` (so that a directory and its
/// look-alike, whose name has U+FFFD where the other has a byte, never show alike).
pub fn shown_path(path: &Path) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let mut text = String::new();
        for chunk in path.as_os_str().as_bytes().utf8_chunks() {
            text.push_str(chunk.valid());
            for byte in chunk.invalid() {
                text.push_str(&format!("\\x{byte:02X}"));
            }
        }
        text
    }
    #[cfg(not(unix))]
    {
        path.to_string_lossy().into_owned()
    }
}
