//! The YAML subset reader. Every loop moves forward through the text and nothing is re-scanned,
//! so the work is linear in the input; nesting is capped so that recursion stays shallow.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use skillful_core::{Mapping, Value};

use crate::error::ParseError;

/// Deeper nesting than any real frontmatter needs; the cap keeps hostile input off the stack.
const MAX_DEPTH: usize = 64;

/// A parsed YAML node. Scalars keep their text so that spec fields (`name: 2024`) read as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    Scalar { text: String, plain: bool },
    Sequence(Vec<Node>),
    Mapping(Vec<(String, Node)>),
}

impl Node {
    fn null() -> Self {
        Node::Scalar {
            text: String::new(),
            plain: true,
        }
    }

    /// The value a YAML 1.2 core-schema parser gives this node.
    pub(crate) fn to_value(&self) -> Value {
        match self {
            Node::Scalar { text, plain: true } => resolve_plain(text),
            Node::Scalar { text, plain: false } => Value::String(text.clone()),
            Node::Sequence(items) => Value::Sequence(items.iter().map(Node::to_value).collect()),
            Node::Mapping(entries) => Value::Mapping(
                entries
                    .iter()
                    .map(|(key, node)| (key.clone(), node.to_value()))
                    .collect::<Mapping>(),
            ),
        }
    }
}

/// Resolves a plain scalar by the YAML 1.2 core schema.
fn resolve_plain(text: &str) -> Value {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Value::Float(f64::INFINITY);
        }
        "-.inf" | "-.Inf" | "-.INF" => return Value::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Value::Float(f64::NAN),
        _ => {}
    }
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(number) = text.parse::<i64>() {
            return Value::Integer(number);
        }
        return Value::String(text.to_owned());
    }
    let radix = [("0o", 8), ("0x", 16)]
        .into_iter()
        .find_map(|(prefix, radix)| text.strip_prefix(prefix).map(|rest| (rest, radix)));
    if let Some((rest, radix)) = radix {
        if !rest.is_empty()
            && rest.chars().all(|c| c.is_digit(radix))
            && let Ok(number) = i64::from_str_radix(rest, radix)
        {
            return Value::Integer(number);
        }
        return Value::String(text.to_owned());
    }
    if is_core_float(digits)
        && let Ok(number) = text.parse::<f64>()
    {
        return Value::Float(number);
    }
    Value::String(text.to_owned())
}

/// `(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, the sign already removed.
fn is_core_float(text: &str) -> bool {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text, None),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (mantissa, None),
    };
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match fraction {
        Some(fraction) => {
            all_digits(whole) && all_digits(fraction) && !(whole.is_empty() && fraction.is_empty())
        }
        None => !whole.is_empty() && all_digits(whole),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && all_digits(e)
    });
    mantissa_ok && exponent_ok && (fraction.is_some() || exponent.is_some())
}

/// One entry of a flow collection: `value`, or `key: value`.
enum FlowEntry {
    Single(Node),
    Pair(String, Node),
}

#[derive(Clone, Copy)]
enum Chomping {
    Strip,
    Clip,
    Keep,
}

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

/// Whether `text` begins a block sequence entry (`-` then a space or the end of the line).
fn is_sequence_entry(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.first() == Some(&b'-') && matches!(bytes.get(1), None | Some(b' ' | b'\t'))
}

/// The position of the first ` #` comment in `text`, if any.
fn comment_start(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    (0..bytes.len()).find(|&i| bytes[i] == b'#' && (i == 0 || matches!(bytes[i - 1], b' ' | b'\t')))
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

    // ----- block structure -----

    /// Parses the node that starts at the current (significant) line, more indented than `parent`.
    fn parse_block_node(&mut self, parent: isize) -> Result<Node, ParseError> {
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

    fn parse_mapping(&mut self, indent: usize) -> Result<Node, ParseError> {
        let mut entries: Vec<(String, Node)> = Vec::new();
        let mut key_lines: HashMap<String, usize> = HashMap::new();
        loop {
            if self.col == 0 {
                self.skip_insignificant()?;
            }
            if self.at_end() {
                break;
            }
            let current = self.indent();
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
        loop {
            if self.col == 0 {
                self.skip_insignificant()?;
            }
            if self.at_end() {
                break;
            }
            let current = self.indent();
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

    /// A plain scalar, possibly continued on more-indented lines, which are folded with spaces.
    fn parse_plain(&mut self, parent: isize, start: usize) -> Result<Node, ParseError> {
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

    /// A literal (`|`) or folded (`>`) block scalar whose header starts at byte `start`.
    fn parse_block_scalar(&mut self, parent: isize, start: usize) -> Result<Node, ParseError> {
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
        self.next_line()?;

        let base = parent.max(0) as usize;
        let content_indent = match explicit_indent {
            Some(increment) => base + increment,
            None => {
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
        };

        // `None` is an empty line; `Some` a content line without its indentation.
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
        let content_end = lines.iter().rposition(Option::is_some).map_or(0, |i| i + 1);
        let trailing_empty = lines.len() - content_end;
        let content = &lines[..content_end];

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
        let has_content = content_end > 0;
        match chomping {
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

    // ----- quoted scalars and flow collections, read by offset across lines -----

    /// Reads a single- or double-quoted scalar opening at `offset`; returns it and the offset
    /// just past its closing quote.
    fn parse_quoted(&self, offset: usize) -> Result<(String, usize), ParseError> {
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
    fn fold_line_breaks(&self, mut i: usize, text: &mut String) -> Result<usize, ParseError> {
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

    /// Reads the flow collection opening at `offset`; returns it and the offset past its end.
    fn parse_flow(&mut self, offset: usize) -> Result<(Node, usize), ParseError> {
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
            let (first, after) = self.parse_flow_node(i, offset)?;
            let mut j = self.skip_flow_blank(after, offset)?;
            let entry = if self.src.as_bytes()[j] == b':' {
                let Node::Scalar { text: key, .. } = first else {
                    return Err(self.error_at_offset(
                        i,
                        "a key must be a single value, not a list or mapping",
                    ));
                };
                j = self.skip_flow_blank(j + 1, offset)?;
                let value = if matches!(self.src.as_bytes()[j], b',' | b']' | b'}') {
                    Node::null()
                } else {
                    let (value, after) = self.parse_flow_node(j, offset)?;
                    j = self.skip_flow_blank(after, offset)?;
                    value
                };
                FlowEntry::Pair(key, value)
            } else {
                FlowEntry::Single(first)
            };
            match (closing, entry) {
                (b']', FlowEntry::Pair(key, value)) => {
                    items.push(Node::Mapping(vec![(key, value)]))
                }
                (b']', FlowEntry::Single(node)) => items.push(node),
                (_, entry) => {
                    let (key, value) = match entry {
                        FlowEntry::Pair(key, value) => (key, value),
                        FlowEntry::Single(Node::Scalar { text, .. }) => (text, Node::null()),
                        FlowEntry::Single(_) => {
                            return Err(self.error_at_offset(
                                i,
                                "a key must be a single value, not a list or mapping",
                            ));
                        }
                    };
                    if !keys.insert(key.clone()) {
                        return Err(self.error_at_offset(
                            i,
                            format!("duplicate key `{key}`; keep one of them"),
                        ));
                    }
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

    /// Skips spaces, line breaks and comments inside a flow collection opened at `open`.
    fn skip_flow_blank(&self, mut i: usize, open: usize) -> Result<usize, ParseError> {
        let bytes = self.src.as_bytes();
        loop {
            match bytes.get(i) {
                None => {
                    return Err(self.error_at_offset(
                        open,
                        "this `[` or `{` is never closed; add the closing bracket",
                    ));
                }
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
                None => {
                    return Err(self.error_at_offset(
                        open,
                        "this `[` or `{` is never closed; add the closing bracket",
                    ));
                }
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

/// The byte length of the spaces and tabs at the start of `text`.
fn leading_blank(text: &str) -> usize {
    text.bytes()
        .take_while(|&b| b == b' ' || b == b'\t')
        .count()
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
