//! What the three tools do, over the skills of one run.

use std::sync::Arc;

use base64::Engine as _;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use skillful_core::names::RelativeName;
use skillful_core::{ResourceRange, RiskTier, ScriptMonitor, Skill, SkillScript};

use crate::idempotency::{Call, Replays};
use crate::kind::{CallSubject, ToolKind};
use crate::lookup::{Resolution, resolve};
use crate::paging::{PageError, cut, framed, page, page_len};
use crate::render::render_skill;
use crate::search::{SearchIndex, clamp_search_limit};
use crate::search_cache::SearchCache;
use crate::tasks::{TaskCall, TaskId, TaskRecord, TaskStoreError, Tasks};
use crate::tool_error::{ToolError, ToolErrorCode};

const SKILL_NAME_EMPTY: &str = "Error: Skill name cannot be empty.";
const RESOURCE_NAME_EMPTY: &str = "Error: Resource name cannot be empty.";
const SCRIPT_NAME_EMPTY: &str = "Error: Script name cannot be empty.";
const TASK_ID_EMPTY: &str = "Error: Task id cannot be empty.";
/// How many names a hint lists before it says how many more there are.
const MAX_LISTED_NAMES: usize = 20;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LoadSkillArguments {
    skill_name: Option<String>,
    offset: Option<u64>,
    limit: Option<u64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReadSkillResourceArguments {
    skill_name: Option<String>,
    resource_name: Option<String>,
    offset: Option<u64>,
    limit: Option<u64>,
}

/// The names any of the three tools' arguments may carry.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NamedArguments {
    skill_name: Option<String>,
    script_name: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RunSkillScriptArguments {
    skill_name: Option<String>,
    script_name: Option<String>,
    #[serde(default)]
    arguments: serde_json::Value,
    idempotency_key: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TaskArguments {
    task_id: Option<String>,
}

#[derive(Deserialize)]
struct SearchSkillsArguments {
    query: Option<String>,
    limit: Option<u64>,
}

/// The skills of one run, shared by that run's tools.
pub(crate) struct Snapshot {
    skills: Vec<Arc<dyn Skill>>,
    max_resource_bytes: usize,
    /// The provider's idempotency keys, and the session (isolation key) of this run.
    replays: Arc<Replays>,
    session: Option<String>,
    /// The provider's search index cache, and the index of this run once a search asked for it.
    search: Arc<SearchCache>,
    index: tokio::sync::OnceCell<Arc<SearchIndex>>,
    /// The provider's tasks, when script calls may become tasks.
    tasks: Option<Arc<Tasks>>,
}

/// Something found under a name the model gave, perhaps not exactly the name it has.
#[derive(Clone)]
struct Found<T> {
    item: T,
    requested: String,
    name: String,
}

impl<T> Found<T> {
    /// `text`, followed by a note giving the exact name when the model did not use it.
    fn annotate(&self, text: String) -> String {
        if self.requested == self.name {
            text
        } else {
            format!(
                "{text}\n\n[resolved '{}' to '{}'; use the exact name next time]",
                self.requested, self.name
            )
        }
    }
}

/// What is looked up, for the wording of errors.
#[derive(Clone, Copy)]
enum Member {
    Resource,
    Script,
}

impl Member {
    fn plural(self) -> &'static str {
        match self {
            Member::Resource => "resources",
            Member::Script => "scripts",
        }
    }

    fn not_found(self, requested: &str, skill: &str) -> (ToolErrorCode, String) {
        match self {
            Member::Resource => (
                ToolErrorCode::ResourceNotFound,
                format!("Error: Resource '{requested}' not found in skill '{skill}'."),
            ),
            Member::Script => (
                ToolErrorCode::ScriptNotFound,
                format!("Error: Script '{requested}' not found in skill '{skill}'."),
            ),
        }
    }
}

impl Snapshot {
    pub(crate) fn new(
        skills: Vec<Arc<dyn Skill>>,
        max_resource_bytes: usize,
        replays: Arc<Replays>,
        session: Option<String>,
        search: Arc<SearchCache>,
        tasks: Option<Arc<Tasks>>,
    ) -> Self {
        Self {
            skills,
            max_resource_bytes,
            replays,
            session,
            search,
            index: tokio::sync::OnceCell::new(),
            tasks,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.skills.len()
    }

    pub(crate) fn max_resource_bytes(&self) -> usize {
        self.max_resource_bytes
    }

    pub(crate) async fn load_skill(
        &self,
        arguments: serde_json::Value,
    ) -> Result<String, ToolError> {
        let arguments: LoadSkillArguments = parse_arguments(ToolKind::LoadSkill, arguments)?;
        let requested = required(arguments.skill_name, SKILL_NAME_EMPTY, "skillName")?;
        let skill = self.find_skill(requested)?;
        let document = skill.item.document().await.map_err(|error| {
            tracing::warn!(skill = %skill.name, %error, "cannot load skill");
            ToolError::from_skill_error(
                ToolErrorCode::SkillLoadFailed,
                format!("Error: Failed to load skill '{}'.", skill.name),
                &error,
            )
        })?;
        let content = render_skill(skill.item.as_ref(), &document);
        let text = page(
            &content,
            arguments.offset,
            arguments.limit,
            self.max_resource_bytes,
            ToolKind::LoadSkill,
        )
        .map_err(|error| page_error(error, &skill.name, None, self.max_resource_bytes))?;
        Ok(skill.annotate(text))
    }

    pub(crate) async fn read_skill_resource(
        &self,
        arguments: serde_json::Value,
    ) -> Result<String, ToolError> {
        let arguments: ReadSkillResourceArguments =
            parse_arguments(ToolKind::ReadSkillResource, arguments)?;
        let skill_name = required(arguments.skill_name, SKILL_NAME_EMPTY, "skillName")?;
        let resource_name = required(arguments.resource_name, RESOURCE_NAME_EMPTY, "resourceName")?;
        let skill = self.find_skill(skill_name)?;
        let resource = find_member(
            Member::Resource,
            &skill.name,
            resource_name,
            named(skill.item.resources(), |resource| resource.name()),
            |name| skill.item.resource(name),
        )?;
        let to_page_error = |error| {
            page_error(
                error,
                &skill.name,
                Some(&resource.name),
                self.max_resource_bytes,
            )
        };
        let page_len = page_len(arguments.limit, self.max_resource_bytes).map_err(to_page_error)?;
        let (read_from, read_len) = read_window(
            arguments.offset.unwrap_or(0),
            page_len,
            self.max_resource_bytes as u64,
        );
        let range = resource
            .item
            .read_range(read_from, read_len)
            .await
            .map_err(|error| {
                tracing::warn!(skill = %skill.name, resource = %resource.name, %error, "cannot read resource");
                ToolError::from_skill_error(
                    ToolErrorCode::ResourceReadFailed,
                    format!(
                        "Error: Failed to read resource '{}' from skill '{}'.",
                        resource.name, skill.name
                    ),
                    &error,
                )
            })?;
        let text = if range.offset == 0 && range.bytes.len() as u64 == range.total {
            page_of_whole(
                range,
                arguments.offset,
                arguments.limit,
                self.max_resource_bytes,
            )
        } else {
            page_of_window(
                &range,
                arguments.offset,
                arguments.limit,
                self.max_resource_bytes,
            )
        }
        .map_err(to_page_error)?;
        Ok(resource.annotate(skill.annotate(text)))
    }

    pub(crate) async fn run_skill_script(
        &self,
        arguments: serde_json::Value,
    ) -> Result<String, ToolError> {
        let arguments: RunSkillScriptArguments =
            parse_arguments(ToolKind::RunSkillScript, arguments)?;
        let skill_name = required(arguments.skill_name, SKILL_NAME_EMPTY, "skillName")?;
        let script_name = required(arguments.script_name, SCRIPT_NAME_EMPTY, "scriptName")?;
        if arguments
            .idempotency_key
            .as_deref()
            .is_some_and(|key| key.trim().is_empty())
        {
            return Err(ToolError::invalid_arguments(
                "Error: idempotencyKey cannot be empty.",
                "Pass a new unique string (e.g. a UUID) for each new call, or leave idempotencyKey out.",
            ));
        }
        let skill = self.find_skill(skill_name)?;
        let script = find_member(
            Member::Script,
            &skill.name,
            script_name,
            named(skill.item.scripts(), |script| script.name()),
            |name| skill.item.script(name),
        )?;
        let Some(key) = arguments.idempotency_key else {
            return self.run_watched(skill, script, arguments.arguments).await;
        };
        let call = Call {
            skill: skill.name.clone(),
            script: script.name.clone(),
            arguments: arguments.arguments,
        };
        let slot = self
            .replays
            .claim(self.session.as_deref(), &key, call.clone())
            .map_err(|first| key_conflict(&key, &first))?;
        // A repeat that arrives while the first call runs waits here for its result.
        let mut result = slot.result.lock().await;
        // The first call's result is kept as it was shown (annotated with its names).
        match result.as_ref() {
            Some(first) => Ok(format!(
                "{first}\n\n[replayed: idempotencyKey '{key}' was already used for this call; this is the first call's result, and the script did not run again]"
            )),
            None => {
                let output = self.run_watched(skill, script, call.arguments).await?;
                *result = Some(output.clone());
                Ok(output)
            }
        }
    }

    /// Runs `script` of `skill`: waited for, without tasks; with them, watched, and a task
    /// when it is declared long-running or still runs after the threshold. The result is
    /// annotated with the exact names when the model did not use them.
    async fn run_watched(
        &self,
        skill: Found<Arc<dyn Skill>>,
        script: Found<Arc<dyn SkillScript>>,
        arguments: serde_json::Value,
    ) -> Result<String, ToolError> {
        let Some(tasks) = &self.tasks else {
            let output = run_script(&skill, &script, arguments, None).await?;
            return Ok(script.annotate(skill.annotate(output)));
        };
        let call = TaskCall {
            skill: skill.name.clone(),
            script: script.name.clone(),
            arguments: arguments.clone(),
            session: self.session.clone(),
            subject: CallSubject {
                kind: ToolKind::RunSkillScript,
                skill: Arc::clone(&skill.item),
                script: Some(Arc::clone(&script.item)),
                risk: script.item.risk_tier(),
            },
        };
        let at_once = skill.item.long_running().covers(&script.name);
        tasks
            .run(call, at_once, move |monitor| async move {
                let output = run_script(&skill, &script, arguments, Some(monitor)).await?;
                Ok(script.annotate(skill.annotate(output)))
            })
            .await
    }

    /// `get_task(taskId)`: the task's record, with its output so far while it runs; a model
    /// asking again sooner than the poll interval is told when to ask.
    pub(crate) async fn get_task(&self, arguments: serde_json::Value) -> Result<String, ToolError> {
        let (tasks, id) = self.task_arguments(ToolKind::GetTask, arguments)?;
        let too_soon = tasks.too_soon(&id);
        let record = self.task_record(tasks.get(self.session.as_deref(), &id).await, &id)?;
        let mut shown = serde_json::to_value(&record).unwrap_or_default();
        if !record.status.is_terminal() {
            if let Some(output) = tasks.output_so_far(self.session.as_deref(), &id) {
                shown["output"] = serde_json::Value::String(output);
            }
            if let Some(wait) = too_soon {
                shown["note"] = serde_json::Value::String(format!(
                    "Asked again too soon: ask after {} ms, or answer the user now; the task's result is given to you when it ends.",
                    wait.as_millis()
                ));
            }
        }
        Ok(shown.to_string())
    }

    /// `cancel_task(taskId)`: stops the task and gives its record as it ended.
    pub(crate) async fn cancel_task(
        &self,
        arguments: serde_json::Value,
    ) -> Result<String, ToolError> {
        let (tasks, id) = self.task_arguments(ToolKind::CancelTask, arguments)?;
        let record = self.task_record(tasks.cancel(self.session.as_deref(), &id).await, &id)?;
        Ok(serde_json::to_value(&record)
            .unwrap_or_default()
            .to_string())
    }

    fn task_arguments(
        &self,
        kind: ToolKind,
        arguments: serde_json::Value,
    ) -> Result<(&Arc<Tasks>, TaskId), ToolError> {
        let arguments: TaskArguments = parse_arguments(kind, arguments)?;
        let id = required(arguments.task_id, TASK_ID_EMPTY, "taskId")?;
        let tasks = self.tasks.as_ref().ok_or_else(|| task_not_found(&id))?;
        Ok((tasks, TaskId::from(id)))
    }

    fn task_record(
        &self,
        found: Result<Option<TaskRecord>, TaskStoreError>,
        id: &TaskId,
    ) -> Result<TaskRecord, ToolError> {
        match found {
            Ok(Some(record)) => Ok(record),
            Ok(None) => Err(task_not_found(id.as_str())),
            Err(error) => {
                tracing::warn!(task = %id, %error, "cannot read a task");
                Err(ToolError::new(
                    ToolErrorCode::TaskStoreFailed,
                    format!("Error: Task '{id}' could not be read."),
                    "Try again later; its result is given to you when it ends.".to_owned(),
                ))
            }
        }
    }

    /// The skills of this run that best match the query, as the JSON array of
    /// [`SearchHit`](crate::search::SearchHit)s. Every skill of the run is searched, listed in
    /// the catalog or not.
    pub(crate) async fn search_skills(
        &self,
        arguments: serde_json::Value,
    ) -> Result<String, ToolError> {
        let arguments: SearchSkillsArguments = parse_arguments(ToolKind::SearchSkills, arguments)?;
        let query = arguments
            .query
            .filter(|query| !query.trim().is_empty())
            .ok_or_else(|| {
                ToolError::invalid_arguments(
                    "Error: Query cannot be empty.",
                    "Pass query, a few words saying what the task needs.",
                )
            })?;
        let index = self
            .index
            .get_or_try_init(|| self.search.index(&self.skills))
            .await
            .map_err(|error| {
                tracing::warn!(%error, "cannot build the skill search index");
                ToolError::from_skill_error(
                    ToolErrorCode::SearchFailed,
                    "Error: The skills could not be searched.".to_owned(),
                    &error,
                )
            })?;
        let hits = index.search(&query, clamp_search_limit(arguments.limit));
        serde_json::to_string(&hits).map_err(|error| {
            ToolError::new(
                ToolErrorCode::SearchFailed,
                format!("Error: The search results could not be written: {error}."),
                "Try again with another query.".to_owned(),
            )
        })
    }

    /// Every skill's name, and every resource's and script's name over all skills, each
    /// sorted and without repeats: what a schema may list as the valid values.
    pub(crate) fn names(&self) -> [Vec<String>; 3] {
        names_of(&self.skills)
    }

    /// The same names for the one skill `requested` finds (as `load_skill` finds a name), or
    /// `None` when it finds none.
    pub(crate) fn names_of_skill(&self, requested: &str) -> Option<[Vec<String>; 3]> {
        let name = self.skill_named(requested)?;
        let skill = self.skills.iter().find(|skill| skill.name() == name)?;
        Some(names_of(std::slice::from_ref(skill)))
    }

    /// The risk tier of the script a `run_skill_script` call names, found as the call would find
    /// it. A call that names a skill or script this run does not have can run nothing (it fails
    /// with the names that exist), so it is [`RiskTier::Read`]: small models often guess a name
    /// first, and an approval asked, or refused, for that guess would hide the names from them.
    /// Arguments that are not a call's are [`RiskTier::SCRIPT_DEFAULT`].
    pub(crate) fn script_risk(&self, arguments: serde_json::Value) -> RiskTier {
        let Ok(arguments) =
            parse_arguments::<RunSkillScriptArguments>(ToolKind::RunSkillScript, arguments)
        else {
            return RiskTier::SCRIPT_DEFAULT;
        };
        let (Some(skill), Some(script)) = (arguments.skill_name, arguments.script_name) else {
            return RiskTier::SCRIPT_DEFAULT;
        };
        let Ok(skill) = self.find_skill(skill) else {
            return RiskTier::Read;
        };
        match find_member(
            Member::Script,
            &skill.name,
            script,
            named(skill.item.scripts(), |script| script.name()),
            |name| skill.item.script(name),
        ) {
            Ok(script) => script.item.risk_tier(),
            Err(_) => RiskTier::Read,
        }
    }

    /// The skill (and script) a call of `kind` names, found as the call would find them.
    pub(crate) fn subject(
        &self,
        kind: ToolKind,
        arguments: serde_json::Value,
    ) -> Option<CallSubject> {
        let names = parse_arguments::<NamedArguments>(kind, arguments).ok()?;
        let skill = self.find_skill(names.skill_name?).ok()?;
        let (script, risk) = match kind {
            ToolKind::LoadSkill
            | ToolKind::ReadSkillResource
            | ToolKind::SearchSkills
            | ToolKind::GetTask
            | ToolKind::CancelTask => (None, RiskTier::Read),
            ToolKind::RunSkillScript => {
                let script = find_member(
                    Member::Script,
                    &skill.name,
                    names.script_name?,
                    named(skill.item.scripts(), |script| script.name()),
                    |name| skill.item.script(name),
                )
                .ok()?
                .item;
                let risk = script.risk_tier();
                (Some(script), risk)
            }
        };
        Some(CallSubject {
            kind,
            skill: skill.item,
            script,
            risk,
        })
    }

    /// The exact name of the skill `requested` finds, as `load_skill` would find it.
    pub(crate) fn skill_named(&self, requested: &str) -> Option<String> {
        let names: Vec<&str> = self.skills.iter().map(|skill| skill.name()).collect();
        match resolve(requested, &names) {
            Resolution::Found(index) => Some(names[index].to_owned()),
            _ => None,
        }
    }

    fn find_skill(&self, requested: String) -> Result<Found<Arc<dyn Skill>>, ToolError> {
        let names: Vec<&str> = self.skills.iter().map(|skill| skill.name()).collect();
        match resolve(&requested, &names) {
            Resolution::Found(index) => Ok(Found {
                item: Arc::clone(&self.skills[index]),
                name: names[index].to_owned(),
                requested,
            }),
            failure => Err(ToolError::new(
                ToolErrorCode::SkillNotFound,
                format!("Error: Skill '{requested}' not found."),
                not_found_hint(&requested, "skills", failure, || {
                    "Use a name exactly as listed in <available_skills>.".to_owned()
                }),
            )),
        }
    }
}

/// The error for a task id this conversation has no task of.
fn task_not_found(id: &str) -> ToolError {
    ToolError::new(
        ToolErrorCode::TaskNotFound,
        format!("Error: Task '{id}' not found."),
        "Use the \"task\" value a run_skill_script call of this conversation returned.".to_owned(),
    )
}

/// Runs `script` of `skill` (under `monitor` when given), turning its failure into the
/// reference's error.
async fn run_script(
    skill: &Found<Arc<dyn Skill>>,
    script: &Found<Arc<dyn SkillScript>>,
    arguments: serde_json::Value,
    monitor: Option<Arc<dyn ScriptMonitor>>,
) -> Result<String, ToolError> {
    crate::timeout::run_script_monitored(&skill.name, &*script.item, arguments, monitor)
        .await
        .map_err(|error| {
            tracing::warn!(skill = %skill.name, script = %script.name, %error, "script failed");
            ToolError::from_skill_error(
                ToolErrorCode::ScriptFailed,
                format!(
                    "Error: Failed to execute script '{}' from skill '{}'.",
                    script.name, skill.name
                ),
                &error,
            )
        })
}

/// The error for an idempotency key repeated with a call other than the `first` one it was used
/// for.
fn key_conflict(key: &str, first: &Call) -> ToolError {
    ToolError::new(
        ToolErrorCode::IdempotencyKeyReused,
        format!(
            "Error: idempotencyKey '{key}' was already used for a different call (script '{}' of skill '{}' with arguments {}).",
            first.script, first.skill, first.arguments
        ),
        "Use a new idempotencyKey for a new call; repeat a key only to retry the very same call."
            .to_owned(),
    )
}

/// Finds a resource or script of `skill`: among the listed ones exactly, then through the skill's
/// own exact lookup (which may know names it does not list), then among the listed ones loosely.
/// Names that try to climb out of the skill never reach the skill's own lookup.
fn find_member<T: ?Sized>(
    member: Member,
    skill: &str,
    requested: String,
    (names, listed): (Vec<String>, Vec<Arc<T>>),
    exact: impl FnOnce(&str) -> Option<Arc<T>>,
) -> Result<Found<Arc<T>>, ToolError> {
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let unlisted =
        if name_refs.contains(&requested.as_str()) || RelativeName::new(&requested).is_err() {
            None
        } else {
            exact(&requested)
        };
    if let Some(item) = unlisted {
        return Ok(Found {
            item,
            name: requested.clone(),
            requested,
        });
    }
    match resolve(&requested, &name_refs) {
        Resolution::Found(index) => Ok(Found {
            item: Arc::clone(&listed[index]),
            name: names[index].clone(),
            requested,
        }),
        failure => {
            let (code, message) = member.not_found(&requested, skill);
            let hint = not_found_hint(&requested, member.plural(), failure, || {
                if names.is_empty() {
                    format!("Skill '{skill}' has no {}.", member.plural())
                } else {
                    format!("Its {} are: {}.", member.plural(), quoted(&names, ", "))
                }
            });
            Err(ToolError::new(code, message, hint))
        }
    }
}

/// The names of `items`, and the items.
fn named<T: ?Sized>(
    items: Vec<Arc<T>>,
    name_of: impl Fn(&Arc<T>) -> &str,
) -> (Vec<String>, Vec<Arc<T>>) {
    (
        items.iter().map(|item| name_of(item).to_owned()).collect(),
        items,
    )
}

fn not_found_hint(
    requested: &str,
    plural: &str,
    failure: Resolution,
    otherwise: impl FnOnce() -> String,
) -> String {
    match failure {
        Resolution::Ambiguous(names) => format!(
            "'{requested}' fits several {plural}: {}. Call again with one of these names exactly.",
            quoted(&names, ", ")
        ),
        Resolution::NotFound(closest) if !closest.is_empty() => format!(
            "Did you mean {}? Use the name exactly as listed.",
            quoted(&closest, " or ")
        ),
        _ => otherwise(),
    }
}

/// `'a', 'b', 'c'` (with `separator` between), and how many more past [`MAX_LISTED_NAMES`].
fn quoted(names: &[String], separator: &str) -> String {
    let mut listed = names
        .iter()
        .take(MAX_LISTED_NAMES)
        .map(|name| format!("'{name}'"))
        .collect::<Vec<_>>()
        .join(separator);
    if names.len() > MAX_LISTED_NAMES {
        listed.push_str(&format!(" and {} more", names.len() - MAX_LISTED_NAMES));
    }
    listed
}

/// The tool's arguments: a JSON object, or a string holding one; null is `{}`.
fn parse_arguments<T: DeserializeOwned>(
    tool: ToolKind,
    arguments: serde_json::Value,
) -> Result<T, ToolError> {
    let arguments = match arguments {
        serde_json::Value::Null => serde_json::Value::Object(serde_json::Map::new()),
        serde_json::Value::String(text) => {
            serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text))
        }
        other => other,
    };
    let hint = "Pass a JSON object matching the tool's parameters schema.";
    if !arguments.is_object() {
        return Err(ToolError::invalid_arguments(
            format!("Error: The arguments of '{tool}' must be a JSON object."),
            hint,
        ));
    }
    serde_json::from_value(arguments).map_err(|error| {
        ToolError::invalid_arguments(
            format!("Error: Invalid arguments for '{tool}': {error}."),
            hint,
        )
    })
}

/// `name` when it is given and not blank; else MAF's `message` as an error.
fn required(name: Option<String>, message: &str, parameter: &str) -> Result<String, ToolError> {
    name.filter(|name| !name.trim().is_empty()).ok_or_else(|| {
        ToolError::invalid_arguments(
            message,
            format!("Pass {parameter}, a name exactly as listed."),
        )
    })
}

/// How many bytes before a page's offset are read too, so that an offset inside a UTF-8
/// character can start at that character.
const UTF8_BACKTRACK: u64 = 3;

fn of_mime(mime_type: Option<&str>) -> String {
    mime_type
        .map(|mime| format!(" of {mime}"))
        .unwrap_or_default()
}

/// A page of a resource larger than one page, of which only `range` was read: text when the
/// page is UTF-8; otherwise its bytes, base64-encoded, with offsets counting the resource's
/// bytes (a resource this large is never encoded whole).
/// The byte range of a resource to read for a page of `page_len` at `offset`: only the window
/// asked for (a resource of any size pages with bounded memory), and near the start everything up
/// to the page budget, so that a resource that fits one page is read whole and shown as always.
fn read_window(offset: u64, page_len: u64, budget: u64) -> (u64, u64) {
    let read_from = if offset <= budget {
        0
    } else {
        offset - UTF8_BACKTRACK
    };
    let read_len = (offset - read_from)
        .saturating_add(page_len.max(budget))
        .saturating_add(UTF8_BACKTRACK + 1);
    (read_from, read_len)
}

/// The page of a resource read whole: text without its byte-order mark, or a binary resource
/// base64-encoded under a line that says so (offset and limit then count base64 characters).
fn page_of_whole(
    range: ResourceRange,
    offset: Option<u64>,
    limit: Option<u64>,
    budget: usize,
) -> Result<String, PageError> {
    let paged = |text: &str| page(text, offset, limit, budget, ToolKind::ReadSkillResource);
    let text = if range.binary {
        Err(range.bytes)
    } else {
        String::from_utf8(range.bytes).map_err(std::string::FromUtf8Error::into_bytes)
    };
    match text {
        Ok(text) => paged(text.strip_prefix('\u{feff}').unwrap_or(&text)),
        Err(bytes) => {
            let encoded = base64::engine::general_purpose::STANDARD.encode(&bytes);
            paged(&encoded).map(|page| {
                format!(
                    "[binary resource: {} bytes{}, base64-encoded below; offset and limit count base64 characters]\n{page}",
                    bytes.len(),
                    of_mime(range.mime_type.as_deref()),
                )
            })
        }
    }
}

fn page_of_window(
    range: &ResourceRange,
    offset: Option<u64>,
    limit: Option<u64>,
    budget: usize,
) -> Result<String, PageError> {
    let tool = ToolKind::ReadSkillResource;
    let cut = cut(
        &range.bytes,
        range.offset,
        range.total,
        offset,
        limit,
        budget,
    )?;
    if !range.binary
        && let Ok(text) = std::str::from_utf8(cut.bytes)
    {
        return Ok(framed(text, cut.start, cut.end, range.total, tool));
    }
    let start = offset.unwrap_or(0);
    let from = usize::try_from(start.saturating_sub(range.offset))
        .unwrap_or(usize::MAX)
        .min(range.bytes.len());
    let len = usize::try_from(page_len(limit, budget)?).unwrap_or(usize::MAX);
    let bytes = &range.bytes[from..from.saturating_add(len).min(range.bytes.len())];
    let end = start + bytes.len() as u64;
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    let header = format!(
        "[binary resource: {} bytes{}, too large to encode whole: bytes {start}-{end} below, base64-encoded; offset and limit count the resource's bytes]",
        range.total,
        of_mime(range.mime_type.as_deref()),
    );
    let note = if end < range.total {
        format!("[truncated: call {tool} again with offset={end} to continue]")
    } else {
        "[this is the end of the resource]".to_owned()
    };
    Ok(format!("{header}\n{encoded}\n\n{note}"))
}

fn page_error(
    error: PageError,
    skill: &str,
    resource: Option<&str>,
    max_resource_bytes: usize,
) -> ToolError {
    let what = match resource {
        Some(resource) => format!("resource '{resource}' in skill '{skill}'"),
        None => format!("skill '{skill}'"),
    };
    match error {
        PageError::OffsetPastEnd { offset, total } => ToolError::invalid_arguments(
            format!("Error: Offset {offset} is past the end of {what} ({total} bytes)."),
            if total == 0 {
                "It is empty; call again without an offset.".to_owned()
            } else {
                format!(
                    "Call again with an offset below {total}, or without one to read from the start."
                )
            },
        ),
        PageError::ZeroLimit => ToolError::invalid_arguments(
            "Error: Limit must be at least 1.",
            format!("Omit limit to read up to {max_resource_bytes} bytes."),
        ),
    }
}

/// The names of `skills`, their resources' and their scripts', each sorted and without repeats.
fn names_of(skills: &[Arc<dyn Skill>]) -> [Vec<String>; 3] {
    let mut names = [Vec::new(), Vec::new(), Vec::new()];
    for skill in skills {
        names[0].push(skill.name().to_owned());
        names[1].extend(skill.resources().iter().map(|r| r.name().to_owned()));
        names[2].extend(skill.scripts().iter().map(|s| s.name().to_owned()));
    }
    names.map(|mut names| {
        names.sort_unstable();
        names.dedup();
        names
    })
}
