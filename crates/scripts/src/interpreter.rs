//! Which program runs a script file, by the file's extension.

use std::path::Path;

/// A program that runs script files: the first of its programs that is installed, with fixed
/// arguments before the script and after it.
///
/// The command line is `program ARGS... SCRIPT ARGS_AFTER_SCRIPT... SCRIPT_ARGUMENTS...`.
///
/// # Example
/// ```
/// use skillful_scripts::Interpreter;
///
/// let python = Interpreter::new("python3").or("python");
/// assert_eq!(python.programs(), ["python3", "python"]);
/// let dotnet = Interpreter::new("dotnet").arg("script").arg_after_script("--");
/// # let _ = dotnet;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interpreter {
    programs: Vec<String>,
    args: Vec<String>,
    args_after_script: Vec<String>,
}

impl Interpreter {
    /// Runs scripts with `program`, found on the script's `PATH` (or given as a path).
    pub fn new(program: impl Into<String>) -> Self {
        Self {
            programs: vec![program.into()],
            args: Vec::new(),
            args_after_script: Vec::new(),
        }
    }

    /// Falls back to `program` when the programs before it are not installed.
    pub fn or(mut self, program: impl Into<String>) -> Self {
        self.programs.push(program.into());
        self
    }

    /// Adds an argument before the script's path (`dotnet script`).
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Adds an argument between the script's path and the script's own arguments
    /// (`dotnet script FILE -- ARGS`).
    pub fn arg_after_script(mut self, arg: impl Into<String>) -> Self {
        self.args_after_script.push(arg.into());
        self
    }

    /// The programs tried, in order.
    pub fn programs(&self) -> &[String] {
        &self.programs
    }

    /// The arguments before the script's path.
    pub fn args(&self) -> &[String] {
        &self.args
    }

    /// The arguments between the script's path and its own arguments.
    pub fn args_after_script(&self) -> &[String] {
        &self.args_after_script
    }
}

/// The interpreters when none are configured, by extension:
///
/// | extension | command |
/// |---|---|
/// | `.py` | `python3 SCRIPT ARGS`, else `python SCRIPT ARGS` |
/// | `.js` | `node SCRIPT ARGS` |
/// | `.sh` | `bash SCRIPT ARGS` |
/// | `.ps1` | `pwsh -NoProfile -NonInteractive -File SCRIPT ARGS` |
/// | `.cs`, `.csx` | `dotnet script SCRIPT -- ARGS` |
pub fn default_interpreters() -> Vec<(String, Interpreter)> {
    let dotnet = Interpreter::new("dotnet")
        .arg("script")
        .arg_after_script("--");
    vec![
        (".py".into(), Interpreter::new("python3").or("python")),
        (".js".into(), Interpreter::new("node")),
        (".sh".into(), Interpreter::new("bash")),
        (
            ".ps1".into(),
            Interpreter::new("pwsh")
                .arg("-NoProfile")
                .arg("-NonInteractive")
                .arg("-File"),
        ),
        (".cs".into(), dotnet.clone()),
        (".csx".into(), dotnet),
    ]
}

/// The extension of `path`'s file name, lowercased with its dot (`.py`), if it has one.
pub(crate) fn extension_of(path: &Path) -> Option<String> {
    path.extension()
        .map(|extension| format!(".{}", extension.to_string_lossy().to_lowercase()))
}
