//! Why a run failed.

use skillful_chat::ChatError;
use skillful_core::SkillError;

/// Why an agent run failed. The session is left as it was, so the run can be retried.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The model could not be reached or answered with an error.
    #[error(transparent)]
    Chat(#[from] ChatError),
    /// A context provider failed (the skills source could not be read).
    #[error("cannot gather the run's context: {0}")]
    Context(#[from] SkillError),
    /// An approval answer names a call that is not waiting for approval.
    #[error("no call `{call_id}` is waiting for approval in this session")]
    UnknownApproval {
        /// The id the answer named.
        call_id: String,
    },
    /// A skill the run was asked to load ([`RunOptions::skill`](crate::RunOptions::skill)) is
    /// not among the offered skills.
    #[error("no skill `{name}` is offered{}", suggest(closest))]
    UnknownSkill {
        /// The name asked for.
        name: String,
        /// The offered names closest to it, best first (possibly none).
        closest: Vec<String>,
    },
    /// The [`Approver`](crate::Approver) of [`Agent::run_approving`](crate::Agent::run_approving)
    /// failed (its terminal, its session file).
    #[error(transparent)]
    Approver(ApproverError),
    /// A task store could not be read (waiting for a session's tasks).
    #[error(transparent)]
    Tasks(#[from] skillful_provider::TaskStoreError),
}

fn suggest(closest: &[String]) -> String {
    if closest.is_empty() {
        "; `skills list` shows the skills".to_owned()
    } else {
        format!("; did you mean {}?", closest.join(" or "))
    }
}

/// Why an [`Approver`](crate::Approver) could not answer (its terminal failed, its session file could not be
/// written); the turn ends with [`AgentError::Approver`].
pub type ApproverError = Box<dyn std::error::Error + Send + Sync>;
