//! The compiled patterns of the scanner, shared by the rules and the reading of their context.

use regex::Regex;

/// `pattern` compiled; the scanner's patterns are constants, so a bad one is a bug.
pub(crate) fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).expect("the scanner's patterns are valid")
}
