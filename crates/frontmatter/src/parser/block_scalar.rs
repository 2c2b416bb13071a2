//! Literal (`|`) and folded (`>`) block scalars with their chomping and indentation indicators.

use super::{Node, Parser, leading_spaces};
use crate::error::ParseError;

#[derive(Clone, Copy)]
enum Chomping {
    Strip,
    Clip,
    Keep,
}

/// What a block scalar's header line says: `|` or `>`, the chomping and the indentation digit.
struct Header {
    literal: bool,
    chomping: Chomping,
    explicit_indent: Option<usize>,
}

impl<'a> Parser<'a> {
    /// A literal (`|`) or folded (`>`) block scalar whose header starts at byte `start`.
    pub(super) fn parse_block_scalar(
        &mut self,
        parent: isize,
        start: usize,
    ) -> Result<Node, ParseError> {
        let header = self.block_scalar_header(start)?;
        self.next_line()?;
        let content_indent = match header.explicit_indent {
            Some(increment) => parent.max(0) as usize + increment,
            None => self.detect_content_indent(parent),
        };
        let lines = self.block_scalar_lines(content_indent)?;
        let content_end = lines.iter().rposition(Option::is_some).map_or(0, |i| i + 1);
        let trailing_empty = lines.len() - content_end;
        let mut text = join_block_lines(&lines[..content_end], header.literal);
        let has_content = content_end > 0;
        match header.chomping {
            Chomping::Strip => {}
            Chomping::Clip => {
                if has_content {
                    text.push('\n');
                }
            }
            Chomping::Keep => {
                let breaks = trailing_empty + usize::from(has_content);
                text.extend(std::iter::repeat_n('\n', breaks));
            }
        }
        Ok(Node::Scalar { text, plain: false })
    }

    /// Reads the header at byte `start` of the current line; only a comment may follow it.
    fn block_scalar_header(&self, start: usize) -> Result<Header, ParseError> {
        let line = self.line(self.cur);
        let literal = line.as_bytes()[start] == b'|';
        let mut chomping = Chomping::Clip;
        let mut explicit_indent = None;
        let mut i = start + 1;
        let bytes = line.as_bytes();
        while i < bytes.len() && i <= start + 2 {
            match bytes[i] {
                b'-' => chomping = Chomping::Strip,
                b'+' => chomping = Chomping::Keep,
                digit @ b'1'..=b'9' if explicit_indent.is_none() => {
                    explicit_indent = Some(usize::from(digit - b'0'));
                }
                _ => break,
            }
            i += 1;
        }
        let after = &line[i..];
        let trimmed = after.trim_start_matches([' ', '\t']);
        if !(trimmed.is_empty() || (trimmed.starts_with('#') && trimmed.len() < after.len())) {
            return Err(self.error_at(
                self.cur,
                i,
                "a block scalar header is `|` or `>`, then optionally `-` or `+` and an indentation digit; the text goes on the next lines",
            ));
        }
        Ok(Header {
            literal,
            chomping,
            explicit_indent,
        })
    }

    /// The content indentation when the header gives none: that of the first non-empty line,
    /// if it is deeper than `parent`, else one more than `parent`.
    fn detect_content_indent(&self, parent: isize) -> usize {
        let mut probe = self.cur;
        let mut detected = None;
        while probe < self.lines.len() {
            let text = self.line(probe);
            if !text.bytes().all(|b| b == b' ') {
                detected = Some(leading_spaces(text));
                break;
            }
            probe += 1;
        }
        match detected {
            Some(indent) if indent as isize > parent => indent,
            _ => (parent + 1) as usize,
        }
    }

    /// Reads the scalar's lines, up to the first one indented less than `content_indent`:
    /// `None` is an empty line, `Some` a content line without its indentation.
    fn block_scalar_lines(
        &mut self,
        content_indent: usize,
    ) -> Result<Vec<Option<&'a str>>, ParseError> {
        let mut lines: Vec<Option<&'a str>> = Vec::new();
        while !self.at_end() {
            let text = self.line(self.cur);
            let spaces = leading_spaces(text);
            if spaces == text.len() {
                lines.push((spaces > content_indent).then(|| &text[content_indent..]));
            } else if spaces >= content_indent {
                lines.push(Some(&text[content_indent..]));
            } else {
                break;
            }
            self.next_line()?;
        }
        Ok(lines)
    }
}

/// Joins the content lines (trailing empty lines already removed): a literal scalar keeps every
/// line break; a folded one turns a single break between two unindented lines into a space.
fn join_block_lines(content: &[Option<&str>], literal: bool) -> String {
    let mut text = String::new();
    let mut previous_spaced: Option<bool> = None;
    let mut empty_run = 0;
    for line in content {
        let Some(line) = line else {
            empty_run += 1;
            continue;
        };
        let spaced = line.starts_with([' ', '\t']);
        let breaks = match previous_spaced {
            None => empty_run,
            Some(_) if literal => empty_run + 1,
            Some(previous) if !previous && !spaced => {
                if empty_run == 0 {
                    text.push(' ');
                }
                empty_run
            }
            Some(_) => empty_run + 1,
        };
        text.extend(std::iter::repeat_n('\n', breaks));
        text.push_str(line);
        previous_spaced = Some(spaced);
        empty_run = 0;
    }
    text
}
