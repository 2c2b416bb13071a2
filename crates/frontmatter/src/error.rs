use std::time::Duration;

/// Why a `SKILL.md` could not be parsed. Line and column numbers are 1-based and count from the
/// first line of the file (the opening `---`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// The file is larger than [`ParseOptions::max_file_bytes`](crate::ParseOptions).
    #[error(
        "the file is {size} bytes, over the limit of {limit} bytes; shorten it (move detail into references/) or raise the limit"
    )]
    FileTooLarge {
        /// The file's size in bytes.
        size: usize,
        /// The limit in force.
        limit: usize,
    },
    /// The frontmatter is larger than [`ParseOptions::max_frontmatter_bytes`](crate::ParseOptions).
    #[error(
        "the frontmatter is over the limit of {limit} bytes; keep it to the fields the catalog needs or raise the limit"
    )]
    FrontmatterTooLarge {
        /// The limit in force.
        limit: usize,
    },
    /// Parsing ran past [`ParseOptions::deadline`](crate::ParseOptions).
    #[error(
        "parsing stopped at line {line} after the deadline of {deadline:?}; simplify the frontmatter or raise the deadline"
    )]
    DeadlineExceeded {
        /// The deadline in force.
        deadline: Duration,
        /// The line the parser had reached.
        line: usize,
    },
    /// The file does not start with a `---` line.
    #[error(
        "line 1: no frontmatter; a SKILL.md must start with a `---` line, then `name:` and `description:`, then `---`"
    )]
    MissingFrontmatter,
    /// No `---` line closes the frontmatter.
    #[error(
        "line 1: the frontmatter opened here is never closed; add a line holding only `---` after it"
    )]
    Unclosed,
    /// The frontmatter is not valid YAML (or uses a feature this parser refuses).
    #[error("line {line}, column {column}: {message}")]
    Syntax {
        /// The line of the offending character.
        line: usize,
        /// The column of the offending character, in characters.
        column: usize,
        /// What is wrong and how to fix it.
        message: String,
    },
}

impl ParseError {
    /// The line the error points at, when it points at one.
    pub fn line(&self) -> Option<usize> {
        match self {
            ParseError::Syntax { line, .. } | ParseError::DeadlineExceeded { line, .. } => {
                Some(*line)
            }
            ParseError::MissingFrontmatter | ParseError::Unclosed => Some(1),
            _ => None,
        }
    }

    /// The column the error points at, when it points at one.
    pub fn column(&self) -> Option<usize> {
        match self {
            ParseError::Syntax { column, .. } => Some(*column),
            _ => None,
        }
    }
}
