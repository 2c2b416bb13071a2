//! Linux: a reaper between the host and each supervised child (a script, an MCP server), so
//! that nothing it starts outlives it, not even what left its process group with `setsid` or was orphaned by a double fork.
//!
//! The process the runner spawns forks once more before `exec`: the child goes on to become the
//! child, and the parent stays behind as its *reaper*, a child subreaper
//! (`PR_SET_CHILD_SUBREAPER`). Every process the child starts and then orphans is reparented to
//! the reaper instead of to init, so the whole tree stays below it. When the child exits, the
//! reaper kills what is left of the tree (its children, read from
//! `/proc/thread-self/children`, round after round as grandchildren are reparented to it), reaps
//! them, and exits as the child did: the host sees the child's exit status, and by then nothing
//! of the tree is left. On `SIGTERM` (the host's timeout, or a cancelled run) the reaper kills
//! the child first, then does the same; the host's death sends it `SIGTERM` too
//! (`PR_SET_PDEATHSIG`), so a killed host leaves none of its children's trees running.
//!
//! What escapes it: a child that kills its own reaper (same user) orphans its processes to
//! init; the host then kills only what is still in the child's process group. Without
//! `/proc/thread-self/children` (kernels without `CONFIG_PROC_CHILDREN`), the reaper cannot see
//! its children and leaves them to the same process-group kill.
//!
//! The reaper is a copy of the host made by `fork` in a multi-threaded process, so it runs only
//! async-signal-safe system calls: it never allocates, locks, unwinds or returns to Rust code
//! that might. It closes every file descriptor it inherited first (so it holds none of the
//! child's pipes, and none of the host's files), and marks itself non-dumpable, since its
//! memory is a copy of the host's.

use std::io;
use std::sync::atomic::{AtomicI32, Ordering};

use libc::{c_int, pid_t};

/// The child's pid, in the reaper's own copy of this static; 0 once the child is reaped, so
/// that the signal handler never signals a pid that may have been reused.
static CHILD: AtomicI32 = AtomicI32::new(0);

/// Makes the process `command` spawns a reaper over the actual program (see the module
/// documentation).
pub(crate) fn install(command: &mut tokio::process::Command) {
    let host = std::process::id() as pid_t;
    // SAFETY: `become_reaper` runs between `fork` and `exec` and only makes async-signal-safe
    // system calls (no allocation, no locks); the reaper branch never returns.
    unsafe {
        command.pre_exec(move || become_reaper(host));
    }
}

/// Runs in the spawned child before `exec`: returns in the grandchild (which then becomes the
/// child) and never returns in the child (which becomes its reaper). `host` is the process
/// that spawns it.
fn become_reaper(host: pid_t) -> io::Result<()> {
    // SAFETY: plain system calls on values owned by this function.
    unsafe {
        if libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
        // SIGTERM stays blocked from before the fork until the reaper's handler is installed,
        // so that a timeout arriving early is held, not fatal to the reaper alone.
        let mut terminate: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut terminate);
        libc::sigaddset(&mut terminate, libc::SIGTERM);
        let mut previous: libc::sigset_t = std::mem::zeroed();
        libc::sigprocmask(libc::SIG_BLOCK, &terminate, &mut previous);
        // The host's death stops the tree as a timeout does: a killed `skills` (Ctrl-C,
        // SIGKILL) leaves no task of it running. The signal is held like any SIGTERM until the
        // handler is in place; a host already gone before this point is seen by `getppid`.
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM, 0, 0, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
        if libc::getppid() != host {
            return Err(io::Error::from_raw_os_error(libc::ESRCH));
        }
        match libc::fork() {
            -1 => Err(io::Error::last_os_error()),
            0 => {
                libc::sigprocmask(libc::SIG_SETMASK, &previous, std::ptr::null_mut());
                close_inherited_on_exec();
                Ok(())
            }
            child => reap(child, &terminate),
        }
    }
}

/// The reaper's life: wait for the child, kill and reap what it left, exit as it did.
///
/// # Safety
/// Only in the child of a `fork`, which it ends.
unsafe fn reap(child: pid_t, terminate: &libc::sigset_t) -> ! {
    // SAFETY: plain system calls; the handler only reads an atomic and sends a signal.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
        close_every_descriptor();
        libc::signal(libc::SIGCHLD, libc::SIG_DFL);
        CHILD.store(child, Ordering::SeqCst);
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = kill_child as extern "C" fn(c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
        libc::sigprocmask(libc::SIG_UNBLOCK, terminate, std::ptr::null_mut());
        let status = wait_for_child(child);
        kill_descendants();
        exit_as(status)
    }
}

/// The reaper's `SIGTERM` handler: kills the child, which makes the reaper's wait return.
extern "C" fn kill_child(_signal: c_int) {
    let child = CHILD.load(Ordering::SeqCst);
    if child > 0 {
        // SAFETY: `kill` is async-signal-safe.
        unsafe {
            libc::kill(child, libc::SIGKILL);
        }
    }
}

/// Marks every descriptor but the standard streams close-on-exec, so that the program starts
/// with those three only: none the host inherited without the flag (a shell's `3>>~/.bashrc`)
/// reaches it. Marked, not closed: `std`'s pipe that reports a failed `exec` stays open until
/// the `exec`.
///
/// # Safety
/// Only between `fork` and `exec`.
unsafe fn close_inherited_on_exec() {
    // SAFETY: flags on descriptors of this process, which is about to `exec`.
    unsafe {
        if libc::syscall(
            libc::SYS_close_range,
            3,
            libc::c_uint::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        ) == 0
        {
            return;
        }
        // Kernels before 5.11: one by one up to the descriptor limit.
        for descriptor in 3..descriptor_limit() {
            libc::fcntl(descriptor, libc::F_SETFD, libc::FD_CLOEXEC);
        }
    }
}

/// The highest descriptor number worth closing or marking (bounded).
///
/// # Safety
/// Async-signal-safe: one system call on the stack.
unsafe fn descriptor_limit() -> c_int {
    // SAFETY: getrlimit into a struct on the stack.
    unsafe {
        let mut limit: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
            limit.rlim_cur.min(1 << 20) as c_int
        } else {
            1024
        }
    }
}

/// Closes every inherited descriptor: the child's pipes, the error pipe `std` uses to report a
/// failed `exec` (its parent reads it to its end), and the host's files.
///
/// # Safety
/// Only in the reaper after `fork`, before anything else opens a descriptor: every descriptor
/// of the process is gone afterwards.
unsafe fn close_every_descriptor() {
    // SAFETY: closing descriptors this process will never use again.
    unsafe {
        if libc::syscall(libc::SYS_close_range, 0, libc::c_uint::MAX, 0) == 0 {
            return;
        }
        // Kernels before 5.9: close one by one up to the descriptor limit.
        for descriptor in 0..descriptor_limit() {
            libc::close(descriptor);
        }
    }
}

/// Waits for the child to exit and reaps it, reaping whatever else dies meanwhile; its wait
/// status.
///
/// # Safety
/// Only in the reaper, whose children these are; async-signal-safe system calls only.
unsafe fn wait_for_child(child: pid_t) -> c_int {
    // SAFETY: wait calls on this process's own children.
    unsafe {
        loop {
            // Look before reaping, so that the handler forgets the child's pid first.
            let mut info: libc::siginfo_t = std::mem::zeroed();
            if libc::waitid(libc::P_ALL, 0, &mut info, libc::WEXITED | libc::WNOWAIT) != 0 {
                if errno() == libc::EINTR {
                    continue;
                }
                // No child at all: the child is gone without a status.
                return exit_status(127);
            }
            let pid = info.si_pid();
            if pid == child {
                CHILD.store(0, Ordering::SeqCst);
            }
            let mut status = 0;
            while libc::waitpid(pid, &mut status, 0) == -1 && errno() == libc::EINTR {}
            if pid == child {
                return status;
            }
        }
    }
}

/// Kills and reaps every remaining descendant: each round kills the reaper's children, whose own
/// children are then reparented to it, until none is left.
///
/// # Safety
/// Only in the reaper, a child subreaper whose descendants these are; async-signal-safe system
/// calls only.
unsafe fn kill_descendants() {
    // SAFETY: wait calls on this process's own children; signals sent to them only.
    unsafe {
        loop {
            let mut status = 0;
            match libc::waitpid(-1, &mut status, libc::WNOHANG) {
                0 => {}
                -1 if errno() == libc::EINTR => continue,
                -1 => return,
                _ => continue,
            }
            match kill_children() {
                None => return,
                Some(0) => {
                    // A child being reparented may be missing from the list: look again soon.
                    let pause = libc::timespec {
                        tv_sec: 0,
                        tv_nsec: 1_000_000,
                    };
                    libc::nanosleep(&pause, std::ptr::null_mut());
                }
                Some(_) => {
                    libc::waitpid(-1, &mut status, 0);
                }
            }
        }
    }
}

/// Sends `SIGKILL` to every child listed in `/proc/thread-self/children` (the reaper has one
/// thread); how many, or `None` when the list cannot be read.
///
/// # Safety
/// Only in the reaper (one thread, so `thread-self` lists all its children); async-signal-safe
/// system calls only.
unsafe fn kill_children() -> Option<usize> {
    // SAFETY: reads a proc file into a stack buffer; signals only the listed children.
    unsafe {
        let file = libc::open(
            c"/proc/thread-self/children".as_ptr(),
            libc::O_RDONLY | libc::O_CLOEXEC,
        );
        if file < 0 {
            return None;
        }
        let mut killed = 0;
        let mut buffer = [0u8; 4096];
        let mut pid: pid_t = 0;
        loop {
            let read = libc::read(file, buffer.as_mut_ptr().cast(), buffer.len());
            if read == -1 && errno() == libc::EINTR {
                continue;
            }
            let Ok(read) = usize::try_from(read) else {
                break;
            };
            if read == 0 {
                break;
            }
            for &byte in buffer.iter().take(read) {
                if byte.is_ascii_digit() {
                    pid = pid
                        .saturating_mul(10)
                        .saturating_add(pid_t::from(byte - b'0'));
                } else if pid > 0 {
                    libc::kill(pid, libc::SIGKILL);
                    killed += 1;
                    pid = 0;
                }
            }
        }
        if pid > 0 {
            libc::kill(pid, libc::SIGKILL);
            killed += 1;
        }
        libc::close(file);
        Some(killed)
    }
}

/// Ends the reaper with the child's wait status: its exit code, or the signal that ended it.
///
/// # Safety
/// Only in the reaper, once its child is reaped: the process ends without running destructors or
/// `atexit` handlers, which are not async-signal-safe.
unsafe fn exit_as(status: c_int) -> ! {
    // SAFETY: ends this process.
    unsafe {
        if libc::WIFSIGNALED(status) {
            let signal = libc::WTERMSIG(status);
            libc::signal(signal, libc::SIG_DFL);
            let mut only: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut only);
            libc::sigaddset(&mut only, signal);
            libc::sigprocmask(libc::SIG_UNBLOCK, &only, std::ptr::null_mut());
            // Non-dumpable: a core-dumping signal leaves no core of the host's memory.
            libc::kill(libc::getpid(), signal);
            libc::_exit(128 + signal);
        }
        libc::_exit(libc::WEXITSTATUS(status))
    }
}

/// The wait status of a process that exited with `code`.
fn exit_status(code: c_int) -> c_int {
    (code & 0xff) << 8
}

fn errno() -> c_int {
    io::Error::last_os_error().raw_os_error().unwrap_or(0)
}
