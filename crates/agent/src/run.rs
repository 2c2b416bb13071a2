//! How a run goes ([`Agent::run`]): the input's messages, the context gathered, the mode's
//! strategy (`tool_loop.rs` or `guided/`), then the turn's end joining the session.
//!
//! It is apart from `agent.rs` so that the strategies, which use the agent, are used by the run
//! and not by the agent itself.

use std::sync::Arc;

use skillful_chat::{Content, Message, Role, SharedTool};
use skillful_core::SourceContext;
use skillful_decorators::not_approved;
use skillful_provider::ToolKind;
use tracing::Instrument;

use crate::agent::{Agent, AgentResponse, Input, Provided};
use crate::context::SkillFunction;
use crate::error::AgentError;
use crate::mode::Mode;
use crate::run_options::RunOptions;
use crate::session::{Author, Session};
use crate::session_tasks::{self, SessionTask, SessionTaskState};
use crate::spans;
use crate::turn::{Gathered, Made, Offered, TurnInput};

impl Agent {
    /// Runs one turn of `session`: a prompt, or approval answers that resume a held-back run.
    ///
    /// The session gains the input and every new message; on error it is left unchanged.
    ///
    /// # Errors
    /// The model failed ([`AgentError::Chat`]), a context provider failed, or an approval answer
    /// names no pending call.
    pub async fn run(
        &self,
        input: impl Into<Input>,
        session: &mut Session,
    ) -> Result<AgentResponse, AgentError> {
        self.run_with(input, session, &RunOptions::default()).await
    }

    /// [`Agent::run`] with `options`: skills the user named to load for this turn.
    ///
    /// # Errors
    /// As [`Agent::run`]; also [`AgentError::UnknownSkill`] when `options` names a skill that is
    /// not offered (before any model call).
    pub async fn run_with(
        &self,
        input: impl Into<Input>,
        session: &mut Session,
        run: &RunOptions,
    ) -> Result<AgentResponse, AgentError> {
        self.watch_tasks();
        let span = spans::invoke_agent(&self.name, session.id(), self.options.model.as_deref());
        let response = async {
            let response = self.run_turn(input.into(), session, run).await;
            if let Some(auditor) = &self.auditor {
                auditor.on_disk().await;
            }
            response
        }
        .instrument(span.clone())
        .await;
        spans::record_run(&span, response.as_ref().map(|response| response.usage));
        response
    }

    /// One turn of [`Agent::run_with`], inside its `invoke_agent` span: the input's messages,
    /// the context gathered, then the mode's strategy.
    async fn run_turn(
        &self,
        input: Input,
        session: &mut Session,
        run: &RunOptions,
    ) -> Result<AgentResponse, AgentError> {
        let mode = self.mode(run);
        let input = self.input_messages(input, session).await?;
        let gathered = self.gather(session).await?;
        let made = match mode {
            Mode::Guided => crate::guided::turn(self, &input, &gathered, session, run).await?,
            Mode::Tools | Mode::Auto => {
                crate::tool_loop::turn(self, &input, gathered, session, run).await?
            }
        };
        let usage = made.usage;
        let started = self.started_tasks(session, &made.messages).await;
        let reply = finish(session, input, made, mode, started);
        if let Some(auditor) = &self.auditor {
            auditor.run_ended(session.id(), usage).await;
        }
        Ok(reply)
    }

    /// What `input` adds to `session`: a new prompt answers the calls still pending as not
    /// approved (those calls, with what they name, are audited as unanswered), then the prompt;
    /// approval answers must each name a pending call.
    async fn input_messages(
        &self,
        input: Input,
        session: &Session,
    ) -> Result<TurnInput, AgentError> {
        let pending = session.pending_approvals();
        let mut turn = TurnInput::default();
        match input {
            Input::Text(text) => {
                if !pending.is_empty() {
                    if self.auditor.is_some() {
                        for request in &pending {
                            let subject = self.describe(&request.call, session).await?;
                            turn.unanswered.push((request.call.clone(), subject));
                        }
                    }
                    let results = pending
                        .iter()
                        .map(|request| Content::FunctionResult(not_approved(&request.call)))
                        .collect();
                    turn.messages.push(Message::new(Role::Tool, results));
                }
                turn.messages.push(Message::user(text.clone()));
                turn.query = Some(text);
            }
            Input::Approvals(responses) => {
                if let Some(unknown) = responses.iter().find(|response| {
                    !pending
                        .iter()
                        .any(|request| request.call.call_id == response.call_id)
                }) {
                    return Err(AgentError::UnknownApproval {
                        call_id: unknown.call_id.clone(),
                    });
                }
                let answers = responses.into_iter().map(Content::ApprovalResponse);
                turn.messages
                    .push(Message::new(Role::User, answers.collect()));
            }
            Input::Tasks(records) => {
                turn.messages.push(session_tasks::results_message(&records));
                turn.reported = records.into_iter().map(|record| record.task_id).collect();
            }
        }
        Ok(turn)
    }

    /// The instructions and tools of every context provider, and each offered skill with the
    /// `load_skill` that loads it.
    async fn gather(&self, session: &Session) -> Result<Gathered, AgentError> {
        let mut gathered = Gathered {
            instructions: self.instructions.iter().cloned().collect(),
            ..Gathered::default()
        };
        for provider in &self.providers {
            match provider {
                Provided::Skills(skills) => {
                    // Isolated by session: one session's idempotency keys never replay
                    // another's results.
                    let context = skills
                        .context(&SourceContext::isolated(session.id()))
                        .await?;
                    gathered
                        .instructions
                        .extend(context.instructions().map(str::to_owned));
                    let functions: Vec<SharedTool> = context
                        .tools()
                        .iter()
                        .map(|tool| Arc::new(SkillFunction(tool.clone())) as SharedTool)
                        .collect();
                    let load = functions
                        .iter()
                        .find(|tool| tool.name() == ToolKind::LoadSkill.name());
                    if let Some(load) = load {
                        for skill in context.skills() {
                            gathered.offered.push(Offered {
                                skill: Arc::clone(skill),
                                tools: functions.clone(),
                                load: Arc::clone(load),
                            });
                        }
                    }
                    gathered.tools.extend(functions);
                }
                Provided::Other(other) => {
                    let context = other.context(session).await?;
                    gathered.instructions.extend(context.instructions);
                    gathered.tools.extend(context.tools);
                }
            }
        }
        Ok(gathered)
    }
}

/// Ends a turn: the input's messages (the conversation's), then what the strategy `made`,
/// join `session`; what the run gives back.
fn finish(
    session: &mut Session,
    input: TurnInput,
    made: Made,
    mode: Mode,
    started: Vec<SessionTask>,
) -> AgentResponse {
    let author = if input.reported.is_empty() {
        Author::Conversation
    } else {
        Author::TaskResult
    };
    session.extend(input.messages.into_iter().map(|message| (message, author)));
    for id in &input.reported {
        session.set_task_state(id, SessionTaskState::Reported);
    }
    session.add_tasks(started);
    session.extend(
        made.messages
            .iter()
            .cloned()
            .zip(made.authors.iter().copied()),
    );
    AgentResponse {
        pending: made
            .messages
            .iter()
            .flat_map(Message::approval_requests)
            .cloned()
            .collect(),
        messages: made.messages,
        authors: made.authors,
        usage: made.usage,
        finish_reason: made.finish_reason,
        mode,
        stages: made.stages,
    }
}
