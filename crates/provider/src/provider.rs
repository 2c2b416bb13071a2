//! The provider: per run, the catalog prompt (within its listing budget) and the tools over one
//! source's skills.

use std::fmt;
use std::sync::Arc;

use skillful_core::{Skill, SkillError, SkillsSource, SourceContext};

use crate::calls::Snapshot;
use crate::idempotency::{DEFAULT_IDEMPOTENCY_KEYS, Replays};
use crate::kind::ToolKind;
use crate::prompt::{
    DEFAULT_PROMPT_TEMPLATE, Listing, ListingRules, SKILLS_PLACEHOLDER, instructions,
    listing_budget_for_context_window,
};
use crate::search_cache::SearchCache;
use crate::tasks::{TaskSettings, Tasks};
use crate::tools::{ProviderId, SkillTool};

/// The default output budget of `read_skill_resource`: 64 KiB per call.
pub const DEFAULT_MAX_RESOURCE_BYTES: usize = 64 * 1024;

/// Why a [`SkillsProvider`] could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProviderError {
    /// A custom prompt template has nowhere to put the skills.
    #[error(
        "the custom prompt template must contain the '{{skills}}' placeholder for the generated skills list"
    )]
    MissingSkillsPlaceholder,
    /// The resource output budget is zero.
    #[error("the resource output budget must be at least 1 byte")]
    ZeroResourceBudget,
    /// No idempotency key could be remembered.
    #[error("the provider must remember at least 1 idempotency key")]
    ZeroIdempotencyKeys,
}

/// Serves the skills of a [`SkillsSource`] to a model, as the Microsoft Agent Framework's
/// `AgentSkillsProvider` does: the catalog in the system prompt, and `load_skill`,
/// `read_skill_resource` and `run_skill_script` to disclose the rest on demand.
///
/// # Idempotency keys
/// `run_skill_script` takes an optional `idempotencyKey`. A call that repeats a key already used
/// in the same session for the same skill, script and arguments returns the first call's result
/// (with a note saying so) instead of running the script again; a concurrent repeat waits for
/// the first call. A key repeated with a different skill, script or arguments is refused
/// ([`ToolErrorCode::IdempotencyKeyReused`](crate::ToolErrorCode::IdempotencyKeyReused)). Only
/// results are remembered: after a failed call the same key runs the script again. The session
/// is the [`SourceContext`]'s `isolation_key` (`None` is one shared session); the provider
/// remembers the [`DEFAULT_IDEMPOTENCY_KEYS`] (1,000) most recently used keys across all
/// sessions ([`SkillsProviderBuilder::idempotency_keys`]), for as long as it lives.
///
/// # Listing budget
/// The skills part of the catalog (the `<skill>` entries and the note after them, not the prompt
/// around them) is kept within a budget: [`DEFAULT_LISTING_BUDGET`](crate::DEFAULT_LISTING_BUDGET)
/// (8,000) characters, or [`SkillsProviderBuilder::listing_budget`], or 2% of
/// [`SkillsProviderBuilder::context_window`]. When every skill fits whole, the catalog is the
/// reference's. Otherwise descriptions are shortened fairly (the longest first, to a common
/// length never below [`MIN_DESCRIPTION_CHARS`](crate::MIN_DESCRIPTION_CHARS)); when that is
/// not enough, whole skills are left out, lowest priority first: the skills named with
/// [`SkillsProviderBuilder::list_first`] are kept first (in that order), then the others by
/// scope (explicit, project, user, admin), then by name. A note after the entries says how many
/// skills are not listed and that `search_skills` finds them; that tool is then offered with the
/// other three. Every skill stays loadable by its exact name, listed or not.
///
/// The catalog depends only on the skills (names, descriptions, risk tiers, scopes) and these
/// settings, never on the order the source returns them in or on what the model did before, so
/// the same inputs always give the same bytes and a cached prompt stays valid. The provider
/// therefore does not reorder the listing by which skills were loaded recently: a host that
/// wants that passes the names it remembers to [`SkillsProviderBuilder::list_first`] when it
/// builds the provider, and the catalog stays stable for the provider's life.
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use skillful_core::SourceContext;
/// use skillful_inline::{InlineSkill, InlineSkillsSource};
/// use skillful_provider::SkillsProvider;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let skill = InlineSkill::builder("greeter", "Greets people.")
///     .instructions("Say hello.")
///     .build()
///     .unwrap();
/// let provider = SkillsProvider::new(Arc::new(InlineSkillsSource::new([skill])));
/// let run = provider.context(&SourceContext::default()).await.unwrap();
/// assert!(run.instructions().unwrap().contains("<name>greeter</name>"));
/// let output = run.tools()[0].invoke(serde_json::json!({"skillName": "greeter"})).await;
/// assert!(output.into_model_text().contains("Say hello."));
/// # });
/// ```
pub struct SkillsProvider {
    id: ProviderId,
    source: Arc<dyn SkillsSource>,
    template: String,
    max_resource_bytes: usize,
    replays: Arc<Replays>,
    listing: ListingRules,
    always_offer_search: bool,
    search: Arc<SearchCache>,
    enum_names: bool,
    tasks: Option<Arc<Tasks>>,
}

impl SkillsProvider {
    /// A provider with the default prompt and output budget.
    pub fn new(source: Arc<dyn SkillsSource>) -> Self {
        Self {
            id: ProviderId::next(),
            source,
            template: DEFAULT_PROMPT_TEMPLATE.to_owned(),
            max_resource_bytes: DEFAULT_MAX_RESOURCE_BYTES,
            replays: Arc::new(Replays::new(DEFAULT_IDEMPOTENCY_KEYS)),
            listing: ListingRules::default(),
            always_offer_search: false,
            search: Arc::new(SearchCache::default()),
            enum_names: false,
            tasks: None,
        }
    }

    /// Starts configuring a provider over `source`.
    pub fn builder(source: Arc<dyn SkillsSource>) -> SkillsProviderBuilder {
        SkillsProviderBuilder {
            template: None,
            max_resource_bytes: DEFAULT_MAX_RESOURCE_BYTES,
            idempotency_keys: DEFAULT_IDEMPOTENCY_KEYS,
            listing: ListingRules::default(),
            always_offer_search: false,
            enum_names: false,
            tasks: None,
            source,
        }
    }

    /// The provider's tasks, when script calls may become tasks
    /// ([`SkillsProviderBuilder::tasks`]): to show their progress, wait for them, cancel them.
    pub fn tasks(&self) -> Option<&Arc<Tasks>> {
        self.tasks.as_ref()
    }

    /// This provider's identity, part of each of its tools' [`ToolId`](crate::ToolId).
    pub fn id(&self) -> ProviderId {
        self.id
    }

    /// What to add to one run: the instructions and the tools, over the skills the source offers
    /// now: `load_skill`, `read_skill_resource` and `run_skill_script`, and `search_skills` when
    /// the catalog is cut to its budget (or [`SkillsProviderBuilder::always_offer_search`]).
    /// With no skills, nothing: no instructions and no tools.
    ///
    /// # Errors
    /// The source's error, when it fails as a whole.
    pub async fn context(&self, context: &SourceContext) -> Result<RunContext, SkillError> {
        let skills = self.source.skills(context).await?;
        if skills.is_empty() {
            return Ok(RunContext::default());
        }
        let (instructions, listing) = instructions(&self.template, &skills, &self.listing);
        let snapshot = Arc::new(Snapshot::new(
            skills.clone(),
            self.max_resource_bytes,
            Arc::clone(&self.replays),
            context.isolation_key.clone(),
            Arc::clone(&self.search),
            self.tasks.clone(),
        ));
        let tool = |kind| SkillTool::new(self.id, kind, Arc::clone(&snapshot), self.enum_names);
        let offers_search = self.always_offer_search || listing.is_cut();
        // Offered while a task of the session runs: a run with none has nothing to ask about.
        let offers_tasks = self.tasks.as_ref().is_some_and(|tasks| {
            tasks.has_running(context.isolation_key.as_deref())
                && skills.iter().any(|skill| !skill.scripts().is_empty())
        });
        let tools = ToolKind::ALL
            .into_iter()
            .filter(|kind| match kind {
                ToolKind::SearchSkills => offers_search,
                ToolKind::GetTask | ToolKind::CancelTask => offers_tasks,
                _ => true,
            })
            .map(tool)
            .collect();
        Ok(RunContext {
            instructions: Some(instructions),
            tools,
            unoffered: ToolKind::ALL
                .into_iter()
                .filter(|kind| match kind {
                    ToolKind::SearchSkills => !offers_search,
                    ToolKind::GetTask | ToolKind::CancelTask => {
                        self.tasks.is_some() && !offers_tasks
                    }
                    _ => false,
                })
                .map(tool)
                .collect(),
            skills,
            listing,
        })
    }
}

impl fmt::Debug for SkillsProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SkillsProvider")
            .field("id", &self.id)
            .field("source", &self.source)
            .field("max_resource_bytes", &self.max_resource_bytes)
            .field("listing", &self.listing)
            .field("always_offer_search", &self.always_offer_search)
            .finish_non_exhaustive()
    }
}

/// Configures a [`SkillsProvider`].
#[derive(Debug)]
#[must_use]
pub struct SkillsProviderBuilder {
    source: Arc<dyn SkillsSource>,
    template: Option<String>,
    max_resource_bytes: usize,
    idempotency_keys: usize,
    listing: ListingRules,
    always_offer_search: bool,
    enum_names: bool,
    tasks: Option<TaskSettings>,
}

impl SkillsProviderBuilder {
    /// Replaces the default prompt; every `{skills}` in it is replaced by the catalog.
    pub fn prompt_template(mut self, template: impl Into<String>) -> Self {
        self.template = Some(template.into());
        self
    }

    /// The most bytes `read_skill_resource` returns in one call; a longer resource comes in pages.
    pub fn max_resource_bytes(mut self, bytes: usize) -> Self {
        self.max_resource_bytes = bytes;
        self
    }

    /// How many idempotency keys of `run_skill_script` are remembered, across all sessions
    /// (default [`DEFAULT_IDEMPOTENCY_KEYS`]); past it the least recently used is forgotten.
    pub fn idempotency_keys(mut self, keys: usize) -> Self {
        self.idempotency_keys = keys;
        self
    }

    /// The most characters the skills part of the catalog may take (default
    /// [`DEFAULT_LISTING_BUDGET`](crate::DEFAULT_LISTING_BUDGET), 8,000); see
    /// [`SkillsProvider`]'s listing budget. `usize::MAX` always lists every skill whole. The
    /// last of this and [`context_window`](Self::context_window) wins.
    pub fn listing_budget(mut self, chars: usize) -> Self {
        self.listing.budget = chars;
        self
    }

    /// Sets the listing budget for a model whose context window holds `tokens` tokens: 2% of it
    /// at about 4 characters a token ([`listing_budget_for_context_window`](crate::listing_budget_for_context_window)).
    /// The last of this and [`listing_budget`](Self::listing_budget) wins.
    pub fn context_window(self, tokens: usize) -> Self {
        self.listing_budget(listing_budget_for_context_window(tokens))
    }

    /// Skills to keep in the catalog before any other when not all fit in the listing budget,
    /// the first named first: the skills a person named for this session or workspace, or the
    /// ones the host remembers being used most. Names are matched exactly; a name no skill has
    /// is ignored. Replaces the names given before.
    pub fn list_first<I>(mut self, names: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.listing.first = names.into_iter().map(Into::into).collect();
        self
    }

    /// Whether every run offers `search_skills`, even when the catalog lists every skill whole
    /// (default `false`: offered only when the catalog is cut). The tool is always available to
    /// the host through [`RunContext::tool`] either way.
    pub fn always_offer_search(mut self, always: bool) -> Self {
        self.always_offer_search = always;
        self
    }

    /// Whether the tools' schemas list the valid names: `skillName` an `enum` of the skills
    /// offered, `resourceName` and `scriptName` of every resource and script of theirs, each
    /// when there are at most [`MAX_ENUM_NAMES`](crate::MAX_ENUM_NAMES). A server that constrains
    /// tool calls to the offered schema (llama.cpp) then only lets the model write names that
    /// exist; small models otherwise misspell them or call a skill as if it were a tool. Off by
    /// default: the schemas then change with the skills offered.
    pub fn enum_names(mut self, enum_names: bool) -> Self {
        self.enum_names = enum_names;
        self
    }

    /// Lets script calls become tasks (see [`crate::tasks`]): a call of a script its skill
    /// declares long-running, or still running after `settings`' threshold, answers with the
    /// task's id at once and the script goes on; `get_task` and `cancel_task` are offered beside
    /// `run_skill_script` in the runs of a session while a task of it runs; every script call's output is shown live to
    /// [`Tasks::subscribe`](crate::Tasks::subscribe)rs. Off by default: a call waits for its
    /// script. A task's hard limit is its script's ([`crate::script_limit`]): give the runner
    /// [`DEFAULT_TASK_LIMIT`](crate::DEFAULT_TASK_LIMIT) or the limit wanted.
    pub fn tasks(mut self, settings: TaskSettings) -> Self {
        self.tasks = Some(settings);
        self
    }

    /// Builds the provider.
    ///
    /// # Errors
    /// A custom template without `{skills}`; a zero output budget; zero idempotency keys.
    pub fn build(self) -> Result<SkillsProvider, ProviderError> {
        if self
            .template
            .as_deref()
            .is_some_and(|template| !template.contains(SKILLS_PLACEHOLDER))
        {
            return Err(ProviderError::MissingSkillsPlaceholder);
        }
        if self.max_resource_bytes == 0 {
            return Err(ProviderError::ZeroResourceBudget);
        }
        if self.idempotency_keys == 0 {
            return Err(ProviderError::ZeroIdempotencyKeys);
        }
        let mut provider = SkillsProvider::new(self.source);
        if let Some(template) = self.template {
            provider.template = template;
        }
        provider.max_resource_bytes = self.max_resource_bytes;
        provider.replays = Arc::new(Replays::new(self.idempotency_keys));
        provider.listing = self.listing;
        provider.always_offer_search = self.always_offer_search;
        provider.enum_names = self.enum_names;
        provider.tasks = self
            .tasks
            .map(|settings| Arc::new(Tasks::new(settings, self.max_resource_bytes)));
        Ok(provider)
    }
}

/// What a [`SkillsProvider`] adds to one run.
#[derive(Debug, Clone, Default)]
pub struct RunContext {
    instructions: Option<String>,
    tools: Vec<SkillTool>,
    /// The tools of the run not offered to the model: `search_skills` when the catalog holds
    /// every skill, `get_task` and `cancel_task` (with tasks) while no task of the session runs.
    unoffered: Vec<SkillTool>,
    skills: Vec<Arc<dyn Skill>>,
    listing: Listing,
}

impl RunContext {
    /// The text to append to the system prompt; `None` when there are no skills.
    pub fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    /// The tools to offer the model: `load_skill`, `read_skill_resource` and
    /// `run_skill_script`, in this order, then `search_skills` when the catalog is cut to its
    /// budget (or the provider always offers it), then `get_task` and `cancel_task` while a task
    /// of the run's session runs; none when there are no skills.
    pub fn tools(&self) -> &[SkillTool] {
        &self.tools
    }

    /// The tool called `name`, if this run has it. `search_skills` is here whenever the run has
    /// skills, and `get_task` and `cancel_task` whenever the provider has tasks, offered to the
    /// model or not, so that a host can always search and ask about tasks.
    pub fn tool(&self, name: &str) -> Option<&SkillTool> {
        self.tools
            .iter()
            .chain(&self.unoffered)
            .find(|tool| tool.name() == name)
    }

    /// How the catalog's listing came out: its size against the budget, and how many skills it
    /// lists, shortens and leaves out.
    pub fn listing(&self) -> Listing {
        self.listing
    }

    /// The skills of this run, in the source's order.
    pub fn skills(&self) -> &[Arc<dyn Skill>] {
        &self.skills
    }

    /// Whether the run has no skills, hence nothing to add.
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }
}
