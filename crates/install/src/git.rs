//! Fetching one commit with the `git` command line.
//!
//! The `git` program rather than the `gix` crate: it is on every machine that has skills in git,
//! it uses the user's own credentials, SSH configuration and proxies as they are, and a shallow
//! fetch of exactly one commit (`fetch --depth 1 URL REF`) is one command; `gix` would add a large
//! dependency tree for the same. No hook, filter, submodule or credential prompt runs: the fetch
//! goes into a fresh repository with hooks pointed at nothing and every filter unset (its
//! `info/attributes`), and only the tree is checked out.
//!
//! git sees only the host variables it needs ([`GIT_ENV`] on top of
//! [`skillful_process::DEFAULT_ALLOWED_ENV`]): a credential helper, `ssh` or a proxy it starts
//! gets no API key of the host's (`SKILLS_API_KEY`, `OPENAI_API_KEY`, `AWS_*`). Each command is
//! started through `skillful-process` and stopped, with everything it started, after
//! [`GIT_TIMEOUT`].

use std::path::Path;
use std::time::Duration;

use skillful_process::ChildCommand;

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

/// How long one git command may take before it is stopped with everything it started (a
/// server that accepts and never answers, a credential helper that waits).
const GIT_TIMEOUT: Duration = Duration::from_secs(600);

/// The most bytes of git's output kept (a `ls-files` of a large repository).
const MAX_GIT_OUTPUT: usize = 64 << 20;

/// A `git` command with every setting that could run code or prompt turned off, and only the
/// host variables it needs ([`GIT_ENV`]), started as every child is
/// ([`ChildCommand`]: its own process group, a reaper, no inherited descriptor).
fn git(dir: &Path) -> ChildCommand {
    let mut git = ChildCommand::new("git", &skillful_process::allowed_environment(GIT_ENV));
    git.command_mut()
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
        .env("GIT_ASKPASS", "/bin/false");
    git
}

/// `git --version`, run as every git command is.
pub(crate) fn version() -> Result<String, InstallError> {
    let mut command = git(Path::new("."));
    command.command_mut().arg("--version");
    run(command, "version")
}

fn run(command: ChildCommand, what: &str) -> Result<String, InstallError> {
    let failed = |message: String| InstallError::Git {
        action: what.to_owned(),
        message,
    };
    let finished = command
        .run_blocking(GIT_TIMEOUT, MAX_GIT_OUTPUT)
        .map_err(|source| failed(format!("cannot run git ({source}); install git")))?;
    if finished.timed_out {
        return Err(failed(format!(
            "git took longer than {} s and was stopped; check the URL and the network",
            GIT_TIMEOUT.as_secs()
        )));
    }
    if !finished.status.success() {
        let stderr = finished.stderr.into_text();
        return Err(failed(
            skillful_core::text::one_line(stderr.trim()).into_owned(),
        ));
    }
    if finished.stdout.truncated() {
        return Err(failed(format!(
            "git printed more than {MAX_GIT_OUTPUT} bytes"
        )));
    }
    Ok(finished.stdout.into_text().trim().to_owned())
}

/// Fetches `reference` (a tag, branch or commit, full or abbreviated; `HEAD` when none) of
/// `url` with depth 1 into a new repository at `dir`; returns the commit. Nothing is checked
/// out: [`tree_size`] tells how large its tree is and [`checkout`] writes it.
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
    init.command_mut().args(["init", "--quiet"]);
    run(init, "init")?;
    // No filter runs at checkout, whatever the tree's `.gitattributes` asks for: a filter of the
    // user's configuration (git-lfs, a smudge command) would run on what was fetched. The
    // repository's own `info/attributes` wins over every `.gitattributes` of the tree.
    let info = dir.join(".git").join("info");
    std::fs::create_dir_all(&info)
        .and_then(|()| std::fs::write(info.join("attributes"), "* -filter\n"))
        .map_err(|source| InstallError::Io { path: info, source })?;
    let wanted = reference.unwrap_or("HEAD");
    let fetch_one = |wanted: &str| {
        let mut fetch = git(dir);
        fetch
            .command_mut()
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
        run(fetch, &format!("fetch {wanted} from {url}"))
    };
    if let Err(error) = fetch_one(wanted) {
        // Not a ref of the remote, and no server takes an abbreviated commit name: resolve it
        // against the repository's commits, then fetch the commit itself.
        if !is_abbreviated_commit(wanted) {
            return Err(error);
        }
        let full = resolve_abbreviated(url, wanted, dir)?;
        fetch_one(&full)?;
    }
    let mut resolve = git(dir);
    resolve
        .command_mut()
        .args(["rev-parse", "--verify", "FETCH_HEAD^{commit}"]);
    run(resolve, "rev-parse")
}

/// The bytes of the files of `commit`'s tree in the repository at `dir`, together.
pub(crate) fn tree_size(dir: &Path, commit: &str) -> Result<TreeSize, InstallError> {
    let mut list = git(dir);
    list.command_mut()
        .args(["ls-tree", "-r", "-l", "-z", "--end-of-options", commit]);
    let listing = run(list, &format!("ls-tree {commit}"))?;
    Ok(TreeSize::of_listing(&listing))
}

/// How large a commit's tree is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TreeSize {
    /// The bytes of its files together (a submodule counts none).
    pub(crate) bytes: u64,
}

impl TreeSize {
    /// Reads `git ls-tree -r -l -z`: `<mode> <type> <object> <size>\t<path>` per entry, the size
    /// `-` for a submodule.
    fn of_listing(listing: &str) -> Self {
        let mut size = Self { bytes: 0 };
        for entry in listing.split('\0').filter(|entry| !entry.is_empty()) {
            let bytes = entry
                .split_once('\t')
                .and_then(|(fields, _)| fields.split_whitespace().nth(3))
                .and_then(|bytes| bytes.parse::<u64>().ok());
            size.bytes = size.bytes.saturating_add(bytes.unwrap_or(0));
        }
        size
    }
}

/// Checks `commit` of the repository at `dir` out into the directory `tree` (which may lie
/// elsewhere: the repository's index stays in `dir`).
pub(crate) fn checkout(dir: &Path, tree: &Path, commit: &str) -> Result<(), InstallError> {
    let mut checkout = git(dir);
    checkout
        .command_mut()
        .arg("--work-tree")
        .arg(tree)
        .args(["checkout", "--quiet", "--detach", commit]);
    run(checkout, &format!("checkout {commit}")).map(drop)
}

/// Whether `reference` can be an abbreviated commit name: 4 to 39 hexadecimal digits.
fn is_abbreviated_commit(reference: &str) -> bool {
    (4..40).contains(&reference.len()) && reference.chars().all(|c| c.is_ascii_hexdigit())
}

/// The full name of the commit `short` abbreviates, among the commits of the branches and tags
/// of `url`: their history without trees or blobs (where the server filters; all of it where it
/// does not) is fetched into a bare repository inside `dir`'s `.git`, which goes with it.
fn resolve_abbreviated(url: &str, short: &str, dir: &Path) -> Result<String, InstallError> {
    let resolving = dir.join(".git").join("skills-resolve");
    let mut init = git(dir);
    init.command_mut()
        .args(["init", "--quiet", "--bare", "--"])
        .arg(&resolving);
    run(init, "init")?;
    let mut fetch = git(&resolving);
    fetch
        .command_mut()
        .args([
            "fetch",
            "--quiet",
            "--filter=tree:0",
            "--no-tags",
            "--no-recurse-submodules",
            "--",
        ])
        .arg(url)
        .args(["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"]);
    run(fetch, &format!("fetch the commits of {url}"))?;
    let mut resolve = git(&resolving);
    resolve
        .command_mut()
        .args(["rev-parse", "--verify", "--end-of-options"])
        .arg(format!("{short}^{{commit}}"));
    run(resolve, &format!("rev-parse {short}")).map_err(|error| InstallError::Git {
        action: format!("fetch {short} from {url}"),
        message: format!(
            "no branch, tag or single commit of its branches and tags is named {short} ({error})"
        ),
    })
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
    command
        .command_mut()
        .args(["ls-remote", "--"])
        .arg(url)
        .arg(wanted);
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

/// The paths of the submodules (gitlinks) of the checkout whose repository is `dir`.
pub(crate) fn submodules(dir: &Path) -> Result<Vec<String>, InstallError> {
    let mut command = git(dir);
    command.command_mut().args(["ls-files", "--stage", "-z"]);
    let listing = run(command, "ls-files")?;
    Ok(listing
        .split('\0')
        .filter_map(|line| line.strip_prefix("160000 "))
        .filter_map(|rest| rest.split_once('\t').map(|(_, path)| path.to_owned()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::TreeSize;

    #[test]
    fn a_trees_size_adds_up_its_files_and_a_submodule_counts_nothing() {
        let listing = "100644 blob 1111111111111111111111111111111111111111     120\tskills/a/SKILL.md\0\
                       100755 blob 2222222222222222222222222222222222222222    3000\tskills/a/scripts/run file.py\0\
                       160000 commit 3333333333333333333333333333333333333333       -\tvendor/lib\0";
        assert_eq!(TreeSize::of_listing(listing), TreeSize { bytes: 3120 });
        assert_eq!(TreeSize::of_listing(""), TreeSize { bytes: 0 });
    }
}
