//! Untrusted text made safe to show: skill text, descriptions, model output, server errors and
//! script output may carry terminal control sequences that move the cursor, clear the screen or
//! imitate a prompt. Shown through these functions, every control character is visible as an
//! escape instead of acting.

use std::borrow::Cow;

/// Whether `c` must not reach a terminal raw: C0 controls, DEL, C1 controls, and every
/// [invisible](is_invisible) character (the Unicode bidirectional overrides and isolates that
/// reorder what a line appears to say among them). Newline and tab are among them;
/// [`for_terminal`] keeps those two.
pub fn is_hazard(c: char) -> bool {
    c.is_control() || is_invisible(c)
}

/// Whether `c` is shown as nothing, or changes how the text around it is shown, so that a reader
/// cannot see that it is there: a format character (Unicode general category `Cf`: zero-width
/// spaces and joiners, U+2060 WORD JOINER, LRM/RLM, the bidirectional overrides and isolates,
/// U+FEFF, soft hyphens, ...), a tag character (U+E0000–U+E007F, which can spell out hidden
/// ASCII: "ASCII smuggling") or a private-use character (which no font is expected to have).
///
/// The one rule of the workspace for such characters: the validator refuses or warns about
/// them, and [`for_terminal`], [`one_line`] and [`visible`] escape them.
///
/// # Example
/// ```
/// use skillful_core::text::is_invisible;
///
/// assert!(is_invisible('\u{200b}') && is_invisible('\u{e0049}') && is_invisible('\u{202e}'));
/// assert!(!is_invisible('a') && !is_invisible('é') && !is_invisible('\n'));
/// ```
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        // Format characters (general category Cf, Unicode 15).
        '\u{ad}'
            | '\u{600}'..='\u{605}'
            | '\u{61c}'
            | '\u{6dd}'
            | '\u{70f}'
            | '\u{890}'..='\u{891}'
            | '\u{8e2}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{110bd}'
            | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            // Tag characters, assigned (Cf) or not.
            | '\u{e0000}'..='\u{e007f}'
            // Private use (general category Co).
            | '\u{e000}'..='\u{f8ff}'
            | '\u{f0000}'..='\u{ffffd}'
            | '\u{100000}'..='\u{10fffd}'
    )
}

/// `text` with every [invisible](is_invisible) character replaced by its visible escape (tag
/// character I as `\u{e0049}`), and nothing else changed: for text given to a model (the
/// catalog), where line breaks and every visible character must stay as they are. Borrowed when
/// there is nothing to escape.
///
/// # Example
/// ```
/// use skillful_core::text::visible;
///
/// assert_eq!(visible("Fills forms.\u{e0049}\u{200b}"), "Fills forms.\\u{e0049}\\u{200b}");
/// assert_eq!(visible("Zeile 1\nZeile 2"), "Zeile 1\nZeile 2");
/// ```
pub fn visible(text: &str) -> Cow<'_, str> {
    escape(text, is_invisible)
}

/// `text` for a terminal or log: newlines and tabs kept, every other control character (and
/// bidirectional override) replaced by a visible escape such as `\u{1b}`. Borrowed when there is
/// nothing to escape.
///
/// # Example
/// ```
/// use skillful_core::text::for_terminal;
///
/// assert_eq!(for_terminal("line 1\n\tline 2"), "line 1\n\tline 2");
/// assert_eq!(for_terminal("\u{1b}[2Jfake prompt"), "\\u{1b}[2Jfake prompt");
/// ```
pub fn for_terminal(text: &str) -> Cow<'_, str> {
    escape(text, |c| is_hazard(c) && c != '\n' && c != '\t')
}

/// `text` on one line: like [`for_terminal`], and newlines, carriage returns and tabs escaped
/// too, for names, labels and one-line messages.
///
/// # Example
/// ```
/// assert_eq!(skillful_core::text::one_line("a\nb"), "a\\u{a}b");
/// ```
pub fn one_line(text: &str) -> Cow<'_, str> {
    escape(text, is_hazard)
}

/// The first `max` characters of `text` (all of it when it is shorter): cut at a character,
/// never inside one.
///
/// # Example
/// ```
/// assert_eq!(skillful_core::text::cut("héllo", 2), "hé");
/// assert_eq!(skillful_core::text::cut("hi", 5), "hi");
/// ```
pub fn cut(text: &str, max: usize) -> &str {
    text.char_indices()
        .nth(max)
        .map_or(text, |(end, _)| &text[..end])
}

/// `text` [`cut`] to `max` characters, with `…` after it when something was cut.
///
/// # Example
/// ```
/// assert_eq!(skillful_core::text::shorten("abcdef", 3), "abc…");
/// assert_eq!(skillful_core::text::shorten("abc", 3), "abc");
/// ```
pub fn shorten(text: &str, max: usize) -> Cow<'_, str> {
    let kept = cut(text, max);
    if kept.len() == text.len() {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(format!("{kept}…"))
    }
}

fn escape(text: &str, hazard: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(&hazard) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if hazard(c) {
            shown.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            shown.push(c);
        }
    }
    Cow::Owned(shown)
}

/// Of `offered`, the name most like `wanted`: one holding it or held by it
/// (`react-best-practices` in `vercel-react-best-practices`), else the nearest within a few
/// edits (`pfd` for `pdf`).
pub fn closest<'a, I>(wanted: &str, offered: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
    I::IntoIter: Clone,
{
    let wanted = wanted.to_lowercase();
    let offered = offered.into_iter();
    if let Some(holding) = offered
        .clone()
        .find(|name| name.contains(&wanted) || wanted.contains(name))
    {
        return Some(holding);
    }
    let most = (wanted.chars().count() / 3).max(2);
    offered
        .map(|name| (strsim::damerau_levenshtein(&wanted, name), name))
        .filter(|(distance, _)| *distance <= most)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_control_is_escaped() {
        let hostile = "a\u{7}b\u{7f}c\u{9b}31md\u{202e}e\rf";
        assert_eq!(
            for_terminal(hostile),
            "a\\u{7}b\\u{7f}c\\u{9b}31md\\u{202e}e\\u{d}f"
        );
        assert!(matches!(for_terminal("plain é text"), Cow::Borrowed(_)));
    }

    #[test]
    fn invisible_characters_are_escaped_everywhere() {
        // Tag characters spelling "Hi", a zero-width space, WORD JOINER, LRM, RLM, BOM, a
        // private-use character and a right-to-left override.
        let hidden = "ok\u{e0048}\u{e0069}\u{200b}\u{2060}\u{200e}\u{200f}\u{feff}\u{e000}\u{202e}";
        let shown =
            "ok\\u{e0048}\\u{e0069}\\u{200b}\\u{2060}\\u{200e}\\u{200f}\\u{feff}\\u{e000}\\u{202e}";
        assert_eq!(for_terminal(hidden), shown);
        assert_eq!(one_line(hidden), shown);
        assert_eq!(visible(hidden), shown);
        assert_eq!(
            visible("a\u{1b}b\n"),
            "a\u{1b}b\n",
            "visible leaves controls alone"
        );
        assert!(matches!(visible("Ünïcödé — 日本語 😀"), Cow::Borrowed(_)));
    }
}
