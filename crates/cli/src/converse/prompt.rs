//! The terminal's [`Approver`]: each response shown (and the session saved), each held call asked
//! about with `??` lines and answered `y`/`n`/`a` on stdin.

use async_trait::async_trait;
use skillful_agent::{
    AgentResponse, ApprovalDecision, ApprovalQuestion, Approver, ApproverError, HeldCall, Session,
    SessionFile, SessionTask,
};
use skillful_chat::FunctionCall;
use skillful_core::text::one_line;

use super::terminal::Terminal;
use super::transcript;
use crate::output;

/// Approvals asked on `terminal`; the session saved to `file` (locked for as long as this
/// lasts) after every response. The conversation owns it beside the agent and the session, so
/// that a run can borrow all three at once.
pub(crate) struct Asking {
    pub(crate) terminal: Terminal,
    pub(super) file: Option<SessionFile>,
    /// `--max-tokens`, named when an answer was cut off at it.
    pub(super) max_tokens: u32,
}

#[async_trait]
impl Approver for Asking {
    async fn responded(
        &mut self,
        response: &AgentResponse,
        session: &Session,
    ) -> Result<(), ApproverError> {
        if let Some(file) = &self.file {
            file.save(session)?;
        }
        if self.terminal.transcript() {
            transcript::show(&mut self.terminal.out(), response)?;
        }
        if response.finish_reason.as_deref() == Some("length") {
            writeln!(
                output::stderr(),
                "skills: the model's answer was cut off at the token limit ({} tokens per \
                 call); raise --max-tokens for longer answers",
                self.max_tokens
            )?;
        }
        Ok(())
    }

    /// Says which tasks the conversation waits for; their lines show as they come.
    async fn waiting_for(&mut self, tasks: &[SessionTask]) -> Result<(), ApproverError> {
        let names: Vec<String> = tasks
            .iter()
            .map(|task| format!("{} ({} {})", task.task, task.skill, task.script))
            .collect();
        writeln!(
            output::stderr(),
            "   [waiting for {}; its result continues the conversation; Ctrl-C stops it]",
            names.join(", ")
        )?;
        Ok(())
    }

    async fn decide(&mut self, held: &HeldCall) -> Result<Option<ApprovalDecision>, ApproverError> {
        let (lines, prompt, always) = ask_about(&held.call, held.question.as_ref());
        loop {
            {
                let mut out = self.terminal.out();
                for line in &lines {
                    writeln!(out, "{line}")?;
                }
            }
            self.terminal.prompt(&prompt)?;
            let Some(line) = self.terminal.read_answer().await? else {
                return Ok(None);
            };
            return Ok(Some(match line.trim().to_ascii_lowercase().as_str() {
                "y" | "yes" => ApprovalDecision::Once,
                "a" | "always" if always => ApprovalDecision::Always,
                "n" | "no" => ApprovalDecision::Refuse(Some("the user said no".to_owned())),
                _ => continue,
            }));
        }
    }
}

/// The question about one call, as the terminal shows it: its lines (the call; the skill,
/// script, risk tier and origin; the declared capabilities; the sandbox profile), the answer
/// prompt (no newline), and
/// whether "always" is offered (the skill can be bound to its content).
fn ask_about(
    call: &FunctionCall,
    question: Option<&ApprovalQuestion>,
) -> (Vec<String>, String, bool) {
    let mut lines = vec![format!(
        "?? approve {}({})",
        one_line(&call.name),
        one_line(&call.arguments.to_string())
    )];
    let Some(question) = question else {
        lines.push("?? names no skill (or script) of this agent; it fails if run".to_owned());
        return (lines, "?? [y]es / [n]o: ".to_owned(), false);
    };
    let subject = &question.subject;
    let origin = subject.skill.origin();
    let script = subject
        .script_name()
        .map(|script| format!(" · script {}", one_line(script)))
        .unwrap_or_default();
    lines.push(format!(
        "?? skill {}{script} · risk {} · from {} ({} scope)",
        one_line(subject.skill_name()),
        subject.risk,
        one_line(&origin.to_string()),
        origin.scope
    ));
    if !question.capabilities.is_empty() {
        lines.push(format!(
            "?? declares {} (never more than the sandbox allows)",
            one_line(&question.capabilities.to_string())
        ));
    }
    if let Some(sandbox) = &question.sandbox {
        lines.push(format!("?? sandbox: {}", one_line(sandbox)));
    }
    let what = if subject.script_name().is_some() {
        "this tool for this skill and script"
    } else {
        "this tool for this skill"
    };
    match &question.coverage {
        Ok(coverage) => (
            lines,
            format!(
                "?? [y]es / [n]o / [a]lways ({what}, until anything in {} changes): ",
                one_line(&coverage.to_string())
            ),
            true,
        ),
        Err(reason) => {
            lines.push(format!("?? no [a]lways: {}", one_line(reason)));
            (lines, "?? [y]es / [n]o: ".to_owned(), false)
        }
    }
}
