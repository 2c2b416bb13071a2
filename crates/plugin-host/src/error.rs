use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use abi_stable::library::LibraryError;
use skillful_plugin_abi::INTERFACE_VERSION;

/// Why a plugin file, or a plugin directory, could not be loaded.
///
/// Each message is one line naming the file and what to do; the other plugins still load.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PluginError {
    /// A library or plugin directory is not safe to load code from; nothing in it was opened.
    #[error("{}: refused, nothing was loaded: it {reason}; {fix}", path.display())]
    Unsafe {
        /// The file or directory.
        path: PathBuf,
        /// What makes it unsafe.
        reason: String,
        /// What to do about it.
        fix: String,
    },
    /// A plugin directory could not be listed.
    #[error("cannot list plugins in {}: {source}", dir.display())]
    Io {
        /// The directory.
        dir: PathBuf,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// The file is not a dynamic library this platform can load.
    #[error(
        "{}: cannot be loaded as a library ({reason}); give a plugin built as a cdylib for this platform",
        path.display()
    )]
    NotALibrary {
        /// The file.
        path: PathBuf,
        /// What the dynamic loader said.
        reason: String,
    },
    /// The library exports no skills plugin.
    #[error(
        "{}: not a skills plugin (it exports no abi_stable root module); export a skill with skillful_plugin_abi::export_skill!",
        path.display()
    )]
    NotAPlugin {
        /// The file.
        path: PathBuf,
    },
    /// The library was built with an `abi_stable` this host cannot talk to.
    #[error(
        "{}: built with an incompatible abi_stable; rebuild the plugin against skillful-plugin-abi {INTERFACE_VERSION} (abi_stable 0.11)",
        path.display()
    )]
    IncompatibleAbiStable {
        /// The file.
        path: PathBuf,
    },
    /// The plugin was built against another version of the plugin interface.
    #[error(
        "{}: built against plugin interface version {plugin}, this host speaks {INTERFACE_VERSION}; rebuild the plugin against skillful-plugin-abi {INTERFACE_VERSION}",
        path.display()
    )]
    IncompatibleVersion {
        /// The file.
        path: PathBuf,
        /// The interface version the plugin declares.
        plugin: String,
    },
    /// The plugin's root module does not have the layout of this host's interface.
    ///
    /// abi_stable's full comparison (long) is the error's [`source`](std::error::Error::source).
    #[error(
        "{}: its plugin interface does not match this host's (the root module's layout differs); rebuild the plugin against skillful-plugin-abi {INTERFACE_VERSION}",
        path.display()
    )]
    IncompatibleLayout {
        /// The file.
        path: PathBuf,
        /// abi_stable's report of every difference.
        #[source]
        source: LayoutMismatch,
    },
    /// The plugin's own code failed or panicked while it was loaded or described.
    #[error("{}: the plugin failed: {message}", path.display())]
    Failed {
        /// The file.
        path: PathBuf,
        /// What the plugin reported.
        message: String,
    },
    /// The plugin describes a skill that cannot be served (a blank name, two resources with one
    /// name, an unknown risk tier, a schema that is not JSON).
    #[error("{}: invalid skill: {message}", path.display())]
    InvalidSkill {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
}

/// abi_stable's report of how a plugin's interface differs from the host's: every type compared
/// and every difference, many lines long.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutMismatch(String);

impl LayoutMismatch {
    /// The full report.
    pub fn report(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for LayoutMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.trim())
    }
}

impl std::error::Error for LayoutMismatch {}

impl PluginError {
    /// The error for what abi_stable reported while loading `path`.
    pub(crate) fn from_library(path: &Path, error: LibraryError) -> Self {
        let path = path.to_path_buf();
        match error {
            LibraryError::OpenError { err, .. } => {
                let reason = one_line(&err.to_string());
                let reason = reason
                    .strip_prefix(&format!("{}: ", path.display()))
                    .map_or(reason.clone(), str::to_owned);
                PluginError::NotALibrary { path, reason }
            }
            LibraryError::GetSymbolError { .. } => PluginError::NotAPlugin { path },
            LibraryError::ParseVersionError(error) => PluginError::IncompatibleVersion {
                path,
                plugin: error.version_strings().version.to_string(),
            },
            LibraryError::IncompatibleVersionNumber { actual_version, .. } => {
                PluginError::IncompatibleVersion {
                    path,
                    plugin: actual_version.to_string(),
                }
            }
            LibraryError::AbiInstability(report) => PluginError::IncompatibleLayout {
                path,
                source: LayoutMismatch(report.to_string()),
            },
            LibraryError::InvalidAbiHeader(_) | LibraryError::InvalidCAbi { .. } => {
                PluginError::IncompatibleAbiStable { path }
            }
            LibraryError::RootModule { err, .. } => PluginError::Failed {
                path,
                message: one_line(&err.to_string()),
            },
            LibraryError::Many(errors) => match errors.into_iter().next() {
                Some(first) => Self::from_library(&path, first),
                None => PluginError::Failed {
                    path,
                    message: "abi_stable reported an empty list of errors".to_owned(),
                },
            },
        }
    }

    /// The file (or, for [`PluginError::Io`], the directory) the error is about.
    pub fn path(&self) -> &Path {
        match self {
            PluginError::Io { dir, .. } => dir,
            PluginError::NotALibrary { path, .. }
            | PluginError::NotAPlugin { path }
            | PluginError::IncompatibleAbiStable { path }
            | PluginError::IncompatibleVersion { path, .. }
            | PluginError::IncompatibleLayout { path, .. }
            | PluginError::Failed { path, .. }
            | PluginError::InvalidSkill { path, .. }
            | PluginError::Unsafe { path, .. } => path,
        }
    }
}

/// `text` on one line: abi_stable's messages span several.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use abi_stable::sabi_types::{VersionNumber, VersionStrings};

    use super::*;

    #[test]
    fn a_plugin_of_another_interface_version_is_told_which_version_to_rebuild_against() {
        let error = PluginError::from_library(
            Path::new("/plugins/libold.so"),
            LibraryError::IncompatibleVersionNumber {
                library_name: "skills plugin interface",
                expected_version: VersionNumber::new(VersionStrings::new(INTERFACE_VERSION))
                    .unwrap(),
                actual_version: VersionNumber::new(VersionStrings::new("7.0.0")).unwrap(),
            },
        );
        assert!(
            matches!(&error, PluginError::IncompatibleVersion { plugin, .. } if plugin == "7.0.0")
        );
        let message = error.to_string();
        assert!(
            message.starts_with("/plugins/libold.so: built against plugin interface version 7.0.0")
        );
        assert!(message.ends_with(&format!(
            "rebuild the plugin against skillful-plugin-abi {INTERFACE_VERSION}"
        )));
        assert_eq!(error.path(), Path::new("/plugins/libold.so"));
    }

    #[test]
    fn an_unparseable_version_is_an_incompatible_version() {
        let parse_error = VersionNumber::new(VersionStrings::new("x.y")).unwrap_err();
        let error = PluginError::from_library(
            Path::new("p.so"),
            LibraryError::ParseVersionError(parse_error),
        );
        assert!(
            matches!(&error, PluginError::IncompatibleVersion { plugin, .. } if plugin == "x.y")
        );
    }

    #[test]
    fn loader_messages_are_flattened_to_one_line() {
        assert_eq!(
            one_line("\nCould not open\n\tbecause:\n\tno\n"),
            "Could not open because: no"
        );
    }
}
