//! Ending a script together with every process it started.
//!
//! On Linux the spawned process is the script's reaper (see `reaper`): when the script exits,
//! the reaper kills the rest of its tree and exits as the script did, and asking it to stop
//! (`SIGTERM`) makes it kill the script first. Elsewhere on Unix the script leads a process
//! group, which is killed; what left the group (`setsid`) is out of reach there. Elsewhere than
//! on Unix only the script's own process is killed.

use std::io;
use std::process::ExitStatus;
#[cfg(target_os = "linux")]
use std::time::Duration;

use tokio::process::Child;

/// How long a reaper told to stop may take to kill and reap the script's processes before it is
/// killed itself.
#[cfg(target_os = "linux")]
const REAPER_GRACE: Duration = Duration::from_secs(5);

/// A spawned script (on Linux, the reaper over it), the leader of its own process group on Unix.
/// Dropped before it was waited for (a cancelled run), it is stopped.
#[derive(Debug)]
pub(crate) struct RunningScript {
    child: Child,
    #[cfg_attr(not(unix), allow(dead_code))]
    group: Option<u32>,
    group_killed: bool,
}

impl RunningScript {
    pub(crate) fn new(child: Child) -> Self {
        Self {
            group: child.id(),
            child,
            group_killed: false,
        }
    }

    /// The process, to take its pipes.
    pub(crate) fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Waits for the script to exit (on Linux, for its reaper, which has killed the rest of the
    /// tree by then), then kills whatever is still in its process group.
    pub(crate) async fn wait(&mut self) -> io::Result<ExitStatus> {
        let status = self.child.wait().await;
        self.kill_group();
        status
    }

    /// Ends a script that has not exited, with everything it started, and waits for it.
    pub(crate) async fn stop(&mut self) -> io::Result<ExitStatus> {
        self.signal_stop();
        #[cfg(target_os = "linux")]
        if let Ok(status) = tokio::time::timeout(REAPER_GRACE, self.child.wait()).await {
            self.kill_group();
            return status;
        }
        if let Err(error) = self.child.start_kill() {
            tracing::debug!(%error, "the stopped script had already exited");
        }
        self.wait().await
    }

    /// Tells a script that has not been reaped to stop: on Linux its reaper gets `SIGTERM`; on
    /// other Unix systems its process group gets `SIGKILL`; elsewhere it is killed.
    fn signal_stop(&mut self) {
        #[cfg(target_os = "linux")]
        if let Some(pid) = self
            .child
            .id()
            .and_then(|id| libc::pid_t::try_from(id).ok())
        {
            // SAFETY: `kill` only sends a signal. The child has not been reaped (it has an id),
            // so the pid is still its own.
            unsafe {
                libc::kill(pid, libc::SIGTERM);
            }
        }
        #[cfg(all(unix, not(target_os = "linux")))]
        if self.child.id().is_some() {
            self.kill_group();
        }
        #[cfg(not(unix))]
        if let Err(error) = self.child.start_kill() {
            tracing::debug!(%error, "the stopped script had already exited");
        }
    }

    /// Sends `SIGKILL` to every process of the script's group, once.
    ///
    /// After the script is reaped, its pid could only be reused as a group id if every process
    /// of the group had exited and a new process had become a group leader with that very pid.
    fn kill_group(&mut self) {
        if std::mem::replace(&mut self.group_killed, true) {
            return;
        }
        #[cfg(unix)]
        if let Some(id) = self.group.and_then(|id| libc::pid_t::try_from(id).ok()) {
            // SAFETY: `killpg` only sends a signal; it touches no memory of this process.
            let result = unsafe { libc::killpg(id, libc::SIGKILL) };
            if result != 0 {
                let error = io::Error::last_os_error();
                // No such group: every process of it has already exited.
                if error.raw_os_error() != Some(libc::ESRCH) {
                    tracing::warn!(group = id, %error, "cannot kill a script's process group; its processes may still run");
                }
            }
        }
    }
}

impl Drop for RunningScript {
    fn drop(&mut self) {
        if self.child.id().is_some() {
            self.signal_stop();
        }
    }
}
