//! Starting a child one way, and ending it together with every process it started.
//!
//! On Linux the spawned process is the child's reaper (see `reaper`): when the child exits,
//! the reaper kills the rest of its tree and exits as the child did, and asking it to stop
//! (`SIGTERM`) makes it kill the child first. Elsewhere on Unix the child leads a process
//! group, which is killed; what left the group (`setsid`) is out of reach there. Elsewhere than
//! on Unix only the child's own process is killed.

use std::ffi::{OsStr, OsString};
use std::io;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::process::{Child, Command};

use crate::output::{Captured, OutputObserver};

/// How long a reaper told to stop may take to kill and reap the child's processes before it is
/// killed itself.
#[cfg(target_os = "linux")]
const REAPER_GRACE: Duration = Duration::from_secs(5);

/// How a child is started, the one way for every child the host supervises (scripts, MCP
/// stdio servers): `program` with exactly `environment` (nothing else of the host's; build it
/// with [`allowed_environment`](crate::allowed_environment)), standard input closed and both
/// output streams piped (the caller may change the three), in a process group of its own on
/// Unix, on Linux under a reaper of its own (see [`Running`]), elsewhere killed when dropped.
///
/// On Linux the tree is also stopped when the host dies (its reaper asks for `SIGTERM` on the
/// death of its parent, `PR_SET_PDEATHSIG`), which Linux ties to the *thread* that started it:
/// start children from a thread that lives as long as they should (a runtime's worker thread,
/// or [`run_blocking`](Self::run_blocking)'s own), not from a blocking pool's, which ends when
/// idle.
///
/// Hooks the caller adds with `pre_exec` through [`command_mut`](Self::command_mut) run after
/// the reaper's, in the program's own process only (a sandbox applied there confines the program
/// and everything it starts, not the reaper).
///
/// # Example
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use std::time::Duration;
/// use skillful_process::{ChildCommand, allowed_environment};
///
/// let mut command = ChildCommand::new("sh", &allowed_environment(["SKILL_MODE"]));
/// command.command_mut().args(["-c", "echo hello; sleep 30 & exit 3"]);
/// let mut child = command.spawn().unwrap();
/// let finished = child.collect(Some(Duration::from_secs(20)), 1024).await.unwrap();
/// assert_eq!(finished.status.code(), Some(3));
/// assert_eq!(finished.stdout.into_text(), "hello\n");
/// assert!(!finished.timed_out);
/// # });
/// ```
#[derive(Debug)]
pub struct ChildCommand {
    command: Command,
}

impl ChildCommand {
    /// `program` (a path, or a name looked up in the `PATH` of this process) with `environment`
    /// as its whole environment.
    pub fn new(program: impl AsRef<OsStr>, environment: &[(OsString, OsString)]) -> Self {
        let mut command = Command::new(program);
        command
            .env_clear()
            .envs(environment.iter().map(|(name, value)| (name, value)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        command.process_group(0);
        // Killing the reaper outright would orphan the program's processes; `Running` asks it to
        // stop instead.
        #[cfg(target_os = "linux")]
        crate::reaper::install(&mut command);
        #[cfg(not(target_os = "linux"))]
        command.kill_on_drop(true);
        Self { command }
    }

    /// The command, for its arguments, working directory, standard streams and further
    /// `pre_exec` hooks (see the type's notes); its environment, process group and reaper are
    /// set.
    pub fn command_mut(&mut self) -> &mut Command {
        &mut self.command
    }

    /// Starts the child.
    ///
    /// # Errors
    /// The operating system's (`NotFound` when the program does not exist).
    pub fn spawn(mut self) -> io::Result<Running> {
        self.command.spawn().map(Running::new)
    }

    /// Runs the child to its end from blocking code (an installer's `git`), as
    /// [`Running::collect`] does: at most `max_bytes` of each stream kept, and past `timeout` the
    /// child stopped with everything it started ([`Finished::timed_out`]). It runs on a thread
    /// of its own with a runtime of its own, so it may be called anywhere, an async runtime's
    /// thread included (which it blocks).
    ///
    /// # Errors
    /// The operating system's, starting or waiting for the child.
    pub fn run_blocking(self, timeout: Duration, max_bytes: usize) -> io::Result<Finished> {
        std::thread::spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?
                .block_on(async move { self.spawn()?.collect(Some(timeout), max_bytes).await })
        })
        .join()
        .unwrap_or_else(|_| Err(io::Error::other("the thread running a child panicked")))
    }
}

/// What [`Running::collect`] saw: how the child ended and the first bytes of each stream.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finished {
    /// How the child (on Linux, its reaper, which exits as the child did) ended.
    pub status: ExitStatus,
    /// Its standard output, up to the bound.
    pub stdout: Captured,
    /// Its standard error, up to the bound.
    pub stderr: Captured,
    /// Whether the time was up and the child was stopped with everything it started.
    pub timed_out: bool,
    /// Whether [`Watch::stop`] asked for the child to be stopped before it ended, and it was,
    /// with everything it started.
    pub stopped: bool,
}

/// What watches a child while [`Running::collect_watched`] reads it: an observer of each output
/// stream, and a future that asks for the child to be stopped when it ends.
#[derive(Default)]
pub struct Watch<'a> {
    /// Sees standard output as it is read.
    pub stdout: Option<&'a OutputObserver<'a>>,
    /// Sees standard error as it is read.
    pub stderr: Option<&'a OutputObserver<'a>>,
    /// Ends when the child is to be stopped.
    pub stop: Option<std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + 'a>>>,
}

impl std::fmt::Debug for Watch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watch")
            .field("stdout", &self.stdout.is_some())
            .field("stderr", &self.stderr.is_some())
            .field("stop", &self.stop.is_some())
            .finish()
    }
}

/// How [`Running::collect_watched`] ended the wait for its child.
enum Ending {
    Exited,
    TimedOut,
    Stopped,
}

/// A child started by [`ChildCommand::spawn`] (on Linux, the reaper over it), the leader of its
/// own process group on Unix. Dropped before it was waited for (a cancelled run, a closed
/// connection), it is stopped with everything it started.
#[derive(Debug)]
pub struct Running {
    child: Child,
    #[cfg_attr(not(unix), allow(dead_code))]
    group: Option<u32>,
    group_killed: bool,
}

impl Running {
    fn new(child: Child) -> Self {
        Self {
            group: child.id(),
            child,
            group_killed: false,
        }
    }

    /// The process (on Linux, the reaper over the program), to take its pipes.
    pub fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    /// The spawned process's id (on Linux, the reaper's), which is also its process group's id
    /// on Unix; `None` once it has been waited for.
    pub fn id(&self) -> Option<u32> {
        self.child.id()
    }

    /// Waits for the child to exit (on Linux, for its reaper, which has killed the rest of the
    /// tree by then), then kills whatever is still in its process group.
    ///
    /// # Errors
    /// The operating system's, waiting.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        let status = self.child.wait().await;
        self.kill_group();
        status
    }

    /// Reads the child's piped output while it runs, keeping at most `max_bytes` of each stream
    /// (the rest is read and counted, so the child never blocks on a full pipe), until it exits
    /// or `timeout` (when given) is up, when it is stopped with everything it started. Once the
    /// child's processes are gone (however they ended), what is already in the pipes is read, and
    /// only that: a process out of reach that holds a pipe open cannot hold the result back.
    ///
    /// # Errors
    /// The operating system's, waiting for the child.
    ///
    /// # Cancel safety
    /// Dropping the future stops the child as dropping the [`Running`] does.
    pub async fn collect(
        &mut self,
        timeout: Option<Duration>,
        max_bytes: usize,
    ) -> io::Result<Finished> {
        self.collect_watched(timeout, max_bytes, Watch::default())
            .await
    }

    /// [`Running::collect`] under `watch`: each chunk of standard output and error is shown to
    /// its observer as it is read (all of it, kept or not), for live progress, while the bound
    /// of what is kept stays as it is; when `watch.stop` ends first, the child is stopped with
    /// everything it started and [`Finished::stopped`] says so.
    ///
    /// # Errors
    /// The operating system's, waiting for the child.
    ///
    /// # Cancel safety
    /// Dropping the future stops the child as dropping the [`Running`] does.
    pub async fn collect_watched(
        &mut self,
        timeout: Option<Duration>,
        max_bytes: usize,
        watch: Watch<'_>,
    ) -> io::Result<Finished> {
        let stdout_pipe = self.child.stdout.take();
        let stderr_pipe = self.child.stderr.take();
        let mut stdout = Captured::new(max_bytes);
        let mut stderr = Captured::new(max_bytes);
        let (exited, exit) = tokio::sync::watch::channel(false);
        let mut ending = Ending::Exited;
        // A stop or a timeout ends the child here, while its pipes are still being read: what it
        // wrote before is kept, as after an exit.
        let wait = async {
            let time_up = async {
                match timeout {
                    Some(timeout) => tokio::time::sleep(timeout).await,
                    None => std::future::pending().await,
                }
            };
            let asked = async {
                match watch.stop {
                    Some(stop) => stop.await,
                    None => std::future::pending().await,
                }
            };
            let status = tokio::select! {
                status = self.wait() => status,
                () = time_up => {
                    ending = Ending::TimedOut;
                    self.stop().await
                }
                () = asked => {
                    ending = Ending::Stopped;
                    self.stop().await
                }
            };
            exited.send_replace(true);
            status
        };
        let (status, (), ()) = tokio::join!(
            wait,
            stdout.read_from(stdout_pipe, exit.clone(), watch.stdout),
            stderr.read_from(stderr_pipe, exit, watch.stderr)
        );
        Ok(Finished {
            status: status?,
            stdout,
            stderr,
            timed_out: matches!(ending, Ending::TimedOut),
            stopped: matches!(ending, Ending::Stopped),
        })
    }

    /// Ends a child that has not exited, with everything it started, and waits for it.
    ///
    /// # Errors
    /// The operating system's, waiting.
    pub async fn stop(&mut self) -> io::Result<ExitStatus> {
        self.signal_stop();
        #[cfg(target_os = "linux")]
        if let Ok(status) = tokio::time::timeout(REAPER_GRACE, self.child.wait()).await {
            self.kill_group();
            return status;
        }
        if let Err(error) = self.child.start_kill() {
            tracing::debug!(%error, "the stopped child had already exited");
        }
        self.wait().await
    }

    /// Tells a child that has not been reaped to stop: on Linux its reaper gets `SIGTERM`; on
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
            tracing::debug!(%error, "the stopped child had already exited");
        }
    }

    /// Sends `SIGKILL` to every process of the child's group, once.
    ///
    /// After the child is reaped, its pid could only be reused as a group id if every process
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
                    tracing::warn!(group = id, %error, "cannot kill a child's process group; its processes may still run");
                }
            }
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.child.id().is_some() {
            self.signal_stop();
        }
    }
}
