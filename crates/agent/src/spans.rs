//! The agent's spans, in the OpenTelemetry GenAI conventions: `invoke_agent {agent}` per run,
//! the skill attributes of an `execute_tool` span (see `skillful_decorators::execute_tool_span`).

use skillful_chat::Usage;
use skillful_decorators::{PROVIDER_NAME, record_error, record_usage};
use skillful_provider::SkillTool;
use tracing::Span;
use tracing::field::Empty;

use crate::error::AgentError;

/// The `invoke_agent {agent}` span of one run (kind INTERNAL: the agent runs in this process):
/// `gen_ai.operation.name`, `gen_ai.agent.name`, `gen_ai.conversation.id` (the session's id),
/// `gen_ai.provider.name`, `gen_ai.request.model`; [`record_run`] adds the tokens.
pub(crate) fn invoke_agent(agent: &str, session: &str, model: Option<&str>) -> Span {
    tracing::info_span!(
        "invoke_agent",
        otel.name = %format_args!("invoke_agent {agent}"),
        otel.kind = "internal",
        otel.status_code = Empty,
        gen_ai.operation.name = "invoke_agent",
        gen_ai.agent.name = agent,
        gen_ai.conversation.id = session,
        gen_ai.provider.name = PROVIDER_NAME,
        gen_ai.request.model = model,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        "error.type" = Empty,
    )
}

/// Records a skill's digest (computed for its audit record) on `span`, the call's
/// `execute_tool` span.
pub(crate) fn record_digest(span: &Span, digest: &str) {
    span.record("skillful.skill.digest", digest);
}

/// Records how a run ended on its [`invoke_agent`] span.
pub(crate) fn record_run(span: &Span, usage: Result<Option<Usage>, &AgentError>) {
    match usage {
        Ok(Some(usage)) => record_usage(span, usage),
        Ok(None) => {}
        Err(error) => record_error(span, error_type(error)),
    }
}

/// Records the skill a call of `tool` names on the current span (the call's `execute_tool`
/// span): `skillful.skill.name`, `.origin.kind`, `.scope`, `skillful.script`,
/// `skillful.risk_tier`, `skillful.sandbox.profile`. Nothing is looked up when no layer
/// records the span.
pub(crate) fn record_skill(tool: &SkillTool, arguments: &serde_json::Value) {
    let span = Span::current();
    if span.is_disabled() {
        return;
    }
    let Some(subject) = tool.subject(arguments) else {
        return;
    };
    let origin = subject.skill.origin();
    span.record("skillful.skill.name", subject.skill_name());
    span.record(
        "skillful.skill.origin.kind",
        origin.kind.to_string().as_str(),
    );
    span.record("skillful.skill.scope", origin.scope.to_string().as_str());
    span.record("skillful.risk_tier", subject.risk.to_string().as_str());
    if let Some(script) = &subject.script {
        span.record("skillful.script", script.name());
        if let Some(profile) = script.sandbox_profile() {
            span.record("skillful.sandbox.profile", profile.as_str());
        }
    }
}

/// The span of a task's start or end (`skillful.task.start`, `skillful.task.end`), a moment in
/// the conversation (`gen_ai.conversation.id`): the task's id, skill and script, and at its end
/// its status, exit code and how long it ran.
pub(crate) fn task(record: &skillful_provider::TaskRecord, started: bool) {
    let name = if started {
        "skillful.task.start"
    } else {
        "skillful.task.end"
    };
    let span = tracing::info_span!(
        "task",
        otel.name = name,
        otel.kind = "internal",
        gen_ai.conversation.id = record.session.as_deref(),
        skillful.task.id = record.task_id.as_str(),
        skillful.skill.name = record.skill.as_str(),
        skillful.script = record.script.as_str(),
        skillful.task.status = record.status.as_str(),
        skillful.task.exit_code = record.exit_code,
        skillful.task.elapsed_ms = record.elapsed_ms,
    );
    drop(span.enter());
}

/// The `error.type` of a failed run: the error's kind, low-cardinality.
fn error_type(error: &AgentError) -> &'static str {
    match error {
        AgentError::Chat(_) => "chat",
        AgentError::Context(_) => "context",
        AgentError::UnknownApproval { .. } => "unknown_approval",
        AgentError::UnknownSkill { .. } => "unknown_skill",
        AgentError::Approver(_) => "approver",
        AgentError::Tasks(_) => "tasks",
    }
}
