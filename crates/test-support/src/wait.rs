//! Waiting for what a test synchronises on — a child's exit, a process gone, a line on a pipe or
//! on a named pipe ([`Fifo`]) — as events, each within a generous bound, never by sleeping and
//! hoping.

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

/// A named pipe the test made at a path, for a process it holds no pipe to (a script run by the
/// program under test, a program that program started) to say something by writing a line to
/// that path, as `echo "$pid" > "$FIFO"` does.
///
/// The test holds both ends open from the start: a writer's `open` does not wait for a reader,
/// what it writes waits in the pipe (a line, not the pipe's 64 KiB) until the test reads it, and
/// a writer closing its end is no end of the lines.
#[cfg(unix)]
#[derive(Debug)]
pub struct Fifo {
    path: std::path::PathBuf,
    reader: std::fs::File,
    _writer: std::fs::File,
    pending: Vec<u8>,
}

#[cfg(unix)]
impl Fifo {
    /// Makes a named pipe at `path` (which must not exist; its directory must) and opens it.
    ///
    /// # Panics
    /// When the pipe cannot be made or opened.
    pub fn create(path: impl Into<std::path::PathBuf>) -> Self {
        use std::os::unix::ffi::OsStrExt;
        use std::os::unix::fs::OpenOptionsExt;
        let path = path.into();
        let name = std::ffi::CString::new(path.as_os_str().as_bytes()).expect("a path without NUL");
        // SAFETY: mkfifo(2) reads a NUL-terminated path that outlives the call.
        let made = unsafe { libc::mkfifo(name.as_ptr(), 0o600) };
        assert_eq!(
            made,
            0,
            "mkfifo {}: {}",
            path.display(),
            std::io::Error::last_os_error()
        );
        // Without O_NONBLOCK, opening the read end would wait for a writer.
        let reader = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&path)
            .expect("opening the read end of the named pipe");
        let writer = std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .expect("opening the write end of the named pipe");
        Self {
            path,
            reader,
            _writer: writer,
            pending: Vec::new(),
        }
    }

    /// Its path, for the writer.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// The first line written to the pipe for which `wanted` holds (without its line break),
    /// once it arrives, or `None` when none has within `bound`. Lines before it are passed over.
    ///
    /// # Panics
    /// When polling or reading the pipe fails.
    pub fn line_within(
        &mut self,
        bound: Duration,
        wanted: impl Fn(&str) -> bool,
    ) -> Option<String> {
        use std::os::fd::AsRawFd;
        let deadline = std::time::Instant::now() + bound;
        loop {
            while let Some(end) = self.pending.iter().position(|byte| *byte == b'\n') {
                let line: Vec<u8> = self.pending.drain(..=end).collect();
                let line = String::from_utf8_lossy(&line[..end]).into_owned();
                if wanted(&line) {
                    return Some(line);
                }
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return None;
            }
            let mut poll = libc::pollfd {
                fd: self.reader.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // Rounded up: a bound of less than a millisecond left still waits.
            let timeout = i32::try_from(left.as_millis() + 1).unwrap_or(i32::MAX);
            // SAFETY: one valid pollfd for the length given; the descriptor is the reader's.
            let ready = unsafe { libc::poll(&mut poll, 1, timeout) };
            if ready < 0 {
                let error = std::io::Error::last_os_error();
                assert_eq!(
                    error.kind(),
                    std::io::ErrorKind::Interrupted,
                    "poll: {error}"
                );
                continue;
            }
            let mut chunk = [0u8; 4096];
            match self.reader.read(&mut chunk) {
                Ok(read) => self.pending.extend_from_slice(&chunk[..read]),
                Err(error)
                    if matches!(
                        error.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
                    ) => {}
                Err(error) => panic!("reading {}: {error}", self.path.display()),
            }
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_gives_the_wanted_line_and_outlives_its_writers() {
        let path = std::env::temp_dir().join(format!("skillful-fifo-{}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let mut fifo = Fifo::create(&path);
        // Each write opens the pipe, which waits for no reader, and closes it.
        std::fs::write(fifo.path(), "first\nsecond\n").unwrap();
        let second = fifo.line_within(Duration::from_secs(10), |line| line.starts_with("sec"));
        assert_eq!(second.as_deref(), Some("second"));
        assert_eq!(fifo.line_within(Duration::from_millis(50), |_| true), None);
        std::fs::write(fifo.path(), "third\n").unwrap();
        let third = fifo.line_within(Duration::from_secs(10), |_| true);
        assert_eq!(third.as_deref(), Some("third"));
        std::fs::remove_file(&path).unwrap();
    }
}
