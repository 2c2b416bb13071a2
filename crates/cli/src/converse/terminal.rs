//! The terminal of a conversation: the transcript and questions go to stdout (stderr with
//! `--json`), answers and chat lines come from stdin.

use std::io::{self, BufRead, IsTerminal};

use skillful_core::text::one_line;

use crate::output;

/// One exchange with the terminal.
///
/// Stdin is read on a thread of its own, so that the runtime keeps running while the user
/// types: the skills watcher reloads (and says so) between turns.
pub(crate) struct Terminal {
    lines: Option<tokio::sync::mpsc::UnboundedReceiver<io::Result<String>>>,
    /// Whether questions go to stderr and no transcript is shown (`--json`).
    json: bool,
}

impl Terminal {
    pub(super) fn new(json: bool) -> Self {
        Self { lines: None, json }
    }

    /// Where the transcript and the questions are written (locked while it lives: keep it out
    /// of an `.await`).
    pub(super) fn out(&self) -> output::Writer<Box<dyn io::Write>> {
        output::stdout_or_stderr(self.json)
    }

    /// Whether the transcript is shown (not with `--json`, whose questions go to stderr).
    pub(super) fn transcript(&self) -> bool {
        !self.json
    }

    /// Writes `text` with no newline, flushed: a prompt the next line read answers.
    pub(crate) fn prompt(&self, text: &str) -> io::Result<()> {
        let mut out = self.out();
        write!(out, "{text}")?;
        out.flush()
    }

    async fn read_line(&mut self) -> io::Result<Option<String>> {
        let lines = self.lines.get_or_insert_with(|| {
            let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
            std::thread::spawn(move || {
                for line in io::stdin().lock().lines() {
                    if sender.send(line).is_err() {
                        return;
                    }
                }
            });
            receiver
        });
        lines.recv().await.transpose()
    }

    /// Reads a line answering a prompt; shown after it when stdin is not a terminal (which
    /// would have echoed it), so the transcript reads the same.
    pub(crate) async fn read_answer(&mut self) -> io::Result<Option<String>> {
        let line = self.read_line().await?;
        if !io::stdin().is_terminal() {
            let mut out = self.out();
            match &line {
                Some(line) => writeln!(out, "{}", one_line(line))?,
                None => writeln!(out)?,
            }
        }
        Ok(line)
    }
}
