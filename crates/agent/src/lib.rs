//! An agent that ties a chat client, its decorators and context providers together, with a
//! session that survives a process restart.
//!
//! [`Agent::run`] sends the instructions (the agent's own, then each provider's, e.g. the skills
//! catalog), the session's history and the input, with every provider's tools, through
//! `FunctionInvocation → EnsureUserMessage → Tracing → client`. Calls the [`ApprovalRules`] do not
//! approve come back as pending approval requests; a later run with the answers resumes. The
//! [`Session`] is plain serde data, so a pending approval can be saved, the process ended, and
//! the run resumed elsewhere; [`SessionFile`] keeps one in a file (locked while in use, written
//! atomically, versioned).
//!
//! It owns the composition, the skills approval policy (rules matched on the skills provider's
//! own tool instances) and the approvals given for good ([`ApprovalsStore`]: per user, keyed by
//! tool, skill and script, bound to the digests of the skill's files). Its own I/O is those two
//! files, through `skillful-state` and `skillful-fs`; nothing in a session approves anything. With
//! [`AgentBuilder::audit`] every tool call the loop decides on becomes a record of an
//! [`AuditSink`](skillful_audit::AuditSink) (`skillful-audit`), with the skill, its digest and
//! the decision. The example `examples/local_collector.rs` runs a turn whose spans go to a local
//! OpenTelemetry collector (`skillful-telemetry`) and whose records go to a sink of its own.
//!
//! # Example
//! ```no_run
//! use std::sync::Arc;
//! use skillful_agent::{Agent, ApprovalRules, AutoApprove, Session};
//! use skillful_chat::{ApprovalResponse, OpenAiClient};
//! use skillful_discovery::FileSkillsSource;
//! use skillful_provider::SkillsProvider;
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let source = FileSkillsSource::builder().root("examples/skills").build()?;
//! let agent = Agent::builder(OpenAiClient::builder("http://127.0.0.1:1234/v1").build()?)
//!     .skills(Arc::new(SkillsProvider::new(Arc::new(source))))
//!     .approval(ApprovalRules::new(AutoApprove::ReadOnly))
//!     .build();
//! let mut session = Session::new();
//! let mut response = agent.run("A marathon is 26.2 miles. How many km?", &mut session).await?;
//! while !response.pending.is_empty() {
//!     let answers = response.pending.iter().map(|r| ApprovalResponse::approve(&r.call.call_id)).collect::<Vec<_>>();
//!     response = agent.run(answers, &mut session).await?;
//! }
//! println!("{}", response.text());
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]

mod agent;
mod aids;
mod approvals;
mod approver;
mod audit;
mod context;
mod error;
mod guided;
mod mode;
mod policy;
mod question;
mod report;
mod run;
mod run_options;
mod session;
mod session_approvals;
mod session_file;
mod session_tasks;
mod spans;
mod stages;
mod tasks;
mod tool_loop;
mod turn;

pub use agent::{Agent, AgentBuilder, AgentResponse, DEFAULT_NAME, Input};
pub use aids::Aids;
pub use approvals::{ApprovalsError, ApprovalsStore, Coverage};
pub use approver::{ApprovalDecision, Approver, HeldCall, Turn};
pub use audit::AuditSettings;
pub use context::{Context, ContextProvider};
pub use error::{AgentError, ApproverError};
pub use mode::{GuidedOptions, Mode, UnknownMode};
pub use policy::{ApprovalRules, AutoApprove};
pub use question::ApprovalQuestion;
pub use report::{REPORT_RESULT_CHARS, REPORT_VERSION, RunReport, StageReport, Step, UsageReport};
pub use run_options::RunOptions;
pub use session::{Author, Session};
pub use session_file::{MAX_SESSION_BYTES, SESSION_FORMAT_VERSION, SessionFile, SessionFileError};
pub use session_tasks::{SessionTask, SessionTaskState};
pub use stages::{DecisionError, Stage, StageRecord};
