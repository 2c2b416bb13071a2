//! The transcript of a conversation: the model's text indented, tool calls and results after
//! our `>>`/`<<` markers, activations said as such, the guided strategy's stages in their place.

use std::collections::VecDeque;
use std::io;

use skillful_agent::{AgentResponse, Author, Stage, StageRecord};
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
    let mut stages: VecDeque<&StageRecord> = response
        .stages
        .iter()
        .filter(|record| {
            !matches!(
                record.stage,
                Stage::Activate | Stage::ToolLoop | Stage::AnswerStep
            )
        })
        .collect();
    for (message, author) in response.messages.iter().zip(&response.authors) {
        // A stage is shown where its messages begin; what made none is shown before the answer.
        let (before, until): (&[Stage], &[Stage]) = match author {
            Author::Selection | Author::Invocation => (&[], &[Stage::Select]),
            Author::Disclosure => (&[Stage::Select], &[Stage::Disclose]),
            Author::Decision if message.function_calls().next().is_some() => (
                &[Stage::Select, Stage::Disclose, Stage::Lookup],
                &[Stage::Decide],
            ),
            Author::Answer => (&ALL_STAGES, &[]),
            _ => (&[], &[]),
        };
        show_stages(out, &mut stages, before, until)?;
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
                | Content::ApprovalRequest(ApprovalRequest { call })
                    if *author == Author::Selection =>
                {
                    let skill = call.arguments["skillName"].as_str().unwrap_or_default();
                    writeln!(out, ">> loading {}: the model chose it", one_line(skill))?;
                }
                Content::FunctionCall(call)
                | Content::ApprovalRequest(ApprovalRequest { call })
                    if *author == Author::Disclosure =>
                {
                    let resource = call.arguments["resourceName"].as_str().unwrap_or_default();
                    writeln!(
                        out,
                        ">> reading {}: the skill's instructions name it",
                        one_line(resource)
                    )?;
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
        if *author == Author::Decision && message.function_calls().next().is_none() {
            show_stages(out, &mut stages, &[], &[Stage::Run, Stage::Read])?;
        }
    }
    for record in stages {
        stage(out, record)?;
    }
    out.flush()
}

/// The guided stages, in the order they run.
const ALL_STAGES: [Stage; 7] = [
    Stage::Select,
    Stage::Disclose,
    Stage::Lookup,
    Stage::Decide,
    Stage::Run,
    Stage::Read,
    Stage::Answer,
];

/// Shows the next stages of `stages` while they are of a kind in `before`, then the next one if
/// it is of a kind in `until`.
fn show_stages(
    out: &mut output::Writer<impl io::Write>,
    stages: &mut VecDeque<&StageRecord>,
    before: &[Stage],
    until: &[Stage],
) -> io::Result<()> {
    while let Some(record) = stages
        .front()
        .filter(|record| before.contains(&record.stage))
    {
        stage(out, record)?;
        stages.pop_front();
    }
    if let Some(record) = stages
        .front()
        .filter(|record| until.contains(&record.stage))
    {
        stage(out, record)?;
        stages.pop_front();
    }
    Ok(())
}

/// One stage of the guided strategy: what it chose or did, its time and model calls, and what
/// went otherwise than asked.
fn stage(out: &mut output::Writer<impl io::Write>, record: &StageRecord) -> io::Result<()> {
    let calls = match record.model_calls {
        0 => String::new(),
        1 => ", 1 model call".to_owned(),
        n => format!(", {n} model calls"),
    };
    writeln!(
        out,
        ">> {}: {} ({:.1} s{calls})",
        record.stage.as_str(),
        one_line(&shorten(&record.detail)),
        record.duration.as_secs_f64()
    )?;
    for note in &record.notes {
        writeln!(out, ">> note: {}", one_line(&shorten(note)))?;
    }
    Ok(())
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
