//! Plain scalars (folded across more-indented lines) and quoted scalars (read by offset across
//! lines, with escapes and line folding).

use super::{Node, Parser, is_blank, leading_blank, leading_spaces};
use crate::error::ParseError;

/// The position of the first ` #` comment in `text`, if any.
fn comment_start(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    (0..bytes.len()).find(|&i| bytes[i] == b'#' && (i == 0 || matches!(bytes[i - 1], b' ' | b'\t')))
}

impl Parser<'_> {
    /// A plain scalar, possibly continued on more-indented lines, which are folded with spaces.
    pub(super) fn parse_plain(&mut self, parent: isize, start: usize) -> Result<Node, ParseError> {
        let line = self.line(self.cur);
        let first = &line[start..];
        let (first, mut ended) = match comment_start(first) {
            Some(i) => (&first[..i], true),
            None => (first, false),
        };
        let mut text = first.trim_end_matches([' ', '\t']).to_owned();
        self.next_line()?;
        let mut resume = self.cur;
        let mut blank_lines = 0;
        while !ended && !self.at_end() {
            let line = self.line(self.cur);
            if is_blank(line) {
                blank_lines += 1;
                self.next_line()?;
                continue;
            }
            let trimmed = line.trim_start_matches([' ', '\t']);
            if (leading_spaces(line) as isize) <= parent || trimmed.starts_with('#') {
                break;
            }
            let piece = match comment_start(trimmed) {
                Some(i) => {
                    ended = true;
                    &trimmed[..i]
                }
                None => trimmed,
            };
            if blank_lines == 0 {
                text.push(' ');
            } else {
                text.extend(std::iter::repeat_n('\n', blank_lines));
            }
            text.push_str(piece.trim_end_matches([' ', '\t']));
            blank_lines = 0;
            self.next_line()?;
            resume = self.cur;
        }
        self.cur = resume;
        self.col = 0;
        Ok(Node::Scalar { text, plain: true })
    }

    // ----- quoted scalars and flow collections, read by offset across lines -----

    /// Reads a single- or double-quoted scalar opening at `offset`; returns it and the offset
    /// just past its closing quote.
    pub(super) fn parse_quoted(&self, offset: usize) -> Result<(String, usize), ParseError> {
        let src = self.src;
        let bytes = src.as_bytes();
        let double = bytes[offset] == b'"';
        let mut text = String::new();
        // Whitespace before a line break is dropped, but not whitespace written as an escape.
        let mut keep_up_to = 0;
        let mut i = offset + 1;
        loop {
            let Some(c) = src[i..].chars().next() else {
                return Err(self.error_at_offset(
                    offset,
                    "this quoted value is never closed; add the closing quote",
                ));
            };
            match c {
                '"' if double => return Ok((text, i + 1)),
                '\'' if !double => {
                    if bytes.get(i + 1) == Some(&b'\'') {
                        text.push('\'');
                        i += 2;
                    } else {
                        return Ok((text, i + 1));
                    }
                }
                '\\' if double => {
                    i = self.escape(i, &mut text)?;
                    keep_up_to = text.len();
                }
                '\r' | '\n' => {
                    let trimmed = text.trim_end_matches([' ', '\t']).len().max(keep_up_to);
                    text.truncate(trimmed);
                    i = self.fold_line_breaks(i, &mut text)?;
                    keep_up_to = text.len();
                }
                _ => {
                    text.push(c);
                    i += c.len_utf8();
                }
            }
        }
    }

    /// Decodes the escape at `i` (a backslash) into `text`; returns the offset after it.
    fn escape(&self, i: usize, text: &mut String) -> Result<usize, ParseError> {
        let src = self.src;
        let Some(c) = src[i + 1..].chars().next() else {
            return Err(self.error_at_offset(i, "a backslash ends the text; escape it as `\\\\`"));
        };
        let simple = match c {
            '0' => Some('\0'),
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            't' | '\t' => Some('\t'),
            'n' => Some('\n'),
            'v' => Some('\u{b}'),
            'f' => Some('\u{c}'),
            'r' => Some('\r'),
            'e' => Some('\u{1b}'),
            ' ' => Some(' '),
            '"' => Some('"'),
            '/' => Some('/'),
            '\\' => Some('\\'),
            'N' => Some('\u{85}'),
            '_' => Some('\u{a0}'),
            'L' => Some('\u{2028}'),
            'P' => Some('\u{2029}'),
            _ => None,
        };
        if let Some(decoded) = simple {
            text.push(decoded);
            return Ok(i + 1 + c.len_utf8());
        }
        let digits = match c {
            'x' => 2,
            'u' => 4,
            'U' => 8,
            '\r' | '\n' => {
                // An escaped line break joins the lines without a space.
                let mut j = i + 1;
                if src.as_bytes()[j] == b'\r' {
                    j += 1;
                }
                if src.as_bytes().get(j) == Some(&b'\n') {
                    j += 1;
                }
                return Ok(j + leading_blank(&src[j..]));
            }
            _ => {
                return Err(self.error_at_offset(
                    i,
                    format!("unknown escape `\\{c}`; write a backslash as `\\\\`"),
                ));
            }
        };
        let hex = src.get(i + 2..i + 2 + digits).unwrap_or("");
        let decoded = (hex.len() == digits && hex.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| u32::from_str_radix(hex, 16).ok())
            .flatten()
            .and_then(char::from_u32);
        match decoded {
            Some(decoded) => {
                text.push(decoded);
                Ok(i + 2 + digits)
            }
            None => Err(self.error_at_offset(
                i,
                format!("`\\{c}` must be followed by {digits} hex digits naming a valid character"),
            )),
        }
    }

    /// Folds the line break at `i` and any empty lines after it, as YAML does inside quotes and
    /// flow collections: one break becomes a space, `n` empty lines become `n` newlines.
    pub(super) fn fold_line_breaks(
        &self,
        mut i: usize,
        text: &mut String,
    ) -> Result<usize, ParseError> {
        let bytes = self.src.as_bytes();
        let mut empty_lines = 0;
        loop {
            if bytes.get(i) == Some(&b'\r') {
                i += 1;
            }
            if bytes.get(i) == Some(&b'\n') {
                i += 1;
            }
            self.tick()?;
            i += leading_blank(&self.src[i..]);
            match bytes.get(i) {
                Some(b'\r' | b'\n') => empty_lines += 1,
                _ => break,
            }
        }
        if empty_lines == 0 {
            text.push(' ');
        } else {
            text.extend(std::iter::repeat_n('\n', empty_lines));
        }
        Ok(i)
    }
}
