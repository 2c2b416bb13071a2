//! What a plugin author writes: a type implementing [`ClassSkill`], its resources and scripts as
//! methods.

use std::fmt;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use skillful_core::{RiskTier, SkillFrontmatter};

type ReadFn<S> = dyn Fn(&S) -> Result<String, String> + Send + Sync;
type RunFn<S> = dyn Fn(&S, &str) -> Result<String, String> + Send + Sync;

/// A skill written as an ordinary Rust type, exported from a plugin library with
/// [`export_skill!`](crate::export_skill).
///
/// The type is built once, with [`Default`], when the host first asks for the skill; its
/// resources and scripts are methods over `&self`. See the crate documentation for an example.
pub trait ClassSkill: Default + Send + Sync + Sized + 'static {
    /// The frontmatter: name and description at least; `metadata` may declare the scripts' risk
    /// tiers (`risk`, `risk.SCRIPT`) as in `SKILL.md`.
    fn frontmatter(&self) -> SkillFrontmatter;

    /// The instructions the model follows once it loads the skill.
    fn instructions(&self) -> String;

    /// The resources the skill advertises, in order.
    fn resources(&self) -> Vec<Resource<Self>> {
        Vec::new()
    }

    /// The scripts the skill advertises, in order.
    fn scripts(&self) -> Vec<Script<Self>> {
        Vec::new()
    }
}

/// A resource of a [`ClassSkill`]: fixed text, or text a method produces on every read.
pub struct Resource<S> {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) value: ResourceValue<S>,
}

pub(crate) enum ResourceValue<S> {
    Text(String),
    Dynamic(Box<ReadFn<S>>),
}

impl<S> Resource<S> {
    /// A resource whose text never changes.
    pub fn text(name: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: None,
            value: ResourceValue::Text(text.into()),
        }
    }

    /// A resource whose text `read` (typically a method, `Self::current_time`) produces afresh
    /// on every read; an `Err` reaches the model as the read's error.
    pub fn dynamic<E: fmt::Display>(
        name: impl Into<String>,
        read: impl Fn(&S) -> Result<String, E> + Send + Sync + 'static,
    ) -> Self {
        Self {
            name: name.into(),
            description: None,
            value: ResourceValue::Dynamic(Box::new(move |skill| {
                read(skill).map_err(|error| error.to_string())
            })),
        }
    }

    /// The same resource, described to the model in the skill's resource listing.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

impl<S> fmt::Debug for Resource<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.value {
            ResourceValue::Text(_) => "text",
            ResourceValue::Dynamic(_) => "dynamic",
        };
        f.debug_struct("Resource")
            .field("name", &self.name)
            .field("description", &self.description)
            .field("kind", &kind)
            .finish()
    }
}

/// A script of a [`ClassSkill`]: a method over a `serde` argument type, whose JSON schema
/// (derived with `schemars`) the model is shown.
pub struct Script<S> {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) schema: serde_json::Value,
    pub(crate) risk: Option<RiskTier>,
    pub(crate) run: Box<RunFn<S>>,
}

impl<S> Script<S> {
    /// A script named `name` that runs `run` (typically a method, `Self::convert`) on the
    /// model's arguments deserialised into `Args`.
    ///
    /// Arguments that do not fit `Args` are refused before `run` is called; an `Err` of `run`
    /// reaches the model as the script's error. A blank `description` is not shown.
    pub fn new<Args, E>(
        name: impl Into<String>,
        description: impl Into<String>,
        run: impl Fn(&S, Args) -> Result<String, E> + Send + Sync + 'static,
    ) -> Self
    where
        Args: DeserializeOwned + JsonSchema,
        E: fmt::Display,
    {
        Self {
            name: name.into(),
            description: Some(description.into()).filter(|text| !text.trim().is_empty()),
            schema: skillful_core::arguments_schema::<Args>(),
            risk: None,
            run: Box::new(move |skill, arguments| {
                let arguments = serde_json::from_str::<Args>(arguments)
                    .map_err(|error| format!("invalid arguments: {error}"))?;
                run(skill, arguments).map_err(|error| error.to_string())
            }),
        }
    }

    /// The same script, with the risk tier an approval policy decides by; without one it has the
    /// tier its skill's `metadata` declares, else [`RiskTier::SCRIPT_DEFAULT`].
    pub fn with_risk_tier(mut self, tier: RiskTier) -> Self {
        self.risk = Some(tier);
        self
    }
}

impl<S> fmt::Debug for Script<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Script")
            .field("name", &self.name)
            .field("description", &self.description)
            .field("schema", &self.schema)
            .field("risk", &self.risk)
            .finish_non_exhaustive()
    }
}
