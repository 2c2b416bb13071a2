//! The one timeout rule of script calls, for every kind of script (file, inline, plugin, any
//! other [`SkillScript`]): the limit is the script's own ([`SkillScript::timeout`]: a file
//! script's runner's, an inline script's), else [`DEFAULT_SCRIPT_TIMEOUT`]; a call past it is
//! stopped (the future dropped: a file script's processes are killed with their tree, an
//! in-process script is abandoned) and is [`SkillError::ScriptTimedOut`], naming the skill, the
//! script and the limit.

use std::sync::Arc;
use std::time::Duration;

use skillful_core::{DEFAULT_SCRIPT_TIMEOUT, ScriptMonitor, SkillError, SkillScript};

/// The limit a call of `script` gets: [`SkillScript::timeout`], else [`DEFAULT_SCRIPT_TIMEOUT`].
pub fn script_limit(script: &dyn SkillScript) -> Duration {
    script.timeout().unwrap_or(DEFAULT_SCRIPT_TIMEOUT)
}

/// Runs `script` of skill `skill` with `arguments` within its limit ([`script_limit`]); what
/// `run_skill_script` runs for every skill.
///
/// # Errors
/// [`SkillError::ScriptTimedOut`] past the limit; otherwise what the script returned.
///
/// # Example
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use std::time::Duration;
/// use skillful_core::{Skill, SkillError};
/// use skillful_inline::{InlineScript, InlineSkill};
///
/// let skill = InlineSkill::builder("slow", "Waits.")
///     .instructions("Call it.")
///     .add_script(
///         InlineScript::from_json("wait", "", serde_json::json!({}), |_| async {
///             std::future::pending::<()>().await;
///             Ok(String::new())
///         })
///         .with_timeout(Duration::from_millis(20)),
///     )
///     .build()
///     .unwrap();
/// let error = skillful_provider::run_script("slow", &*skill.scripts()[0], serde_json::json!({}))
///     .await
///     .unwrap_err();
/// assert!(matches!(error, SkillError::ScriptTimedOut { .. }));
/// # });
/// ```
pub async fn run_script(
    skill: &str,
    script: &dyn SkillScript,
    arguments: serde_json::Value,
) -> Result<String, SkillError> {
    run_script_monitored(skill, script, arguments, None).await
}

/// [`run_script`] under `monitor` when given ([`SkillScript::run_monitored`]): the same limit
/// and error.
///
/// # Errors
/// As [`run_script`]; [`SkillError::ScriptCancelled`] when the monitor stopped it.
pub async fn run_script_monitored(
    skill: &str,
    script: &dyn SkillScript,
    arguments: serde_json::Value,
    monitor: Option<Arc<dyn ScriptMonitor>>,
) -> Result<String, SkillError> {
    let limit = script_limit(script);
    let run = async {
        match monitor {
            Some(monitor) => script.run_monitored(arguments, monitor).await,
            None => script.run(arguments).await,
        }
    };
    match tokio::time::timeout(limit, run).await {
        Ok(result) => result,
        Err(_) => Err(SkillError::ScriptTimedOut {
            skill: skill.to_owned(),
            script: script.name().to_owned(),
            after: limit,
        }),
    }
}
