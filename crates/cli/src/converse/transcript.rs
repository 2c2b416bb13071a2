//! The transcript of a conversation: the model's text indented, tool calls and results after
//! our `>>`/`<<` markers, activations said as such.

use std::io;

use skillful_agent::{AgentResponse, Author};
use skillful_chat::{ApprovalRequest, Content};
use skillful_core::text::{for_terminal, one_line};

use crate::output;

/// The most characters of a tool result the transcript shows.
const SHOWN_RESULT_CHARS: usize = 200;

/// Writes `response`'s messages to `out`, as the transcript shows them.
pub(super) fn show(
    out: &mut output::Writer<impl io::Write>,
    response: &AgentResponse,
) -> io::Result<()> {
    for (message, author) in response.messages.iter().zip(&response.authors) {
        if *author == Author::AnswerStep {
            writeln!(
                out,
                ">> answer step: the model was asked again, with the results and no tools"
            )?;
        }
        for content in &message.contents {
            match content {
                // Indented: a line of the model's can never start like one of ours.
                Content::Text { text } if !text.trim().is_empty() => {
                    for line in for_terminal(text.trim_end()).lines() {
                        writeln!(out, "  {line}")?;
                    }
                }
                Content::FunctionCall(call)
                | Content::ApprovalRequest(ApprovalRequest { call })
                    if matches!(author, Author::Activation | Author::Invocation) =>
                {
                    let skill = call.arguments["skillName"].as_str().unwrap_or_default();
                    let why = if *author == Author::Activation {
                        "it matches the request"
                    } else {
                        "you asked for it"
                    };
                    writeln!(out, ">> activated {}: {why}", one_line(skill))?;
                }
                Content::FunctionCall(call)
                | Content::ApprovalRequest(ApprovalRequest { call }) => writeln!(
                    out,
                    ">> calling tool {}({})",
                    one_line(&call.name),
                    one_line(&call.arguments.to_string())
                )?,
                Content::FunctionResult(result) => writeln!(
                    out,
                    "<< tool result: {}",
                    one_line(&shorten(&result.result))
                )?,
                _ => {}
            }
        }
    }
    out.flush()
}

/// A tool result on one line, cut to [`SHOWN_RESULT_CHARS`].
fn shorten(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let kept = skillful_core::text::cut(&line, SHOWN_RESULT_CHARS);
    if kept.len() == line.len() {
        return line;
    }
    format!("{kept}… ({} characters)", text.chars().count())
}
