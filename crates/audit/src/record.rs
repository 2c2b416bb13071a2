//! What one audit record says.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a record is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// A tool call that ran (a skill activated by `load_skill`, a resource read, a script run).
    ToolCall,
    /// A call held back until a person answers.
    ApprovalRequest,
    /// A person's answer that did not let a call run (rejected, or never answered); an answer
    /// that let it run is the decision of its `tool_call` record.
    ApprovalAnswer,
    /// A call not run, with no one asked: the approval policy, a loop guard, or a tool that does
    /// not exist.
    Refusal,
    /// One agent run ended: the tokens it used.
    Run,
    /// A script call became a task and goes on while the conversation does (its `tool_call`
    /// record is the call's decision; this one has the task's id).
    TaskStarted,
    /// A task ended: its status (`reason`), exit code and result digest.
    TaskEnded,
    /// The log found a torn last line (a crash while writing) and cut it off; this record keeps
    /// its length and digest.
    TornTail,
}

/// Who made the call happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Actor {
    /// The model called a tool.
    Model,
    /// A person, directly (`skills run-script`).
    User,
    /// The host itself.
    Runtime,
    /// A client of a server of skills (`skills serve`): an agent host whose model, user or
    /// runtime the server cannot tell apart.
    Client,
}

/// The skill a call named.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SkillRef {
    /// Its exact name.
    pub name: String,
    /// Its origin kind (`files`, `inline`, `plugin`, `mcp`).
    pub origin: String,
    /// Its scope (`explicit`, `project`, `user`, `admin`).
    pub scope: String,
    /// Its directory, library or server, when it has one.
    pub location: Option<String>,
    /// The sha256 of what it consists of: its `SKILL.md`, its plugin library, or its document.
    pub digest: Option<String>,
}

impl SkillRef {
    /// The skill `name` of `origin` kind in `scope`, with no location or digest.
    ///
    /// # Example
    /// ```
    /// let skill = skillful_audit::SkillRef::new("unit-converter", "files", "user");
    /// assert_eq!((skill.location, skill.digest), (None, None));
    /// ```
    pub fn new(
        name: impl Into<String>,
        origin: impl Into<String>,
        scope: impl Into<String>,
    ) -> Self {
        Self {
            name: name.into(),
            origin: origin.into(),
            scope: scope.into(),
            location: None,
            digest: None,
        }
    }
}

/// Token counts of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Tokens {
    /// Prompt tokens over the run's model calls.
    pub input: u64,
    /// Completion tokens over the run's model calls.
    pub output: u64,
}

/// What happened, as a host reports it to an [`AuditSink`](crate::AuditSink). Every field is
/// written (`null` when it does not apply), so that every record has the same shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AuditEvent {
    /// What the record is about.
    pub event: EventKind,
    /// The user the host runs as.
    pub user: String,
    /// The session (conversation) id.
    pub session: Option<String>,
    /// The host command (`skills run`, `skills chat`, `skills eval`), or the embedding program.
    pub host: String,
    /// Who made the call happen.
    pub actor: Actor,
    /// The tool called.
    pub tool: Option<String>,
    /// The call's id in the conversation (the `gen_ai.tool.call.id` of its span).
    pub call_id: Option<String>,
    /// The skill the call named.
    pub skill: Option<SkillRef>,
    /// The script a `run_skill_script` call named.
    pub script: Option<String>,
    /// The sha256 of the script's file.
    pub script_digest: Option<String>,
    /// The file of the skill an MCP client of `skills serve` read (`SKILL.md`,
    /// `references/faq.md`; `null` for an archive or `skills/get`). Records written before it
    /// existed have none.
    #[serde(default)]
    pub resource: Option<String>,
    /// The task a `task_started` or `task_ended` record is about. Records written before it
    /// existed have none.
    #[serde(default)]
    pub task: Option<String>,
    /// The call's risk tier.
    pub risk: Option<String>,
    /// The sha256 of the arguments' canonical JSON.
    pub args_digest: Option<String>,
    /// The arguments themselves; `null` when redacted (`--audit-redact`) or over 16 KiB.
    pub args: Option<Value>,
    /// `approved`, `asked`, `refused`, `rejected` or `unanswered`.
    pub decision: Option<String>,
    /// Who decided: a rule (`rule: auto-approve read-only`), `remembered approval`, `user
    /// (once)`, `user (always: tool)`, `no policy`, `policy`, `guard`, `unknown tool`.
    pub decided_by: Option<String>,
    /// Why a call was refused or rejected (bounded), or what a torn tail was.
    pub reason: Option<String>,
    /// The sandbox profile the script ran under (`null` until scripts run sandboxed).
    pub sandbox: Option<String>,
    /// A script's exit code.
    pub exit_code: Option<i32>,
    /// Whether the tool's result was an error.
    pub is_error: Option<bool>,
    /// How long the tool ran, in microseconds.
    pub duration_us: Option<u64>,
    /// The sha256 of the result text the model got.
    pub result_digest: Option<String>,
    /// The tokens of a `run` record.
    pub tokens: Option<Tokens>,
}

impl AuditEvent {
    /// An event of `kind` with every optional field empty.
    pub fn new(
        kind: EventKind,
        user: impl Into<String>,
        host: impl Into<String>,
        actor: Actor,
    ) -> Self {
        Self {
            event: kind,
            user: user.into(),
            session: None,
            host: host.into(),
            actor,
            tool: None,
            call_id: None,
            skill: None,
            script: None,
            script_digest: None,
            resource: None,
            task: None,
            risk: None,
            args_digest: None,
            args: None,
            decision: None,
            decided_by: None,
            reason: None,
            sandbox: None,
            exit_code: None,
            is_error: None,
            duration_us: None,
            result_digest: None,
            tokens: None,
        }
    }
}

/// One line of the log: the event, its place in the chain and its time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AuditRecord {
    /// Its number: 0 for the first record, one more for each after it.
    pub seq: u64,
    /// When it was written (RFC 3339, UTC, milliseconds).
    pub time: String,
    /// The sha256 of the previous record's canonical JSON; `null` for the first.
    pub prev: Option<String>,
    /// What happened.
    #[serde(flatten)]
    pub event: AuditEvent,
}

/// The name of the current user, for records: `$USER` (or `$LOGNAME`), else `uid N`.
pub fn current_user() -> String {
    for variable in ["USER", "LOGNAME"] {
        if let Some(name) = std::env::var_os(variable).filter(|name| !name.is_empty()) {
            return name.to_string_lossy().into_owned();
        }
    }
    #[cfg(unix)]
    {
        format!("uid {}", skillful_state::current_uid())
    }
    #[cfg(not(unix))]
    {
        "unknown".to_owned()
    }
}
