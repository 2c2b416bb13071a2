use std::time::Duration;

use skillful_core::{Mapping, Value};

use crate::error::ParseError;
use crate::parser::{Node, Parser};

/// Limits that bound the work one `SKILL.md` can cause.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseOptions {
    /// Parsing that runs longer than this stops with [`ParseError::DeadlineExceeded`].
    /// The parser is linear in its input, so this is a backstop. Default: 5 s.
    pub deadline: Duration,
    /// A larger file is refused with [`ParseError::FileTooLarge`]. Default: 1 MiB.
    pub max_file_bytes: usize,
    /// A larger frontmatter is refused with [`ParseError::FrontmatterTooLarge`]. Default: 64 KiB.
    pub max_frontmatter_bytes: usize,
}

impl Default for ParseOptions {
    fn default() -> Self {
        Self {
            deadline: Duration::from_secs(5),
            max_file_bytes: 1024 * 1024,
            max_frontmatter_bytes: 64 * 1024,
        }
    }
}

impl ParseOptions {
    /// The same options with another deadline.
    pub fn with_deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }

    /// The same options with another file size limit.
    pub fn with_max_file_bytes(mut self, limit: usize) -> Self {
        self.max_file_bytes = limit;
        self
    }

    /// The same options with another frontmatter size limit.
    pub fn with_max_frontmatter_bytes(mut self, limit: usize) -> Self {
        self.max_frontmatter_bytes = limit;
        self
    }
}

/// A parsed `SKILL.md`: its frontmatter entries in file order, and the Markdown body after them.
#[derive(Debug, Clone)]
pub struct Document<'a> {
    entries: Vec<(String, Node)>,
    frontmatter: &'a str,
    body: &'a str,
    body_line: usize,
}

impl<'a> Document<'a> {
    /// Every top-level frontmatter key with its value, in file order.
    pub fn fields(&self) -> Mapping {
        self.entries
            .iter()
            .map(|(key, node)| (key.clone(), node.to_value()))
            .collect()
    }

    /// The value of one top-level key.
    pub fn get(&self, key: &str) -> Option<Value> {
        self.node(key).map(Node::to_value)
    }

    /// The top-level keys, in file order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(key, _)| key.as_str())
    }

    /// The frontmatter's text exactly as written, between the `---` lines (without them).
    pub fn frontmatter_text(&self) -> &'a str {
        self.frontmatter
    }

    /// The Markdown after the closing `---` line.
    pub fn body(&self) -> &'a str {
        self.body
    }

    /// The 1-based line number of the body's first line in the file.
    pub fn body_line(&self) -> usize {
        self.body_line
    }

    pub(crate) fn node(&self, key: &str) -> Option<&Node> {
        self.entries
            .iter()
            .find(|(candidate, _)| candidate == key)
            .map(|(_, node)| node)
    }
}

/// Parses a whole `SKILL.md`: the frontmatter between the opening `---` line and the first line
/// that is exactly `---` (trailing spaces allowed), and the body after it.
///
/// # Errors
/// [`ParseError`] when the text is over a limit, has no closed frontmatter, is not valid YAML, or
/// takes longer than the deadline.
///
/// # Example
/// ```
/// use skillful_frontmatter::{ParseOptions, Value, parse};
///
/// let document = parse("---\ntags: [pdf, forms]\n---\nBody\n", &ParseOptions::default()).unwrap();
/// assert_eq!(
///     document.get("tags"),
///     Some(Value::Sequence(vec![Value::String("pdf".into()), Value::String("forms".into())]))
/// );
/// assert_eq!(document.body(), "Body\n");
/// ```
pub fn parse<'a>(text: &'a str, options: &ParseOptions) -> Result<Document<'a>, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.len() > options.max_file_bytes {
        return Err(ParseError::FileTooLarge {
            size: text.len(),
            limit: options.max_file_bytes,
        });
    }
    let split = split(text, options.max_frontmatter_bytes)?;
    let entries = Parser::new(split.frontmatter, 2, options.deadline).parse_root()?;
    Ok(Document {
        entries,
        frontmatter: split.frontmatter,
        body: split.body,
        body_line: split.body_line,
    })
}

struct Split<'a> {
    frontmatter: &'a str,
    body: &'a str,
    body_line: usize,
}

fn is_delimiter(line: &str) -> bool {
    line.trim_end_matches(['\r', ' ', '\t']) == "---"
}

/// Finds the frontmatter without looking further into the body than the closing line.
fn split(text: &str, max_frontmatter_bytes: usize) -> Result<Split<'_>, ParseError> {
    let (first, rest) = match text.split_once('\n') {
        Some((first, rest)) => (first, rest),
        None => (text, ""),
    };
    if !is_delimiter(first) {
        return Err(ParseError::MissingFrontmatter);
    }
    let mut offset = 0;
    let mut line_number = 2;
    while offset < rest.len() {
        if offset > max_frontmatter_bytes {
            return Err(ParseError::FrontmatterTooLarge {
                limit: max_frontmatter_bytes,
            });
        }
        let end = rest[offset..].find('\n').map_or(rest.len(), |i| offset + i);
        if is_delimiter(&rest[offset..end]) {
            let body_start = (end + 1).min(rest.len());
            return Ok(Split {
                frontmatter: &rest[..offset],
                body: &rest[body_start..],
                body_line: line_number + 1,
            });
        }
        offset = end + 1;
        line_number += 1;
    }
    Err(ParseError::Unclosed)
}
