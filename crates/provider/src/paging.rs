//! Cuts long text (a resource, a skill) into pages, and says so: nothing is ever cut silently.

use crate::kind::ToolKind;

/// Why a page could not be cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PageError {
    /// `offset` is at or past the end of a non-empty text.
    OffsetPastEnd { offset: u64, total: u64 },
    /// `limit` is zero.
    ZeroLimit,
}

/// The page size a request asks for: `limit` capped at `budget`, or `budget`.
///
/// # Errors
/// [`PageError::ZeroLimit`].
pub(crate) fn page_len(limit: Option<u64>, budget: usize) -> Result<u64, PageError> {
    let budget = budget as u64;
    match limit {
        Some(0) => Err(PageError::ZeroLimit),
        Some(limit) => Ok(limit.min(budget)),
        None => Ok(budget),
    }
}

/// Where a page of a text falls: its first and end byte positions in the whole text, and its
/// bytes.
pub(crate) struct Cut<'a> {
    pub(crate) start: u64,
    pub(crate) end: u64,
    pub(crate) bytes: &'a [u8],
}

/// The page `offset..offset + limit` (limit capped at `budget`) of a text of `total` bytes of
/// which `window` (starting at byte `window_start`) was read, widened or narrowed to whole UTF-8
/// characters: `offset` inside a character starts at that character; a `limit` shorter than the
/// first character still takes that character.
///
/// # Errors
/// [`PageError::OffsetPastEnd`] or [`PageError::ZeroLimit`].
pub(crate) fn cut(
    window: &[u8],
    window_start: u64,
    total: u64,
    offset: Option<u64>,
    limit: Option<u64>,
    budget: usize,
) -> Result<Cut<'_>, PageError> {
    let offset = offset.unwrap_or(0);
    if offset > total || (offset == total && total > 0) {
        return Err(PageError::OffsetPastEnd { offset, total });
    }
    let limit = page_len(limit, budget)?;
    let relative = |at: u64| {
        usize::try_from(at.saturating_sub(window_start))
            .unwrap_or(usize::MAX)
            .min(window.len())
    };
    let is_boundary = |at: usize| window.get(at).is_none_or(|byte| byte & 0xC0 != 0x80);
    let mut start = relative(offset);
    while start > 0 && !is_boundary(start) {
        start -= 1;
    }
    let absolute = |at: usize| window_start + at as u64;
    let mut end = relative(absolute(start).saturating_add(limit).min(total));
    while end > start && !is_boundary(end) {
        end -= 1;
    }
    if end == start && absolute(start) < total {
        end = (start + 1).min(window.len());
        while end < window.len() && !is_boundary(end) {
            end += 1;
        }
    }
    Ok(Cut {
        start: absolute(start),
        end: absolute(end),
        bytes: &window[start..end],
    })
}

/// `shown` (the bytes `start..end` of a text of `total` bytes), followed by a note when that is
/// not the whole text.
pub(crate) fn framed(shown: &str, start: u64, end: u64, total: u64, tool: ToolKind) -> String {
    if start == 0 && end == total {
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
    }
}

/// The bytes `offset..offset + limit` of `text` (limit capped at `budget`), widened or narrowed to
/// whole UTF-8 characters (see [`cut`]), followed by a note when that is not the whole text.
pub(crate) fn page(
    text: &str,
    offset: Option<u64>,
    limit: Option<u64>,
    budget: usize,
    tool: ToolKind,
) -> Result<String, PageError> {
    let total = text.len() as u64;
    let cut = cut(text.as_bytes(), 0, total, offset, limit, budget)?;
    // A text cut at character boundaries stays UTF-8.
    let shown = String::from_utf8_lossy(cut.bytes);
    Ok(framed(&shown, cut.start, cut.end, total, tool))
}
