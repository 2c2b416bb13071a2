//! The tool-loop strategy ([`Mode::Tools`](crate::Mode::Tools)): the skills the user named and
//! the activation aid picks are loaded, then the model drives the decorated tool loop on its
//! own; the answer step asks again when a loop guard stopped it.

use std::time::Instant;

use skillful_chat::{ChatRequest, ChatResponse, Message, Usage};
use skillful_decorators::CallActor;

use crate::agent::Agent;
use crate::aids::{answer_request, skills_to_load};
use crate::error::AgentError;
use crate::run_options::RunOptions;
use crate::session::{Author, Session};
use crate::stages::{Stage, StageRecord};
use crate::turn::{Gathered, Made, TurnInput, runtime_call_id};

/// One turn in the tool loop: the runtime's activations, then the model (unless an activation
/// waits for approval), then the answer step if a guard stopped the loop.
pub(crate) async fn turn(
    agent: &Agent,
    input: &TurnInput,
    gathered: Gathered,
    session: &Session,
    run: &RunOptions,
) -> Result<Made, AgentError> {
    let mut messages = Vec::new();
    if !gathered.instructions.is_empty() {
        messages.push(Message::system(gathered.instructions.join("\n\n")));
    }
    messages.extend(session.messages().iter().cloned());
    messages.extend(input.messages.iter().cloned());
    let mut made = Made::default();
    if let Some(query) = &input.query {
        activate(
            agent,
            run,
            query,
            &gathered,
            &mut messages,
            &mut made,
            session.id(),
        )
        .await?;
    }
    if made
        .messages
        .iter()
        .any(|message| message.approval_requests().next().is_some())
    {
        // The runtime's call waits for the person; the model is called once it is answered
        // (the approval answers resume the loop).
        agent
            .audit_unanswered(&input.unanswered, session.id())
            .await;
        return Ok(made);
    }
    let mut options = agent.options.clone();
    options.conversation_id = Some(session.id().to_owned());
    let request = ChatRequest::new(messages.clone())
        .with_tools(gathered.tools)
        .with_options(options);
    let started = Instant::now();
    let mut response = agent.tool_loop.get_response(request).await?;
    agent
        .audit_unanswered(&input.unanswered, session.id())
        .await;
    let mut record = StageRecord::new(
        Stage::ToolLoop,
        format!("{} messages", response.messages.len()),
    );
    record.add_call(response.usage);
    record.duration = started.elapsed();
    if let Some(stopped) = &response.stopped {
        record.notes.push(stopped.clone());
    }
    made.stages.push(record);
    let mut authors: Vec<Author> = response
        .messages
        .iter()
        .map(|_| Author::Conversation)
        .collect();
    if agent.early.take(session.id())
        && let Some(last) = authors.last_mut()
    {
        // The aids answered the model's repeat of a result it had by the answer step.
        *last = Author::AnswerStep;
    }
    if response.stopped.is_some() && agent.aids.answer_step {
        answer_step(agent, messages, &mut response, &mut authors, &mut made).await?;
    }
    made.messages.extend(response.messages);
    made.authors.extend(authors);
    if agent.aids.repeated_loads {
        // The session holds what the model was shown.
        crate::aids::repeated_loads(&mut made.messages);
    }
    made.add_usage(response.usage);
    made.finish_reason = response.finish_reason;
    Ok(made)
}

/// Loads the skills `run` names and the activation aid picks for `query` before the model's
/// first call: their messages, each with its author, also added to `messages`.
async fn activate(
    agent: &Agent,
    run: &RunOptions,
    query: &str,
    gathered: &Gathered,
    messages: &mut Vec<Message>,
    made: &mut Made,
    session_id: &str,
) -> Result<(), AgentError> {
    // A skill named by the run is loaded whatever it says it is not for; activation matches
    // only the skills whose anti-triggers the request does not hold.
    let named = if run.skills.is_empty() {
        gathered.matchable(query).skills
    } else {
        gathered.names_and_descriptions()
    };
    let offered: Vec<(String, String)> = named
        .into_iter()
        .map(|(name, description)| (name.to_owned(), description.to_owned()))
        .collect();
    for (skill, author) in skills_to_load(agent.aids, run, query, &offered)? {
        let Some(offered) = gathered.skill(&skill) else {
            continue;
        };
        let started = Instant::now();
        let call = skillful_chat::FunctionCall {
            call_id: runtime_call_id(messages),
            name: offered.load.name().to_owned(),
            arguments: serde_json::json!({"skillName": skill}),
        };
        let (loaded, _) = agent
            .own_call(
                std::slice::from_ref(&offered.load),
                call,
                CallActor::Runtime,
                session_id,
            )
            .await;
        let mut record =
            StageRecord::new(Stage::Activate, format!("{skill} ({})", author.as_str()));
        record.duration = started.elapsed();
        made.stages.push(record);
        messages.extend(loaded.iter().cloned());
        made.push(loaded, author);
    }
    Ok(())
}

/// The answer step: the model, stopped by the loop's guard, is asked again for its answer
/// with the results and no tools; its answer joins `response`.
async fn answer_step(
    agent: &Agent,
    mut messages: Vec<Message>,
    response: &mut ChatResponse,
    authors: &mut Vec<Author>,
    made: &mut Made,
) -> Result<(), AgentError> {
    messages.extend(response.messages.iter().cloned());
    if let Some(request) = answer_request(&messages, &agent.options) {
        let started = Instant::now();
        let answer = agent.model.get_response(request).await?;
        let mut record = StageRecord::new(Stage::AnswerStep, "asked again without tools");
        record.add_call(answer.usage);
        record.duration = started.elapsed();
        made.stages.push(record);
        if let Some(usage) = answer.usage {
            response.usage.get_or_insert_with(Usage::default).add(usage);
        }
        response.finish_reason = answer.finish_reason;
        authors.extend(answer.messages.iter().map(|_| Author::AnswerStep));
        response.messages.extend(answer.messages);
    }
    Ok(())
}
