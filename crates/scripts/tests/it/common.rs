//! Script files in temporary directories, and requests to run them.

#![allow(dead_code)] // Each test binary uses its own part of these helpers.

use std::path::{Path, PathBuf};

use serde_json::Value;
use skillful_discovery::FileScriptRequest;

/// Writes `text` to `dir/name` (creating directories), executable when `executable`.
pub(crate) fn script(dir: &Path, name: &str, text: &str, executable: bool) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    set_executable(&path, executable);
    path
}

#[cfg(unix)]
fn set_executable(path: &Path, executable: bool) {
    use std::os::unix::fs::PermissionsExt;
    let mode = if executable { 0o755 } else { 0o644 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[cfg(not(unix))]
fn set_executable(_path: &Path, _executable: bool) {}

/// A request to run `path` (named by its file name) with `arguments`.
pub(crate) fn request(path: &Path, arguments: Value) -> FileScriptRequest {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    FileScriptRequest::new("test-skill", path.parent().unwrap(), name, path, arguments)
}

/// A Python script that prints its command-line arguments as a JSON array.
pub(crate) const PRINT_ARGV: &str = "import json, sys\nprint(json.dumps(sys.argv[1:]))\n";
