//! What a run gives: the structured result, and its text for the model.

use std::fmt;

use serde::Serialize;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::watch;

/// The result of one script run.
///
/// `Display` (and [`ScriptOutput::render`]) gives the text the model is shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ScriptOutput {
    /// What the script printed on standard output (invalid UTF-8 replaced), up to the limit.
    pub stdout: String,
    /// What the script printed on standard error (invalid UTF-8 replaced), up to the limit.
    pub stderr: String,
    /// The exit code; `None` when the process was ended by a signal (as on a timeout).
    pub exit_code: Option<i32>,
    /// The signal that ended the process, if one did (`SIGXCPU` when its CPU time ran out).
    pub signal: Option<i32>,
    /// Whether the run went past its time limit and was killed with its process group.
    pub timed_out: bool,
    /// Whether stdout or stderr went past the output limit; the rest was read and discarded.
    pub truncated: bool,
    /// How long the run took, from spawning to the end of its output, in milliseconds.
    pub duration_ms: u64,
    /// The sandbox profile the script ran in (`read — writes only in $TMPDIR, no network`);
    /// `None` when it was not confined.
    pub sandbox: Option<String>,
    /// What the runner could tell about how the sandbox hindered the run: a denied access, a
    /// limit hit; each line says how the user can allow it.
    pub sandbox_notes: Vec<String>,
}

impl ScriptOutput {
    /// Whether the script finished in time with exit code 0.
    pub fn succeeded(&self) -> bool {
        !self.timed_out && self.exit_code == Some(0)
    }

    /// The text the model is shown, as the reference's script runner writes it: the output, then
    /// `[stderr]` and the error output when there is any, then `[exit code: N]` when it is not
    /// 0; `(no output)` when neither stream printed anything. A run that timed out or printed
    /// more than the limit ends with a line saying so. A confined run that failed or was
    /// hindered by the sandbox ends with a line naming its profile
    /// (`[sandbox: read — writes only in $TMPDIR, no network]`) and what was denied.
    ///
    /// # Example
    /// ```
    /// use skillful_scripts::ScriptOutput;
    ///
    /// let mut output = ScriptOutput::default();
    /// assert_eq!(output.render(), "(no output)");
    /// output.stdout = "42\n".into();
    /// output.stderr = "warning: rounded\n".into();
    /// output.exit_code = Some(3);
    /// assert_eq!(output.render(), "42\n[stderr]\nwarning: rounded\n[exit code: 3]");
    /// ```
    pub fn render(&self) -> String {
        let stdout = self.stdout.trim_end_matches(['\r', '\n']);
        let stderr = self.stderr.trim_end_matches(['\r', '\n']);
        let mut lines = Vec::new();
        if !stdout.is_empty() {
            lines.push(stdout.to_owned());
        }
        if !stderr.is_empty() {
            lines.push(format!("[stderr]\n{stderr}"));
        }
        if lines.is_empty() {
            lines.push("(no output)".to_owned());
        }
        match self.exit_code {
            Some(0) => {}
            Some(code) => lines.push(format!("[exit code: {code}]")),
            None if self.timed_out => {}
            None => lines.push("[exit code: none; the script was ended by a signal]".to_owned()),
        }
        if self.timed_out {
            lines.push(format!(
                "[timed out after {} ms: the script and its child processes were killed; the output above is what it printed until then]",
                self.duration_ms
            ));
        }
        if let Some(profile) = &self.sandbox
            && (!self.succeeded() || !self.sandbox_notes.is_empty())
        {
            lines.push(format!("[sandbox: {profile}]"));
            lines.extend(self.sandbox_notes.iter().cloned());
        }
        if self.truncated {
            lines.push(
                "[output truncated: the script printed more than the runner's limit; only the beginning of each stream is shown]"
                    .to_owned(),
            );
        }
        lines.join("\n")
    }
}

impl Default for ScriptOutput {
    /// A run that printed nothing and exited with code 0 at once.
    fn default() -> Self {
        Self {
            stdout: String::new(),
            stderr: String::new(),
            exit_code: Some(0),
            signal: None,
            timed_out: false,
            truncated: false,
            duration_ms: 0,
            sandbox: None,
            sandbox_notes: Vec::new(),
        }
    }
}

impl fmt::Display for ScriptOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

/// One output stream of a running script: its first `limit` bytes, and how many more were read
/// and discarded so that the script never blocks on a full pipe.
#[derive(Debug)]
pub(crate) struct Capture {
    kept: Vec<u8>,
    limit: usize,
    discarded: u64,
}

/// How much is read from a pipe at a time.
const CHUNK: usize = 8 * 1024;

impl Capture {
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            kept: Vec::new(),
            limit,
            discarded: 0,
        }
    }

    /// Reads `pipe` to its end (or until this future is dropped), keeping at most the limit; once
    /// `exited` turns true (the script's processes are gone), reads only what the pipe holds at
    /// that moment, since whoever still holds it open is no process of the script's.
    pub(crate) async fn read_from<P>(&mut self, pipe: Option<P>, mut exited: watch::Receiver<bool>)
    where
        P: AsyncRead + Buffered + Unpin,
    {
        let Some(mut pipe) = pipe else {
            return;
        };
        let mut chunk = vec![0; CHUNK];
        // After the exit: how many bytes are left to read.
        let mut left: Option<usize> = None;
        loop {
            let read = match left {
                Some(0) => return,
                Some(left) => pipe.read(&mut chunk[..left.min(CHUNK)]).await,
                None => tokio::select! {
                    biased;
                    read = pipe.read(&mut chunk) => read,
                    _ = exited.wait_for(|exited| *exited) => {
                        // Where the platform cannot tell, read on to the end.
                        left = Some(pipe.buffered().unwrap_or(usize::MAX));
                        continue;
                    }
                },
            };
            match read {
                Ok(0) => return,
                Ok(read) => {
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
                    tracing::warn!(%error, "stopped reading a script's output; the rest of it is lost");
                    return;
                }
            }
        }
    }

    /// Whether anything was discarded.
    pub(crate) fn truncated(&self) -> bool {
        self.discarded > 0
    }

    /// The bytes kept as text: invalid UTF-8 replaced, and a character cut in two by the limit
    /// left out.
    pub(crate) fn into_text(mut self) -> String {
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

impl Buffered for tokio::process::ChildStdout {
    #[cfg(unix)]
    fn buffered(&self) -> Option<usize> {
        buffered_in(std::os::fd::AsRawFd::as_raw_fd(self))
    }

    #[cfg(not(unix))]
    fn buffered(&self) -> Option<usize> {
        None
    }
}

impl Buffered for tokio::process::ChildStderr {
    #[cfg(unix)]
    fn buffered(&self) -> Option<usize> {
        buffered_in(std::os::fd::AsRawFd::as_raw_fd(self))
    }

    #[cfg(not(unix))]
    fn buffered(&self) -> Option<usize> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(stdout: &str, stderr: &str, exit_code: Option<i32>) -> ScriptOutput {
        ScriptOutput {
            stdout: stdout.into(),
            stderr: stderr.into(),
            exit_code,
            ..ScriptOutput::default()
        }
    }

    #[test]
    fn render_shows_output_then_stderr_then_a_non_zero_exit_code() {
        assert_eq!(output("a\nb\n", "", Some(0)).render(), "a\nb");
        assert_eq!(
            output("", "oops\n", Some(2)).render(),
            "[stderr]\noops\n[exit code: 2]"
        );
        assert_eq!(
            output("\n", "", Some(1)).render(),
            "(no output)\n[exit code: 1]"
        );
        assert_eq!(
            output("", "", None).render(),
            "(no output)\n[exit code: none; the script was ended by a signal]"
        );
    }

    #[test]
    fn render_says_when_the_run_timed_out_or_was_truncated() {
        let mut timed_out = output("partial\n", "", None);
        timed_out.timed_out = true;
        timed_out.truncated = true;
        timed_out.duration_ms = 1500;
        let text = timed_out.render();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "partial");
        assert!(lines[1].starts_with(
            "[timed out after 1500 ms: the script and its child processes were killed"
        ));
        assert!(lines[2].starts_with("[output truncated:"));
        assert_eq!(lines.len(), 3);
    }

    impl Buffered for &[u8] {
        fn buffered(&self) -> Option<usize> {
            Some(self.len())
        }
    }

    #[tokio::test]
    async fn a_capture_keeps_the_limit_and_counts_the_rest_without_splitting_a_character() {
        let text = "é".repeat(10);
        let (_running, exit) = watch::channel(false);
        let mut capture = Capture::new(5);
        capture.read_from(Some(text.as_bytes()), exit.clone()).await;
        assert!(capture.truncated());
        assert_eq!(capture.into_text(), "éé");
        let mut capture = Capture::new(100);
        capture.read_from(Some(text.as_bytes()), exit).await;
        assert!(!capture.truncated());
        assert_eq!(capture.into_text(), text);
    }
}
