//! The three tools as plain data (name, description, parameters schema) with an async `invoke`, so
//! that any chat client can offer them to a model.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::json;
use skillful_core::RiskTier;

use crate::calls::Snapshot;
use crate::kind::{CallSubject, ToolKind};
use crate::tool_error::ToolError;

/// The most names a schema lists as an `enum` (see
/// [`SkillsProviderBuilder::enum_names`](crate::SkillsProviderBuilder::enum_names)); with more, the
/// property stays a free string.
pub const MAX_ENUM_NAMES: usize = 32;

/// Identifies one [`SkillsProvider`](crate::SkillsProvider) for the lifetime of the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProviderId(u64);

impl ProviderId {
    pub(crate) fn next() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Self(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

impl fmt::Display for ProviderId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "skillful-provider-{}", self.0)
    }
}

/// The identity of one tool of one provider: an approval layer matches on this, so another tool
/// that happens to be called `load_skill` is never mistaken for the provider's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ToolId {
    /// The provider that made the tool.
    pub provider: ProviderId,
    /// Which tool it is.
    pub kind: ToolKind,
}

impl fmt::Display for ToolId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.provider, self.kind)
    }
}

/// What a tool call gives back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolOutput {
    /// The result, as text for the model.
    Text(String),
    /// A mistake or failure the model can act on.
    Error(ToolError),
}

impl ToolOutput {
    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        matches!(self, ToolOutput::Error(_))
    }

    /// The text the model is shown: the result, or the error's JSON object.
    pub fn into_model_text(self) -> String {
        match self {
            ToolOutput::Text(text) => text,
            ToolOutput::Error(error) => error.to_string(),
        }
    }
}

impl From<Result<String, ToolError>> for ToolOutput {
    fn from(result: Result<String, ToolError>) -> Self {
        match result {
            Ok(text) => ToolOutput::Text(text),
            Err(error) => ToolOutput::Error(error),
        }
    }
}

/// One of the provider's tools: a name, a description and a JSON schema of its parameters, and
/// [`SkillTool::invoke`] to run it on the model's JSON arguments.
///
/// It works on the skills of the run it was made for.
#[derive(Clone)]
pub struct SkillTool {
    id: ToolId,
    parameters: serde_json::Value,
    snapshot: Arc<Snapshot>,
}

impl SkillTool {
    /// The tool of `kind` over `snapshot`; with `enum_names`, its schema lists the valid names
    /// (see [`SkillsProviderBuilder::enum_names`](crate::SkillsProviderBuilder::enum_names)).
    pub(crate) fn new(
        provider: ProviderId,
        kind: ToolKind,
        snapshot: Arc<Snapshot>,
        enum_names: bool,
    ) -> Self {
        let mut parameters = kind.parameters(snapshot.max_resource_bytes());
        if enum_names {
            list_names(&mut parameters, snapshot.names());
        }
        Self {
            id: ToolId { provider, kind },
            parameters,
            snapshot,
        }
    }

    /// The tool's identity: its provider and kind.
    pub fn id(&self) -> ToolId {
        self.id
    }

    /// Which tool this is.
    pub fn kind(&self) -> ToolKind {
        self.id.kind
    }

    /// The name the model calls it by.
    pub fn name(&self) -> &'static str {
        self.id.kind.name()
    }

    /// What the tool does, for the model.
    pub fn description(&self) -> &'static str {
        self.id.kind.description()
    }

    /// The JSON schema of the tool's arguments (an object with camelCase properties).
    pub fn parameters(&self) -> &serde_json::Value {
        &self.parameters
    }

    /// Whether the tool only reads; see [`ToolKind::is_read_only`].
    pub fn is_read_only(&self) -> bool {
        self.id.kind.is_read_only()
    }

    /// How much harm this call can do: `load_skill`, `read_skill_resource` and `search_skills`
    /// only read;
    /// `run_skill_script` has the tier of the script it names (see
    /// [`SkillScript::risk_tier`](skillful_core::SkillScript::risk_tier)). An approval policy
    /// decides by it before [`SkillTool::invoke`].
    pub fn risk_tier(&self, arguments: &serde_json::Value) -> RiskTier {
        match self.id.kind {
            ToolKind::LoadSkill
            | ToolKind::ReadSkillResource
            | ToolKind::SearchSkills
            | ToolKind::GetTask
            | ToolKind::CancelTask => RiskTier::Read,
            ToolKind::RunSkillScript => self.snapshot.script_risk(arguments.clone()),
        }
    }

    /// The skill (and, for `run_skill_script`, the script) this call names, found as
    /// [`SkillTool::invoke`] would find them, with the call's risk tier: what an approval is
    /// about. `None` when the call names no skill (or no script) the run has.
    pub fn subject(&self, arguments: &serde_json::Value) -> Option<CallSubject> {
        self.snapshot.subject(self.id.kind, arguments.clone())
    }

    /// For `load_skill`, the arguments that load the skill `name` finds (as `load_skill` finds
    /// a name: exactly, else by the one forgiving match), for a model that called a skill as if
    /// it were a tool; `None` for the other tools and for a name that finds no skill.
    ///
    /// # Example
    /// ```
    /// use std::sync::Arc;
    /// use skillful_core::SourceContext;
    /// use skillful_inline::{InlineSkill, InlineSkillsSource};
    /// use skillful_provider::SkillsProvider;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let skill = InlineSkill::builder("unit-converter", "Converts units.")
    ///     .instructions("Use the table.")
    ///     .build()
    ///     .unwrap();
    /// let provider = SkillsProvider::new(Arc::new(InlineSkillsSource::new([skill])));
    /// let run = provider.context(&SourceContext::default()).await.unwrap();
    /// let load = run.tool("load_skill").unwrap();
    /// assert_eq!(
    ///     load.arguments_for_misnamed_call("Unit-Converter"),
    ///     Some(serde_json::json!({"skillName": "unit-converter"}))
    /// );
    /// assert_eq!(load.arguments_for_misnamed_call("weather"), None);
    /// assert_eq!(run.tool("read_skill_resource").unwrap().arguments_for_misnamed_call("unit-converter"), None);
    /// # }
    /// ```
    pub fn arguments_for_misnamed_call(&self, name: &str) -> Option<serde_json::Value> {
        if self.id.kind != ToolKind::LoadSkill {
            return None;
        }
        let skill = self.snapshot.skill_named(name)?;
        Some(json!({"skillName": skill}))
    }

    /// For `read_skill_resource` and `run_skill_script`, this tool focused on the skill `name`
    /// finds (as `load_skill` finds a name): its schema lists that skill's name and its
    /// resources' (or scripts') names as the only values (an `enum`, which servers that
    /// constrain tool calls to the schema, such as llama.cpp, enforce). The tool is the same (its
    /// [`id`](Self::id), its [`invoke`](Self::invoke)); only the declaration narrows. `None` for
    /// the other tools, a name that finds no skill, and a skill without resources (or scripts).
    ///
    /// # Example
    /// ```
    /// use std::sync::Arc;
    /// use skillful_core::SourceContext;
    /// use skillful_inline::{InlineSkill, InlineSkillsSource};
    /// use skillful_provider::SkillsProvider;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let skill = InlineSkill::builder("unit-converter", "Converts units.")
    ///     .instructions("Use the table.")
    ///     .resource("table", "1 mile = 1.609344 km")
    ///     .build()
    ///     .unwrap();
    /// let provider = SkillsProvider::new(Arc::new(InlineSkillsSource::new([skill])));
    /// let run = provider.context(&SourceContext::default()).await.unwrap();
    /// let read = run.tool("read_skill_resource").unwrap().focused("unit-converter").unwrap();
    /// let properties = &read.parameters()["properties"];
    /// assert_eq!(properties["skillName"]["enum"], serde_json::json!(["unit-converter"]));
    /// assert_eq!(properties["resourceName"]["enum"], serde_json::json!(["table"]));
    /// assert!(run.tool("run_skill_script").unwrap().focused("unit-converter").is_none());
    /// # }
    /// ```
    pub fn focused(&self, name: &str) -> Option<SkillTool> {
        let property = match self.id.kind {
            ToolKind::ReadSkillResource => 1,
            ToolKind::RunSkillScript => 2,
            ToolKind::LoadSkill
            | ToolKind::SearchSkills
            | ToolKind::GetTask
            | ToolKind::CancelTask => return None,
        };
        let names = self.snapshot.names_of_skill(name)?;
        if names[property].is_empty() {
            return None;
        }
        let mut parameters = self.parameters.clone();
        list_names(&mut parameters, names);
        Some(Self {
            id: self.id,
            parameters,
            snapshot: Arc::clone(&self.snapshot),
        })
    }

    /// Runs the tool on the model's arguments: a JSON object, or a string holding one (some
    /// clients pass arguments unparsed); null counts as `{}`.
    ///
    /// Never fails as a Rust call: every mistake or failure is a [`ToolOutput::Error`] the model
    /// can read.
    pub async fn invoke(&self, arguments: serde_json::Value) -> ToolOutput {
        let snapshot = &self.snapshot;
        match self.id.kind {
            ToolKind::LoadSkill => snapshot.load_skill(arguments).await,
            ToolKind::ReadSkillResource => snapshot.read_skill_resource(arguments).await,
            ToolKind::RunSkillScript => snapshot.run_skill_script(arguments).await,
            ToolKind::SearchSkills => snapshot.search_skills(arguments).await,
            ToolKind::GetTask => snapshot.get_task(arguments).await,
            ToolKind::CancelTask => snapshot.cancel_task(arguments).await,
        }
        .into()
    }
}

/// Lists `names` (skills, resources, scripts) as the `enum` of the schema's `skillName`,
/// `resourceName` and `scriptName`, where the schema has the property and there are at most
/// [`MAX_ENUM_NAMES`].
fn list_names(parameters: &mut serde_json::Value, [skills, resources, scripts]: [Vec<String>; 3]) {
    for (property, names) in [
        ("skillName", skills),
        ("resourceName", resources),
        ("scriptName", scripts),
    ] {
        if let Some(schema) = parameters["properties"].get_mut(property)
            && !names.is_empty()
            && names.len() <= MAX_ENUM_NAMES
        {
            schema["enum"] = json!(names);
        }
    }
}

impl fmt::Debug for SkillTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SkillTool")
            .field("id", &self.id)
            .field("skills", &self.snapshot.len())
            .finish_non_exhaustive()
    }
}
