//! Builds plugin crates (`crate-type = ["cdylib"]`) with cargo and returns the paths of the
//! libraries cargo wrote, read from its `--message-format=json` output rather than guessed.
//!
//! `cargo xtask build-plugins`, the plugin tests and the plugin benchmark use it: the test
//! harness does not build `cdylib`s by itself. It runs the cargo that runs it (`$CARGO`), in the
//! same target directory unless told otherwise, so nothing is built twice.
//!
//! [`workspace_packages`] lists a workspace's packages (`cargo metadata`), to find the plugins;
//! [`workspace_root`] finds a workspace's root directory (`cargo locate-project`) at run time.
//!
//! This crate owns running `cargo build`, `cargo metadata` and `cargo locate-project` and reading
//! their output; **it knows nothing of the
//! plugin interface or of loading libraries**.
//!
//! # Example
//! ```no_run
//! use skillful_plugin_build::PluginBuild;
//!
//! let libraries = PluginBuild::new().package("clock").release(true).run()?;
//! for library in &libraries {
//!     println!("{}: {}", library.name, library.path.display());
//! }
//! # Ok::<(), skillful_plugin_build::BuildError>(())
//! ```

#![forbid(unsafe_code)]

use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

/// Why a build failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// cargo could not be started, or its output read.
    #[error("cannot run {cargo}: {source}")]
    Io {
        /// The cargo command.
        cargo: String,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// cargo ran and failed.
    #[error("`{command}` failed ({status}):\n{stderr}")]
    Failed {
        /// The command line.
        command: String,
        /// cargo's exit status.
        status: ExitStatus,
        /// What cargo printed on stderr (the compiler's errors).
        stderr: String,
    },
}

/// A library cargo built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltLibrary {
    /// The library target's name (`[lib] name`, e.g. `temperature_converter`).
    pub name: String,
    /// The file cargo wrote (`target/debug/libtemperature_converter.so`).
    pub path: PathBuf,
}

/// A `cargo build` of plugin crates.
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct PluginBuild {
    manifest_path: Option<PathBuf>,
    packages: Vec<String>,
    release: bool,
    target_dir: Option<PathBuf>,
    config: Vec<String>,
}

impl PluginBuild {
    /// A build of the current directory's workspace, debug profile.
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds the workspace or package of this `Cargo.toml`.
    pub fn manifest_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.manifest_path = Some(path.into());
        self
    }

    /// Builds this package (`-p NAME`); with none, cargo's default members.
    pub fn package(mut self, name: impl Into<String>) -> Self {
        self.packages.push(name.into());
        self
    }

    /// Builds with the release profile when `release` is true.
    pub fn release(mut self, release: bool) -> Self {
        self.release = release;
        self
    }

    /// Writes to this target directory instead of the workspace's (`CARGO_TARGET_DIR` or
    /// `target/`).
    pub fn target_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.target_dir = Some(dir.into());
        self
    }

    /// Overrides one cargo configuration value (`--config KEY=VALUE`), e.g. a profile setting.
    pub fn config(mut self, key_value: impl Into<String>) -> Self {
        self.config.push(key_value.into());
        self
    }

    /// Runs the build and returns every dynamic library (`cdylib`) it produced, in cargo's order.
    /// The compiler's messages are collected and returned only when the build fails.
    ///
    /// # Errors
    /// cargo cannot be run, or the build fails.
    pub fn run(&self) -> Result<Vec<BuiltLibrary>, BuildError> {
        let mut command = cargo(
            &["build", "--message-format=json-render-diagnostics"],
            self.manifest_path.as_deref(),
        );
        for package in &self.packages {
            command.args(["-p", package]);
        }
        if self.release {
            command.arg("--release");
        }
        if let Some(dir) = &self.target_dir {
            command.arg("--target-dir").arg(dir);
        }
        for key_value in &self.config {
            command.args(["--config", key_value]);
        }
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| io_error(&command, source))?;
        let mut stderr = child.stderr.take().expect("stderr is piped");
        let stderr = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            stderr.read_to_end(&mut bytes).map(|_| bytes)
        });
        let mut libraries = Vec::new();
        for line in BufReader::new(child.stdout.take().expect("stdout is piped")).lines() {
            libraries.extend(libraries_in(
                &line.map_err(|source| io_error(&command, source))?,
            ));
        }
        let status = child.wait().map_err(|source| io_error(&command, source))?;
        let stderr = stderr
            .join()
            .expect("reading stderr never panics")
            .map_err(|source| io_error(&command, source))?;
        if !status.success() {
            return Err(failed(&command, status, &stderr));
        }
        Ok(libraries)
    }
}

/// A package of a workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    /// The package's name.
    pub name: String,
    /// Its `Cargo.toml`.
    pub manifest_path: PathBuf,
    /// The names of the packages it depends on to build its libraries and binaries (normal
    /// dependencies, on any target; not dev- or build-dependencies).
    pub normal_dependencies: Vec<String>,
    /// Its `description`, if it has one.
    pub description: Option<String>,
}

/// The packages of the workspace of `manifest_path` (the current directory's when `None`), as
/// `cargo metadata --no-deps` lists them.
///
/// # Errors
/// cargo cannot be run, or fails (no workspace there, a broken manifest).
pub fn workspace_packages(manifest_path: Option<&Path>) -> Result<Vec<Package>, BuildError> {
    let (command, stdout) = cargo_output(
        &["metadata", "--no-deps", "--format-version", "1"],
        manifest_path,
    )?;
    let metadata: serde_json::Value =
        serde_json::from_slice(&stdout).map_err(|error| invalid_output(&command, error))?;
    Ok(metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|package| {
            Some(Package {
                name: package["name"].as_str()?.to_owned(),
                manifest_path: PathBuf::from(package["manifest_path"].as_str()?),
                normal_dependencies: package["dependencies"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|dependency| dependency["kind"].is_null())
                    .filter_map(|dependency| Some(dependency["name"].as_str()?.to_owned()))
                    .collect(),
                description: package["description"].as_str().map(str::to_owned),
            })
        })
        .collect())
}

/// The root directory of the workspace that holds `manifest_path` (the current directory's when
/// `None`), as `cargo locate-project --workspace` finds it now: unlike a path baked in at compile
/// time, it follows a checkout that was copied or moved.
///
/// # Errors
/// cargo cannot be run, or fails (no `Cargo.toml` there or above, a broken manifest).
pub fn workspace_root(manifest_path: Option<&Path>) -> Result<PathBuf, BuildError> {
    let (command, stdout) = cargo_output(
        &["locate-project", "--workspace", "--message-format", "plain"],
        manifest_path,
    )?;
    let manifest = String::from_utf8(stdout).map_err(|error| invalid_output(&command, error))?;
    let manifest = PathBuf::from(manifest.trim_end_matches(['\n', '\r']));
    match manifest.parent() {
        Some(root) if manifest.is_absolute() => Ok(root.to_path_buf()),
        _ => Err(invalid_output(
            &command,
            format!("not an absolute manifest path: {}", manifest.display()),
        )),
    }
}

/// The cargo that runs this process (`$CARGO`), else `cargo`, with `args`, and `--manifest-path`
/// when one is given.
fn cargo(args: &[&str], manifest_path: Option<&Path>) -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command.args(args);
    if let Some(manifest) = manifest_path {
        command.arg("--manifest-path").arg(manifest);
    }
    command
}

/// Runs [`cargo`]; its standard output, with the command, by which an error in that output
/// names the cargo that printed it.
fn cargo_output(
    args: &[&str],
    manifest_path: Option<&Path>,
) -> Result<(Command, Vec<u8>), BuildError> {
    let mut command = cargo(args, manifest_path);
    let output = command
        .output()
        .map_err(|source| io_error(&command, source))?;
    if !output.status.success() {
        return Err(failed(&command, output.status, &output.stderr));
    }
    Ok((command, output.stdout))
}

/// What cargo printed is not what `command` promises.
fn invalid_output(
    command: &Command,
    error: impl Into<Box<dyn std::error::Error + Send + Sync>>,
) -> BuildError {
    io_error(command, io::Error::new(io::ErrorKind::InvalidData, error))
}

fn io_error(command: &Command, source: io::Error) -> BuildError {
    BuildError::Io {
        cargo: command.get_program().to_string_lossy().into_owned(),
        source,
    }
}

fn failed(command: &Command, status: ExitStatus, stderr: &[u8]) -> BuildError {
    BuildError::Failed {
        command: format!(
            "{} {}",
            command.get_program().to_string_lossy(),
            args_of(command)
        ),
        status,
        stderr: String::from_utf8_lossy(stderr).into_owned(),
    }
}

fn args_of(command: &Command) -> String {
    command
        .get_args()
        .map(|arg| arg.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The dynamic libraries a `compiler-artifact` message reports; none for any other line.
fn libraries_in(line: &str) -> Vec<BuiltLibrary> {
    let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
        return Vec::new();
    };
    let is_cdylib = message["target"]["kind"]
        .as_array()
        .is_some_and(|kinds| kinds.iter().any(|kind| kind == "cdylib"));
    if message["reason"] != "compiler-artifact" || !is_cdylib {
        return Vec::new();
    }
    let name = message["target"]["name"].as_str().unwrap_or_default();
    message["filenames"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|file| file.as_str())
        .map(Path::new)
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == std::env::consts::DLL_EXTENSION)
        })
        .map(|path| BuiltLibrary {
            name: name.to_owned(),
            path: path.to_path_buf(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_dynamic_libraries_of_cdylib_artifacts_are_reported() {
        let library = format!("/t/debug/libclock.{}", std::env::consts::DLL_EXTENSION);
        let artifact = serde_json::json!({
            "reason": "compiler-artifact",
            "target": {"kind": ["cdylib"], "name": "clock"},
            "filenames": [library, "/t/debug/clock.pdb"],
        });
        assert_eq!(
            libraries_in(&artifact.to_string()),
            [BuiltLibrary {
                name: "clock".to_owned(),
                path: PathBuf::from(&library),
            }]
        );
        let rlib = serde_json::json!({
            "reason": "compiler-artifact",
            "target": {"kind": ["lib"], "name": "serde"},
            "filenames": ["/t/debug/libserde.rlib"],
        });
        assert!(libraries_in(&rlib.to_string()).is_empty());
        assert!(libraries_in(r#"{"reason":"build-finished","success":true}"#).is_empty());
        assert!(libraries_in("not json").is_empty());
    }

    #[test]
    fn the_workspace_root_is_found_from_a_member_and_from_the_current_directory() {
        let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let expected = crate_dir.parent().unwrap().parent().unwrap();
        let from_member = workspace_root(Some(&crate_dir.join("Cargo.toml"))).unwrap();
        assert_eq!(from_member, expected);
        assert!(from_member.join("xtask/Cargo.toml").is_file());
        // The test runs in the crate's directory, a member of the workspace.
        assert_eq!(workspace_root(None).unwrap(), expected);
    }

    #[test]
    fn no_manifest_is_an_error_naming_the_command() {
        let dir = tempfile::tempdir().unwrap();
        let error = workspace_root(Some(&dir.path().join("Cargo.toml"))).unwrap_err();
        assert!(
            matches!(&error, BuildError::Failed { command, .. } if command.contains("locate-project")),
            "{error}"
        );
    }
}
