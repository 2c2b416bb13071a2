use indexmap::IndexMap;
use skillful_core::{Diagnostic, SPEC_FIELDS, Severity, SkillFrontmatter};
use unicode_normalization::UnicodeNormalization;

use crate::document::{Document, ParseOptions, parse};
use crate::parser::Node;

/// The longest name the specification allows, in characters.
pub const MAX_NAME_CHARS: usize = 64;
/// The longest description the specification allows, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// The longest compatibility note the specification allows, in characters.
pub const MAX_COMPATIBILITY_CHARS: usize = 500;

/// How hard validation is on frontmatter that breaks the specification.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ValidationMode {
    /// The Agent Skills specification as its reference validator `skills-ref` applies it: every
    /// violation is an error and rejects the skill (MAF's behaviour).
    Strict,
    /// The specification's advice to clients, as Codex and Claude Code behave: violations are
    /// warnings and the skill still loads. A skill is rejected only when its frontmatter is
    /// missing or unparseable or its description is empty.
    #[default]
    Lenient,
}

/// Frontmatter that passed validation, with the warnings found on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedFrontmatter {
    /// The frontmatter.
    pub frontmatter: SkillFrontmatter,
    /// Warnings; never an error.
    pub diagnostics: Vec<Diagnostic>,
}

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
    pub fn load(
        &self,
        text: &str,
        dir_name: Option<&str>,
    ) -> Result<LoadedFrontmatter, Vec<Diagnostic>> {
        let document = parse(text, &self.options)
            .map_err(|error| vec![Diagnostic::error("frontmatter", error.to_string())])?;
        validate(&document, dir_name, self.mode)
    }
}

/// Validates a parsed document's frontmatter against the specification.
///
/// # Errors
/// Every diagnostic, errors and warnings alike, when the skill is rejected.
pub fn validate(
    document: &Document<'_>,
    dir_name: Option<&str>,
    mode: ValidationMode,
) -> Result<LoadedFrontmatter, Vec<Diagnostic>> {
    let mut check = Checker {
        mode,
        diagnostics: Vec::new(),
    };
    let description = check.description(document.node("description"));
    let name = check.name(document.node("name"), dir_name);
    let mut frontmatter = SkillFrontmatter::new(
        name.unwrap_or_default(),
        description.clone().unwrap_or_default(),
    );
    for (key, node) in document.entries() {
        match key.as_str() {
            "name" | "description" => {}
            "license" => frontmatter.license = check.optional_text(key, node, &mut frontmatter),
            "compatibility" => {
                frontmatter.compatibility = check.optional_text(key, node, &mut frontmatter);
                if let Some(text) = &frontmatter.compatibility {
                    let chars = text.chars().count();
                    if chars > MAX_COMPATIBILITY_CHARS {
                        check.violation(
                            key,
                            format!(
                                "Skill compatibility must be {MAX_COMPATIBILITY_CHARS} characters or fewer (it has {chars}); shorten it"
                            ),
                        );
                    }
                }
            }
            "allowed-tools" => {
                frontmatter.allowed_tools = check.allowed_tools(node, &mut frontmatter)
            }
            "metadata" => frontmatter.metadata = check.metadata(node, &mut frontmatter),
            _ => {
                check.violation(
                    key,
                    format!(
                        "unknown top-level key `{key}`{}; the specification allows only {}: move it under `metadata:`",
                        if mode == ValidationMode::Lenient { " (kept in extra)" } else { "" },
                        SPEC_FIELDS.join(", ")
                    ),
                );
                frontmatter.extra.insert(key.clone(), node.to_value());
            }
        }
    }
    let rejected = check.diagnostics.iter().any(Diagnostic::is_error) || description.is_none();
    if rejected {
        Err(check.diagnostics)
    } else {
        Ok(LoadedFrontmatter {
            frontmatter,
            diagnostics: check.diagnostics,
        })
    }
}

struct Checker {
    mode: ValidationMode,
    diagnostics: Vec<Diagnostic>,
}

impl Checker {
    /// A breach of the specification: an error when strict, a warning when lenient.
    fn violation(&mut self, field: &str, message: String) {
        let severity = match self.mode {
            ValidationMode::Strict => Severity::Error,
            ValidationMode::Lenient => Severity::Warning,
        };
        self.push(severity, field, message);
    }

    fn push(&mut self, severity: Severity, field: &str, message: String) {
        self.diagnostics.push(match severity {
            Severity::Error => Diagnostic::error(field, message),
            Severity::Warning => Diagnostic::warning(field, message),
        });
    }

    fn description(&mut self, node: Option<&Node>) -> Option<String> {
        let text = match node {
            Some(node @ (Node::Sequence(_) | Node::Mapping(_))) => {
                self.push(
                    Severity::Error,
                    "description",
                    format!(
                        "Skill description must be text, not {}; write it as one string",
                        node.to_value().kind()
                    ),
                );
                return None;
            }
            Some(node) => node.scalar_text().unwrap_or_default(),
            None => "",
        };
        if text.trim().is_empty() {
            self.push(
                Severity::Error,
                "description",
                "Skill description is required: add `description:` saying what the skill does and when to use it".into(),
            );
            return None;
        }
        let chars = text.chars().count();
        if chars > MAX_DESCRIPTION_CHARS {
            self.violation(
                "description",
                format!(
                    "Skill description must be {MAX_DESCRIPTION_CHARS} characters or fewer (it has {chars}); shorten it"
                ),
            );
        }
        Some(text.to_owned())
    }

    /// The skill's name; when lenient and it is missing, the directory's name.
    fn name(&mut self, node: Option<&Node>, dir_name: Option<&str>) -> Option<String> {
        let written = match node {
            Some(node @ (Node::Sequence(_) | Node::Mapping(_))) => {
                let kind = node.to_value().kind();
                self.violation(
                    "name",
                    format!(
                        "Skill name must be text, not {kind}; write `name: {}`",
                        dir_name.unwrap_or("my-skill")
                    ),
                );
                None
            }
            Some(node) => node.scalar_text().map(str::trim).filter(|t| !t.is_empty()),
            None => None,
        };
        let Some(written) = written else {
            let fallback = dir_name.filter(|_| self.mode == ValidationMode::Lenient);
            match fallback {
                Some(dir) => self.push(
                    Severity::Warning,
                    "name",
                    format!("Skill name is required; using the directory name `{dir}`: add `name: {dir}`"),
                ),
                None => self.push(
                    Severity::Error,
                    "name",
                    format!("Skill name is required: add `name: {}`", dir_name.unwrap_or("my-skill")),
                ),
            }
            return fallback.map(str::to_owned);
        };
        let normalized: String = written.nfkc().collect();
        let chars = normalized.chars().count();
        if chars > MAX_NAME_CHARS {
            self.violation(
                "name",
                format!("Skill name must be {MAX_NAME_CHARS} characters or fewer (it has {chars}); shorten it"),
            );
        }
        let lowercase = normalized.to_lowercase();
        if lowercase != normalized {
            self.violation(
                "name",
                format!("Skill name `{normalized}` must be lowercase; rename it `{lowercase}`"),
            );
        }
        if normalized.starts_with('-') || normalized.ends_with('-') {
            self.violation(
                "name",
                format!("Skill name `{normalized}` must not start or end with a hyphen"),
            );
        }
        if normalized.contains("--") {
            self.violation(
                "name",
                format!("Skill name `{normalized}` must not contain consecutive hyphens"),
            );
        }
        let invalid: String = normalized
            .chars()
            .filter(|c| !(c.is_alphanumeric() || *c == '-'))
            .collect();
        if !invalid.is_empty() {
            self.violation(
                "name",
                format!(
                    "Skill name `{normalized}` must use only lowercase letters, digits and hyphens; remove or replace {:?}",
                    invalid
                ),
            );
        }
        if let Some(dir) = dir_name {
            let dir_normalized: String = dir.nfkc().collect();
            if dir_normalized != normalized {
                self.violation(
                    "name",
                    format!(
                        "Skill name `{normalized}` does not match its directory `{dir}`; rename one to match the other"
                    ),
                );
            }
        }
        Some(written.to_owned())
    }

    /// A field that should be one string (`license`, `compatibility`). Anything else is kept in
    /// `extra` with a diagnostic.
    fn optional_text(
        &mut self,
        field: &str,
        node: &Node,
        frontmatter: &mut SkillFrontmatter,
    ) -> Option<String> {
        if let Some(text) = node.scalar_text() {
            return Some(text.to_owned());
        }
        if !node.is_null() {
            let value = node.to_value();
            self.violation(
                field,
                format!(
                    "`{field}` must be text, not {}; it is kept in extra; write it as one string",
                    value.kind()
                ),
            );
            frontmatter.extra.insert(field.to_owned(), value);
        }
        None
    }

    /// `allowed-tools`: the specification's space-separated string, or the comma-separated string
    /// or list that Claude Code accepts.
    fn allowed_tools(
        &mut self,
        node: &Node,
        frontmatter: &mut SkillFrontmatter,
    ) -> Option<Vec<String>> {
        match node {
            Node::Scalar { .. } => node.scalar_text().map(split_tools),
            Node::Sequence(items) => {
                let mut tools = Vec::with_capacity(items.len());
                for item in items {
                    match item.scalar_text() {
                        Some(text) => tools.push(text.to_owned()),
                        None => {
                            self.violation(
                                "allowed-tools",
                                format!("`allowed-tools` must list tool names, not {}; it is kept in extra", item.to_value().kind()),
                            );
                            frontmatter
                                .extra
                                .insert("allowed-tools".into(), node.to_value());
                            return None;
                        }
                    }
                }
                Some(tools)
            }
            Node::Mapping(_) => {
                self.violation(
                    "allowed-tools",
                    "`allowed-tools` must be a space-separated string of tool names, not a mapping; it is kept in extra".into(),
                );
                frontmatter
                    .extra
                    .insert("allowed-tools".into(), node.to_value());
                None
            }
        }
    }

    /// `metadata`: a mapping whose values are kept as text.
    fn metadata(
        &mut self,
        node: &Node,
        frontmatter: &mut SkillFrontmatter,
    ) -> IndexMap<String, String> {
        let mut metadata = IndexMap::new();
        match node {
            Node::Mapping(entries) => {
                for (key, value) in entries {
                    let text = match value {
                        Node::Scalar { text, .. } => {
                            if value.is_null() {
                                String::new()
                            } else {
                                text.clone()
                            }
                        }
                        _ => {
                            let value = value.to_value();
                            self.violation(
                                "metadata",
                                format!(
                                    "`metadata.{key}` must be a string, not {}; it is kept as JSON text; quote it or flatten it",
                                    value.kind()
                                ),
                            );
                            serde_json::to_string(&value).unwrap_or_default()
                        }
                    };
                    metadata.insert(key.clone(), text);
                }
            }
            _ if node.is_null() => {}
            _ => {
                let value = node.to_value();
                self.violation(
                    "metadata",
                    format!("`metadata` must be a mapping of `key: value` lines, not {}; it is kept in extra", value.kind()),
                );
                frontmatter.extra.insert("metadata".into(), value);
            }
        }
        metadata
    }
}

/// Splits `Read Grep`, `Read, Grep` or `Bash(git add:*) Read` into tool names, keeping
/// parenthesised arguments whole.
fn split_tools(text: &str) -> Vec<String> {
    let mut tools = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 && (c == ',' || c.is_whitespace()) {
            if !current.is_empty() {
                tools.push(std::mem::take(&mut current));
            }
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        tools.push(current);
    }
    tools
}
