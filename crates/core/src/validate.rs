//! The one validator of the workspace: the Agent Skills specification's rules applied to a
//! skill's frontmatter fields, whatever source they come from (a parsed `SKILL.md`, a skill built
//! in code, a plugin, an MCP server's listing).
//!
//! It works on typed [`Value`]s, never on text or YAML nodes: a file source parses first, an MCP
//! source reads JSON first, an inline skill starts from a [`SkillFrontmatter`].

use std::borrow::Cow;

use indexmap::IndexMap;
use unicode_normalization::UnicodeNormalization;

use crate::diagnostic::{Diagnostic, Severity};
use crate::frontmatter::{SPEC_FIELDS, SkillFrontmatter};
use crate::text::is_invisible;
use crate::value::{Mapping, Value};

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
pub struct Validated {
    /// The frontmatter.
    pub frontmatter: SkillFrontmatter,
    /// Warnings; never an error.
    pub diagnostics: Vec<Diagnostic>,
}

/// Validates the top-level fields of a skill's frontmatter and builds its [`SkillFrontmatter`].
///
/// `expected_name` is the name the skill's location gives it (its directory, the last segment
/// of its URI), which the skill's name must match; when lenient and the name is missing, the
/// skill takes it.
///
/// # Errors
/// Every diagnostic, errors and warnings alike, when the skill is rejected.
///
/// # Example
/// ```
/// use skillful_core::validate::{ValidationMode, validate_fields};
/// use skillful_core::{Mapping, Value};
///
/// let mut fields = Mapping::new();
/// fields.insert("name".into(), Value::String("Pdf".into()));
/// fields.insert("description".into(), Value::String("Fills PDF forms.".into()));
/// let lenient = validate_fields(&fields, Some("Pdf"), ValidationMode::Lenient).unwrap();
/// assert_eq!(lenient.diagnostics[0].field, "name");
/// assert!(validate_fields(&fields, Some("Pdf"), ValidationMode::Strict).is_err());
/// ```
pub fn validate_fields(
    fields: &Mapping,
    expected_name: Option<&str>,
    mode: ValidationMode,
) -> Result<Validated, Vec<Diagnostic>> {
    let mut check = Checker {
        mode,
        diagnostics: Vec::new(),
    };
    let description = check.description(fields.get("description"));
    let name = check.name(fields.get("name"), expected_name);
    let mut frontmatter = SkillFrontmatter::new(
        name.unwrap_or_default(),
        description.clone().unwrap_or_default(),
    );
    for (key, value) in fields {
        match key.as_str() {
            "name" | "description" => {}
            "license" => frontmatter.license = check.optional_text(key, value, &mut frontmatter),
            "compatibility" => {
                frontmatter.compatibility = check.optional_text(key, value, &mut frontmatter);
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
                frontmatter.allowed_tools = check.allowed_tools(value, &mut frontmatter)
            }
            "metadata" => frontmatter.metadata = check.metadata(value, &mut frontmatter),
            _ => {
                check.violation(
                    key,
                    format!(
                        "unknown top-level key `{key}`{}; the specification allows only {}: move it under `metadata:`",
                        if mode == ValidationMode::Lenient { " (kept in extra)" } else { "" },
                        SPEC_FIELDS.join(", ")
                    ),
                );
                frontmatter.extra.insert(key.clone(), value.clone());
            }
        }
    }
    if let Some(warning) = mixed_scripts(&frontmatter.name) {
        check.diagnostics.push(warning);
    }
    let rejected = check.diagnostics.iter().any(Diagnostic::is_error) || description.is_none();
    if rejected {
        Err(check.diagnostics)
    } else {
        Ok(Validated {
            frontmatter,
            diagnostics: check.diagnostics,
        })
    }
}

/// Validates frontmatter built in code (an inline skill, a plugin) by the same rules as a
/// `SKILL.md`: it is checked as the fields it would be written as.
///
/// # Errors
/// Every diagnostic, errors and warnings alike, when the skill is rejected.
pub fn validate_frontmatter(
    frontmatter: &SkillFrontmatter,
    mode: ValidationMode,
) -> Result<Validated, Vec<Diagnostic>> {
    validate_fields(&frontmatter.to_fields(), None, mode)
}

/// The most invisible characters a diagnostic spells out.
const SHOWN_INVISIBLE: usize = 8;

/// A diagnostic when `text` (the `field` of a skill) holds [invisible](is_invisible) characters
/// (format characters such as zero-width spaces, U+2060, LRM/RLM, U+FEFF and the bidirectional
/// overrides; tag characters, which can spell out hidden text; private-use characters): an error
/// when strict, a warning when lenient. The message shows them escaped (`\u{e0049}`).
fn invisible_characters(field: &str, text: &str, mode: ValidationMode) -> Option<Diagnostic> {
    let found: Vec<char> = text.chars().filter(|c| is_invisible(*c)).collect();
    if found.is_empty() {
        return None;
    }
    let mut shown: Vec<String> = found
        .iter()
        .take(SHOWN_INVISIBLE)
        .map(|c| format!("\\u{{{:x}}}", u32::from(*c)))
        .collect();
    if found.len() > SHOWN_INVISIBLE {
        shown.push(format!("and {} more", found.len() - SHOWN_INVISIBLE));
    }
    let message = format!(
        "Skill {field} contains {} invisible character(s) ({}): format, tag or private-use characters can hide text from whoever reads the skill; remove them",
        found.len(),
        shown.join(", ")
    );
    Some(match mode {
        ValidationMode::Strict => Diagnostic::error(field, message),
        ValidationMode::Lenient => Diagnostic::warning(field, message),
    })
}

/// A warning when a skill's body (its instructions) holds [invisible](is_invisible) characters:
/// the body is not checked by the specification, so this never rejects a skill.
///
/// # Example
/// ```
/// use skillful_core::validate::body_warning;
///
/// assert!(body_warning("Run scripts/x.sh.").is_none());
/// let warning = body_warning("Run it.\u{e0049}\u{e0067}").unwrap();
/// assert!(!warning.is_error() && warning.message.contains("\\u{e0049}"));
/// ```
pub fn body_warning(body: &str) -> Option<Diagnostic> {
    invisible_characters("body", body, ValidationMode::Lenient)
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

    fn description(&mut self, value: Option<&Value>) -> Option<String> {
        let text = match value {
            Some(value @ (Value::Sequence(_) | Value::Mapping(_))) => {
                self.push(
                    Severity::Error,
                    "description",
                    format!(
                        "Skill description must be text, not {}; write it as one string",
                        value.kind()
                    ),
                );
                return None;
            }
            Some(value) => value.scalar_text().unwrap_or_default(),
            None => Cow::Borrowed(""),
        };
        if text.trim().is_empty() {
            self.push(
                Severity::Error,
                "description",
                "Skill description is required: add `description:` saying what the skill does and when to use it".into(),
            );
            return None;
        }
        self.invisible("description", &text);
        let chars = text.chars().count();
        if chars > MAX_DESCRIPTION_CHARS {
            self.violation(
                "description",
                format!(
                    "Skill description must be {MAX_DESCRIPTION_CHARS} characters or fewer (it has {chars}); shorten it"
                ),
            );
        }
        Some(text.into_owned())
    }

    /// A violation when `text` holds [invisible](is_invisible) characters (format, tag or
    /// private-use characters), which can hide instructions from whoever reads the skill.
    fn invisible(&mut self, field: &str, text: &str) {
        if let Some(diagnostic) = invisible_characters(field, text, self.mode) {
            self.diagnostics.push(diagnostic);
        }
    }

    /// The skill's name; when lenient and it is missing, the expected one.
    fn name(&mut self, value: Option<&Value>, expected: Option<&str>) -> Option<String> {
        let text = self.name_text(value, expected);
        let written = text
            .as_deref()
            .map(str::trim)
            .filter(|text| !text.is_empty());
        let Some(written) = written else {
            return self.missing_name(expected);
        };
        self.invisible("name", written);
        let normalized: String = written.nfkc().collect();
        self.name_characters(&normalized);
        if let Some(expected) = expected {
            let expected_normalized: String = expected.nfkc().collect();
            if expected_normalized != normalized {
                self.violation(
                    "name",
                    format!(
                        "Skill name `{normalized}` does not match its directory `{expected}`; rename one to match the other"
                    ),
                );
            }
        }
        Some(written.to_owned())
    }

    /// The text of the `name` value: none when it is missing or a list or mapping (which is a
    /// violation).
    fn name_text<'v>(
        &mut self,
        value: Option<&'v Value>,
        expected: Option<&str>,
    ) -> Option<std::borrow::Cow<'v, str>> {
        match value {
            Some(value @ (Value::Sequence(_) | Value::Mapping(_))) => {
                self.violation(
                    "name",
                    format!(
                        "Skill name must be text, not {}; write `name: {}`",
                        value.kind(),
                        expected.unwrap_or("my-skill")
                    ),
                );
                None
            }
            Some(value) => value.scalar_text(),
            None => None,
        }
    }

    /// A missing name: an error, or when lenient a warning and the directory's name instead.
    fn missing_name(&mut self, expected: Option<&str>) -> Option<String> {
        let fallback = expected.filter(|_| self.mode == ValidationMode::Lenient);
        match fallback {
            Some(dir) => self.push(
                Severity::Warning,
                "name",
                format!(
                    "Skill name is required; using the directory name `{dir}`: add `name: {dir}`"
                ),
            ),
            None => self.push(
                Severity::Error,
                "name",
                format!(
                    "Skill name is required: add `name: {}`",
                    expected.unwrap_or("my-skill")
                ),
            ),
        }
        fallback.map(str::to_owned)
    }

    /// The spec's rules for the characters of a name (`normalized` is NFKC): length, lowercase,
    /// hyphens, no `:`, letters, digits and hyphens only.
    fn name_characters(&mut self, normalized: &str) {
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
        if normalized.contains(':') {
            // Refused even when lenient: `label:name` is how the composition names an MCP skill
            // whose name is taken, and no skill may pass for one.
            self.push(
                Severity::Error,
                "name",
                format!(
                    "Skill name `{normalized}` must not contain ':' (`label:name` names a renamed MCP skill); rename it, e.g. `{}`",
                    normalized.replace(':', "-")
                ),
            );
        }
        let invalid: String = normalized
            .chars()
            // ':' and invisible characters have diagnostics of their own.
            .filter(|c| !(c.is_alphanumeric() || *c == '-' || *c == ':' || is_invisible(*c)))
            .collect();
        if !invalid.is_empty() {
            self.violation(
                "name",
                format!(
                    "Skill name `{normalized}` must use only lowercase letters, digits and hyphens; remove or replace {invalid:?}"
                ),
            );
        }
    }

    /// A field that should be one string (`license`, `compatibility`). Anything else is kept in
    /// `extra` with a diagnostic.
    fn optional_text(
        &mut self,
        field: &str,
        value: &Value,
        frontmatter: &mut SkillFrontmatter,
    ) -> Option<String> {
        if let Some(text) = value.scalar_text() {
            return Some(text.into_owned());
        }
        if *value != Value::Null {
            self.violation(
                field,
                format!(
                    "`{field}` must be text, not {}; it is kept in extra; write it as one string",
                    value.kind()
                ),
            );
            frontmatter.extra.insert(field.to_owned(), value.clone());
        }
        None
    }

    /// `allowed-tools`: the specification's space-separated string, or the comma-separated string
    /// or list that Claude Code accepts.
    fn allowed_tools(
        &mut self,
        value: &Value,
        frontmatter: &mut SkillFrontmatter,
    ) -> Option<Vec<String>> {
        match value {
            Value::Sequence(items) => {
                let mut tools = Vec::with_capacity(items.len());
                for item in items {
                    match item.scalar_text() {
                        Some(text) => tools.push(text.into_owned()),
                        None => {
                            self.violation(
                                "allowed-tools",
                                format!("`allowed-tools` must list tool names, not {}; it is kept in extra", item.kind()),
                            );
                            frontmatter
                                .extra
                                .insert("allowed-tools".into(), value.clone());
                            return None;
                        }
                    }
                }
                Some(tools)
            }
            Value::Mapping(_) => {
                self.violation(
                    "allowed-tools",
                    "`allowed-tools` must be a space-separated string of tool names, not a mapping; it is kept in extra".into(),
                );
                frontmatter
                    .extra
                    .insert("allowed-tools".into(), value.clone());
                None
            }
            scalar => scalar.scalar_text().map(|text| split_tools(&text)),
        }
    }

    /// `metadata`: a mapping whose values are kept as text.
    fn metadata(
        &mut self,
        value: &Value,
        frontmatter: &mut SkillFrontmatter,
    ) -> IndexMap<String, String> {
        let mut metadata = IndexMap::new();
        match value {
            Value::Mapping(entries) => {
                for (key, value) in entries {
                    let text = match value {
                        Value::Sequence(_) | Value::Mapping(_) => {
                            self.violation(
                                "metadata",
                                format!(
                                    "`metadata.{key}` must be a string, not {}; it is kept as JSON text; quote it or flatten it",
                                    value.kind()
                                ),
                            );
                            serde_json::to_string(value).unwrap_or_default()
                        }
                        scalar => scalar.scalar_text().unwrap_or_default().into_owned(),
                    };
                    metadata.insert(key.clone(), text);
                }
            }
            Value::Null => {}
            _ => {
                self.violation(
                    "metadata",
                    format!("`metadata` must be a mapping of `key: value` lines, not {}; it is kept in extra", value.kind()),
                );
                frontmatter.extra.insert("metadata".into(), value.clone());
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

/// The writing system of a letter, coarsely: enough to tell Latin from its look-alikes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Script {
    Latin,
    Greek,
    Cyrillic,
    Armenian,
    Other,
}

fn script_of(c: char) -> Option<Script> {
    if !c.is_alphabetic() {
        return None;
    }
    Some(match c as u32 {
        0x41..=0x5A | 0x61..=0x7A | 0xC0..=0x24F | 0x1E00..=0x1EFF | 0xFF21..=0xFF5A => {
            Script::Latin
        }
        0x370..=0x3FF | 0x1F00..=0x1FFF => Script::Greek,
        0x400..=0x52F | 0x1C80..=0x1C8F | 0x2DE0..=0x2DFF | 0xA640..=0xA69F => Script::Cyrillic,
        0x530..=0x58F => Script::Armenian,
        _ => Script::Other,
    })
}

/// A warning when `name` mixes Latin letters with letters of a script that has Latin
/// look-alikes (Greek, Cyrillic, Armenian): `pdf-tооls` with Cyrillic `о`s reads as `pdf-tools`.
fn mixed_scripts(name: &str) -> Option<Diagnostic> {
    let mut scripts: Vec<Script> = name.chars().filter_map(script_of).collect();
    scripts.sort_by_key(|script| *script as u8);
    scripts.dedup();
    let confusable = scripts.contains(&Script::Latin)
        && scripts
            .iter()
            .any(|s| matches!(s, Script::Greek | Script::Cyrillic | Script::Armenian));
    confusable.then(|| {
        Diagnostic::warning(
            "name",
            format!(
                "Skill name `{}` mixes Latin letters with Greek, Cyrillic or Armenian ones that look alike; it can pass for another skill's name: use one alphabet",
                confusable_shown(name)
            ),
        )
    })
}

/// `name` with every non-ASCII letter shown as its code point, so look-alikes can be told apart.
pub fn confusable_shown(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii() {
                c.to_string()
            } else {
                format!("[U+{:04X}]", c as u32)
            }
        })
        .collect()
}

/// The skeleton of a name for confusable comparison: look-alike letters of Greek, Cyrillic and
/// Armenian folded to the Latin letters they imitate, after NFKC and lowercasing. Two names
/// with the same skeleton read the same.
///
/// # Example
/// ```
/// use skillful_core::validate::skeleton;
/// assert_eq!(skeleton("pdf-t\u{43e}\u{43e}ls"), skeleton("pdf-tools"));
/// assert_ne!(skeleton("pdf-tools"), skeleton("pdf-tool"));
/// ```
pub fn skeleton(name: &str) -> String {
    // NFKC leaves ASCII as it is and no confusable is ASCII: the common case needs neither.
    if name.is_ascii() {
        return name.to_ascii_lowercase();
    }
    name.nfkc()
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            'а' | 'α' => 'a',
            'в' | 'β' => 'b',
            'с' | 'ϲ' => 'c',
            'ԁ' => 'd',
            'е' | 'ε' => 'e',
            'һ' => 'h',
            'і' | 'ι' | 'ӏ' => 'i',
            'ј' => 'j',
            'к' | 'κ' => 'k',
            'м' => 'm',
            'п' | 'η' => 'n',
            'о' | 'ο' | 'օ' => 'o',
            'р' | 'ρ' => 'p',
            'ԛ' => 'q',
            'ѕ' => 's',
            'т' | 'τ' => 't',
            'υ' | 'ս' => 'u',
            'ν' => 'v',
            'ԝ' | 'ω' => 'w',
            'х' | 'χ' => 'x',
            'у' | 'γ' => 'y',
            other => other,
        })
        .collect()
}
