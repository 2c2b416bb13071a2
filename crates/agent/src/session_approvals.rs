//! The approvals a person gave for the rest of a session
//! ([`ApprovalDecision::ForSession`](crate::ApprovalDecision::ForSession)), kept in the agent's
//! memory. A module of their own, below both: the agent owns them, and the approval turn loop
//! (`approver.rs`), which runs the agent, reads and adds to them.

use std::sync::Mutex;

use skillful_provider::CallSubject;

use crate::approvals::Coverage;

/// A call approved for a session: the same tool, skill, origin and script, and the same
/// coverage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SessionApproval {
    session: String,
    tool: String,
    skill: String,
    origin: String,
    script: Option<String>,
    coverage: Option<Coverage>,
}

impl SessionApproval {
    /// The approval, for session `session`, of calling `tool` about `subject` with `coverage`.
    pub(crate) fn new(
        session: &str,
        tool: &str,
        subject: &CallSubject,
        coverage: Option<Coverage>,
    ) -> Self {
        Self {
            session: session.to_owned(),
            tool: tool.to_owned(),
            skill: subject.skill_name().to_owned(),
            origin: subject.skill.origin().to_string(),
            script: subject.script_name().map(str::to_owned),
            coverage,
        }
    }
}

/// The approvals given for a session, in the agent's memory.
#[derive(Debug, Default)]
pub(crate) struct SessionApprovals(Mutex<Vec<SessionApproval>>);

impl SessionApprovals {
    pub(crate) fn covers(&self, approval: &SessionApproval) -> bool {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .contains(approval)
    }

    pub(crate) fn add(&self, approvals: Vec<SessionApproval>) {
        let mut held = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for approval in approvals {
            if !held.contains(&approval) {
                held.push(approval);
            }
        }
    }
}
