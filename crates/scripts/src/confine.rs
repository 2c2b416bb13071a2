//! Linux: enforcing a [`Profile`] on a script's process, with Landlock, seccomp and resource
//! limits.
//!
//! Everything that allocates, opens files or reads directories happens in the host before the
//! fork ([`Confinement::prepare`]): the Landlock ruleset (a file descriptor), the seccomp
//! program (BPF instructions), the limits. The child only makes system calls on them
//! (`setrlimit`, `prctl(PR_SET_NO_NEW_PRIVS)`, `landlock_restrict_self`, `seccomp`), which are
//! async-signal-safe, in the script's process (after the reaper's fork, so the reaper stays
//! outside), just before `exec`. The ruleset's descriptor is close-on-exec: the script never
//! holds it.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, PathBeneath, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use crate::error::RunFailure;
use crate::sandbox::{Limits, Profile, SandboxConfig, SandboxSupport};

/// The kernel's Landlock ABI version and whether seccomp filters can be installed.
pub(crate) fn detect() -> SandboxSupport {
    // SAFETY: the version query of landlock_create_ruleset takes no pointer.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32, // LANDLOCK_CREATE_RULESET_VERSION
        )
    };
    // SAFETY: PR_GET_SECCOMP takes no pointer; it fails (EINVAL) without CONFIG_SECCOMP.
    let seccomp = unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } >= 0
        && TargetArch::try_from(std::env::consts::ARCH).is_ok();
    SandboxSupport {
        landlock_abi: u32::try_from(abi).ok().filter(|abi| *abi > 0),
        seccomp,
    }
}

/// A script run's confinement, prepared in the host: its private scratch directory and what the
/// child applies to itself.
#[derive(Debug)]
pub(crate) struct Confinement {
    scratch: Option<tempfile::TempDir>,
    applied: Arc<Applied>,
}

/// What the child applies to itself before `exec`.
#[derive(Debug)]
struct Applied {
    limits: Limits,
    ruleset: Option<OwnedFd>,
    filter: Option<BpfProgram>,
}

impl Confinement {
    /// Prepares the confinement of a script of `profile` from `skill_dir`, with the network
    /// when `network` (the skill declared it and the runner allows it) and `profile` is
    /// `write-high`: only limits when the sandbox is off or not supported.
    pub(crate) fn prepare(
        config: &SandboxConfig,
        profile: Profile,
        skill_dir: &Path,
        network: bool,
    ) -> Result<Self, RunFailure> {
        if !config.confines() {
            return Ok(Self {
                scratch: None,
                applied: Arc::new(Applied {
                    limits: config.limits,
                    ruleset: None,
                    filter: None,
                }),
            });
        }
        if profile.writes_working_dir()
            && let (Some(dir), Some(home)) = (&config.working_dir, &config.home)
            && home.starts_with(dir)
        {
            return Err(RunFailure::WorkingDirTooBroad {
                tier: profile.tier(),
                dir: dir.clone(),
            });
        }
        let scratch = tempfile::Builder::new()
            .prefix("skillful-script-")
            .tempdir()
            .map_err(|error| RunFailure::Sandbox {
                action: "creating the script's scratch directory".into(),
                error: error.to_string(),
            })?;
        let network = network && profile == Profile::WriteHigh;
        let abi = ABI::from(config.support.landlock_abi.map_or(0, |abi| abi as i32));
        let ruleset =
            ruleset(config, profile, abi, network, skill_dir, scratch.path()).map_err(|error| {
                RunFailure::Sandbox {
                    action: "building the script's Landlock ruleset".into(),
                    error,
                }
            })?;
        let filter = seccomp_filter(network, abi).map_err(|error| RunFailure::Sandbox {
            action: "building the script's seccomp filter".into(),
            error,
        })?;
        Ok(Self {
            scratch: Some(scratch),
            applied: Arc::new(Applied {
                limits: config.limits,
                ruleset: Some(ruleset),
                filter: Some(filter),
            }),
        })
    }

    /// The script's `HOME` and `TMPDIR`, when it has a scratch directory.
    pub(crate) fn environment(&self) -> Vec<(OsString, OsString)> {
        self.scratch
            .iter()
            .flat_map(|scratch| {
                let path = scratch.path().as_os_str().to_owned();
                [("HOME".into(), path.clone()), ("TMPDIR".into(), path)]
            })
            .collect()
    }

    /// Whether the script is confined by the kernel (not only limited).
    pub(crate) fn confined(&self) -> bool {
        self.applied.ruleset.is_some()
    }

    /// Makes the script's process apply the confinement to itself before `exec`. Call it after
    /// the reaper is installed, so that it runs in the script's process, not the reaper's.
    pub(crate) fn install(&self, command: &mut tokio::process::Command) {
        let applied = Arc::clone(&self.applied);
        // SAFETY: `apply` runs between `fork` and `exec` and only makes system calls on values
        // prepared before the fork (no allocation, no locks).
        unsafe {
            command.pre_exec(move || applied.apply());
        }
    }

    /// Removes the scratch directory, with whatever the script left in it.
    pub(crate) fn finish(self) {
        if let Some(scratch) = self.scratch {
            let path = scratch.path().to_path_buf();
            if let Err(error) = scratch.close() {
                tracing::warn!(path = %path.display(), %error, "cannot remove a script's scratch directory");
            }
        }
    }
}

impl Applied {
    /// In the child: the limits, then `no_new_privs`, the Landlock ruleset and the seccomp filter.
    fn apply(&self) -> io::Result<()> {
        let limits = &self.limits;
        set_limit(libc::RLIMIT_AS, limits.memory_bytes, 0)?;
        set_limit(libc::RLIMIT_FSIZE, limits.file_size_bytes, 0)?;
        // The hard limit a second later: at the soft one the script gets `SIGXCPU` (which says
        // why), at the hard one `SIGKILL`.
        set_limit(
            libc::RLIMIT_CPU,
            limits.cpu_time.map(|time| time.as_secs().max(1)),
            1,
        )?;
        set_limit(libc::RLIMIT_NPROC, limits.processes, 0)?;
        if self.ruleset.is_none() && self.filter.is_none() {
            return Ok(());
        }
        // SAFETY: plain system calls on a descriptor and a program owned by `self`.
        unsafe {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            if let Some(ruleset) = &self.ruleset
                && libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0u32) != 0
            {
                return Err(io::Error::last_os_error());
            }
            if let Some(filter) = &self.filter {
                let program = libc::sock_fprog {
                    len: filter.len() as libc::c_ushort,
                    filter: filter.as_ptr().cast_mut().cast(),
                };
                if libc::prctl(
                    libc::PR_SET_SECCOMP,
                    libc::SECCOMP_MODE_FILTER,
                    &raw const program,
                ) != 0
                {
                    return Err(io::Error::last_os_error());
                }
            }
        }
        Ok(())
    }
}

/// The type of `setrlimit`'s resource argument, which differs between C libraries.
#[cfg(target_env = "gnu")]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(target_env = "gnu"))]
type Resource = libc::c_int;

/// Lowers the soft limit of `resource` to `value` and the hard one to `value + grace` (never
/// raises either).
#[allow(clippy::useless_conversion)] // `rlim_t` is `u64` on most targets.
fn set_limit(resource: Resource, value: Option<u64>, grace: u64) -> io::Result<()> {
    let Some(value) = value else {
        return Ok(());
    };
    // SAFETY: getrlimit and setrlimit on a struct on the stack.
    unsafe {
        let mut limit: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(resource, &mut limit) != 0 {
            return Err(io::Error::last_os_error());
        }
        let hard = libc::rlim_t::from(value.saturating_add(grace));
        let value = libc::rlim_t::from(value);
        limit.rlim_max = limit.rlim_max.min(hard);
        limit.rlim_cur = limit.rlim_cur.min(value).min(limit.rlim_max);
        if libc::setrlimit(resource, &limit) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The Landlock ruleset of `profile`: read and execute everywhere but the hidden paths; write
/// in the scratch directory, and in the working and allowed directories as the profile says,
/// never in the hidden paths or the skill's own directory; TCP unless `network`; abstract Unix
/// sockets and signals to processes outside the script's always (from ABI 6).
fn ruleset(
    config: &SandboxConfig,
    profile: Profile,
    abi: ABI,
    network: bool,
    skill_dir: &Path,
    scratch: &Path,
) -> Result<OwnedFd, String> {
    let read = AccessFs::from_read(abi);
    let write = AccessFs::from_write(abi)
        & !(AccessFs::MakeChar | AccessFs::MakeBlock | AccessFs::IoctlDev);
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))
        .map_err(|error| error.to_string())?;
    if !network && abi >= ABI::V4 {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(|error| error.to_string())?;
    }
    // The network declaration grants TCP, not other programs' sockets or signals.
    if abi >= ABI::V6 {
        ruleset = ruleset
            .scope(Scope::AbstractUnixSocket | Scope::Signal)
            .map_err(|error| error.to_string())?;
    }
    let mut rules = Vec::new();
    grant(&mut rules, Path::new("/"), read, &config.hidden, true);
    // The hidden paths inside `dir`: those it lies below are left out.
    let hidden_inside = |dir: &Path| -> Vec<PathBuf> {
        config
            .hidden
            .iter()
            .filter(|hidden| !dir.starts_with(hidden))
            .cloned()
            .collect()
    };
    // The skill's own files stay readable even where they live below a hidden directory (an MCP
    // skill's files unpacked in skillful's cache), and so does the run's own working directory
    // the host chose (an eval run's, in skillful's state).
    grant(&mut rules, skill_dir, read, &hidden_inside(skill_dir), true);
    if let Some(dir) = &config.task_dir {
        grant(&mut rules, dir, read, &hidden_inside(dir), true);
    }
    let skill_dirs = crate::sandbox::with_resolved([skill_dir.to_path_buf()]);
    let mut unwritable = config.hidden.clone();
    unwritable.extend(skill_dirs.iter().cloned());
    grant(&mut rules, scratch, read | write, &unwritable, true);
    if profile.writes_working_dir()
        && let Some(dir) = &config.working_dir
    {
        let mut unwritable = if config.task_dir.as_ref() == Some(dir) {
            hidden_inside(dir)
        } else {
            config.hidden.clone()
        };
        unwritable.extend(skill_dirs);
        grant(&mut rules, dir, read | write, &unwritable, true);
    }
    if profile == Profile::WriteHigh {
        for dir in &config.allowed_writes {
            grant(&mut rules, dir, read | write, &unwritable, true);
        }
    }
    if let Some(null) = open_path(Path::new("/dev/null"), true) {
        rules.push((null, AccessFs::ReadFile | AccessFs::WriteFile));
    }
    let mut created = ruleset.create().map_err(|error| error.to_string())?;
    for (fd, access) in rules {
        created = created
            .add_rule(PathBeneath::new(fd, access))
            .map_err(|error| error.to_string())?;
    }
    Option::<OwnedFd>::from(created).ok_or_else(|| "the kernel has no Landlock".to_owned())
}

/// Grants `access` on `path`'s tree, minus the `excluded` paths: on `path` itself when none lies
/// below it, else on each of its entries (not following symbolic links), minus the excluded,
/// the same way. `follow`: whether `path` itself may be a symbolic link (the configured
/// directories; never their entries).
fn grant(
    rules: &mut Vec<(OwnedFd, BitFlags<AccessFs>)>,
    path: &Path,
    access: BitFlags<AccessFs>,
    excluded: &[PathBuf],
    follow: bool,
) {
    if excluded.iter().any(|hidden| path.starts_with(hidden)) {
        return;
    }
    if !excluded.iter().any(|hidden| hidden.starts_with(path)) {
        if let Some(fd) = open_path(path, follow) {
            let access = if is_dir(&fd) {
                access
            } else {
                access & AccessFs::from_file(ABI::V7)
            };
            rules.push((fd, access));
        }
        return;
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|kind| kind.is_symlink()) {
            continue;
        }
        grant(rules, &entry.path(), access, excluded, false);
    }
}

/// `path` opened with `O_PATH` (a handle for rules, not for reading); `None` when it is missing.
fn open_path(path: &Path, follow: bool) -> Option<OwnedFd> {
    let mut bytes = path.as_os_str().as_bytes().to_vec();
    bytes.push(0);
    let flags = libc::O_PATH | libc::O_CLOEXEC | if follow { 0 } else { libc::O_NOFOLLOW };
    // SAFETY: a NUL-terminated path; the descriptor returned is owned here.
    unsafe {
        let fd = libc::open(bytes.as_ptr().cast(), flags);
        (fd >= 0).then(|| OwnedFd::from_raw_fd(fd))
    }
}

fn is_dir(fd: &OwnedFd) -> bool {
    // SAFETY: fstat on an owned descriptor into a struct on the stack.
    unsafe {
        let mut stat: libc::stat = std::mem::zeroed();
        libc::fstat(fd.as_raw_fd(), &mut stat) == 0 && stat.st_mode & libc::S_IFMT == libc::S_IFDIR
    }
}

/// The calls that change an inode's mode, owner, times or extended attributes. Landlock has no
/// rule for them, so without this a `read` script could make a private key world-readable or
/// an interpreter setuid; seccomp cannot tell a path inside a writable root from one outside,
/// so every tier is denied them (a script creates files with the mode it needs).
fn metadata_calls() -> Vec<i64> {
    let mut calls = vec![
        libc::SYS_fchmod,
        libc::SYS_fchmodat,
        FCHMODAT2,
        libc::SYS_fchown,
        libc::SYS_fchownat,
        libc::SYS_utimensat,
        libc::SYS_setxattr,
        libc::SYS_lsetxattr,
        libc::SYS_fsetxattr,
        SETXATTRAT,
        libc::SYS_removexattr,
        libc::SYS_lremovexattr,
        libc::SYS_fremovexattr,
        REMOVEXATTRAT,
    ];
    #[cfg(target_arch = "x86_64")]
    calls.extend([
        libc::SYS_chmod,
        libc::SYS_chown,
        libc::SYS_lchown,
        libc::SYS_utime,
        libc::SYS_utimes,
        libc::SYS_futimesat,
    ]);
    calls
}

/// `fchmodat2` (Linux 6.6), `setxattrat` and `removexattrat` (Linux 6.13): numbers of the
/// common system call table, the same on every architecture, which `libc` may not name yet.
const FCHMODAT2: i64 = 452;
const SETXATTRAT: i64 = 463;
const REMOVEXATTRAT: i64 = 466;

/// System V IPC and the kernel keyring: Landlock scopes neither, and through them a script
/// reads another process's shared memory or the user's stored secrets.
const IPC_AND_KEYS: &[i64] = &[
    libc::SYS_shmget,
    libc::SYS_shmat,
    libc::SYS_shmctl,
    libc::SYS_msgget,
    libc::SYS_msgsnd,
    libc::SYS_msgrcv,
    libc::SYS_msgctl,
    libc::SYS_semget,
    libc::SYS_semop,
    libc::SYS_semtimedop,
    libc::SYS_semctl,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
];

/// The terminal `ioctl`s that type into, or take over, the terminal a script inherited
/// (`TIOCSTI` queues input for the user's shell): Landlock's device rule (ABI 5) does not stop
/// them on a terminal opened before the script started.
#[allow(clippy::unnecessary_cast)] // `libc::Ioctl` is `u64` with glibc, `c_int` with musl.
const TERMINAL_INJECTION: &[u64] = &[libc::TIOCSTI as u64, libc::TIOCLINUX as u64];

/// The seccomp program, for every tier: `EPERM` for `io_uring` (which can open sockets past the
/// filter), for changes to files' metadata ([`metadata_calls`]), System V IPC and the keyring
/// ([`IPC_AND_KEYS`]), the terminal injection `ioctl`s, for `truncate` where Landlock (before
/// ABI 3) cannot stop it, and for `socketpair`s but stream ones between Unix sockets (pipes
/// between a script's own processes). Without `network` every `socket`, `connect`, `bind`,
/// `listen` and `accept` is denied; with it, only IPv4 and IPv6 sockets may be made.
fn seccomp_filter(network: bool, abi: ABI) -> Result<BpfProgram, String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|error| error.to_string())?;
    let condition = |argument: u8, length: SeccompCmpArgLen, op: SeccompCmpOp, value: u64| {
        SeccompCondition::new(argument, length, op, value).map_err(|error| error.to_string())
    };
    let rule = |conditions: Vec<SeccompCondition>| {
        SeccompRule::new(conditions).map_err(|error| error.to_string())
    };
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let mut denied = vec![
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
    ];
    denied.extend(metadata_calls());
    denied.extend(IPC_AND_KEYS);
    if abi < ABI::V3 {
        denied.push(libc::SYS_truncate);
    }
    if !network {
        denied.extend([
            libc::SYS_socket,
            libc::SYS_connect,
            libc::SYS_bind,
            libc::SYS_listen,
            libc::SYS_accept,
            libc::SYS_accept4,
        ]);
    }
    for call in denied {
        rules.insert(call, Vec::new());
    }
    let mut injection = Vec::new();
    for request in TERMINAL_INJECTION {
        injection.push(rule(vec![condition(
            1,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Eq,
            *request,
        )?])?);
    }
    rules.insert(libc::SYS_ioctl, injection);
    if network {
        // Any domain but IPv4 and IPv6: no Unix socket (another program's agent), no netlink.
        rules.insert(
            libc::SYS_socket,
            vec![rule(vec![
                condition(
                    0,
                    SeccompCmpArgLen::Dword,
                    SeccompCmpOp::Ne,
                    libc::AF_INET as u64,
                )?,
                condition(
                    0,
                    SeccompCmpArgLen::Dword,
                    SeccompCmpOp::Ne,
                    libc::AF_INET6 as u64,
                )?,
            ])?],
        );
    }
    // A pair of Unix sockets of a stream type only: a datagram or raw one's messages can name
    // another process's socket.
    let mut pairs = vec![rule(vec![condition(
        0,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Ne,
        libc::AF_UNIX as u64,
    )?])?];
    for kind in 0..16u64 {
        if kind != libc::SOCK_STREAM as u64 && kind != libc::SOCK_SEQPACKET as u64 {
            pairs.push(rule(vec![condition(
                1,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::MaskedEq(0xf),
                kind,
            )?])?);
        }
    }
    rules.insert(libc::SYS_socketpair, pairs);
    #[cfg(target_arch = "x86_64")]
    {
        // The same calls through the x32 ABI (the same architecture, numbers with bit 30 set).
        const X32: i64 = 0x4000_0000;
        let native: Vec<(i64, Vec<SeccompRule>)> = rules
            .iter()
            .map(|(call, rule)| (*call, rule.clone()))
            .collect();
        for (call, rule) in native {
            rules.insert(call | X32, rule);
        }
    }
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|error| error.to_string())?;
    BpfProgram::try_from(filter).map_err(|error| error.to_string())
}
