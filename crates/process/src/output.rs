//! Reading a child's output with a byte bound: the first bytes kept, the rest read and counted,
//! so that memory stays bounded and the child never blocks on a full pipe.

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::watch;

/// What sees a stream's bytes as they are read ([`Running::collect_watched`](crate::Running::collect_watched)):
/// called with each chunk, in order, on the task reading the stream; it must not block.
pub type OutputObserver<'a> = dyn Fn(&[u8]) + Send + Sync + 'a;

/// One output stream of a child: its first `limit` bytes, and how many more were read and
/// discarded so that the child never blocks on a full pipe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Captured {
    kept: Vec<u8>,
    limit: usize,
    discarded: u64,
}

/// How much is read from a pipe at a time.
const CHUNK: usize = 8 * 1024;

/// How long a pipe is still read after the child's processes are gone where the platform cannot
/// say how much it holds: long enough for what was written, while a process out of reach that
/// holds it open cannot hold the result back.
const UNCOUNTED_READ_BOUND: std::time::Duration = std::time::Duration::from_secs(2);

impl Captured {
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            kept: Vec::new(),
            limit,
            discarded: 0,
        }
    }

    /// Reads `pipe` to its end (or until this future is dropped), keeping at most the limit; once
    /// `exited` turns true (the child's processes are gone), reads only what the pipe holds at
    /// that moment, since whoever still holds it open is no process of the child's (where the
    /// platform cannot count that, what arrives within [`UNCOUNTED_READ_BOUND`]).
    /// Each chunk read is shown to `observe` as it arrives (kept or not), for live progress.
    pub(crate) async fn read_from<P>(
        &mut self,
        pipe: Option<P>,
        mut exited: watch::Receiver<bool>,
        observe: Option<&OutputObserver<'_>>,
    ) where
        P: AsyncRead + Buffered + Unpin,
    {
        let Some(mut pipe) = pipe else {
            return;
        };
        let mut chunk = vec![0; CHUNK];
        // After the exit: how many bytes are left to read.
        let mut left: Option<usize> = None;
        // After the exit, where the platform cannot count them: when reading them ends.
        let mut uncounted_until = None;
        loop {
            let read = match left {
                Some(0) => return,
                Some(left) => {
                    let read = pipe.read(&mut chunk[..left.min(CHUNK)]);
                    match uncounted_until {
                        None => read.await,
                        Some(deadline) => {
                            let Ok(read) = tokio::time::timeout_at(deadline, read).await else {
                                tracing::warn!(
                                    "a process outside the child's holds its output open; stopped reading it"
                                );
                                return;
                            };
                            read
                        }
                    }
                }
                None => tokio::select! {
                    biased;
                    read = pipe.read(&mut chunk) => read,
                    _ = exited.wait_for(|exited| *exited) => {
                        left = Some(pipe.buffered().unwrap_or_else(|| {
                            uncounted_until =
                                Some(tokio::time::Instant::now() + UNCOUNTED_READ_BOUND);
                            usize::MAX
                        }));
                        continue;
                    }
                },
            };
            match read {
                Ok(0) => return,
                Ok(read) => {
                    if let Some(observe) = observe {
                        observe(&chunk[..read]);
                    }
                    let room = self.limit.saturating_sub(self.kept.len());
                    let kept = room.min(read);
                    self.kept.extend_from_slice(&chunk[..kept]);
                    self.discarded += (read - kept) as u64;
                    if let Some(left) = &mut left {
                        *left = left.saturating_sub(read);
                    }
                }
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => {
                    tracing::warn!(%error, "stopped reading a child's output; the rest of it is lost");
                    return;
                }
            }
        }
    }

    /// Whether anything was discarded.
    pub fn truncated(&self) -> bool {
        self.discarded > 0
    }

    /// How many bytes past the limit were read and discarded.
    pub fn discarded(&self) -> u64 {
        self.discarded
    }

    /// The bytes kept (at most the limit).
    pub fn bytes(&self) -> &[u8] {
        &self.kept
    }

    /// The bytes kept as text: invalid UTF-8 replaced, and a character cut in two by the limit
    /// left out.
    pub fn into_text(mut self) -> String {
        if self.truncated() {
            let cut = self
                .kept
                .utf8_chunks()
                .last()
                .map_or(0, |chunk| chunk.invalid().len());
            self.kept.truncate(self.kept.len() - cut);
        }
        String::from_utf8_lossy(&self.kept).into_owned()
    }
}

/// A pipe that can tell how many bytes it holds, ready to be read.
pub(crate) trait Buffered {
    /// The bytes ready to be read now; `None` where the platform cannot tell.
    fn buffered(&self) -> Option<usize>;
}

#[cfg(unix)]
fn buffered_in(descriptor: std::os::fd::RawFd) -> Option<usize> {
    let mut ready: libc::c_int = 0;
    // SAFETY: `FIONREAD` writes one int to the address given, which is a live local.
    let result = unsafe { libc::ioctl(descriptor, libc::FIONREAD, &mut ready) };
    if result == 0 {
        usize::try_from(ready).ok()
    } else {
        None
    }
}

/// `Buffered` for the child's pipes, alike: the count is asked of the descriptor (`FIONREAD`).
/// A macro, not a blanket impl over `AsRawFd`, which would conflict with the tests' `&[u8]`.
macro_rules! buffered_pipes {
    ($($pipe:ty),*) => {$(
        impl Buffered for $pipe {
            #[cfg(unix)]
            fn buffered(&self) -> Option<usize> {
                buffered_in(std::os::fd::AsRawFd::as_raw_fd(self))
            }

            #[cfg(not(unix))]
            fn buffered(&self) -> Option<usize> {
                None
            }
        }
    )*};
}

buffered_pipes!(tokio::process::ChildStdout, tokio::process::ChildStderr);

#[cfg(test)]
mod tests {
    use super::*;

    impl Buffered for &[u8] {
        fn buffered(&self) -> Option<usize> {
            Some(self.len())
        }
    }

    #[tokio::test]
    async fn a_capture_keeps_the_limit_and_counts_the_rest_without_splitting_a_character() {
        let text = "é".repeat(10);
        let (_running, exit) = watch::channel(false);
        let mut capture = Captured::new(5);
        capture
            .read_from(Some(text.as_bytes()), exit.clone(), None)
            .await;
        assert!(capture.truncated());
        assert_eq!(capture.into_text(), "éé");
        let mut capture = Captured::new(100);
        capture.read_from(Some(text.as_bytes()), exit, None).await;
        assert!(!capture.truncated());
        assert_eq!(capture.into_text(), text);
    }

    /// A pipe whose content cannot be counted, as on a platform without `FIONREAD`.
    impl Buffered for tokio::io::DuplexStream {
        fn buffered(&self) -> Option<usize> {
            None
        }
    }

    #[tokio::test(start_paused = true)]
    async fn an_uncounted_pipe_held_open_after_the_exit_is_read_for_a_bounded_time() {
        use tokio::io::AsyncWriteExt;
        let (mut holder, pipe) = tokio::io::duplex(64);
        holder.write_all(b"last words\n").await.unwrap();
        let (exited, exit) = watch::channel(false);
        exited.send_replace(true);
        let mut capture = Captured::new(100);
        // The holder stays open: the pipe never ends.
        let read = tokio::time::timeout(
            std::time::Duration::from_secs(60),
            capture.read_from(Some(pipe), exit, None),
        )
        .await;
        assert!(read.is_ok(), "the reading after the exit was not bounded");
        assert_eq!(capture.into_text(), "last words\n");
        drop(holder);
    }
}
