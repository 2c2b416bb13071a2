//! `skills run`: one prompt (or the answer to a pending approval), its transcript or one JSON
//! report; exit code 3 when it stops with an approval pending.

use std::time::Instant;

use skillful_agent::{RunOptions, RunReport};

use crate::converse::{Conversation, RunArgs, one_line_error};
use crate::{Outcome, UsageError, output};

/// Runs `skills run`.
pub(crate) async fn run(args: RunArgs) -> anyhow::Result<Outcome> {
    run_turns(args).await.map_err(one_line_error)
}

async fn run_turns(args: RunArgs) -> anyhow::Result<Outcome> {
    // Checked before a model server is looked for (or an engine installed and started).
    let held = args.agent.session().await?;
    if args.prompt.is_none() && held.1.pending_approvals().is_empty() {
        return Err(UsageError(
            "give a PROMPT (or --session FILE holding a pending approval)".to_owned(),
        )
        .into());
    }
    let started = Instant::now();
    let mut conversation = Conversation::new(&args.agent, held, false, args.json).await?;
    for request in conversation.lost_tasks().await? {
        writeln!(
            output::stderr(),
            "skills: to run it again, ask for it in this session, e.g. {:?}",
            request
        )?;
    }
    let options = args
        .invoke
        .iter()
        .fold(RunOptions::new(), |options, skill| options.skill(skill));
    let turn = match args.prompt {
        Some(prompt) => Some(conversation.turn(prompt.into(), &options).await?),
        None => conversation.resume(&options).await?,
    };
    // No turn: the terminal closed before the held call was answered.
    let (responses, pending) =
        turn.map_or((Vec::new(), true), |turn| (turn.responses, turn.pending));
    if args.json {
        let report = RunReport::new(&responses, started.elapsed());
        output::stdout().json(&report)?;
    }
    // A run that stopped at an approval has not answered: a script must not read its empty
    // output as the answer.
    Ok(if pending {
        Outcome::Pending
    } else {
        Outcome::Ok
    })
}
