//! The YAML subset reader. Every loop moves forward through the text and nothing is re-scanned,
//! so the work is linear in the input; nesting is capped so that recursion stays shallow.
//!
//! The reader is split by grammar part: `node` holds the parsed tree and the core-schema
//! resolution of plain scalars, `block` block mappings and sequences, `scalar` plain and
//! quoted scalars, `block_scalar` literal and folded block scalars, `flow` flow collections.
//! This module holds the reader's state, the document root, positions and errors.

mod block;
mod block_scalar;
mod flow;
mod node;
mod scalar;

use std::time::{Duration, Instant};

use crate::error::ParseError;

pub(crate) use node::Node;

/// Deeper nesting than any real frontmatter needs; the cap keeps hostile input off the stack.
const MAX_DEPTH: usize = 64;

pub(crate) struct Parser<'a> {
    src: &'a str,
    /// `[start, end)` byte offsets of each line, without its line break.
    lines: Vec<(usize, usize)>,
    /// The file line number of `lines[0]`.
    first_line: usize,
    /// The current line.
    cur: usize,
    /// Where the unread part of the current line starts, when a `- ` has been read from it;
    /// `0` at the start of a line.
    col: usize,
    started: Instant,
    deadline: Duration,
    depth: usize,
}

fn is_blank(text: &str) -> bool {
    text.bytes().all(|b| b == b' ' || b == b'\t')
}

fn leading_spaces(text: &str) -> usize {
    text.bytes().take_while(|&b| b == b' ').count()
}

/// The byte length of the spaces and tabs at the start of `text`.
fn leading_blank(text: &str) -> usize {
    text.bytes()
        .take_while(|&b| b == b' ' || b == b'\t')
        .count()
}

impl<'a> Parser<'a> {
    pub(crate) fn new(src: &'a str, first_line: usize, deadline: Duration) -> Self {
        let mut lines = Vec::new();
        let mut start = 0;
        for (i, byte) in src.bytes().enumerate() {
            if byte == b'\n' {
                let end = if i > start && src.as_bytes()[i - 1] == b'\r' {
                    i - 1
                } else {
                    i
                };
                lines.push((start, end));
                start = i + 1;
            }
        }
        if start < src.len() {
            let end = if src.ends_with('\r') {
                src.len() - 1
            } else {
                src.len()
            };
            lines.push((start, end));
        }
        Self {
            src,
            lines,
            first_line,
            cur: 0,
            col: 0,
            started: Instant::now(),
            deadline,
            depth: 0,
        }
    }

    /// Parses the whole frontmatter, which must be a mapping (or nothing at all).
    pub(crate) fn parse_root(mut self) -> Result<Vec<(String, Node)>, ParseError> {
        self.skip_insignificant()?;
        if self.at_end() {
            return Ok(Vec::new());
        }
        let indent = self.indent();
        let entries = match self.parse_block_node(-1)? {
            Node::Mapping(entries) => entries,
            _ => {
                return Err(self.error_at(
                    0,
                    indent,
                    "the frontmatter must be `key: value` lines (name:, description:, ...)",
                ));
            }
        };
        self.skip_insignificant()?;
        if !self.at_end() {
            let indent = self.indent();
            return Err(self.error_at(
                self.cur,
                indent,
                "this line does not belong to any key; check its indentation",
            ));
        }
        Ok(entries)
    }

    // ----- positions and errors -----

    fn at_end(&self) -> bool {
        self.cur >= self.lines.len()
    }

    fn line(&self, index: usize) -> &'a str {
        let (start, end) = self.lines[index];
        &self.src[start..end]
    }

    /// The indentation of the current line: where its content starts.
    fn indent(&self) -> usize {
        if self.col > 0 {
            self.col
        } else {
            leading_spaces(self.line(self.cur))
        }
    }

    /// The unread part of the current line, from its content on.
    fn rest(&self) -> &'a str {
        &self.line(self.cur)[self.indent()..]
    }

    fn next_line(&mut self) -> Result<(), ParseError> {
        self.cur += 1;
        self.col = 0;
        self.tick()
    }

    fn tick(&self) -> Result<(), ParseError> {
        if self.started.elapsed() >= self.deadline {
            return Err(ParseError::DeadlineExceeded {
                deadline: self.deadline,
                line: self.first_line + self.cur.min(self.lines.len()),
            });
        }
        Ok(())
    }

    fn error_at(&self, line: usize, byte_column: usize, message: impl Into<String>) -> ParseError {
        let text = self.lines.get(line).map_or("", |_| self.line(line));
        let mut byte_column = byte_column.min(text.len());
        while !text.is_char_boundary(byte_column) {
            byte_column -= 1;
        }
        ParseError::Syntax {
            line: self.first_line + line,
            column: text[..byte_column].chars().count() + 1,
            message: message.into(),
        }
    }

    fn error_at_offset(&self, offset: usize, message: impl Into<String>) -> ParseError {
        let (line, column) = self.locate(offset);
        self.error_at(line, column, message)
    }

    /// The line index and byte column of an offset into the frontmatter.
    fn locate(&self, offset: usize) -> (usize, usize) {
        let line = self
            .lines
            .partition_point(|&(start, _)| start <= offset)
            .saturating_sub(1);
        let start = self.lines.get(line).map_or(0, |&(start, _)| start);
        (line, offset.saturating_sub(start))
    }

    fn enter(&mut self, offset: usize) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error_at_offset(
                offset,
                format!("nesting deeper than {MAX_DEPTH} levels; flatten the frontmatter"),
            ));
        }
        Ok(())
    }

    /// Skips blank and comment-only lines. Only called at the start of a line.
    fn skip_insignificant(&mut self) -> Result<(), ParseError> {
        while !self.at_end() {
            let line = self.line(self.cur);
            let trimmed = line.trim_start_matches([' ', '\t']);
            if !(trimmed.is_empty() || trimmed.starts_with('#')) {
                let spaces = leading_spaces(line);
                if line.as_bytes()[spaces] == b'\t' {
                    return Err(self.error_at(
                        self.cur,
                        spaces,
                        "a tab is used for indentation; YAML allows only spaces there",
                    ));
                }
                return Ok(());
            }
            self.next_line()?;
        }
        Ok(())
    }
}
