//! Loading: parse `SKILL.md` text, then validate its fields with the workspace's one validator
//! (`skillful_core::validate`).

use skillful_core::Diagnostic;
use skillful_core::validate::{Validated, ValidationMode, validate_fields};

use crate::document::{ParseOptions, parse};

/// Parses and validates `SKILL.md` text with one [`ValidationMode`] and one set of limits.
#[derive(Debug, Clone, Default)]
pub struct FrontmatterLoader {
    mode: ValidationMode,
    options: ParseOptions,
}

impl FrontmatterLoader {
    /// A loader with the default [`ParseOptions`].
    pub fn new(mode: ValidationMode) -> Self {
        Self {
            mode,
            options: ParseOptions::default(),
        }
    }

    /// The same loader with other limits.
    pub fn with_options(mut self, options: ParseOptions) -> Self {
        self.options = options;
        self
    }

    /// The validation mode.
    pub fn mode(&self) -> ValidationMode {
        self.mode
    }

    /// The parse limits.
    pub fn options(&self) -> &ParseOptions {
        &self.options
    }

    /// Parses `text` and validates its frontmatter; `dir_name` is the name of the directory
    /// holding the `SKILL.md`, which the skill's name must match.
    ///
    /// # Errors
    /// Every diagnostic, errors and warnings alike, when the skill is rejected. A parse error is
    /// reported on the field `frontmatter`. Diagnostics carry no path: the caller knows the file.
    pub fn load(&self, text: &str, dir_name: Option<&str>) -> Result<Validated, Vec<Diagnostic>> {
        let document = parse(text, &self.options)
            .map_err(|error| vec![Diagnostic::error("frontmatter", error.to_string())])?;
        validate_fields(&document.fields(), dir_name, self.mode)
    }
}
