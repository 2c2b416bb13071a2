//! Reads the head of a `SKILL.md`: its frontmatter, up to and including the closing `---` line,
//! and nothing of the body.

use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use skillful_frontmatter::{ParseError, ParseOptions};

use crate::guard::same_file;
use skillful_fs::{is_link_refusal, open_nofollow};

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Room for the opening and closing `---` lines (with a BOM or trailing blanks) on top of the
/// frontmatter limit.
const DELIMITER_ALLOWANCE: u64 = 1024;

/// Why the head of a `SKILL.md` could not be read; the message says what to do.
pub(crate) struct HeadError(pub(crate) String);

/// The text of `path` from its first line through the line that closes the frontmatter (or
/// through the first line, when that does not open one, or to the end, when nothing closes it).
///
/// # Errors
/// When the file cannot be opened, is not a regular file, was replaced by a link, is over
/// [`ParseOptions::max_file_bytes`], has a frontmatter over
/// [`ParseOptions::max_frontmatter_bytes`], or its head is not UTF-8.
pub(crate) fn read_head(path: &Path, options: &ParseOptions) -> Result<String, HeadError> {
    let cannot_read = |error: std::io::Error| HeadError(format!("cannot read the file: {error}"));
    let replaced_by_link = || {
        HeadError(
            "the file was replaced by a symbolic link while it was being read; links are not followed".into(),
        )
    };
    // Never blocks: a FIFO put in its place is opened at once and refused below.
    let file = open_nofollow(path).map_err(|error| {
        if is_link_refusal(&error) {
            replaced_by_link()
        } else {
            cannot_read(error)
        }
    })?;
    let opened = file.metadata().map_err(cannot_read)?;
    let on_disk = fs::symlink_metadata(path).map_err(cannot_read)?;
    if on_disk.file_type().is_symlink() || !same_file(&opened, &on_disk) {
        return Err(replaced_by_link());
    }
    if !opened.is_file() {
        return Err(HeadError("not a regular file".into()));
    }
    if opened.len() > options.max_file_bytes as u64 {
        return Err(HeadError(
            ParseError::FileTooLarge {
                size: usize::try_from(opened.len()).unwrap_or(usize::MAX),
                limit: options.max_file_bytes,
            }
            .to_string(),
        ));
    }
    let cap = (options.max_frontmatter_bytes as u64).saturating_add(DELIMITER_ALLOWANCE);
    let mut reader = BufReader::with_capacity(4 * 1024, file.take(cap));
    let mut head = Vec::new();
    let mut opens = false;
    let mut closed = false;
    loop {
        let start = head.len();
        let read = reader.read_until(b'\n', &mut head).map_err(cannot_read)?;
        if read == 0 {
            break;
        }
        let line = &head[start..];
        if start == 0 {
            opens = is_delimiter(line.strip_prefix(BOM).unwrap_or(line));
            if !opens {
                break;
            }
        } else if is_delimiter(line) {
            closed = true;
            break;
        }
    }
    if opens && !closed && head.len() as u64 >= cap {
        return Err(HeadError(
            ParseError::FrontmatterTooLarge {
                limit: options.max_frontmatter_bytes,
            }
            .to_string(),
        ));
    }
    String::from_utf8(head).map_err(|error| {
        HeadError(format!(
            "the frontmatter is not UTF-8 (invalid byte at offset {}); save the file as UTF-8",
            error.utf8_error().valid_up_to()
        ))
    })
}

/// Whether `line` is a frontmatter delimiter: `---`, then only blanks.
fn is_delimiter(line: &[u8]) -> bool {
    let end = line
        .iter()
        .rposition(|byte| !matches!(byte, b'\n' | b'\r' | b' ' | b'\t'))
        .map_or(0, |last| last + 1);
    &line[..end] == b"---"
}
