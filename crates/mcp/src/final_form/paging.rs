//! The server's side of `cursor`/`nextCursor`: deterministic pages over items sorted by a key.

use std::num::NonZeroUsize;

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::hmac;

/// The secret a server signs its cursors with: a cursor carries the last key of its page and
/// an HMAC-SHA256 tag of it, so a cursor this key did not sign (forged, edited, or issued by
/// another server process) is refused. Each key is random; a restarted server refuses the
/// cursors of the one before it, and its clients list again from the start.
#[derive(Clone)]
pub struct CursorKey(hmac::Key);

impl fmt::Debug for CursorKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CursorKey(..)")
    }
}

impl CursorKey {
    /// A fresh key from the operating system's random number generator.
    ///
    /// # Panics
    /// When the operating system has no random number generator to give (`getrandom` fails),
    /// as every TLS and session-id user of the process would then too.
    pub fn random() -> Self {
        let key = hmac::Key::generate(hmac::HMAC_SHA256, &ring::rand::SystemRandom::new())
            .expect("the operating system's random number generator is available");
        Self(key)
    }

    fn seal(&self, key: &str) -> String {
        let tag = hmac::sign(&self.0, key.as_bytes());
        format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(key),
            URL_SAFE_NO_PAD.encode(tag.as_ref())
        )
    }

    fn open(&self, cursor: &str) -> Option<String> {
        let (key, tag) = cursor.split_once('.')?;
        let key = URL_SAFE_NO_PAD.decode(key).ok()?;
        let tag = URL_SAFE_NO_PAD.decode(tag).ok()?;
        hmac::verify(&self.0, &key, &tag).ok()?;
        String::from_utf8(key).ok()
    }
}

/// One page of items, and the cursor of the next page when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Page<'a, T> {
    /// The items of this page.
    pub items: &'a [T],
    /// What the client sends as `cursor` for the next page; `None` on the last page.
    pub next_cursor: Option<String>,
}

/// A cursor this server did not issue. Answer it with `-32602` (Invalid params), as the base
/// protocol does for an invalid cursor.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid cursor; list again from the start, without a cursor")]
#[non_exhaustive]
pub struct InvalidCursor;

/// The page of `items` that follows `cursor` (the first page without one), at most `page_size`
/// long.
///
/// `items` must be sorted by `key`, ascending and without duplicates (skills by URI, directory
/// children by URI). A cursor names the last key of the page before it, so paging stays
/// consistent while items come and go: a page starts after that key whether or not the item is
/// still there. Cursors are opaque to clients (the key, base64url-encoded, signed with
/// `cursors`).
///
/// # Errors
/// [`InvalidCursor`] for a cursor that `cursors` did not sign.
///
/// # Example
/// ```
/// use std::num::NonZeroUsize;
/// use skillful_mcp::final_form::{CursorKey, page_after};
///
/// let uris = ["skill://a/SKILL.md", "skill://b/SKILL.md", "skill://c/SKILL.md"];
/// let (key, size) = (CursorKey::random(), NonZeroUsize::new(2).unwrap());
/// let first = page_after(&uris, |uri| uri, None, size, &key).unwrap();
/// assert_eq!(first.items, &uris[..2]);
/// let second = page_after(&uris, |uri| uri, first.next_cursor.as_deref(), size, &key).unwrap();
/// assert_eq!(second.items, &uris[2..]);
/// assert_eq!(second.next_cursor, None);
/// // A cursor another key signed is not one this server issued.
/// assert!(page_after(&uris, |uri| uri, first.next_cursor.as_deref(), size, &CursorKey::random()).is_err());
/// ```
pub fn page_after<'a, T>(
    items: &'a [T],
    key: impl Fn(&T) -> &str,
    cursor: Option<&str>,
    page_size: NonZeroUsize,
    cursors: &CursorKey,
) -> Result<Page<'a, T>, InvalidCursor> {
    let start = match cursor {
        None => 0,
        Some(cursor) => {
            let after = cursors.open(cursor).ok_or(InvalidCursor)?;
            items.partition_point(|item| key(item) <= after.as_str())
        }
    };
    let end = start.saturating_add(page_size.get()).min(items.len());
    let page = &items[start..end];
    let next_cursor = match page.last() {
        Some(last) if end < items.len() => Some(cursors.seal(key(last))),
        _ => None,
    };
    Ok(Page {
        items: page,
        next_cursor,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(n: usize) -> Vec<String> {
        (0..n)
            .map(|i| format!("skill://s{i:02}/SKILL.md"))
            .collect()
    }

    static KEY: std::sync::LazyLock<CursorKey> = std::sync::LazyLock::new(CursorKey::random);

    fn size(n: usize) -> NonZeroUsize {
        NonZeroUsize::new(n).unwrap()
    }

    #[test]
    fn paging_visits_every_item_once_in_order() {
        let items = keys(7);
        let mut seen = Vec::new();
        let mut cursor = None;
        let mut pages = 0;
        loop {
            let page =
                page_after(&items, String::as_str, cursor.as_deref(), size(3), &KEY).unwrap();
            seen.extend_from_slice(page.items);
            pages += 1;
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        assert_eq!(seen, items);
        assert_eq!(pages, 3);
    }

    #[test]
    fn an_exact_multiple_ends_without_an_empty_page() {
        let items = keys(4);
        let first = page_after(&items, String::as_str, None, size(2), &KEY).unwrap();
        let second = page_after(
            &items,
            String::as_str,
            first.next_cursor.as_deref(),
            size(2),
            &KEY,
        )
        .unwrap();
        assert_eq!(second.items.len(), 2);
        assert_eq!(second.next_cursor, None);
    }

    #[test]
    fn an_empty_listing_is_one_empty_page() {
        let items: Vec<String> = Vec::new();
        let page = page_after(&items, String::as_str, None, size(5), &KEY).unwrap();
        assert!(page.items.is_empty());
        assert_eq!(page.next_cursor, None);
    }

    #[test]
    fn a_cursor_survives_the_removal_of_its_item() {
        let items = keys(6);
        let first = page_after(&items, String::as_str, None, size(3), &KEY).unwrap();
        let mut fewer = items.clone();
        fewer.remove(2);
        let next = page_after(
            &fewer,
            String::as_str,
            first.next_cursor.as_deref(),
            size(3),
            &KEY,
        )
        .unwrap();
        assert_eq!(next.items, &items[3..]);
    }

    #[test]
    fn foreign_cursors_are_invalid() {
        let items = keys(3);
        let issued = page_after(&items, String::as_str, None, size(1), &KEY)
            .unwrap()
            .next_cursor
            .unwrap();
        let (key, tag) = issued.split_once('.').unwrap();
        let unsigned = URL_SAFE_NO_PAD.encode(&items[1]);
        let resigned = CursorKey::random().seal(&items[1]);
        let edited = format!("{unsigned}.{tag}");
        for cursor in [
            "not base64!",
            "//4",
            "%%",
            key,
            unsigned.as_str(),
            resigned.as_str(),
            edited.as_str(),
        ] {
            assert_eq!(
                page_after(&items, String::as_str, Some(cursor), size(2), &KEY),
                Err(InvalidCursor),
                "{cursor}"
            );
        }
    }
}
