//! Protecting the host process from the scripts it runs.

use crate::error::HardenError;

/// Makes this process non-dumpable, so that processes running as the same user (the scripts it
/// runs, and everything they start) cannot read its environment (`/proc/<pid>/environ`), its
/// memory (`/proc/<pid>/mem`) or attach a debugger to it. Call it first thing in `main`, before
/// any secret is read, in every binary that runs scripts or MCP servers.
///
/// On Linux this is `prctl(PR_SET_DUMPABLE, 0)`: the process's `/proc` files become owned by
/// root and `ptrace` access needs `CAP_SYS_PTRACE`. It also means that the process leaves no
/// core dump. It does not hide the command line (`/proc/<pid>/cmdline` stays readable by every
/// local user: pass no secret as an argument), nor files the user can read (keys in a config
/// file are readable by a script), nor anything from a process running as root. Elsewhere it
/// does nothing.
///
/// # Errors
/// [`HardenError`] when the operating system refuses (never expected on Linux).
///
/// # Example
/// ```
/// skillful_scripts::harden_process().expect("this process can be made non-dumpable");
/// ```
pub fn harden_process() -> Result<(), HardenError> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `prctl(PR_SET_DUMPABLE)` changes a flag of this process; no memory is passed.
        if unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) } != 0 {
            return Err(HardenError {
                source: std::io::Error::last_os_error(),
            });
        }
    }
    Ok(())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #[test]
    fn the_process_is_no_longer_dumpable() {
        super::harden_process().unwrap();
        // SAFETY: reads a flag of this process.
        assert_eq!(unsafe { libc::prctl(libc::PR_GET_DUMPABLE, 0, 0, 0, 0) }, 0);
    }
}
