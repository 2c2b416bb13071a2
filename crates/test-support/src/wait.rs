//! Waiting for what a test synchronises on — a child's exit, a process gone, a line on a pipe —
//! as events, each within a generous bound, never by sleeping and hoping.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Output};
use std::sync::mpsc;
use std::time::Duration;

/// The output of `child` once it exits, or `None` (the child killed and reaped) when it has
/// not exited within `bound`.
///
/// Its exit is waited for on a thread of its own (`Child::wait_with_output`), so the test wakes
/// when it happens; pipes the child was given are read to the end.
///
/// # Panics
/// When waiting for the child fails (an I/O error of the platform).
pub fn output_within(child: Child, bound: Duration) -> Option<Output> {
    let pid = child.id();
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(child.wait_with_output());
    });
    match receiver.recv_timeout(bound) {
        Ok(output) => Some(output.expect("waiting for the child")),
        Err(_) => {
            // Not reaped yet (the thread still waits for it), so the pid is still the child's.
            kill(pid);
            let _ = receiver.recv();
            None
        }
    }
}

#[cfg(unix)]
fn kill(pid: u32) {
    let pid = libc::pid_t::try_from(pid).expect("a process id fits pid_t");
    // SAFETY: kill(2) with a process id and a signal number has no memory-safety preconditions.
    unsafe { libc::kill(pid, libc::SIGKILL) };
}

#[cfg(not(unix))]
fn kill(_pid: u32) {}

/// Whether the process `pid` is running now (Linux: it has a `/proc` entry and is neither a
/// zombie nor dead).
pub fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        // The state follows the command name, which may itself hold `)`.
        let state = stat.rsplit(')').next().unwrap_or_default().trim_start();
        !state.starts_with('Z') && !state.starts_with('X')
    })
}

/// Whether the process `pid` (not necessarily a child of the test) has ended within `bound`: a
/// zombie counts as ended. On Linux the wait is a `pidfd` that becomes readable when the
/// process exits.
///
/// # Panics
/// When the `pidfd` cannot be opened for another reason than the process being gone, or
/// polling it fails.
#[cfg(target_os = "linux")]
pub fn gone_within(pid: u32, bound: Duration) -> bool {
    // SAFETY: pidfd_open(2) takes a process id and flags, and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        let error = std::io::Error::last_os_error();
        assert_eq!(
            error.raw_os_error(),
            Some(libc::ESRCH),
            "pidfd_open({pid}): {error}"
        );
        return true;
    }
    let fd = i32::try_from(fd).expect("a descriptor fits an int");
    let mut poll = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    let timeout = i32::try_from(bound.as_millis()).unwrap_or(i32::MAX);
    // SAFETY: one valid pollfd for the length given; the descriptor is ours and closed below.
    let ready = unsafe { libc::poll(&mut poll, 1, timeout) };
    let error = std::io::Error::last_os_error();
    // SAFETY: `fd` was opened above and is closed once.
    unsafe { libc::close(fd) };
    assert!(ready >= 0, "poll on the pidfd of {pid}: {error}");
    ready == 1
}

/// Whether a line for which `wanted` holds arrives on `pipe` within `bound`. The pipe is read on
/// a thread of its own, to its end, so the writer never blocks on a full pipe afterwards.
pub fn line_within(
    pipe: impl Read + Send + 'static,
    bound: Duration,
    wanted: impl Fn(&str) -> bool + Send + 'static,
) -> bool {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut sent = false;
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            if !sent && wanted(&line) {
                let _ = sender.send(());
                sent = true;
            }
        }
    });
    receiver.recv_timeout(bound).is_ok()
}
