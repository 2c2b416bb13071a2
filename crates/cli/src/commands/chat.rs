//! `skills chat`: one prompt per line (`/NAME` loads a skill for the turn), its skills reloaded
//! when their files change.

use skillful_agent::RunOptions;
use skillful_core::text::one_line;

use crate::converse::{ChatArgs, Conversation, one_line_error};
use crate::{Outcome, UsageError, output};

/// A chat line `/NAME rest of the request`: the skill to load for the turn, and the request
/// (the whole line when nothing follows the name).
fn invoked(line: &str) -> Option<(&str, &str)> {
    let named = line.strip_prefix('/')?;
    let (skill, rest) = named.split_once(char::is_whitespace).unwrap_or((named, ""));
    if skill.is_empty() {
        return None;
    }
    let rest = rest.trim();
    Some((skill, if rest.is_empty() { line } else { rest }))
}

/// Runs `skills chat`.
pub(crate) async fn run(args: ChatArgs) -> anyhow::Result<Outcome> {
    chat_turns(args).await.map_err(one_line_error)
}

async fn chat_turns(args: ChatArgs) -> anyhow::Result<Outcome> {
    let held = args.agent.session().await?;
    let mut conversation = Conversation::new(&args.agent, held, true, false).await?;
    for request in conversation.lost_tasks().await? {
        conversation
            .asking
            .terminal
            .prompt("Run it again? [y/N] ")?;
        let again = conversation.asking.terminal.read_answer().await?;
        if again.is_some_and(|answer| answer.trim().eq_ignore_ascii_case("y")) {
            conversation
                .turn(request.into(), &RunOptions::new())
                .await?;
        }
    }
    loop {
        conversation.asking.terminal.prompt("> ")?;
        let Some(line) = conversation.asking.terminal.read_answer().await? else {
            return Ok(Outcome::Ok);
        };
        match line.trim() {
            "" => continue,
            "exit" | "quit" => return Ok(Outcome::Ok),
            prompt => {
                let (prompt, options) = match invoked(prompt) {
                    Some((skill, rest)) => (rest, RunOptions::new().skill(skill)),
                    None => (prompt, RunOptions::new()),
                };
                match conversation.turn(prompt.into(), &options).await {
                    // A mistyped `/NAME` ends nothing: the user types the line again.
                    Err(error) if error.is::<UsageError>() => {
                        writeln!(output::stderr(), "skills: {}", one_line(&error.to_string()))?;
                    }
                    other => {
                        other?;
                    }
                }
            }
        }
    }
}
