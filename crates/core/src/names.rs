//! Which names may address a file inside a skill: the one set of path-safety rules for resource
//! and script names the model sends, entries of archives, and `skill://` URIs of servers.
//!
//! A name is a `/`-separated path relative to the skill's directory. It is refused when it could
//! reach anything outside the skill, once every layer of percent-encoding is removed (decoding
//! never removes a `.`, `/`, `:`, `\` or control character, so the fully decoded form shows every
//! trick hidden in the layers above it).

use percent_encoding::percent_decode_str;

/// How many rounds of percent-decoding a name may need before it is refused.
const MAX_DECODING_DEPTH: usize = 8;

/// The longest name accepted, in bytes.
pub const MAX_NAME_BYTES: usize = 4096;

/// A name refused by [`RelativeName::new`]: the name and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unsafe name {name:?}: {reason}")]
pub struct UnsafeName {
    /// The name as given.
    pub name: String,
    /// Why it is refused, in words a person (or model) can act on.
    pub reason: &'static str,
}

/// A plain relative path inside a skill, checked once, when it is made: not empty, not absolute
/// (no leading `/`, no drive or scheme: no `:` at all), no backslash, no control character, no
/// empty, `.` or `..` segment (also before a `?` or `#`, and with trailing spaces), at most
/// [`MAX_NAME_BYTES`] bytes, and the same after percent-decoding it as many times as it decodes.
///
/// It is text as given (segments joined by `/`); serde reads it through the same check, so a
/// file or message that carries one cannot carry an unsafe name.
///
/// # Example
/// ```
/// use skillful_core::names::RelativeName;
///
/// let name = RelativeName::new("references/FAQ.md").unwrap();
/// assert_eq!(name.segments().collect::<Vec<_>>(), ["references", "FAQ.md"]);
/// assert!(RelativeName::new("../secrets").is_err());
/// assert!(RelativeName::new("%252e%252e/secrets").is_err());
/// let read: Result<RelativeName, _> = serde_json::from_str(r#""/etc/passwd""#);
/// assert!(read.unwrap_err().to_string().contains("absolute path"));
/// ```
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "String", into = "String")]
pub struct RelativeName(String);

impl RelativeName {
    /// `name` when it is a safe relative name.
    ///
    /// # Errors
    /// [`UnsafeName`] saying which rule the name breaks and how to write it instead.
    pub fn new(name: impl Into<String>) -> Result<Self, UnsafeName> {
        let name = name.into();
        check(&name)?;
        Ok(Self(name))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Its `/`-separated segments, in order.
    pub fn segments(&self) -> std::str::Split<'_, char> {
        self.0.split('/')
    }

    /// The name as owned text.
    pub fn into_string(self) -> String {
        self.0
    }
}

impl TryFrom<String> for RelativeName {
    type Error = UnsafeName;

    fn try_from(name: String) -> Result<Self, UnsafeName> {
        Self::new(name)
    }
}

impl From<RelativeName> for String {
    fn from(name: RelativeName) -> Self {
        name.0
    }
}

impl AsRef<str> for RelativeName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for RelativeName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The rules of [`RelativeName`].
fn check(name: &str) -> Result<(), UnsafeName> {
    let refuse = |reason| {
        Err(UnsafeName {
            name: name.to_owned(),
            reason,
        })
    };
    if name.trim().is_empty() {
        return refuse("the name is empty");
    }
    if name.len() > MAX_NAME_BYTES {
        return refuse("the name is longer than 4096 bytes");
    }
    let Some(decoded) = fully_decoded(name) else {
        return refuse("the name is percent-encoded too many times over");
    };
    if decoded.contains('\\') {
        return refuse("the name contains a backslash; use '/' between path segments");
    }
    if decoded.chars().any(char::is_control) {
        return refuse("the name contains a control character");
    }
    if decoded.starts_with('/') {
        return refuse("the name is an absolute path; give a path relative to the skill");
    }
    if decoded.contains(':') {
        return refuse(
            "the name contains ':' (a drive, a scheme or a stream); give a path relative to the skill",
        );
    }
    for segment in decoded.split(['/', '?', '#']) {
        match segment.trim_end() {
            ".." => return refuse("the name leaves the skill through a '..' segment"),
            "." => return refuse("the name has a '.' segment; write the path without it"),
            _ => {}
        }
    }
    if decoded.split('/').any(str::is_empty) {
        return refuse("the name has an empty segment ('//' or a trailing '/')");
    }
    Ok(())
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

    /// The one table of the workspace's path-safety rules.
    #[test]
    fn the_rules_table() {
        let deep = format!("%{}2e%{}2e/x", "25".repeat(12), "25".repeat(12));
        let long = "a/".repeat(2049) + "b";
        let cases: &[(&str, bool)] = &[
            ("references/FAQ.md", true),
            ("scripts/convert.py", true),
            ("SKILL.md", true),
            ("a%20b.md", true),
            ("100%.md", true),
            ("x/..y/z.md", true),
            ("what?.md", true),
            (".hidden/file.md", true),
            ("", false),
            ("   ", false),
            ("../x", false),
            ("a/../../x", false),
            ("a/..", false),
            ("%2e%2e/x", false),
            ("%252e%252e/x", false),
            (".. /x", false),
            ("./x", false),
            ("a//b", false),
            ("a/", false),
            ("/etc/passwd", false),
            ("%2fetc/passwd", false),
            ("C:/Windows/win.ini", false),
            ("c:x", false),
            ("a\\b", false),
            ("..%5cx", false),
            ("http://evil/x", false),
            ("%68ttp%3a%2f%2fevil/x", false),
            ("file.md:stream", false),
            ("a/%00/b.md", false),
            ("a\u{1b}[2Jb.md", false),
            ("a.md?q=/../x", false),
            ("a.md#../x", false),
            (deep.as_str(), false),
            (long.as_str(), false),
        ];
        for (name, safe) in cases {
            assert_eq!(
                RelativeName::new(*name).is_ok(),
                *safe,
                "{name:?}: {:?}",
                RelativeName::new(*name)
            );
        }
    }

    #[test]
    fn refusals_say_why() {
        let error = RelativeName::new("../x").unwrap_err();
        assert_eq!(error.name, "../x");
        assert!(error.to_string().contains("'..' segment"), "{error}");
    }
}
