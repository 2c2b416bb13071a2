//! What the person deciding on a pending call is told: what it names, what an "always" answer
//! would cover, the sandbox its script would run in and the capabilities the skill declares.

use skillful_chat::FunctionCall;
use skillful_core::Capabilities;
use skillful_provider::CallSubject;

use crate::Session;
use crate::agent::Agent;
use crate::approvals::Coverage;
use crate::error::AgentError;

/// What the question about one pending call shows ([`Agent::question`]).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ApprovalQuestion {
    /// The skill (with its origin), the script and the risk tier the call names.
    pub subject: CallSubject,
    /// What an "always" answer would be bound to, as the skill is now; the reason (one line)
    /// when it cannot be approved for good, so that only yes or no can be offered.
    pub coverage: Result<Coverage, String>,
    /// The sandbox profile the script would run in, as its runner says it (for a
    /// `run_skill_script` call whose source knows).
    pub sandbox: Option<String>,
    /// What the skill declares its scripts need; it widens nothing beyond the profile, and an
    /// "always" answer covers it (it is written in the skill's files).
    pub capabilities: Capabilities,
}

impl Agent {
    /// The question about `call` of `session` (one waiting for approval): what
    /// [`Agent::describe`] says it names, what "always" would cover (the skill's files are hashed
    /// now) and the script's sandbox profile. `None` when the call names nothing of the agent's
    /// skills providers.
    ///
    /// # Errors
    /// A skills provider could not list its skills.
    pub async fn question(
        &self,
        call: &FunctionCall,
        session: &Session,
    ) -> Result<Option<ApprovalQuestion>, AgentError> {
        let Some(subject) = self.describe(call, session).await? else {
            return Ok(None);
        };
        let coverage = self
            .approvals()
            .coverage(&subject)
            .await
            .map_err(|error| error.to_string());
        let sandbox = subject
            .script
            .as_ref()
            .and_then(|script| script.sandbox_profile());
        let capabilities = subject.skill.capabilities();
        Ok(Some(ApprovalQuestion {
            subject,
            coverage,
            sandbox,
            capabilities,
        }))
    }
}
