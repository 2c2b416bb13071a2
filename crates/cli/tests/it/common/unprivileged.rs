//! Running the `skills` binary as an unprivileged user, as an attacker's script would run (the
//! user and its helpers are `skillful_test_support::unprivileged`'s).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

pub(crate) use skillful_test_support::unprivileged::*;

/// The `skills` binary where any user can run it: a hard link (or copy) in `dir`, since the
/// build directory may lie below a directory only root may enter.
pub(crate) fn reachable_binary(dir: &Path) -> PathBuf {
    let binary = dir.join("skills");
    if binary.exists() {
        return binary;
    }
    if fs::hard_link(env!("CARGO_BIN_EXE_skills"), &binary).is_err() {
        fs::copy(env!("CARGO_BIN_EXE_skills"), &binary).unwrap();
    }
    fs::set_permissions(&binary, fs::Permissions::from_mode(0o755)).unwrap();
    binary
}
