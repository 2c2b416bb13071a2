use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use crate::text::one_line;

/// How serious a [`Diagnostic`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The skill still loads; something should be fixed.
    Warning,
    /// The skill is rejected.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// One finding about one field of one skill: what is wrong and how to fix it.
///
/// Displayed as `path: severity: field: message`, the line format of `skills validate`: one line
/// of text, whatever the path, field and message hold (each goes through
/// [`one_line`](crate::text::one_line), so a directory named with `ESC[2J` is shown, not obeyed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Diagnostic {
    /// The `SKILL.md` (or other file) the finding is about, when there is one.
    pub path: Option<PathBuf>,
    /// Whether the skill still loads.
    pub severity: Severity,
    /// The frontmatter field (`name`, `description`, ...) or `frontmatter` for the whole block.
    pub field: String,
    /// What is wrong and what to do about it.
    pub message: String,
}

impl Diagnostic {
    /// An error about `field`.
    pub fn error(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, field, message)
    }

    /// A warning about `field`.
    pub fn warning(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, field, message)
    }

    fn new(severity: Severity, field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: None,
            severity,
            field: field.into(),
            message: message.into(),
        }
    }

    /// The same finding, attributed to `path`.
    pub fn with_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// Whether this finding rejects the skill.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(path) = &self.path {
            write!(f, "{}: ", one_line(&path.display().to_string()))?;
        }
        write!(
            f,
            "{}: {}: {}",
            self.severity,
            one_line(&self.field),
            one_line(&self.message)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_display_is_one_line_of_text() {
        let diagnostic = Diagnostic::warning("name\u{1b}[2J", "bad\nfake: line\u{9b}")
            .with_path("/skills/x\u{1b}]0;owned\u{7}/SKILL.md");
        assert_eq!(
            diagnostic.to_string(),
            "/skills/x\\u{1b}]0;owned\\u{7}/SKILL.md: warning: name\\u{1b}[2J: \
             bad\\u{a}fake: line\\u{9b}"
        );
    }
}
