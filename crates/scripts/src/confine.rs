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
use crate::sandbox::{Limits, PROTECTED_NAMES, Profile, SandboxConfig, SandboxSupport};

impl SandboxSupport {
    /// What this machine can enforce, as the kernel says: its Landlock ABI version, whether
    /// seccomp filters can be installed, and whether a script can have a mount namespace.
    pub fn detect() -> Self {
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
        Self {
            landlock_abi: u32::try_from(abi).ok().filter(|abi| *abi > 0),
            seccomp,
            mount_namespaces: mount_namespaces(),
        }
    }
}

/// Whether a child of this process can make a mount namespace of its own and bind-mount in it:
/// tried once per process in a short-lived child (a `sysctl`, AppArmor or a container's seccomp
/// profile can each forbid it, whatever `/proc/sys` says).
fn mount_namespaces() -> bool {
    static WORKS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WORKS.get_or_init(|| {
        let namespace = Namespace::for_this_user();
        // A directory such as a script's writable one: "/" itself cannot be remounted once a
        // bind mount lies on it (the process's root stays the mount below).
        let Ok(probe) = tempfile::Builder::new()
            .prefix("skillful-mount-probe-")
            .tempdir()
        else {
            return false;
        };
        let (Ok(path), Ok(flags)) = (c_path(probe.path()), locked_flags(probe.path())) else {
            return false;
        };
        // SAFETY: the child only makes system calls on memory prepared before the fork, then
        // exits without running any destructor.
        unsafe {
            match libc::fork() {
                -1 => false,
                0 => {
                    let entered = namespace.enter().is_ok() && bind_read_only(&path, flags).is_ok();
                    libc::_exit(if entered { 0 } else { 1 });
                }
                child => {
                    let mut status = 0;
                    while libc::waitpid(child, &raw mut status, 0) == -1
                        && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
                    {
                    }
                    libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
                }
            }
        }
    })
}

/// A mount namespace for the script: entered through a user namespace of its own (mapping the
/// user to itself) unless the host runs as root, which may make one directly.
#[derive(Debug)]
struct Namespace {
    /// `/proc/self/uid_map` and `gid_map`'s lines; `None` as root.
    id_maps: Option<(Vec<u8>, Vec<u8>)>,
}

impl Namespace {
    fn for_this_user() -> Self {
        // SAFETY: getters without arguments.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        Self {
            id_maps: (uid != 0).then(|| {
                (
                    format!("{uid} {uid} 1\n").into_bytes(),
                    format!("{gid} {gid} 1\n").into_bytes(),
                )
            }),
        }
    }

    /// In the child: a new mount namespace (and user namespace) whose mounts no longer
    /// propagate to the host's.
    fn enter(&self) -> io::Result<()> {
        let flags = match self.id_maps {
            Some(_) => libc::CLONE_NEWUSER | libc::CLONE_NEWNS,
            None => libc::CLONE_NEWNS,
        };
        // SAFETY: system calls on constant strings and buffers owned by `self`.
        unsafe {
            if libc::unshare(flags) != 0 {
                return Err(io::Error::last_os_error());
            }
            if let Some((uid_map, gid_map)) = &self.id_maps {
                // A process that is not dumpable (the host hardened itself, and its fork
                // inherits that) finds its `/proc` files owned by root and cannot write its own
                // id maps: dumpable for these three writes only. Nothing sandboxed can attach
                // in between (Landlock forbids tracing outside a sandbox's own domain), and
                // `exec` would make the script dumpable again anyway.
                if libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0) != 0 {
                    return Err(io::Error::last_os_error());
                }
                let written = write_proc(c"/proc/self/setgroups", b"deny")
                    .and_then(|()| write_proc(c"/proc/self/uid_map", uid_map))
                    .and_then(|()| write_proc(c"/proc/self/gid_map", gid_map));
                libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
                written?;
            }
            if libc::mount(
                c"none".as_ptr(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ) != 0
            {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }
}

/// Writes `bytes` to the `/proc` file `path` in one call (as the id maps require).
fn write_proc(path: &std::ffi::CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: a NUL-terminated path and a buffer of `bytes.len()` bytes.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let error = io::Error::last_os_error();
        libc::close(fd);
        if usize::try_from(written).ok() != Some(bytes.len()) {
            return Err(error);
        }
    }
    Ok(())
}

/// Bind-mounts `path` onto itself and makes that mount read-only, keeping the flags of the
/// mount it lies on (`locked`: a user namespace may not drop `nosuid`, `nodev`, `noexec`).
fn bind_read_only(path: &std::ffi::CStr, locked: libc::c_ulong) -> io::Result<()> {
    // SAFETY: NUL-terminated paths; no data argument.
    unsafe {
        if libc::mount(
            path.as_ptr(),
            path.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND | libc::MS_REC,
            std::ptr::null(),
        ) != 0
            || libc::mount(
                std::ptr::null(),
                path.as_ptr(),
                std::ptr::null(),
                libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | locked,
                std::ptr::null(),
            ) != 0
        {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The mount flags of the file system `path` lies on that a bind mount of it must keep.
fn locked_flags(path: &Path) -> io::Result<libc::c_ulong> {
    let path = c_path(path)?;
    // SAFETY: a NUL-terminated path and a struct on the stack.
    let flags = unsafe {
        let mut stat: libc::statvfs = std::mem::zeroed();
        if libc::statvfs(path.as_ptr(), &raw mut stat) != 0 {
            return Err(io::Error::last_os_error());
        }
        stat.f_flag
    };
    let mut locked = 0;
    for (statvfs, mount) in [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ] {
        if flags & statvfs != 0 {
            locked |= mount;
        }
    }
    Ok(locked)
}

fn c_path(path: &Path) -> io::Result<std::ffi::CString> {
    std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path with a NUL byte"))
}

/// What other programs run inside a script's writable directories ([`PROTECTED_NAMES`]): the
/// entries there, mounted read-only in the script's namespace, and those a mount cannot cover
/// (missing, or links), checked when it ends.
#[derive(Debug, Default)]
struct Protected {
    namespace: Option<Namespace>,
    /// Each existing entry and its mount's locked flags.
    mounted: Vec<(std::ffi::CString, libc::c_ulong)>,
    /// Each missing entry (`None`) or link (its target) as it was before the run.
    watched: Vec<(PathBuf, Option<PathBuf>)>,
}

impl Protected {
    /// The protected entries at the top of `roots`, where mount namespaces are available.
    fn of(roots: &[&Path], support: SandboxSupport) -> io::Result<Self> {
        let mut protected = Self::default();
        if !support.mount_namespaces {
            return Ok(protected);
        }
        for root in roots {
            for name in PROTECTED_NAMES {
                let path = root.join(name);
                match std::fs::symlink_metadata(&path) {
                    Ok(metadata) if metadata.file_type().is_symlink() => {
                        let target = std::fs::read_link(&path)?;
                        protected.watched.push((path, Some(target)));
                    }
                    Ok(_) => {
                        let locked = locked_flags(&path)?;
                        protected.mounted.push((c_path(&path)?, locked));
                    }
                    Err(error) if error.kind() == io::ErrorKind::NotFound => {
                        protected.watched.push((path, None));
                    }
                    Err(error) => return Err(error),
                }
            }
        }
        if !protected.mounted.is_empty() {
            protected.namespace = Some(Namespace::for_this_user());
        }
        Ok(protected)
    }

    /// In the child: the namespace, and each entry mounted read-only in it.
    fn apply(&self) -> io::Result<()> {
        let Some(namespace) = &self.namespace else {
            return Ok(());
        };
        namespace.enter()?;
        for (path, locked) in &self.mounted {
            bind_read_only(path, *locked)?;
        }
        Ok(())
    }

    /// After the run: an entry the script made where none was is removed, a link it changed
    /// is put back; one note for each.
    fn restore(&self) -> Vec<String> {
        let mut notes = Vec::new();
        for (path, link) in &self.watched {
            let now = std::fs::symlink_metadata(path);
            let unchanged = match (link, &now) {
                (None, Err(_)) => true,
                (Some(target), Ok(metadata)) => {
                    metadata.file_type().is_symlink()
                        && std::fs::read_link(path).is_ok_and(|now| now == *target)
                }
                _ => false,
            };
            if unchanged {
                continue;
            }
            let removed = match now {
                Ok(metadata) if metadata.is_dir() => std::fs::remove_dir_all(path),
                Ok(_) => std::fs::remove_file(path),
                Err(_) => Ok(()),
            };
            let put_back = removed.and_then(|()| match link {
                Some(target) => std::os::unix::fs::symlink(target, path),
                None => Ok(()),
            });
            notes.push(match (link, put_back) {
                (None, Ok(())) => format!(
                    "[sandbox removed {}: scripts may not create what other programs run]",
                    path.display()
                ),
                (Some(_), Ok(())) => format!(
                    "[sandbox put back the link {}: scripts may not change what other programs run]",
                    path.display()
                ),
                (_, Err(error)) => {
                    tracing::warn!(path = %path.display(), %error, "cannot undo a script's change to what other programs run");
                    format!(
                        "[sandbox could not undo the script's change to {} ({error}): check it before using that directory]",
                        path.display()
                    )
                }
            });
        }
        notes
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
    protected: Protected,
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
                    protected: Protected::default(),
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
        let mut writable: Vec<&Path> = Vec::new();
        if profile.writes_working_dir() {
            writable.extend(config.working_dir.as_deref());
        }
        if profile == Profile::WriteHigh {
            writable.extend(config.allowed_writes.iter().map(PathBuf::as_path));
        }
        let protected =
            Protected::of(&writable, config.support).map_err(|error| RunFailure::Sandbox {
                action: "reading what other programs run in the script's writable directories"
                    .into(),
                error: error.to_string(),
            })?;
        Ok(Self {
            scratch: Some(scratch),
            applied: Arc::new(Applied {
                limits: config.limits,
                protected,
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

    /// Removes the scratch directory, with whatever the script left in it, and undoes what it
    /// made or changed among the entries other programs run ([`PROTECTED_NAMES`]) that no
    /// mount covered; returns a note for each of those.
    pub(crate) fn finish(self) -> Vec<String> {
        if let Some(scratch) = self.scratch {
            let path = scratch.path().to_path_buf();
            if let Err(error) = scratch.close() {
                tracing::warn!(path = %path.display(), %error, "cannot remove a script's scratch directory");
            }
        }
        self.applied.protected.restore()
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
        // Before Landlock, which forbids a confined process to mount.
        self.protected.apply()?;
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
