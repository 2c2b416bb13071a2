//! The errors the tools return to the model: a JSON object it can act on.

use std::fmt;

use serde::Serialize;
use skillful_core::SkillError;

/// What kind of mistake or failure a [`ToolError`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolErrorCode {
    /// The tool's arguments are missing, blank, of the wrong type or out of range.
    InvalidArguments,
    /// No skill has the requested name.
    SkillNotFound,
    /// The skill has no resource with the requested name.
    ResourceNotFound,
    /// The skill has no script with the requested name.
    ScriptNotFound,
    /// The skill's content could not be produced.
    SkillLoadFailed,
    /// The resource exists but could not be read.
    ResourceReadFailed,
    /// The script could not run, or ran and failed.
    ScriptFailed,
    /// An idempotency key was repeated for a different call than the one it was first used for.
    IdempotencyKeyReused,
    /// The skills could not be searched.
    SearchFailed,
    /// The script was stopped on request (a cancelled task).
    ScriptCancelled,
    /// No task of this conversation has the requested id.
    TaskNotFound,
    /// The tasks could not be asked about (their store failed).
    TaskStoreFailed,
}

/// An error a tool returns to the model, shown to it as the JSON object
/// `{"error": code, "message": ..., "hint": ..., "retryable": bool}`.
///
/// `message` is the Microsoft Agent Framework's text (`Error: Skill 'x' not found.`); `hint` says
/// what to do next; `retryable` says whether the very same call may succeed later.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolError {
    /// What went wrong, as a stable code.
    #[serde(rename = "error")]
    pub code: ToolErrorCode,
    /// The message, worded as the reference words it.
    pub message: String,
    /// What the model can do about it.
    pub hint: String,
    /// Whether repeating the same call unchanged may succeed.
    pub retryable: bool,
}

impl ToolError {
    pub(crate) fn new(code: ToolErrorCode, message: String, hint: String) -> Self {
        Self {
            code,
            message,
            hint,
            retryable: false,
        }
    }

    pub(crate) fn invalid_arguments(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(ToolErrorCode::InvalidArguments, message.into(), hint.into())
    }

    /// A failure of the skill's own code, `error`, behind `message`. File paths and URIs in read,
    /// safety and integrity errors stay in the log; the other errors' text is what the model needs to
    /// correct itself, so it becomes the hint.
    pub(crate) fn from_skill_error(
        code: ToolErrorCode,
        message: String,
        error: &SkillError,
    ) -> Self {
        let code = match error {
            SkillError::InvalidArguments { .. } => ToolErrorCode::InvalidArguments,
            SkillError::ScriptCancelled { .. } => ToolErrorCode::ScriptCancelled,
            _ => code,
        };
        let (hint, retryable) = match error {
            SkillError::Unreadable { .. } => (
                "It could not be read just now; try again, or go on without it.".to_owned(),
                true,
            ),
            SkillError::Refused { .. } | SkillError::Mismatch { .. } => {
                ("It is not available; go on without it.".to_owned(), false)
            }
            SkillError::TooLarge { advice, .. } => {
                (format!("It is too large to read whole; {advice}."), false)
            }
            SkillError::InvalidArguments { message, .. } => (
                format!("{message} Pass the arguments the script's parameters_schema describes."),
                false,
            ),
            SkillError::ScriptTimedOut { after, .. } => (
                format!(
                    "The script ran out of time ({}s) and was stopped. Call it with less work at a time, or tell the user it needs a longer limit.",
                    after.as_secs_f64()
                ),
                false,
            ),
            SkillError::ScriptCancelled { .. } => (
                "It was stopped on request; run it again only if the user asks.".to_owned(),
                false,
            ),
            other => (other.to_string(), false),
        };
        Self {
            code,
            message,
            hint,
            retryable,
        }
    }
}

impl fmt::Display for ToolError {
    /// The JSON object the model is shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let json = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&json)
    }
}

impl std::error::Error for ToolError {}
