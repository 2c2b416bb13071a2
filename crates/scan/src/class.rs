//! What kind of file a text is: below the rules, which it selects, and the normalisation, which
//! joins lines by it.

/// What kind of file a text is, which decides the rules that apply to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileClass {
    /// `SKILL.md` or another document (Markdown, text): read by the model.
    Document,
    /// A script (under `scripts/` or with an interpreter's extension).
    Script,
    /// Any other text file: only the Unicode rules.
    Other,
}

impl FileClass {
    /// The class of the file at `relative` (a skill-relative path, `/` between segments).
    pub(crate) fn of(relative: &str) -> Self {
        let name = relative.rsplit('/').next().unwrap_or(relative);
        let extension = name
            .rsplit_once('.')
            .map(|(_, extension)| extension.to_ascii_lowercase());
        match extension.as_deref() {
            Some("md" | "mdx" | "markdown" | "txt" | "rst") => Self::Document,
            Some(
                "py" | "sh" | "bash" | "zsh" | "js" | "mjs" | "cjs" | "ts" | "ps1" | "rb" | "pl"
                | "php" | "lua",
            ) => Self::Script,
            _ if relative.starts_with("scripts/") => Self::Script,
            _ => Self::Other,
        }
    }
}
