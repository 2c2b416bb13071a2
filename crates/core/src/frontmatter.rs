use indexmap::IndexMap;
use serde::Serialize;

use crate::value::{Mapping, Value};

/// The top-level keys the Agent Skills specification defines, in the order it lists them.
pub const SPEC_FIELDS: [&str; 6] = [
    "name",
    "description",
    "license",
    "compatibility",
    "allowed-tools",
    "metadata",
];

/// The frontmatter of a skill: the six fields of the Agent Skills specification, plus every other
/// top-level key, kept with its value rather than dropped.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct SkillFrontmatter {
    /// The skill's name: lowercase letters, digits and hyphens, at most 64 characters.
    pub name: String,
    /// What the skill does and when to use it; the model chooses skills by it.
    pub description: String,
    /// The license the skill is distributed under.
    pub license: Option<String>,
    /// The environment the skill needs (products, packages, network access).
    pub compatibility: Option<String>,
    /// Tools the skill may use without asking, from `allowed-tools`.
    pub allowed_tools: Option<Vec<String>>,
    /// The `metadata` mapping, each value as its text.
    pub metadata: IndexMap<String, String>,
    /// Every top-level key that is not one of [`SPEC_FIELDS`], in file order.
    pub extra: Mapping,
}

impl SkillFrontmatter {
    /// Frontmatter with a name and a description and nothing else.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            license: None,
            compatibility: None,
            allowed_tools: None,
            metadata: IndexMap::new(),
            extra: Mapping::new(),
        }
    }

    /// The frontmatter as the top-level fields of a `SKILL.md` would hold it, in the
    /// specification's order, then every key of [`SkillFrontmatter::extra`]: what the validator
    /// checks for skills built in code.
    pub fn to_fields(&self) -> Mapping {
        let mut fields = Mapping::new();
        fields.insert("name".into(), Value::String(self.name.clone()));
        fields.insert(
            "description".into(),
            Value::String(self.description.clone()),
        );
        if let Some(license) = &self.license {
            fields.insert("license".into(), Value::String(license.clone()));
        }
        if let Some(compatibility) = &self.compatibility {
            fields.insert("compatibility".into(), Value::String(compatibility.clone()));
        }
        if let Some(tools) = &self.allowed_tools {
            let tools = tools.iter().cloned().map(Value::String).collect();
            fields.insert("allowed-tools".into(), Value::Sequence(tools));
        }
        if !self.metadata.is_empty() {
            let metadata = self
                .metadata
                .iter()
                .map(|(key, value)| (key.clone(), Value::String(value.clone())))
                .collect();
            fields.insert("metadata".into(), Value::Mapping(metadata));
        }
        for (key, value) in &self.extra {
            fields.entry(key.clone()).or_insert_with(|| value.clone());
        }
        fields
    }
}
