//! A running script's output as lines (for live progress) and as the end of what it wrote (for
//! `get_task`), each bounded.

use std::collections::VecDeque;

use skillful_core::OutputStream;

/// The longest line shown; the rest of a longer line is left out (and the cut marked).
const MAX_LINE_BYTES: usize = 2_000;

/// The partial last line of each stream, until its line break arrives.
#[derive(Debug, Default)]
pub(super) struct Lines {
    stdout: Partial,
    stderr: Partial,
}

#[derive(Debug, Default)]
struct Partial {
    bytes: Vec<u8>,
    /// The line went past [`MAX_LINE_BYTES`]; the rest of it is dropped.
    cut: bool,
}

impl Lines {
    /// The lines `chunk` completes on `stream`.
    pub(super) fn push(&mut self, stream: OutputStream, chunk: &[u8]) -> Vec<String> {
        let partial = match stream {
            OutputStream::Stdout => &mut self.stdout,
            OutputStream::Stderr => &mut self.stderr,
        };
        let mut lines = Vec::new();
        for piece in chunk.split_inclusive(|byte| *byte == b'\n') {
            let (body, ends) = match piece.strip_suffix(b"\n") {
                Some(body) => (body, true),
                None => (piece, false),
            };
            let room = MAX_LINE_BYTES.saturating_sub(partial.bytes.len());
            partial
                .bytes
                .extend_from_slice(&body[..body.len().min(room)]);
            partial.cut |= body.len() > room;
            if ends {
                lines.push(partial.take());
            }
        }
        lines
    }

    /// The unfinished last line of each stream, once the script has ended.
    pub(super) fn flush(&mut self) -> Vec<(OutputStream, String)> {
        [
            (OutputStream::Stdout, &mut self.stdout),
            (OutputStream::Stderr, &mut self.stderr),
        ]
        .into_iter()
        .filter(|(_, partial)| !partial.bytes.is_empty())
        .map(|(stream, partial)| (stream, partial.take()))
        .collect()
    }
}

impl Partial {
    fn take(&mut self) -> String {
        let bytes = std::mem::take(&mut self.bytes);
        let mut line = String::from_utf8_lossy(&bytes)
            .trim_end_matches('\r')
            .to_owned();
        if std::mem::take(&mut self.cut) {
            line.push_str(" [...]");
        }
        line
    }
}

/// The last bytes a script wrote (both streams, as they came), at most a budget.
#[derive(Debug)]
pub(super) struct Tail {
    bytes: VecDeque<u8>,
    budget: usize,
    dropped: u64,
}

impl Tail {
    pub(super) fn new(budget: usize) -> Self {
        Self {
            bytes: VecDeque::new(),
            budget,
            dropped: 0,
        }
    }

    pub(super) fn push(&mut self, chunk: &[u8]) {
        let skipped = chunk.len().saturating_sub(self.budget);
        let chunk = &chunk[skipped..];
        let over = (self.bytes.len() + chunk.len()).saturating_sub(self.budget);
        self.bytes.drain(..over);
        self.dropped += (skipped + over) as u64;
        self.bytes.extend(chunk);
    }

    /// The text kept, saying how much came before it when something was left out.
    pub(super) fn text(&self) -> String {
        let (front, back) = self.bytes.as_slices();
        let mut bytes = Vec::with_capacity(self.bytes.len());
        bytes.extend_from_slice(front);
        bytes.extend_from_slice(back);
        let text = String::from_utf8_lossy(&bytes);
        if self.dropped == 0 {
            text.into_owned()
        } else {
            // A character cut in two at the front shows as a replacement character: dropped.
            let text = text.trim_start_matches('\u{FFFD}');
            format!("[... {} earlier bytes left out]\n{text}", self.dropped)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_whole_across_chunks_bounded_and_flushed_at_the_end() {
        let mut lines = Lines::default();
        assert!(lines.push(OutputStream::Stdout, b"step 1 of").is_empty());
        assert_eq!(
            lines.push(OutputStream::Stdout, b" 3\r\nstep 2\nhalf"),
            ["step 1 of 3", "step 2"]
        );
        assert_eq!(lines.push(OutputStream::Stderr, b"warn\n"), ["warn"]);
        let long = vec![b'x'; MAX_LINE_BYTES + 10];
        assert!(lines.push(OutputStream::Stderr, &long).is_empty());
        let flushed = lines.flush();
        assert_eq!(flushed[0], (OutputStream::Stdout, "half".to_owned()));
        assert_eq!(flushed[1].1.len(), MAX_LINE_BYTES + " [...]".len());
        assert!(lines.flush().is_empty());
    }

    #[test]
    fn the_tail_keeps_the_last_bytes_within_its_budget() {
        let mut tail = Tail::new(8);
        tail.push(b"abc");
        assert_eq!(tail.text(), "abc");
        tail.push(b"defghij");
        assert_eq!(tail.text(), "[... 2 earlier bytes left out]\ncdefghij");
        tail.push(b"0123456789");
        assert_eq!(tail.text(), "[... 12 earlier bytes left out]\n23456789");
    }
}
