//! Killing a script together with the processes it started.

use std::sync::atomic::{AtomicBool, Ordering};

use tokio::process::Child;

/// The process group a script leads (on Unix it is spawned with `process_group(0)`, so the group
/// id is its pid). Killed at most once: explicitly, or when dropped (the run was cancelled).
///
/// The group is killed right after the script exits, to end what it left running. Between the
/// script being reaped and that kill, its pid could only be reused as a group id if every process
/// of the group had exited and a new process had become a group leader with that very pid.
#[derive(Debug)]
pub(crate) struct ProcessGroup {
    #[cfg_attr(not(unix), allow(dead_code))]
    id: Option<u32>,
    killed: AtomicBool,
}

impl ProcessGroup {
    /// The group `child` leads.
    pub(crate) fn of(child: &Child) -> Self {
        Self {
            id: child.id(),
            killed: AtomicBool::new(false),
        }
    }

    /// Sends `SIGKILL` to every process of the group, once. Elsewhere than on Unix, does
    /// nothing: the caller kills the child itself, and `kill_on_drop` covers cancellation.
    pub(crate) fn kill(&self) {
        if self.killed.swap(true, Ordering::AcqRel) {
            return;
        }
        #[cfg(unix)]
        if let Some(id) = self.id.and_then(|id| libc::pid_t::try_from(id).ok()) {
            // SAFETY: `killpg` only sends a signal; it touches no memory of this process.
            let result = unsafe { libc::killpg(id, libc::SIGKILL) };
            if result != 0 {
                let error = std::io::Error::last_os_error();
                // No such group: every process of it has already exited.
                if error.raw_os_error() != Some(libc::ESRCH) {
                    tracing::warn!(group = id, %error, "cannot kill a script's process group; its processes may still run");
                }
            }
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.kill();
    }
}
