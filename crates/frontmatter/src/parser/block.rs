//! Block structure: mappings (`key: value` lines) and sequences (`- item` lines), and the value
//! after a `key:` or `- `, which dispatches to the scalar and flow readers.

use std::collections::HashMap;

use super::{Node, Parser, leading_blank};
use crate::error::ParseError;

/// Whether `text` begins a block sequence entry (`-` then a space or the end of the line).
fn is_sequence_entry(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.first() == Some(&b'-') && matches!(bytes.get(1), None | Some(b' ' | b'\t'))
}

impl<'a> Parser<'a> {
    // ----- block structure -----

    /// Parses the node that starts at the current (significant) line, more indented than `parent`.
    pub(super) fn parse_block_node(&mut self, parent: isize) -> Result<Node, ParseError> {
        let offset = self.lines[self.cur].0 + self.indent();
        self.enter(offset)?;
        let indent = self.indent();
        let rest = self.rest();
        let node = if is_sequence_entry(rest) {
            self.parse_sequence(indent)
        } else if self.mapping_key(rest)?.is_some() {
            self.parse_mapping(indent)
        } else {
            self.col = indent;
            self.parse_value(parent, false)
        };
        self.depth -= 1;
        node
    }

    /// Reads `key:` at the start of `text`: the key and the byte length up to and including `:`.
    fn mapping_key(&self, text: &str) -> Result<Option<(String, usize)>, ParseError> {
        let bytes = text.as_bytes();
        match bytes.first() {
            None => return Ok(None),
            Some(b'?') if matches!(bytes.get(1), None | Some(b' ' | b'\t')) => {
                let offset = self.lines[self.cur].0 + self.indent();
                return Err(self.error_at_offset(
                    offset,
                    "complex keys (`? key`) are not supported; write `key: value`",
                ));
            }
            Some(&quote @ (b'"' | b'\'')) => {
                let offset = self.lines[self.cur].0 + self.indent();
                let Some(close) = quoted_key_end(text, quote) else {
                    return Ok(None);
                };
                let after = text[close..].trim_start_matches([' ', '\t']);
                let colon = text.len() - after.len();
                let after_bytes = after.as_bytes();
                if after_bytes.first() == Some(&b':')
                    && matches!(after_bytes.get(1), None | Some(b' ' | b'\t'))
                {
                    let (key, _) = self.parse_quoted(offset)?;
                    return Ok(Some((key, colon + 1)));
                }
                return Ok(None);
            }
            Some(b'[' | b'{' | b'|' | b'>' | b'&' | b'*' | b'!' | b'#' | b'%' | b'@' | b'`') => {
                return Ok(None);
            }
            _ => {}
        }
        for i in 0..bytes.len() {
            match bytes[i] {
                b':' if matches!(bytes.get(i + 1), None | Some(b' ' | b'\t')) => {
                    let key = text[..i].trim_end_matches([' ', '\t']);
                    return Ok(Some((key.to_owned(), i + 1)));
                }
                b'#' if i > 0 && matches!(bytes[i - 1], b' ' | b'\t') => return Ok(None),
                _ => {}
            }
        }
        Ok(None)
    }

    /// The indentation of the line of a collection's next entry (blank and comment lines are
    /// skipped when at a line's start); `None` at the end.
    fn entry_indent(&mut self) -> Result<Option<usize>, ParseError> {
        if self.col == 0 {
            self.skip_insignificant()?;
        }
        if self.at_end() {
            return Ok(None);
        }
        Ok(Some(self.indent()))
    }

    fn parse_mapping(&mut self, indent: usize) -> Result<Node, ParseError> {
        let mut entries: Vec<(String, Node)> = Vec::new();
        let mut key_lines: HashMap<String, usize> = HashMap::new();
        while let Some(current) = self.entry_indent()? {
            if current < indent {
                break;
            }
            if current > indent {
                return Err(self.error_at(
                    self.cur,
                    current,
                    format!(
                        "unexpected indentation: this line is at column {}, its keys at column {}",
                        current + 1,
                        indent + 1
                    ),
                ));
            }
            let rest = self.rest();
            if is_sequence_entry(rest) {
                return Err(self.error_at(
                    self.cur,
                    current,
                    "a `- item` where a `key: value` line was expected; indent the list under its key",
                ));
            }
            let Some((key, consumed)) = self.mapping_key(rest)? else {
                return Err(self.error_at(
                    self.cur,
                    current,
                    "expected `key: value`; a line that continues a value must be indented under its key",
                ));
            };
            if let Some(first) = key_lines.get(&key) {
                return Err(self.error_at(
                    self.cur,
                    current,
                    format!(
                        "duplicate key `{key}` (first on line {}); keep one of them",
                        self.first_line + first
                    ),
                ));
            }
            key_lines.insert(key.clone(), self.cur);
            self.col = current + consumed;
            let value = self.parse_value(indent as isize, true)?;
            entries.push((key, value));
        }
        Ok(Node::Mapping(entries))
    }

    fn parse_sequence(&mut self, indent: usize) -> Result<Node, ParseError> {
        let mut items = Vec::new();
        while let Some(current) = self.entry_indent()? {
            if current != indent || !is_sequence_entry(self.rest()) {
                if current > indent {
                    return Err(self.error_at(
                        self.cur,
                        current,
                        "unexpected indentation inside a list; align the `-` of each item",
                    ));
                }
                break;
            }
            let line = self.line(self.cur);
            let content = indent + 1 + leading_blank(&line[indent + 1..]);
            let rest = &line[content..];
            if rest.is_empty() || rest.starts_with('#') {
                self.col = content;
                items.push(self.parse_value(indent as isize, false)?);
            } else {
                let offset = self.lines[self.cur].0 + content;
                self.col = content;
                self.enter(offset)?;
                let item = if is_sequence_entry(rest) {
                    self.parse_sequence(content)
                } else if self.mapping_key(rest)?.is_some() {
                    self.parse_mapping(content)
                } else {
                    self.parse_value(indent as isize, false)
                };
                self.depth -= 1;
                items.push(item?);
            }
        }
        Ok(Node::Sequence(items))
    }

    /// Parses the value that starts at `self.col` (just after `key:` or `- `); `parent` is the
    /// indentation of the collection it belongs to. Leaves the parser at the start of a line.
    fn parse_value(&mut self, parent: isize, sequence_may_align: bool) -> Result<Node, ParseError> {
        let line = self.line(self.cur);
        let start = self.col + leading_blank(&line[self.col..]);
        let rest = &line[start..];
        if rest.is_empty() || rest.starts_with('#') {
            self.next_line()?;
            self.skip_insignificant()?;
            if self.at_end() {
                return Ok(Node::null());
            }
            let indent = self.indent() as isize;
            if indent > parent {
                return self.parse_block_node(parent);
            }
            if sequence_may_align && indent == parent && is_sequence_entry(self.rest()) {
                return self.parse_sequence(indent as usize);
            }
            return Ok(Node::null());
        }
        let offset = self.lines[self.cur].0 + start;
        match rest.as_bytes()[0] {
            b'|' | b'>' => self.parse_block_scalar(parent, start),
            b'"' | b'\'' => {
                let (text, end) = self.parse_quoted(offset)?;
                self.finish_line_at(end, "the closing quote")?;
                Ok(Node::Scalar { text, plain: false })
            }
            b'[' | b'{' => {
                let (node, end) = self.parse_flow(offset)?;
                self.finish_line_at(end, "the closing bracket")?;
                Ok(node)
            }
            b'&' | b'*' | b'!' => Err(self.error_at(
                self.cur,
                start,
                "anchors (&), aliases (*) and tags (!) are not supported; quote the value",
            )),
            _ => self.parse_plain(parent, start),
        }
    }

    /// After a quoted scalar or flow collection that ended at `end`, only a comment may follow.
    fn finish_line_at(&mut self, end: usize, what: &str) -> Result<(), ParseError> {
        let (line, column) = self.locate(end);
        self.cur = line;
        let text = self.line(line);
        let rest = &text[column.min(text.len())..];
        let trimmed = rest.trim_start_matches([' ', '\t']);
        let comment_ok = trimmed.starts_with('#') && trimmed.len() < rest.len();
        if !(trimmed.is_empty() || comment_ok) {
            return Err(self.error_at(
                line,
                column + rest.len() - trimmed.len(),
                format!(
                    "unexpected text after {what}; quote the whole value, or escape the quote inside it"
                ),
            ));
        }
        self.next_line()
    }
}

/// The byte offset just past the closing quote of a quoted key that starts `text`.
fn quoted_key_end(text: &str, quote: u8) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quote == b'"' => i += 2,
            b'\'' if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') => i += 2,
            byte if byte == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}
