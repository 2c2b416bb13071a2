//! An unprivileged user for tests that run as root: root bypasses file permissions and reads
//! every process's `/proc` files whatever we do, so an attack is only real as another user.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

/// The name of the unprivileged user the tests run `skills` as when they run as root.
pub const TEST_USER: &str = "skillful-test";

/// How to run a command as an unprivileged user: a prefix for the command line (empty when this
/// process is unprivileged already), or why it cannot be done here.
///
/// # Errors
/// When `id`, `useradd` or `setpriv` cannot run, or the user cannot be created.
pub fn as_unprivileged_user() -> Result<Vec<String>, String> {
    let id = |args: &[&str]| -> Option<String> {
        let output = Command::new("id").args(args).output().ok()?;
        output
            .status
            .success()
            .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
    };
    if id(&["-u"]).ok_or("`id` cannot run")? != "0" {
        return Ok(Vec::new());
    }
    if id(&["-u", TEST_USER]).is_none() {
        let created = Command::new("useradd")
            .args([
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
            ])
            .arg(TEST_USER)
            .status()
            .map_err(|error| format!("useradd cannot run ({error})"))?;
        // Another test binary may have created it meanwhile.
        if !created.success() && id(&["-u", TEST_USER]).is_none() {
            return Err(format!("useradd {TEST_USER} failed ({created})"));
        }
    }
    let (Some(uid), Some(gid)) = (id(&["-u", TEST_USER]), id(&["-g", TEST_USER])) else {
        return Err(format!("user {TEST_USER} has no uid or gid"));
    };
    Command::new("setpriv")
        .arg("--version")
        .output()
        .map_err(|error| format!("setpriv cannot run ({error})"))?;
    Ok(vec![
        "setpriv".into(),
        format!("--reuid={uid}"),
        format!("--regid={gid}"),
        "--clear-groups".into(),
        "--".into(),
    ])
}

/// Makes `dir` and everything below it readable (and its directories enterable) by anyone.
pub fn open_to_everyone(dir: &Path) {
    let mode = if dir.is_dir() { 0o755 } else { 0o644 };
    fs::set_permissions(dir, fs::Permissions::from_mode(mode)).unwrap();
    if dir.is_dir() {
        for entry in fs::read_dir(dir).unwrap() {
            open_to_everyone(&entry.unwrap().path());
        }
    }
}

/// The uid and gid of [`TEST_USER`] (created by [`as_unprivileged_user`]).
pub fn test_user_ids() -> (u32, u32) {
    let id = |flag: &str| -> u32 {
        let output = Command::new("id").args([flag, TEST_USER]).output().unwrap();
        String::from_utf8_lossy(&output.stdout)
            .trim()
            .parse()
            .unwrap()
    };
    (id("-u"), id("-g"))
}

/// Gives `path` and everything below it to `owner` (uid, gid), so that only the sandbox, not
/// file permissions, stands between that user's scripts and the files.
pub fn give_to(path: &Path, owner: (u32, u32)) {
    std::os::unix::fs::lchown(path, Some(owner.0), Some(owner.1)).unwrap();
    if path.is_dir() && !path.is_symlink() {
        for entry in fs::read_dir(path).unwrap() {
            give_to(&entry.unwrap().path(), owner);
        }
    }
}
