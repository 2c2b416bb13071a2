//! Untrusted text made safe to show: skill text, descriptions, model output, server errors and
//! script output may carry terminal control sequences that move the cursor, clear the screen or
//! imitate a prompt. Shown through these functions, every control character is visible as an
//! escape instead of acting.

use std::borrow::Cow;

/// Whether `c` must not reach a terminal raw: C0 controls, DEL, C1 controls, and the Unicode
/// bidirectional overrides and isolates that reorder what a line appears to say. Newline and
/// tab are among them; [`for_terminal`] keeps those two.
pub fn is_hazard(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
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
}
