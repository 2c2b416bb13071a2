//! Flow collections (`[a, b]`, `{k: v}`), read by offset across lines.

use std::collections::HashSet;

use super::{Node, Parser};
use crate::error::ParseError;

/// One entry of a flow collection: `value`, or `key: value`.
enum FlowEntry {
    Single(Node),
    Pair(String, Node),
}

impl Parser<'_> {
    /// Reads the flow collection opening at `offset`; returns it and the offset past its end.
    pub(super) fn parse_flow(&mut self, offset: usize) -> Result<(Node, usize), ParseError> {
        self.enter(offset)?;
        let closing = if self.src.as_bytes()[offset] == b'[' {
            b']'
        } else {
            b'}'
        };
        let mut items = Vec::new();
        let mut entries: Vec<(String, Node)> = Vec::new();
        let mut keys: HashSet<String> = HashSet::new();
        let mut i = offset + 1;
        loop {
            i = self.skip_flow_blank(i, offset)?;
            if self.src.as_bytes()[i] == closing {
                i += 1;
                break;
            }
            let (entry, j) = self.parse_flow_entry(i, offset)?;
            match (closing, entry) {
                (b']', FlowEntry::Pair(key, value)) => {
                    items.push(Node::Mapping(vec![(key, value)]))
                }
                (b']', FlowEntry::Single(node)) => items.push(node),
                (_, entry) => {
                    let (key, value) = self.flow_mapping_entry(entry, i, &mut keys)?;
                    entries.push((key, value));
                }
            }
            match self.src.as_bytes()[j] {
                b',' => i = j + 1,
                byte if byte == closing => {
                    i = j + 1;
                    break;
                }
                _ => {
                    return Err(self.error_at_offset(
                        j,
                        format!("expected `,` or `{}` here", char::from(closing)),
                    ));
                }
            }
        }
        self.depth -= 1;
        let node = if closing == b']' {
            Node::Sequence(items)
        } else {
            Node::Mapping(entries)
        };
        Ok((node, i))
    }

    /// Reads one entry (`value` or `key: value`) starting at `i` in the collection opened at
    /// `open`; returns it and the offset of what follows it (`,` or the closing bracket).
    fn parse_flow_entry(
        &mut self,
        i: usize,
        open: usize,
    ) -> Result<(FlowEntry, usize), ParseError> {
        let (first, after) = self.parse_flow_node(i, open)?;
        let mut j = self.skip_flow_blank(after, open)?;
        if self.src.as_bytes()[j] != b':' {
            return Ok((FlowEntry::Single(first), j));
        }
        let Node::Scalar { text: key, .. } = first else {
            return Err(
                self.error_at_offset(i, "a key must be a single value, not a list or mapping")
            );
        };
        j = self.skip_flow_blank(j + 1, open)?;
        let value = if matches!(self.src.as_bytes()[j], b',' | b']' | b'}') {
            Node::null()
        } else {
            let (value, after) = self.parse_flow_node(j, open)?;
            j = self.skip_flow_blank(after, open)?;
            value
        };
        Ok((FlowEntry::Pair(key, value), j))
    }

    /// The key and value of an entry of a flow mapping (a lone `key` has a null value), checked
    /// against the `keys` already seen; `i` is where the entry starts.
    fn flow_mapping_entry(
        &self,
        entry: FlowEntry,
        i: usize,
        keys: &mut HashSet<String>,
    ) -> Result<(String, Node), ParseError> {
        let (key, value) = match entry {
            FlowEntry::Pair(key, value) => (key, value),
            FlowEntry::Single(Node::Scalar { text, .. }) => (text, Node::null()),
            FlowEntry::Single(_) => {
                return Err(
                    self.error_at_offset(i, "a key must be a single value, not a list or mapping")
                );
            }
        };
        if !keys.insert(key.clone()) {
            return Err(self.error_at_offset(i, format!("duplicate key `{key}`; keep one of them")));
        }
        Ok((key, value))
    }

    /// The error for a flow collection opened at `open` whose text ends before it is closed.
    fn unclosed(&self, open: usize) -> ParseError {
        self.error_at_offset(
            open,
            "this `[` or `{` is never closed; add the closing bracket",
        )
    }

    /// Skips spaces, line breaks and comments inside a flow collection opened at `open`.
    fn skip_flow_blank(&self, mut i: usize, open: usize) -> Result<usize, ParseError> {
        let bytes = self.src.as_bytes();
        loop {
            match bytes.get(i) {
                None => return Err(self.unclosed(open)),
                Some(b' ' | b'\t' | b'\r') => i += 1,
                Some(b'\n') => {
                    self.tick()?;
                    i += 1;
                }
                Some(b'#') if i == 0 || matches!(bytes[i - 1], b' ' | b'\t' | b'\n') => {
                    i = self.src[i..].find('\n').map_or(bytes.len(), |n| i + n);
                }
                Some(_) => return Ok(i),
            }
        }
    }

    fn parse_flow_node(&mut self, i: usize, open: usize) -> Result<(Node, usize), ParseError> {
        match self.src.as_bytes()[i] {
            b'[' | b'{' => self.parse_flow(i),
            b'"' | b'\'' => {
                let (text, end) = self.parse_quoted(i)?;
                Ok((Node::Scalar { text, plain: false }, end))
            }
            b',' | b']' | b'}' => Err(self.error_at_offset(
                i,
                format!(
                    "unexpected `{}`; remove it or put a value before it",
                    char::from(self.src.as_bytes()[i])
                ),
            )),
            b'&' | b'*' | b'!' => Err(self.error_at_offset(
                i,
                "anchors (&), aliases (*) and tags (!) are not supported; quote the value",
            )),
            _ => self.parse_flow_plain(i, open),
        }
    }

    /// A plain scalar inside a flow collection: it ends at `,`, a bracket, `: ` or a comment.
    fn parse_flow_plain(&self, start: usize, open: usize) -> Result<(Node, usize), ParseError> {
        let bytes = self.src.as_bytes();
        let mut text = String::new();
        let mut i = start;
        let mut segment = start;
        loop {
            match bytes.get(i) {
                None => return Err(self.unclosed(open)),
                Some(b',' | b'[' | b']' | b'{' | b'}') => break,
                Some(b':')
                    if matches!(
                        bytes.get(i + 1),
                        None | Some(
                            b' ' | b'\t' | b'\r' | b'\n' | b',' | b'[' | b']' | b'{' | b'}'
                        )
                    ) =>
                {
                    break;
                }
                Some(b'#') if i > start && matches!(bytes[i - 1], b' ' | b'\t') => break,
                Some(b'\r' | b'\n') => {
                    text.push_str(self.src[segment..i].trim_end_matches([' ', '\t']));
                    let mut folded = String::new();
                    let next = self.fold_line_breaks(i, &mut folded)?;
                    match bytes.get(next) {
                        Some(b',' | b']' | b'}' | b'#' | b':') | None => {
                            return Ok((Node::Scalar { text, plain: true }, next));
                        }
                        _ => {}
                    }
                    text.push_str(&folded);
                    i = next;
                    segment = next;
                }
                Some(_) => i += 1,
            }
        }
        text.push_str(self.src[segment..i].trim_end_matches([' ', '\t']));
        Ok((Node::Scalar { text, plain: true }, i))
    }
}
