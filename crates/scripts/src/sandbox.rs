//! The sandbox a script runs in: a profile by risk tier, the paths no script may read or write,
//! the limits of each run, and what this machine can enforce.
//!
//! On Linux the profile is enforced by the kernel (see `confine.rs`): a Landlock ruleset for files
//! (and TCP ports, and IPC scopes where the kernel has them), a seccomp filter for sockets, and
//! resource limits, all applied in the script's process just before `exec`, so that every process
//! it starts inherits them and none can lift them.
//!
//! # Reading "everything but the secrets"
//!
//! Landlock only allows: a rule grants an access to a whole directory tree, and there is no rule
//! that takes one away. So the readable set "/ minus the secret stores" is built by granting read
//! on `/` unless a secret lies below it; where one does, read is granted instead on each entry of
//! that directory except the secret (and, for the entry on the way to a deeper secret, the same
//! again one level down). The directories on the way to a secret (`/`, `~`, `~/.config`) are
//! therefore not listable themselves, though everything else inside them is readable; symbolic
//! links among their entries get no rule (their targets are readable where they live, or not).
//! Writes are built the same way: the writable directories of the profile, minus skillful's own
//! state, the secret stores and the skill's own directory.

use std::path::{Path, PathBuf};
use std::time::Duration;

use skillful_core::RiskTier;

/// The user's secret stores, relative to their home directory, that no script may read by
/// default: a script's output goes to the model's provider.
pub const DEFAULT_SECRET_PATHS: [&str; 7] = [
    ".ssh",
    ".gnupg",
    ".aws",
    ".config/gcloud",
    ".docker",
    ".netrc",
    ".kube",
];

/// Whether scripts run in the sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SandboxMode {
    /// The profile of the script's tier is enforced where the kernel can (the default).
    #[default]
    Enforce,
    /// No isolation: scripts run as the user, with only the resource limits. Only ever the
    /// user's explicit choice (`--sandbox off`).
    Off,
}

/// What a script may do, by its risk tier (`destructive` scripts are refused).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Reads the system; writes only its private scratch directory (`$TMPDIR`, `$HOME`); no
    /// network, no connecting to other processes.
    Read,
    /// As [`Profile::Read`], plus writes under the working directory.
    WriteLow,
    /// As [`Profile::WriteLow`], plus writes under the directories the user allowed, and the
    /// network when the runner allows it.
    WriteHigh,
}

impl Profile {
    /// The profile of scripts of `tier`; `None` for `destructive`, which never runs.
    pub fn for_tier(tier: RiskTier) -> Option<Self> {
        match tier {
            RiskTier::Read => Some(Self::Read),
            RiskTier::WriteLow => Some(Self::WriteLow),
            RiskTier::WriteHigh => Some(Self::WriteHigh),
            RiskTier::Destructive => None,
        }
    }

    /// The profile's name, its tier's (`read`).
    pub fn name(self) -> &'static str {
        self.tier().as_str()
    }

    /// The tier whose profile this is.
    pub fn tier(self) -> RiskTier {
        match self {
            Self::Read => RiskTier::Read,
            Self::WriteLow => RiskTier::WriteLow,
            Self::WriteHigh => RiskTier::WriteHigh,
        }
    }

    /// One line saying what the profile allows, as the model and the user are told it:
    /// `read — writes only in $TMPDIR, no network`.
    pub fn summary(self, network: bool) -> String {
        let writes = match self {
            Self::Read => "writes only in $TMPDIR",
            Self::WriteLow => "writes only in the working directory and $TMPDIR",
            Self::WriteHigh => {
                "writes only in the working directory, the directories the user allowed and $TMPDIR"
            }
        };
        let network = if network && self == Self::WriteHigh {
            "network allowed"
        } else {
            "no network"
        };
        format!("{} — {writes}, {network}", self.name())
    }

    pub(crate) fn writes_working_dir(self) -> bool {
        self != Self::Read
    }
}

/// The resource limits of each script run (each process of it, on Linux); `None` leaves one as
/// the host has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Address space per process (`RLIMIT_AS`): 2 GiB by default.
    pub memory_bytes: Option<u64>,
    /// The size of a file it writes (`RLIMIT_FSIZE`): 256 MiB by default.
    pub file_size_bytes: Option<u64>,
    /// CPU time per process (`RLIMIT_CPU`): 60 s by default.
    pub cpu_time: Option<Duration>,
    /// Processes (and threads) of the user (`RLIMIT_NPROC`; not enforced for root): 4,096 by
    /// default.
    pub processes: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            memory_bytes: Some(2 << 30),
            file_size_bytes: Some(256 << 20),
            cpu_time: Some(Duration::from_secs(60)),
            processes: Some(4096),
        }
    }
}

impl Limits {
    /// No limit at all.
    pub fn none() -> Self {
        Self {
            memory_bytes: None,
            file_size_bytes: None,
            cpu_time: None,
            processes: None,
        }
    }

    /// With `RLIMIT_AS` at `bytes`.
    #[must_use]
    pub fn memory_bytes(mut self, bytes: Option<u64>) -> Self {
        self.memory_bytes = bytes;
        self
    }

    /// With `RLIMIT_FSIZE` at `bytes`.
    #[must_use]
    pub fn file_size_bytes(mut self, bytes: Option<u64>) -> Self {
        self.file_size_bytes = bytes;
        self
    }

    /// With `RLIMIT_CPU` at `time` (whole seconds, at least 1).
    #[must_use]
    pub fn cpu_time(mut self, time: Option<Duration>) -> Self {
        self.cpu_time = time;
        self
    }

    /// With `RLIMIT_NPROC` at `processes`.
    #[must_use]
    pub fn processes(mut self, processes: Option<u64>) -> Self {
        self.processes = processes;
        self
    }
}

/// What this machine can enforce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SandboxSupport {
    /// The Landlock ABI version the kernel offers (`None`: no Landlock, or not Linux).
    pub landlock_abi: Option<u32>,
    /// Whether seccomp filters can be installed.
    pub seccomp: bool,
    /// Whether a script's process can be given a mount namespace of its own (as root, or
    /// through an unprivileged user namespace), in which what other programs run inside its
    /// writable directories ([`PROTECTED_NAMES`]) is mounted read-only.
    pub mount_namespaces: bool,
}

// On Linux, `detect` asks the kernel (`confine.rs`, which enforces what it finds).
#[cfg(not(target_os = "linux"))]
impl SandboxSupport {
    /// What this machine can enforce: elsewhere than on Linux, nothing.
    pub fn detect() -> Self {
        Self {
            landlock_abi: None,
            seccomp: false,
            mount_namespaces: false,
        }
    }
}

impl SandboxSupport {
    /// Whether a script's process can be confined at all: Landlock (of any ABI) and seccomp.
    /// Where it can, the runner applies every rule this kernel has, isolated or not.
    pub fn confines(&self) -> bool {
        self.landlock_abi.is_some() && self.seccomp
    }

    /// Whether scripts are isolated: every rule of every profile is enforced. Seccomp makes up
    /// for what Landlock lacks before ABI 3 (`truncate`) and 5 (the terminal `ioctl`s that type
    /// into the user's shell), but nothing makes up for the signal and abstract-socket scopes
    /// of ABI 6: below it a script can signal the user's other processes. Without mount
    /// namespaces a write tier's script could change what other programs run in its working
    /// directory (`.git/config`, `.envrc`: [`PROTECTED_NAMES`]), which Landlock cannot take out
    /// of a directory it grants.
    pub fn isolates(&self) -> bool {
        self.confines()
            && self.mount_namespaces
            && self
                .landlock_abi
                .is_some_and(|abi| abi >= MIN_ISOLATING_LANDLOCK_ABI)
    }

    /// What is missing for scripts to be isolated, as one phrase (`None` when nothing is):
    /// `this kernel has no Landlock`, `this platform has no Landlock (Linux only)`, `this
    /// kernel's Landlock (ABI 4) does not scope signals …`.
    pub fn missing(&self) -> Option<String> {
        let mut missing = Vec::new();
        match self.landlock_abi {
            None => missing.push(if cfg!(target_os = "linux") {
                "this kernel has no Landlock (Linux 5.13 or later, with `landlock` in the `lsm=` boot list)".to_owned()
            } else {
                "this platform has no Landlock (Linux only)".to_owned()
            }),
            Some(abi) if abi < MIN_ISOLATING_LANDLOCK_ABI => missing.push(format!(
                "this kernel's Landlock (ABI {abi}) does not keep a script from signalling your \
                 other processes or reaching abstract Unix sockets (ABI \
                 {MIN_ISOLATING_LANDLOCK_ABI}, Linux 6.12, does); scripts still run confined by \
                 every rule it has"
            )),
            Some(_) => {}
        }
        if !self.mount_namespaces && self.landlock_abi.is_some() {
            missing.push(
                "a script cannot be given a mount namespace here (unprivileged user namespaces \
                 are off), so a write tier's script could change what other programs run in its \
                 working directory (.git, .envrc, .vscode, ...)"
                    .to_owned(),
            );
        }
        if !self.seccomp {
            missing.push(if cfg!(target_os = "linux") {
                "seccomp filters cannot be installed here".to_owned()
            } else {
                "this platform has no seccomp (Linux only)".to_owned()
            });
        }
        (!missing.is_empty()).then(|| missing.join(", and "))
    }
}

/// The entries at the top of a directory a script may write that other programs run, or read
/// as their configuration, when the user works there later: version control (`.git/config`'s
/// `core.fsmonitor` runs at the next `git status`), skillful's own `.agents` (settings that name
/// plugin libraries, skills, the lock), direnv's `.envrc` and the editors' project settings.
/// Inside a script's writable directories they are mounted read-only while it runs; one it
/// creates where none was (or a link it changes) is removed (or put back) when it ends, and the
/// run's notes say so.
pub const PROTECTED_NAMES: [&str; 8] = [
    ".git", ".hg", ".svn", ".jj", ".agents", ".envrc", ".vscode", ".idea",
];

/// The Landlock ABI that has every rule a profile needs: the signal and abstract Unix socket
/// scopes came last (ABI 6, Linux 6.12).
pub const MIN_ISOLATING_LANDLOCK_ABI: u32 = 6;

/// Whether unprivileged user namespaces are available (what bubblewrap-style sandboxes need,
/// and what skillful's sandbox needs, unless run as root, to mount [`PROTECTED_NAMES`]
/// read-only), from `/proc/sys`.
///
/// # Errors
/// Why they are not: not Linux, a `sysctl` that turns them off, or AppArmor's restriction
/// (Ubuntu 24.04).
pub fn user_namespaces() -> Result<(), String> {
    if !cfg!(target_os = "linux") {
        return Err("not Linux".into());
    }
    let read = |path: &str| {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|text| text.trim().parse::<u64>().ok())
    };
    if read("/proc/sys/user/max_user_namespaces") == Some(0) {
        return Err("user.max_user_namespaces is 0".into());
    }
    if read("/proc/sys/kernel/unprivileged_userns_clone") == Some(0) {
        return Err("kernel.unprivileged_userns_clone is 0".into());
    }
    if read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == Some(1) {
        return Err("AppArmor restricts unprivileged user namespaces".into());
    }
    Ok(())
}

/// The sandbox configuration of a runner.
#[derive(Debug, Clone)]
pub(crate) struct SandboxConfig {
    pub(crate) mode: SandboxMode,
    /// Never readable nor writable (secret stores, skillful's own state).
    pub(crate) hidden: Vec<PathBuf>,
    /// Writable for `write-low` and up.
    pub(crate) working_dir: Option<PathBuf>,
    /// The working directory the host set for the runs (canonical): readable, and writable as
    /// `working_dir` is when it is the same, even below a hidden directory.
    pub(crate) task_dir: Option<PathBuf>,
    /// Writable for `write-high`.
    pub(crate) allowed_writes: Vec<PathBuf>,
    /// Whether `write-high` scripts whose skill declares the network may use it.
    pub(crate) network: bool,
    /// The user's home directory (canonical), which no tier may write whole.
    pub(crate) home: Option<PathBuf>,
    pub(crate) limits: Limits,
    pub(crate) support: SandboxSupport,
}

impl SandboxConfig {
    /// Whether scripts are confined on this machine (by every rule it has).
    pub(crate) fn confines(&self) -> bool {
        self.mode == SandboxMode::Enforce && self.support.confines()
    }

    /// Whether scripts are isolated on this machine: confined by every rule of their profile.
    pub(crate) fn isolates(&self) -> bool {
        self.mode == SandboxMode::Enforce && self.support.isolates()
    }
}

/// Elsewhere than on Linux nothing confines a script: there is never a confinement.
#[cfg(not(target_os = "linux"))]
#[derive(Debug)]
pub(crate) enum Confinement {}

#[cfg(not(target_os = "linux"))]
impl Confinement {
    pub(crate) fn environment(&self) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
        match *self {}
    }

    pub(crate) fn confined(&self) -> bool {
        match *self {}
    }

    pub(crate) fn finish(self) -> Vec<String> {
        match self {}
    }
}

/// Each path as given and, when it exists, as the file system resolves it: a secret behind a
/// symbolic link is hidden where its data lives too.
pub(crate) fn with_resolved(paths: impl IntoIterator<Item = PathBuf>) -> Vec<PathBuf> {
    let mut all = Vec::new();
    for path in paths {
        if let Ok(resolved) = std::fs::canonicalize(&path)
            && resolved != path
        {
            all.push(resolved);
        }
        all.push(path);
    }
    all
}

/// What the runner can tell about how the sandbox hindered a run, from its output and how it
/// ended: one line each, saying what was denied and how the user can allow it.
pub(crate) fn hindrances(
    profile: Profile,
    limits: &Limits,
    stdout: &str,
    stderr: &str,
    signal: Option<i32>,
) -> Vec<String> {
    let output: Vec<&str> = stdout.lines().chain(stderr.lines()).collect();
    let mut notes: Vec<String> = denial(profile, &output).into_iter().collect();
    notes.extend(limits_reached(limits, &output, signal));
    notes
}

/// The note on what the profile denied, when the output shows a denial.
fn denial(profile: Profile, output: &[&str]) -> Option<String> {
    let denied: Vec<&str> = output
        .iter()
        .copied()
        .filter(|line| {
            DENIAL_WORDS
                .iter()
                .any(|word| line.to_ascii_lowercase().contains(word))
        })
        .collect();
    if denied.is_empty() {
        return None;
    }
    let mut paths: Vec<&str> = denied.iter().filter_map(|line| path_in(line)).collect();
    paths.dedup();
    let what = if paths.is_empty() {
        "an operation outside the profile (a file outside its writable directories, a secret store, or a socket)".to_owned()
    } else {
        format!("access to {}", paths.join(", "))
    };
    let allow = match profile {
        Profile::Read => {
            "the skill would have to declare `risk: write-low` (the working directory) or `write-high` (directories the user allows), or the user runs it with `--sandbox off`"
        }
        Profile::WriteLow => {
            "the skill would have to declare `risk: write-high` and the user allow the directory (`--allow-write DIR`), or the user runs it with `--sandbox off`"
        }
        Profile::WriteHigh => {
            "the user can allow a directory with `--allow-write DIR`, or run it with `--sandbox off`"
        }
    };
    Some(format!(
        "[sandbox denied: {what}; the `{}` profile does not allow it; {allow}]",
        profile.name()
    ))
}

/// A note for each limit the run reached, as the signal that ended it or its output shows.
fn limits_reached(limits: &Limits, output: &[&str], signal: Option<i32>) -> Vec<String> {
    let mut notes = Vec::new();
    let any = |words: &[&str]| {
        output
            .iter()
            .any(|line| words.iter().any(|word| line.contains(word)))
    };
    #[cfg(unix)]
    let (cpu, file_size) = (Some(libc::SIGXCPU), Some(libc::SIGXFSZ));
    #[cfg(not(unix))]
    let (cpu, file_size): (Option<i32>, Option<i32>) = (None, None);
    if let Some(cpu_time) = limits.cpu_time
        && signal.is_some()
        && signal == cpu
    {
        notes.push(format!(
            "[sandbox limit: the script used up its CPU time ({} s) and was stopped; the user can raise the limit]",
            cpu_time.as_secs().max(1)
        ));
    }
    if let Some(bytes) = limits.file_size_bytes
        && ((signal.is_some() && signal == file_size) || any(&["File too large"]))
    {
        notes.push(format!(
            "[sandbox limit: a file the script wrote reached the size limit ({} MiB); the user can raise the limit]",
            bytes >> 20
        ));
    }
    if let Some(bytes) = limits.memory_bytes
        && any(&[
            "MemoryError",
            "Cannot allocate memory",
            "out of memory",
            "bad_alloc",
        ])
    {
        notes.push(format!(
            "[sandbox limit: the script ran out of its memory limit ({} MiB of address space); the user can raise the limit]",
            bytes >> 20
        ));
    }
    if let Some(processes) = limits.processes
        && any(&["Resource temporarily unavailable", "fork: retry"])
    {
        notes.push(format!(
            "[sandbox limit: the script could not start more processes (at most {processes} for the user); the user can raise the limit]"
        ));
    }
    notes
}

/// What programs print when the kernel refused them (lower case).
const DENIAL_WORDS: [&str; 5] = [
    "permission denied",
    "operation not permitted",
    "read-only file system",
    "[errno 1]",
    "[errno 13]",
];

/// The first absolute path in `line`, as programs quote them (`'/a/b'`, `"/a/b"`, `/a/b:`).
fn path_in(line: &str) -> Option<&str> {
    let start = line
        .char_indices()
        .find(|&(at, c)| {
            c == '/' && (at == 0 || line[..at].ends_with([' ', '\'', '"', '`', '(', '=']))
        })?
        .0;
    let rest = &line[start..];
    let end = rest
        .find(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | ':' | ')' | ','))
        .unwrap_or(rest.len());
    (end > 1).then(|| &rest[..end])
}

/// The directories and files a runner hides from every script by default: the secret stores
/// under `home`, and skillful's own configuration, state and cache directories.
pub(crate) fn default_hidden(home: Option<&Path>) -> Vec<PathBuf> {
    let mut hidden: Vec<PathBuf> = home
        .map(|home| {
            DEFAULT_SECRET_PATHS
                .iter()
                .map(|path| home.join(path))
                .collect()
        })
        .unwrap_or_default();
    if let Ok(dirs) = skillful_state::Dirs::per_user() {
        hidden.extend([
            dirs.config().to_path_buf(),
            dirs.state().to_path_buf(),
            dirs.cache().to_path_buf(),
        ]);
    }
    hidden
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_found_as_programs_quote_them() {
        assert_eq!(
            path_in("PermissionError: [Errno 13] Permission denied: '/home/u/x.txt'"),
            Some("/home/u/x.txt")
        );
        assert_eq!(path_in("bash: /etc/x: Permission denied"), Some("/etc/x"));
        assert_eq!(path_in("write home: denied (Permission denied)"), None);
    }

    #[test]
    fn a_denial_names_the_profile_and_how_to_allow_it() {
        let notes = hindrances(
            Profile::Read,
            &Limits::default(),
            "",
            "PermissionError: [Errno 13] Permission denied: '/home/u/x.txt'\n",
            None,
        );
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("access to /home/u/x.txt"), "{notes:?}");
        assert!(notes[0].contains("`read` profile"), "{notes:?}");
        assert!(notes[0].contains("--sandbox off"), "{notes:?}");
    }

    #[test]
    fn missing_enforcement_is_named() {
        let without_landlock = SandboxSupport {
            landlock_abi: None,
            seccomp: true,
            mount_namespaces: true,
        };
        assert!(!without_landlock.isolates());
        let missing = without_landlock.missing().unwrap();
        assert!(missing.contains("no Landlock"), "{missing}");
        let full = SandboxSupport {
            landlock_abi: Some(7),
            seccomp: true,
            mount_namespaces: true,
        };
        assert_eq!(full.missing(), None);
        // Ubuntu 24.04's AppArmor turns unprivileged user namespaces off.
        let without_namespaces = SandboxSupport {
            mount_namespaces: false,
            ..full
        };
        assert!(without_namespaces.confines() && !without_namespaces.isolates());
        let missing = without_namespaces.missing().unwrap();
        assert!(
            missing.contains("mount namespace") && missing.contains(".git"),
            "{missing}"
        );
        // The 6.6 LTS kernel's Landlock confines but does not isolate.
        let lts = SandboxSupport {
            landlock_abi: Some(4),
            seccomp: true,
            mount_namespaces: true,
        };
        assert!(lts.confines() && !lts.isolates());
        let missing = lts.missing().unwrap();
        assert!(
            missing.contains("ABI 4") && missing.contains("signalling"),
            "{missing}"
        );
    }

    #[test]
    fn each_landlock_abi_is_named_with_what_it_lacks() {
        for abi in 1..=7 {
            let support = SandboxSupport {
                landlock_abi: Some(abi),
                seccomp: true,
                mount_namespaces: true,
            };
            assert!(support.confines(), "ABI {abi}");
            match support.missing() {
                None => assert!(abi >= MIN_ISOLATING_LANDLOCK_ABI && support.isolates()),
                Some(missing) => {
                    assert!(abi < MIN_ISOLATING_LANDLOCK_ABI && !support.isolates());
                    assert!(
                        missing.contains(&format!("(ABI {abi})"))
                            && missing.contains("signalling your other processes"),
                        "{missing}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_summary_of_read_is_the_one_the_model_is_shown() {
        assert_eq!(
            Profile::Read.summary(false),
            "read — writes only in $TMPDIR, no network"
        );
    }
}
