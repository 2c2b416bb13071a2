//! Which resource names a client may send to a server: relative paths inside the skill.

use percent_encoding::percent_decode_str;

/// How many rounds of percent-decoding a name may need before it is refused.
const MAX_DECODING_DEPTH: usize = 32;

/// Why a resource name is refused before any request is sent.
pub(crate) fn unsafe_resource_name(name: &str) -> Option<&'static str> {
    if name.trim().is_empty() {
        return Some("the name is empty");
    }
    let Some(decoded) = fully_decoded(name) else {
        return Some("the name is percent-encoded too many times over");
    };
    // Decoding never removes a `.`, `/`, `:`, `\` or control character, so the fully decoded
    // form shows every trick hidden in the layers above it.
    if decoded.contains('\\') {
        return Some("the name contains a backslash; use '/' between path segments");
    }
    if decoded.chars().any(char::is_control) {
        return Some("the name contains a control character");
    }
    if decoded.starts_with('/') || has_drive_prefix(&decoded) {
        return Some("the name is an absolute path; give a path relative to the skill");
    }
    if decoded.contains("://") {
        return Some("the name is a URI; give a path relative to the skill");
    }
    if decoded
        .split(['/', '?', '#'])
        .any(|segment| segment.trim_end() == "..")
    {
        return Some("the name leaves the skill through a '..' segment");
    }
    None
}

/// `C:` at the start of a path.
pub(crate) fn has_drive_prefix(path: &str) -> bool {
    let bytes = path.as_bytes();
    bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':'
}

/// `name` percent-decoded until it no longer changes; `None` past [`MAX_DECODING_DEPTH`].
fn fully_decoded(name: &str) -> Option<String> {
    let mut current = name.to_owned();
    for _ in 0..=MAX_DECODING_DEPTH {
        let decoded = percent_decode_str(&current)
            .decode_utf8_lossy()
            .into_owned();
        if decoded == current {
            return Some(current);
        }
        current = decoded;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_names_pass() {
        for name in ["references/FAQ.md", "a%20b.md", "data.json", "x/..y/z.md"] {
            assert_eq!(unsafe_resource_name(name), None, "{name}");
        }
    }

    #[test]
    fn hostile_names_are_refused() {
        let deep = format!("%{}2e%{}2e/x", "25".repeat(40), "25".repeat(40));
        for name in [
            "",
            "../x",
            "a/../../x",
            "%2e%2e/x",
            "%252e%252e/x",
            ".. /x",
            "/etc/passwd",
            "%2fetc/passwd",
            "C:/Windows/win.ini",
            "a\\b",
            "..%5cx",
            "http://evil/x",
            "%68ttp%3a%2f%2fevil/x",
            "a/%00/b.md",
            "a.md?q=/../x",
            deep.as_str(),
        ] {
            assert!(unsafe_resource_name(name).is_some(), "{name}");
        }
    }
}
