//! A child that outlives the command that started it (the model engine): started the same way as
//! every other child (exactly the environment given, standard input closed, a process group of
//! its own), with nothing inherited open, and ended as a group.

use std::ffi::{OsStr, OsString};
use std::io;
use std::process::{Command, Stdio};

/// A signal for [`signal_group`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Signal {
    /// `SIGTERM`: asks the processes to end.
    Terminate,
    /// `SIGKILL`: ends them.
    Kill,
}

/// A (blocking) command for a long-lived child that may outlive this process: `program` with
/// exactly `environment` (build it with [`allowed_environment`](crate::allowed_environment)),
/// standard input closed, in a process group of its own on Unix (a Ctrl-C at the terminal reaches
/// the host, which stops the child itself; [`signal_group`] ends it with what it started), and
/// holding none of the descriptors this process inherited without close-on-exec (a lock, the
/// write end of a pipe someone reads to its end), which would block others for as long as the
/// child runs. The caller sets the arguments and where the output goes.
pub fn detached_command(
    program: impl AsRef<OsStr>,
    environment: &[(OsString, OsString)],
) -> Command {
    let mut command = Command::new(program);
    command
        .env_clear()
        .envs(environment.iter().map(|(name, value)| (name, value)))
        .stdin(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
        // SAFETY: the closure only calls sysconf, fcntl and close, which are async-signal-safe.
        unsafe {
            command.pre_exec(|| {
                close_inherited_descriptors();
                Ok(())
            });
        }
    }
    command
}

/// Sends `signal` to every process of process group `group` (a child started by
/// [`detached_command`] leads the group of its own id); `Ok(false)` when no process of the group
/// is left. Elsewhere than on Unix there are no groups: `Ok(false)`.
///
/// # Errors
/// The operating system's refusal (another user's group, an id that is no group id).
pub fn signal_group(group: u32, signal: Signal) -> io::Result<bool> {
    #[cfg(unix)]
    {
        let group = libc::pid_t::try_from(group)
            .ok()
            .filter(|group| *group > 1)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a process group id"))?;
        let signal = match signal {
            Signal::Terminate => libc::SIGTERM,
            Signal::Kill => libc::SIGKILL,
        };
        // SAFETY: `killpg` only sends a signal; it touches no memory of this process.
        if unsafe { libc::killpg(group, signal) } == 0 {
            return Ok(true);
        }
        let error = io::Error::last_os_error();
        if error.raw_os_error() == Some(libc::ESRCH) {
            return Ok(false);
        }
        Err(error)
    }
    #[cfg(not(unix))]
    {
        // No groups: the process and its descendants, as `taskkill` finds them (`/F` forces).
        if !process_exists(group) {
            return Ok(false);
        }
        let mut taskkill = Command::new("taskkill");
        if signal == Signal::Kill {
            taskkill.arg("/F");
        }
        let status = taskkill
            .args(["/T", "/PID", &group.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()?;
        if status.success() {
            Ok(true)
        } else {
            Err(io::Error::other(format!("taskkill exited with {status}")))
        }
    }
}

/// Whether a process with id `pid` exists (and, on Unix, may be signalled by this user). A
/// child of this process that has exited is reaped first: until then it is a zombie, which would
/// count as existing.
pub fn process_exists(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return false;
        };
        if pid <= 0 {
            return false;
        }
        // SAFETY: waitpid with WNOHANG and no status pointer only reaps an exited child of ours.
        if unsafe { libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG) } == pid {
            return false;
        }
        // SAFETY: signal 0 only checks that the process exists and may be signalled.
        unsafe { libc::kill(pid, 0) == 0 }
    }
    #[cfg(not(unix))]
    {
        Command::new("tasklist")
            .args(["/FI", &format!("PID eq {pid}"), "/NH"])
            .stdin(Stdio::null())
            .output()
            .is_ok_and(|output| String::from_utf8_lossy(&output.stdout).contains(&pid.to_string()))
    }
}

/// Closes every inherited descriptor above standard error in the child about to exec. Those
/// marked close-on-exec (everything the standard library opened, its exec-error pipe included)
/// are left to exec.
#[cfg(unix)]
fn close_inherited_descriptors() {
    // SAFETY: sysconf, fcntl and close have no preconditions; an unused number fails harmlessly.
    let limit = unsafe { libc::sysconf(libc::_SC_OPEN_MAX) };
    let limit = libc::c_int::try_from(limit)
        .unwrap_or(1024)
        .clamp(3, 65_536);
    for fd in 3..limit {
        // SAFETY: see above.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags >= 0 && flags & libc::FD_CLOEXEC == 0 {
                libc::close(fd);
            }
        }
    }
}
