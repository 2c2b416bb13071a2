//! What a call is, below the tools that make calls: the tool kinds (names, descriptions, parameter
//! schemas) and the subject of one call. `calls.rs` and `paging.rs` use these, `tools.rs` uses
//! `calls.rs`: one direction, no cycle.

use std::fmt;
use std::sync::Arc;

use serde_json::json;
use skillful_core::{RiskTier, Skill, SkillScript};

use crate::search::{DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT};

/// Which of the skill tools a [`SkillTool`](crate::SkillTool) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ToolKind {
    /// `load_skill(skillName, offset?, limit?)`: the skill's full content, paged when long.
    LoadSkill,
    /// `read_skill_resource(skillName, resourceName, offset?, limit?)`: one resource, paged.
    ReadSkillResource,
    /// `run_skill_script(skillName, scriptName, arguments?, idempotencyKey?)`: runs one script;
    /// a retry with the same idempotency key returns the first result instead of running again.
    RunSkillScript,
    /// `search_skills(query, limit?)`: the skills that best match a request, listed or not, as a
    /// JSON array (see [`crate::search`]).
    SearchSkills,
    /// `get_task(taskId)`: where a script call that became a task is (see [`crate::tasks`]).
    GetTask,
    /// `cancel_task(taskId)`: stops a running task with every process its script started.
    CancelTask,
}

impl ToolKind {
    /// The six kinds, in the order the tools are offered (`search_skills` only when the catalog
    /// is cut or the provider is asked to, `get_task` and `cancel_task` only with tasks; see
    /// [`RunContext::tools`](crate::RunContext::tools)).
    pub const ALL: [ToolKind; 6] = [
        ToolKind::LoadSkill,
        ToolKind::ReadSkillResource,
        ToolKind::RunSkillScript,
        ToolKind::SearchSkills,
        ToolKind::GetTask,
        ToolKind::CancelTask,
    ];

    /// The tool's name as the model calls it.
    pub fn name(self) -> &'static str {
        match self {
            ToolKind::LoadSkill => "load_skill",
            ToolKind::ReadSkillResource => "read_skill_resource",
            ToolKind::RunSkillScript => "run_skill_script",
            ToolKind::SearchSkills => "search_skills",
            ToolKind::GetTask => "get_task",
            ToolKind::CancelTask => "cancel_task",
        }
    }

    /// The tool's description: the reference's wording for the reference's three tools.
    pub fn description(self) -> &'static str {
        match self {
            ToolKind::LoadSkill => "Loads the full content of a specific skill",
            ToolKind::ReadSkillResource => {
                "Reads a resource associated with a skill, such as references, assets, or dynamic data."
            }
            ToolKind::RunSkillScript => "Runs a script associated with a skill.",
            ToolKind::SearchSkills => {
                "Finds the skills that match a task among all available skills, including those not listed in <available_skills>. Returns a JSON array, best first, of {name, description, score}; weak matches have \"low_confidence\": true, and nothing matching gives []. Then use load_skill with a name it returns."
            }
            ToolKind::GetTask => {
                "Shows a script task started by run_skill_script: its status (working, completed, failed, cancelled), exit code and output so far. Its result is also given to you when it ends, so ask only when the user wants progress."
            }
            ToolKind::CancelTask => {
                "Stops a running script task started by run_skill_script, with every process it started, and returns its final status."
            }
        }
    }

    /// Whether the tool only reads (`load_skill`, `read_skill_resource`, `search_skills`,
    /// `get_task`) or stops what the same conversation started (`cancel_task`, which runs
    /// nothing); `run_skill_script` runs code and is not read-only, so an approval layer should
    /// ask before it runs.
    pub fn is_read_only(self) -> bool {
        !matches!(self, ToolKind::RunSkillScript)
    }

    pub(crate) fn parameters(self, max_resource_bytes: usize) -> serde_json::Value {
        let skill_name = json!({
            "type": "string",
            "description": "The name of the skill, exactly as listed in <available_skills>."
        });
        let offset = json!({
            "type": "integer",
            "minimum": 0,
            "description": "The UTF-8 byte offset to start reading at (default 0); long text is returned in pages, each saying the offset of the next."
        });
        let limit = json!({
            "type": "integer",
            "minimum": 1,
            "maximum": max_resource_bytes,
            "description": format!("The most bytes to return (default and maximum {max_resource_bytes}).")
        });
        match self {
            ToolKind::LoadSkill => json!({
                "type": "object",
                "properties": { "skillName": skill_name, "offset": offset, "limit": limit },
                "required": ["skillName"]
            }),
            ToolKind::ReadSkillResource => json!({
                "type": "object",
                "properties": {
                    "skillName": skill_name,
                    "resourceName": {
                        "type": "string",
                        "description": "The name of the resource, exactly as the skill lists it."
                    },
                    "offset": offset,
                    "limit": limit
                },
                "required": ["skillName", "resourceName"]
            }),
            ToolKind::RunSkillScript => json!({
                "type": "object",
                "properties": {
                    "skillName": skill_name,
                    "scriptName": {
                        "type": "string",
                        "description": "The name of the script, exactly as the skill lists it."
                    },
                    "arguments": {
                        "anyOf": [
                            { "type": "object" },
                            { "type": "array", "items": { "type": "string" } },
                            { "type": "null" }
                        ],
                        "default": null,
                        "description": "The script's arguments: an object matching its parameters_schema, an array of strings for a command-line script, or null for none."
                    },
                    "idempotencyKey": {
                        "type": "string",
                        "description": "Optional: a unique key for this call (e.g. a UUID). Repeating the same call with the same key (a retry) returns the first call's result without running the script again; use a new key for every new call."
                    }
                },
                "required": ["skillName", "scriptName"]
            }),
            ToolKind::SearchSkills => json!({
                "type": "object",
                "properties": {
                    "query": {
                        "type": "string",
                        "description": "What the task needs, in a few words (e.g. \"fill in a PDF form\")."
                    },
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": MAX_SEARCH_LIMIT,
                        "default": DEFAULT_SEARCH_LIMIT,
                        "description": format!("The most skills to return (default {DEFAULT_SEARCH_LIMIT}, at most {MAX_SEARCH_LIMIT}).")
                    }
                },
                "required": ["query"]
            }),
            ToolKind::GetTask | ToolKind::CancelTask => json!({
                "type": "object",
                "properties": {
                    "taskId": {
                        "type": "string",
                        "description": "The task's id, as run_skill_script returned it (\"task\")."
                    }
                },
                "required": ["taskId"]
            }),
        }
    }
}

impl fmt::Display for ToolKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What one call of a provider's tool names: the skill, the script of a `run_skill_script` call,
/// and the call's risk tier. An approval layer keys remembered approvals on it and shows it to the
/// person deciding (with the skill's [`origin`](skillful_core::Skill::origin)).
#[derive(Clone)]
#[non_exhaustive]
pub struct CallSubject {
    /// Which tool is called.
    pub kind: ToolKind,
    /// The skill, as the call finds it.
    pub skill: Arc<dyn Skill>,
    /// The script a `run_skill_script` call names; `None` for the other tools.
    pub script: Option<Arc<dyn SkillScript>>,
    /// How much harm the call can do (see [`SkillTool::risk_tier`](crate::SkillTool::risk_tier)).
    pub risk: RiskTier,
}

impl CallSubject {
    /// The skill's exact name.
    pub fn skill_name(&self) -> &str {
        self.skill.name()
    }

    /// The script's exact name, for a `run_skill_script` call.
    pub fn script_name(&self) -> Option<&str> {
        self.script.as_ref().map(|script| script.name())
    }
}

impl fmt::Debug for CallSubject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallSubject")
            .field("kind", &self.kind)
            .field("skill", &self.skill_name())
            .field("script", &self.script_name())
            .field("risk", &self.risk)
            .finish()
    }
}
