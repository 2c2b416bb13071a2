//! Asking a person about held calls: the [`Approver`] trait, and the turn loop that drives it
//! ([`Agent::run_approving`]: run, collect the held calls, ask, resume or refuse, remember).

use async_trait::async_trait;
use skillful_chat::{ApprovalRequest, ApprovalResponse, FunctionCall, Remember};

use crate::agent::{Agent, AgentResponse, Input};
use crate::error::{AgentError, ApproverError};
use crate::question::ApprovalQuestion;
use crate::run_options::RunOptions;
use crate::session::Session;
use crate::session_approvals::SessionApproval;

/// One call held for approval, with what the person must see.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HeldCall {
    /// The call: the tool and its arguments.
    pub call: FunctionCall,
    /// What the call names, as the skills are now ([`Agent::question`]): the skill with its
    /// origin, the script, the risk tier, the declared capabilities, the sandbox, what an
    /// "always" answer would cover. `None` when it names nothing of the agent's skills (it fails
    /// if run).
    pub question: Option<ApprovalQuestion>,
}

/// A person's answer about one [`HeldCall`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalDecision {
    /// Run this call.
    Once,
    /// Run it, and later calls of the same tool for the same skill and script (as long as what
    /// "always" would cover is unchanged) of this session without asking. Kept in the agent's
    /// memory, never in the session (nothing in a session approves anything).
    ForSession,
    /// Run it and approve it for good ([`Remember::Tool`], kept in the agent's
    /// [`ApprovalsStore`](crate::ApprovalsStore)); offer it only where the question's coverage is
    /// `Ok`.
    Always,
    /// Do not run it; the model is told so, with the reason.
    Refuse(Option<String>),
}

impl ApprovalDecision {
    /// The answer to the call `call_id` this decision gives.
    fn answer(&self, call_id: &str) -> ApprovalResponse {
        match self {
            Self::Once | Self::ForSession => ApprovalResponse::approve(call_id),
            Self::Always => ApprovalResponse::approve(call_id).remembering(Remember::Tool),
            Self::Refuse(reason) => ApprovalResponse::reject(call_id, reason.clone()),
        }
    }
}

/// The person's side of a turn: sees each response, decides on each held call.
///
/// The CLI's implementation asks on the terminal; a test's answers from a script.
#[async_trait]
pub trait Approver: Send {
    /// Called with each response of the turn, before its held calls are asked about (to show
    /// it, to save the session). The default does nothing.
    ///
    /// # Errors
    /// Whatever stops the turn (it ends with [`AgentError::Approver`]).
    async fn responded(
        &mut self,
        response: &AgentResponse,
        session: &Session,
    ) -> Result<(), ApproverError> {
        let _ = (response, session);
        Ok(())
    }

    /// The decision on `held`; `None` when no answer can be had (the person left): the turn
    /// ends with the calls pending, none of the answers of this round given.
    ///
    /// # Errors
    /// Whatever stops the turn (it ends with [`AgentError::Approver`]).
    async fn decide(&mut self, held: &HeldCall) -> Result<Option<ApprovalDecision>, ApproverError>;

    /// Called before [`Agent::run_approving_tasks`] waits for the tasks of the session that
    /// still run (to say so). The default does nothing.
    ///
    /// # Errors
    /// Whatever stops the turn (it ends with [`AgentError::Approver`]).
    async fn waiting_for(&mut self, tasks: &[crate::SessionTask]) -> Result<(), ApproverError> {
        let _ = tasks;
        Ok(())
    }
}

/// What [`Agent::run_approving`] did.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Turn {
    /// Every response of the turn, in order (the input's, then each resumption's), with the
    /// answers given to its held calls.
    pub responses: Vec<(AgentResponse, Vec<ApprovalResponse>)>,
    /// Whether the turn ended with calls still held, the approver having given no answer.
    pub pending: bool,
}

/// The session approval that `held` would be (`None` for a call that names no skill).
fn session_approval(session: &Session, held: &HeldCall) -> Option<SessionApproval> {
    let question = held.question.as_ref()?;
    Some(SessionApproval::new(
        session.id(),
        &held.call.name,
        &question.subject,
        question.coverage.clone().ok(),
    ))
}

impl Agent {
    /// Runs `input` ([`Agent::run_with`]), then asks `approver` about every held call and
    /// resumes with its answers, until the model answers or the approver gives none. Calls
    /// approved for the session ([`ApprovalDecision::ForSession`]) are answered without asking.
    ///
    /// # Errors
    /// As [`Agent::run_with`]; [`AgentError::Approver`] when the approver failed.
    pub async fn run_approving(
        &self,
        input: impl Into<Input>,
        session: &mut Session,
        options: &RunOptions,
        approver: &mut dyn Approver,
    ) -> Result<Turn, AgentError> {
        let mut turn = Turn::default();
        let mut input = input.into();
        loop {
            let response = self.run_with(input, session, options).await?;
            approver
                .responded(&response, session)
                .await
                .map_err(AgentError::Approver)?;
            if response.pending.is_empty() {
                turn.responses.push((response, Vec::new()));
                return Ok(turn);
            }
            let Some(answers) = self.answers(&response.pending, session, approver).await? else {
                turn.pending = true;
                turn.responses.push((response, Vec::new()));
                return Ok(turn);
            };
            turn.responses.push((response, answers.clone()));
            input = Input::Approvals(answers);
        }
    }

    /// Asks `approver` about the calls `session` holds (a run stopped with an approval
    /// pending) and resumes with the answers as [`Agent::run_approving`] does; the first
    /// response's answers are those given here. `None` when the approver gave no answer.
    ///
    /// # Errors
    /// As [`Agent::run_approving`].
    pub async fn resume_approving(
        &self,
        session: &mut Session,
        options: &RunOptions,
        approver: &mut dyn Approver,
    ) -> Result<Option<Turn>, AgentError> {
        let pending = session.pending_approvals();
        let Some(answers) = self.answers(&pending, session, approver).await? else {
            return Ok(None);
        };
        let mut turn = self
            .run_approving(answers.clone(), session, options, approver)
            .await?;
        if let Some((_, first)) = turn.responses.first_mut() {
            first.splice(0..0, answers);
        }
        Ok(Some(turn))
    }

    /// The answers to `pending`: approved for the session without asking, else decided by
    /// `approver`; `None` when it gave no answer to one of them.
    async fn answers(
        &self,
        pending: &[ApprovalRequest],
        session: &Session,
        approver: &mut dyn Approver,
    ) -> Result<Option<Vec<ApprovalResponse>>, AgentError> {
        let mut held = Vec::with_capacity(pending.len());
        for ApprovalRequest { call } in pending {
            let question = self.question(call, session).await?;
            held.push(HeldCall {
                call: call.clone(),
                question,
            });
        }
        let mut answers = Vec::with_capacity(held.len());
        let mut for_session = Vec::new();
        for held in &held {
            let approval = session_approval(session, held);
            let remembered = approval.as_ref().is_some_and(|approval| {
                for_session.contains(approval) || self.for_session.covers(approval)
            });
            let decision = if remembered {
                ApprovalDecision::Once
            } else {
                match approver.decide(held).await.map_err(AgentError::Approver)? {
                    Some(decision) => decision,
                    None => return Ok(None),
                }
            };
            if decision == ApprovalDecision::ForSession {
                for_session.extend(approval);
            }
            answers.push(decision.answer(&held.call.call_id));
        }
        self.for_session.add(for_session);
        Ok(Some(answers))
    }
}
