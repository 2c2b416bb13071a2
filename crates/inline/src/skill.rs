//! Skills built in code: instructions, resources (static text or an async closure read afresh each
//! time) and in-process scripts over a typed argument struct.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
#[cfg(feature = "typed-scripts")]
use schemars::JsonSchema;
#[cfg(feature = "typed-scripts")]
use serde::de::DeserializeOwned;
use skillful_core::validate::{ValidationMode, body_warning, validate_frontmatter};
use skillful_core::{
    DEFAULT_SCRIPT_TIMEOUT, DeclaredRisk, Diagnostic, ResourceContent, RiskTier, Skill,
    SkillDocument, SkillError, SkillFrontmatter, SkillOrigin, SkillResource, SkillScript,
    SkillsSource, SourceContext,
};

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;
type ReadFn = dyn Fn() -> BoxFuture<Result<String, SkillError>> + Send + Sync;
type RunFn = dyn Fn(serde_json::Value) -> BoxFuture<Result<String, SkillError>> + Send + Sync;

/// Why an [`InlineSkill`] could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InlineSkillError {
    /// The frontmatter breaks the specification (the same validator and diagnostics as a
    /// `SKILL.md`: lenient by default, [`InlineSkillBuilder::validation`] to change it).
    #[error("inline skill '{skill}' is invalid: {}", reasons(.diagnostics))]
    Invalid {
        /// The skill's name, as given.
        skill: String,
        /// Every finding, errors and warnings alike.
        diagnostics: Vec<Diagnostic>,
    },
    /// The skill's instructions are empty or only whitespace.
    #[error("inline skill '{skill}' has no instructions; give it some text")]
    NoInstructions {
        /// The skill's name.
        skill: String,
    },
    /// A resource or script has an empty name.
    #[error("skill '{skill}' has a {kind} with a blank name; name it")]
    BlankMemberName {
        /// The skill's name.
        skill: String,
        /// `resource` or `script`.
        kind: &'static str,
    },
    /// Two resources, or two scripts, share a name.
    #[error("skill '{skill}' has two {kind}s named '{name}'; give each a unique name")]
    DuplicateMember {
        /// The skill's name.
        skill: String,
        /// `resource` or `script`.
        kind: &'static str,
        /// The shared name.
        name: String,
    },
}

fn reasons(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.is_error())
        .map(|diagnostic| format!("{}: {}", diagnostic.field, diagnostic.message))
        .collect::<Vec<_>>()
        .join("; ")
}

/// A skill defined in code, built with [`InlineSkill::builder`].
///
/// Its frontmatter is checked by the same validator as a `SKILL.md`'s; `load_skill` shows it the
/// way it shows every skill (`skillful_provider::render_skill`).
///
/// # Example
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use skillful_core::Skill;
/// use skillful_inline::InlineSkill;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Convert {
///     /// The value to convert.
///     value: f64,
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// let skill = InlineSkill::builder("unit-converter", "Converts units.")
///     .instructions("Use the table, then the script.")
///     .resource("table", "1 mile = 1.609344 km")
///     .script("miles-to-km", "Converts miles to kilometres.", |args: Convert| async move {
///         Ok(format!("{} km", args.value * 1.609344))
///     })
///     .build()
///     .unwrap();
/// let output = skill.scripts()[0].run(serde_json::json!({"value": 2.0})).await.unwrap();
/// assert_eq!(output, "3.218688 km");
/// assert_eq!(skill.document().await.unwrap().body, "Use the table, then the script.");
/// # });
/// ```
pub struct InlineSkill {
    frontmatter: SkillFrontmatter,
    origin: SkillOrigin,
    instructions: String,
    resources: Vec<Arc<dyn SkillResource>>,
    scripts: Vec<Arc<dyn SkillScript>>,
    diagnostics: Vec<Diagnostic>,
}

impl InlineSkill {
    /// Starts a skill with the frontmatter's two required fields.
    pub fn builder(name: impl Into<String>, description: impl Into<String>) -> InlineSkillBuilder {
        Self::builder_from(SkillFrontmatter::new(name, description))
    }

    /// Starts a skill with complete frontmatter (license, metadata, ...).
    pub fn builder_from(frontmatter: SkillFrontmatter) -> InlineSkillBuilder {
        InlineSkillBuilder {
            frontmatter,
            instructions: String::new(),
            resources: Vec::new(),
            scripts: Vec::new(),
            validation: ValidationMode::default(),
            script_timeout: DEFAULT_SCRIPT_TIMEOUT,
        }
    }

    /// The instructions, as given.
    pub fn instructions(&self) -> &str {
        &self.instructions
    }

    /// The same skill with another origin (a host that builds skills of its own kind on inline
    /// skills, such as plugins, says where they came from; default [`SkillOrigin::inline`]).
    pub fn with_origin(mut self, origin: SkillOrigin) -> Self {
        self.origin = origin;
        self
    }
}

impl fmt::Debug for InlineSkill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InlineSkill")
            .field("name", &self.frontmatter.name)
            .field("resources", &self.resources)
            .field("scripts", &self.scripts)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl Skill for InlineSkill {
    fn frontmatter(&self) -> &SkillFrontmatter {
        &self.frontmatter
    }

    fn origin(&self) -> &SkillOrigin {
        &self.origin
    }

    async fn document(&self) -> Result<SkillDocument, SkillError> {
        Ok(SkillDocument::instructions(self.instructions.clone()))
    }

    fn resources(&self) -> Vec<Arc<dyn SkillResource>> {
        self.resources.clone()
    }

    fn scripts(&self) -> Vec<Arc<dyn SkillScript>> {
        self.scripts.clone()
    }

    fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }
}

/// Collects an [`InlineSkill`]'s parts; [`InlineSkillBuilder::build`] checks them.
#[derive(Debug)]
#[must_use]
pub struct InlineSkillBuilder {
    frontmatter: SkillFrontmatter,
    instructions: String,
    resources: Vec<InlineResource>,
    scripts: Vec<InlineScript>,
    validation: ValidationMode,
    script_timeout: Duration,
}

impl InlineSkillBuilder {
    /// Sets the instructions the model follows once it loads the skill.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = instructions.into();
        self
    }

    /// Adds a resource whose text never changes.
    pub fn resource(self, name: impl Into<String>, text: impl Into<String>) -> Self {
        self.add_resource(InlineResource::text(name, text))
    }

    /// Adds a resource produced by `read` on every read.
    pub fn dynamic_resource<F, Fut>(self, name: impl Into<String>, read: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, SkillError>> + Send + 'static,
    {
        self.add_resource(InlineResource::dynamic(name, read))
    }

    /// Adds a resource built separately (to give it a description).
    pub fn add_resource(mut self, resource: InlineResource) -> Self {
        self.resources.push(resource);
        self
    }

    /// Adds a script that runs `run` in-process on arguments deserialised into `Args`; the
    /// schema the model sees is derived from `Args` (see [`InlineScript::new`]). Feature
    /// `typed-scripts` (default).
    #[cfg(feature = "typed-scripts")]
    pub fn script<Args, F, Fut>(
        self,
        name: impl Into<String>,
        description: impl Into<String>,
        run: F,
    ) -> Self
    where
        Args: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(Args) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, SkillError>> + Send + 'static,
    {
        self.add_script(InlineScript::new(name, description, run))
    }

    /// Adds a script built separately.
    pub fn add_script(mut self, script: InlineScript) -> Self {
        self.scripts.push(script);
        self
    }

    /// How strictly the frontmatter is checked (default lenient, as for file skills).
    pub fn validation(mut self, mode: ValidationMode) -> Self {
        self.validation = mode;
        self
    }

    /// How long a script of this skill may run before its call is abandoned with
    /// [`SkillError::ScriptTimedOut`] (default [`DEFAULT_SCRIPT_TIMEOUT`], as for file scripts;
    /// enforced where the provider runs every script, `skillful_provider::run_script`); a
    /// script's own [`InlineScript::with_timeout`] wins.
    pub fn script_timeout(mut self, timeout: Duration) -> Self {
        self.script_timeout = timeout;
        self
    }

    /// Checks the parts and builds the skill.
    ///
    /// The frontmatter goes through the workspace's one validator (warnings are kept:
    /// [`Skill::diagnostics`]). A script without a tier of its own
    /// ([`InlineScript::with_risk_tier`]) gets the one the skill's `metadata` declares for it
    /// (see [`DeclaredRisk`]), else [`RiskTier::SCRIPT_DEFAULT`]; a bad declaration is a warning
    /// and is ignored, as for every source.
    ///
    /// # Errors
    /// Frontmatter the validator rejects; blank instructions; a resource or script with a blank
    /// name; two resources or two scripts with the same name.
    pub fn build(mut self) -> Result<InlineSkill, InlineSkillError> {
        let validated =
            validate_frontmatter(&self.frontmatter, self.validation).map_err(|diagnostics| {
                InlineSkillError::Invalid {
                    skill: self.frontmatter.name.clone(),
                    diagnostics,
                }
            })?;
        let skill = validated.frontmatter.name.clone();
        if self.instructions.trim().is_empty() {
            return Err(InlineSkillError::NoInstructions { skill });
        }
        check_member_names(&skill, "resource", self.resources.iter().map(|r| r.name()))?;
        check_member_names(&skill, "script", self.scripts.iter().map(|s| s.name()))?;
        let (declared, warnings) = DeclaredRisk::for_scripts(
            &validated.frontmatter.metadata,
            self.scripts.iter().map(|script| script.name.as_str()),
        );
        let mut diagnostics = validated.diagnostics;
        diagnostics.extend(warnings);
        diagnostics.extend(body_warning(&self.instructions));
        for diagnostic in &diagnostics {
            tracing::warn!(skill = %skill, field = %diagnostic.field, "{}", diagnostic.message);
        }
        for script in &mut self.scripts {
            script.risk.get_or_insert(declared.script(&script.name));
            script.timeout.get_or_insert(self.script_timeout);
        }
        Ok(InlineSkill {
            resources: self
                .resources
                .into_iter()
                .map(|resource| Arc::new(resource) as Arc<dyn SkillResource>)
                .collect(),
            scripts: self
                .scripts
                .into_iter()
                .map(|script| Arc::new(script) as Arc<dyn SkillScript>)
                .collect(),
            frontmatter: validated.frontmatter,
            origin: SkillOrigin::inline(),
            instructions: self.instructions,
            diagnostics,
        })
    }
}

fn check_member_names<'a>(
    skill: &str,
    kind: &'static str,
    names: impl Iterator<Item = &'a str>,
) -> Result<(), InlineSkillError> {
    let mut seen = std::collections::HashSet::new();
    for name in names {
        if name.trim().is_empty() {
            return Err(InlineSkillError::BlankMemberName {
                skill: skill.to_owned(),
                kind,
            });
        }
        if !seen.insert(name) {
            return Err(InlineSkillError::DuplicateMember {
                skill: skill.to_owned(),
                kind,
                name: name.to_owned(),
            });
        }
    }
    Ok(())
}

/// A resource of an [`InlineSkill`]: fixed text, or text produced by a closure on every read.
pub struct InlineResource {
    name: String,
    description: Option<String>,
    value: ResourceValue,
}

enum ResourceValue {
    Text(String),
    Dynamic(Box<ReadFn>),
}

impl InlineResource {
    /// A resource whose text never changes.
    pub fn text(name: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: None,
            value: ResourceValue::Text(text.into()),
        }
    }

    /// A resource whose text `read` produces afresh on every read.
    pub fn dynamic<F, Fut>(name: impl Into<String>, read: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, SkillError>> + Send + 'static,
    {
        Self {
            name: name.into(),
            description: None,
            value: ResourceValue::Dynamic(Box::new(move || Box::pin(read()))),
        }
    }

    /// The same resource, described to the model in the skill's resource listing.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

impl fmt::Debug for InlineResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.value {
            ResourceValue::Text(_) => "text",
            ResourceValue::Dynamic(_) => "dynamic",
        };
        f.debug_struct("InlineResource")
            .field("name", &self.name)
            .field("description", &self.description)
            .field("kind", &kind)
            .finish()
    }
}

#[async_trait]
impl SkillResource for InlineResource {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    async fn read(&self) -> Result<ResourceContent, SkillError> {
        match &self.value {
            ResourceValue::Text(text) => Ok(ResourceContent::Text(text.clone())),
            ResourceValue::Dynamic(read) => read().await.map(ResourceContent::Text),
        }
    }
}

/// An in-process script of an [`InlineSkill`].
///
/// The model passes a JSON object of named arguments (or null for none, read as `{}`); it is
/// deserialised into the script's argument type, whose JSON schema (derived with `schemars`) is
/// shown to the model. Any other JSON value is refused with
/// [`SkillError::InvalidArguments`], as is an object that does not fit the type.
pub struct InlineScript {
    name: String,
    description: Option<String>,
    schema: serde_json::Value,
    risk: Option<RiskTier>,
    timeout: Option<Duration>,
    run: Box<RunFn>,
}

impl InlineScript {
    /// A script named `name` that runs `run` on arguments deserialised into `Args`. Feature
    /// `typed-scripts` (default).
    ///
    /// A blank `description` is not shown.
    #[cfg(feature = "typed-scripts")]
    pub fn new<Args, F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        run: F,
    ) -> Self
    where
        Args: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(Args) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, SkillError>> + Send + 'static,
    {
        let name = name.into();
        let script = name.clone();
        let run = move |arguments: serde_json::Value| -> BoxFuture<Result<String, SkillError>> {
            match serde_json::from_value::<Args>(arguments) {
                Ok(arguments) => Box::pin(run(arguments)),
                Err(error) => {
                    let error = SkillError::InvalidArguments {
                        script: script.clone(),
                        message: error.to_string(),
                    };
                    Box::pin(async move { Err(error) })
                }
            }
        };
        let schema = skillful_core::arguments_schema::<Args>();
        Self::boxed(name, description.into(), schema, Box::new(run))
    }

    /// A script named `name` whose parameters `schema` (a JSON schema) is given as is, and that
    /// runs `run` on the model's JSON object of arguments (null read as `{}`), for scripts whose
    /// arguments have no Rust type (a plugin's, described across a library boundary).
    pub fn from_json<F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        schema: serde_json::Value,
        run: F,
    ) -> Self
    where
        F: Fn(serde_json::Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, SkillError>> + Send + 'static,
    {
        let run =
            move |arguments| -> BoxFuture<Result<String, SkillError>> { Box::pin(run(arguments)) };
        Self::boxed(name.into(), description.into(), schema, Box::new(run))
    }

    fn boxed(
        name: String,
        description: String,
        schema: serde_json::Value,
        run: Box<RunFn>,
    ) -> Self {
        Self {
            name,
            description: Some(description).filter(|text| !text.trim().is_empty()),
            schema,
            risk: None,
            timeout: None,
            run,
        }
    }

    /// The same script, abandoned with [`SkillError::ScriptTimedOut`] when a call takes longer
    /// than `timeout` (default: its skill's [`InlineSkillBuilder::script_timeout`]; enforced
    /// where the provider runs every script, `skillful_provider::run_script`).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The same script, with the risk tier an approval policy decides by; without one it has the
    /// tier its skill's `metadata` declares, else [`RiskTier::SCRIPT_DEFAULT`].
    pub fn with_risk_tier(mut self, tier: RiskTier) -> Self {
        self.risk = Some(tier);
        self
    }
}

/// The kind of a JSON value as .NET's `JsonValueKind` names it, for MAF's wording.
fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "Null",
        serde_json::Value::Bool(true) => "True",
        serde_json::Value::Bool(false) => "False",
        serde_json::Value::Number(_) => "Number",
        serde_json::Value::String(_) => "String",
        serde_json::Value::Array(_) => "Array",
        serde_json::Value::Object(_) => "Object",
    }
}

impl fmt::Debug for InlineScript {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InlineScript")
            .field("name", &self.name)
            .field("description", &self.description)
            .field("schema", &self.schema)
            .field("risk", &self.risk)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl SkillScript for InlineScript {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    fn parameters_schema(&self) -> Option<&serde_json::Value> {
        Some(&self.schema)
    }

    fn risk_tier(&self) -> RiskTier {
        self.risk.unwrap_or(RiskTier::SCRIPT_DEFAULT)
    }

    async fn run(&self, arguments: serde_json::Value) -> Result<String, SkillError> {
        let arguments = match arguments {
            serde_json::Value::Null => serde_json::Value::Object(serde_json::Map::new()),
            object @ serde_json::Value::Object(_) => object,
            other => {
                return Err(SkillError::InvalidArguments {
                    script: self.name.clone(),
                    message: format!(
                        "Inline skill scripts expect arguments as a JSON object but received a JSON element of kind '{}'.",
                        json_kind(&other)
                    ),
                });
            }
        };
        (self.run)(arguments).await
    }

    /// Its own limit ([`InlineScript::with_timeout`], else its skill's
    /// [`InlineSkillBuilder::script_timeout`]), which the provider enforces.
    fn timeout(&self) -> Option<Duration> {
        Some(self.timeout.unwrap_or(DEFAULT_SCRIPT_TIMEOUT))
    }
}

/// A [`SkillsSource`] over a fixed list of skills, usually [`InlineSkill`]s.
#[derive(Debug, Clone, Default)]
pub struct InlineSkillsSource {
    skills: Vec<Arc<dyn Skill>>,
}

impl InlineSkillsSource {
    /// A source offering `skills`, in this order.
    pub fn new(skills: impl IntoIterator<Item = InlineSkill>) -> Self {
        Self::from_skills(
            skills
                .into_iter()
                .map(|skill| Arc::new(skill) as Arc<dyn Skill>),
        )
    }

    /// A source offering any skills already built, in this order.
    pub fn from_skills(skills: impl IntoIterator<Item = Arc<dyn Skill>>) -> Self {
        Self {
            skills: skills.into_iter().collect(),
        }
    }
}

#[async_trait]
impl SkillsSource for InlineSkillsSource {
    async fn skills(&self, _context: &SourceContext) -> Result<Vec<Arc<dyn Skill>>, SkillError> {
        Ok(self.skills.clone())
    }
}
