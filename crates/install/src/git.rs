//! Fetching one commit with the `git` command line.
//!
//! The `git` program rather than the `gix` crate: it is on every machine that has skills in git,
//! it uses the user's own credentials, SSH configuration and proxies as they are, and a shallow
//! fetch of exactly one commit (`fetch --depth 1 URL REF`) is one command; `gix` would add a large
//! dependency tree for the same. No hook, filter, submodule or credential prompt runs: the fetch
//! goes into a fresh repository with hooks pointed at nothing, and only the tree is checked out.
//!
//! git sees only the host variables it needs ([`GIT_ENV`] on top of
//! [`skillful_process::DEFAULT_ALLOWED_ENV`]): a credential helper, `ssh` or a proxy it starts
//! gets no API key of the host's (`SKILLS_API_KEY`, `OPENAI_API_KEY`, `AWS_*`).

use std::path::Path;
use std::process::Command;

use crate::InstallError;

/// The host variables git is given besides [`skillful_process::DEFAULT_ALLOWED_ENV`]: the
/// user's SSH agent and SSH command, proxies, certificate stores, git's own configuration
/// files, and what a desktop credential helper needs to reach its keyring.
const GIT_ENV: [&str; 26] = [
    "USER",
    "LOGNAME",
    "XDG_CONFIG_HOME",
    "XDG_RUNTIME_DIR",
    "DBUS_SESSION_BUS_ADDRESS",
    "SSH_AUTH_SOCK",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_SSH_VARIANT",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_SSL_CAINFO",
    "GIT_SSL_CAPATH",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "CURL_CA_BUNDLE",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "GIT_PROXY_COMMAND",
];

/// A `git` command with every setting that could run code or prompt turned off, and only the
/// host variables it needs ([`GIT_ENV`]).
fn git(dir: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .env_clear()
        .envs(skillful_process::allowed_environment(GIT_ENV))
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "core.fsmonitor=false",
            "-c",
            "core.symlinks=true",
            "-c",
            "submodule.recurse=false",
            "-c",
            "protocol.ext.allow=never",
            "-c",
            "advice.detachedHead=false",
        ])
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_ASKPASS", "/bin/false")
        .stdin(std::process::Stdio::null());
    command
}

fn run(mut command: Command, what: &str) -> Result<String, InstallError> {
    let output = command.output().map_err(|source| InstallError::Git {
        action: what.to_owned(),
        message: format!("cannot run git ({source}); install git"),
    })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(InstallError::Git {
            action: what.to_owned(),
            message: skillful_core::text::one_line(stderr.trim()).into_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// Fetches `reference` (a tag, branch or commit; `HEAD` when none) of `url` with depth 1 into
/// the new directory `dir` and checks its tree out there; returns the commit.
pub(crate) fn fetch(
    url: &str,
    reference: Option<&str>,
    dir: &Path,
) -> Result<String, InstallError> {
    std::fs::create_dir_all(dir).map_err(|source| InstallError::Io {
        path: dir.to_owned(),
        source,
    })?;
    let mut init = git(dir);
    init.args(["init", "--quiet"]);
    run(init, "init")?;
    let wanted = reference.unwrap_or("HEAD");
    let mut fetch = git(dir);
    fetch
        .args([
            "fetch",
            "--quiet",
            "--depth",
            "1",
            "--no-tags",
            "--no-recurse-submodules",
            "--",
        ])
        .arg(url)
        .arg(wanted);
    run(fetch, &format!("fetch {wanted} from {url}"))?;
    let mut resolve = git(dir);
    resolve.args(["rev-parse", "--verify", "FETCH_HEAD^{commit}"]);
    let commit = run(resolve, "rev-parse")?;
    let mut checkout = git(dir);
    checkout.args(["checkout", "--quiet", "--detach", &commit]);
    run(checkout, &format!("checkout {commit}"))?;
    Ok(commit)
}

/// The commit `reference` (or `HEAD`) of `url` points at now, without fetching it.
pub(crate) fn remote_commit(
    url: &str,
    reference: Option<&str>,
) -> Result<Option<String>, InstallError> {
    let wanted = reference.unwrap_or("HEAD");
    if wanted.len() == 40 && wanted.chars().all(|c| c.is_ascii_hexdigit()) {
        return Ok(Some(wanted.to_owned()));
    }
    let mut command = git(Path::new("."));
    command.args(["ls-remote", "--"]).arg(url).arg(wanted);
    let listing = run(command, &format!("ls-remote {url}"))?;
    // An annotated tag lists its commit as `REF^{}`; prefer that line.
    let mut commit = None;
    for line in listing.lines() {
        if let Some((sha, name)) = line.split_once('\t')
            && (name.ends_with("^{}") || commit.is_none())
        {
            commit = Some(sha.to_owned());
        }
    }
    Ok(commit)
}

/// The paths of the submodules (gitlinks) of the checkout in `dir`.
pub(crate) fn submodules(dir: &Path) -> Result<Vec<String>, InstallError> {
    let mut command = git(dir);
    command.args(["ls-files", "--stage", "-z"]);
    let listing = run(command, "ls-files")?;
    Ok(listing
        .split('\0')
        .filter_map(|line| line.strip_prefix("160000 "))
        .filter_map(|rest| rest.split_once('\t').map(|(_, path)| path.to_owned()))
        .collect())
}
