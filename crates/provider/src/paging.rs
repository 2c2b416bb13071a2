//! Cuts long text (a resource, a skill) into pages, and says so: nothing is ever cut silently.

use crate::tools::ToolKind;

/// Why a page could not be cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PageError {
    /// `offset` is at or past the end of a non-empty text.
    OffsetPastEnd { offset: u64, total: usize },
    /// `limit` is zero.
    ZeroLimit,
}

/// The bytes `offset..offset + limit` of `text` (limit capped at `budget`), widened or narrowed to
/// whole UTF-8 characters, followed by a note when that is not the whole text.
///
/// `offset` inside a character starts at that character; a `limit` shorter than the first
/// character still returns that character.
pub(crate) fn page(
    text: &str,
    offset: Option<u64>,
    limit: Option<u64>,
    budget: usize,
    tool: ToolKind,
) -> Result<String, PageError> {
    let total = text.len();
    let offset_requested = offset.unwrap_or(0);
    let offset = usize::try_from(offset_requested).unwrap_or(usize::MAX);
    if offset > total || (offset == total && total > 0) {
        return Err(PageError::OffsetPastEnd {
            offset: offset_requested,
            total,
        });
    }
    let limit = match limit {
        Some(0) => return Err(PageError::ZeroLimit),
        Some(limit) => usize::try_from(limit).unwrap_or(usize::MAX).min(budget),
        None => budget,
    };
    let start = floor_char_boundary(text, offset);
    let mut end = floor_char_boundary(text, start.saturating_add(limit).min(total));
    if end == start && start < total {
        end = ceil_char_boundary(text, start + 1);
    }
    let shown = &text[start..end];
    Ok(if start == 0 && end == total {
        shown.to_owned()
    } else if end < total {
        format!(
            "{shown}\n\n[truncated: showing bytes {start}-{end} of {total}; call {tool} again with offset={end} to continue]"
        )
    } else {
        format!(
            "{shown}\n\n[showing bytes {start}-{end} of {total}: this is the end of the {}]",
            if tool == ToolKind::LoadSkill {
                "skill"
            } else {
                "resource"
            }
        )
    })
}

fn floor_char_boundary(text: &str, mut index: usize) -> usize {
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

fn ceil_char_boundary(text: &str, mut index: usize) -> usize {
    while !text.is_char_boundary(index) {
        index += 1;
    }
    index
}
