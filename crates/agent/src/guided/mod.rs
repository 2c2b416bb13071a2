//! The guided strategy ([`Mode::Guided`](crate::Mode::Guided)): the runtime asks the model one
//! small decision at a time, each constrained by a JSON Schema, instead of handing it the tool
//! loop to plan, call and stop on its own.
//!
//! 1. **Select**: the activation match proposes candidates ([`activation_candidates`]); for
//!    each, best first (at most [`GuidedOptions::candidates`]), one constrained `yes`/`no`
//!    decides whether it fits the request; the first `yes` is loaded. No candidate, or no `yes`:
//!    the request is answered directly and nothing is loaded. A calculation (a skill each of
//!    whose scripts takes two numbers or more) is not asked about when the request (with the
//!    conversation before it) states no number. Skills the user named skip the selection.
//!    (One choice among all candidates plus `none` was measured first: on the evaluation set
//!    with the 1.5B model it loaded a skill for 8–10 of the unrelated questions that had
//!    candidates, against 1 for the yes/no questions; see the book's measurements.)
//! 2. **Disclose**: the skill is loaded (`load_skill`), with the resources its body names
//!    (`read_skill_resource`; not `assets/`, which scripts read), within
//!    [`GuidedOptions::disclose_budget`]; the others are listed by name, readable in a decision.
//! 3. **Look up**: for each Markdown table of the disclosed text (at most three), the row that
//!    applies to the question, shown to the decisions with each cell named by its column. The
//!    rows sharing the most words and numbers with the question are the candidates
//!    (`relevance`): one is taken as it is, among several one constrained choice decides (an
//!    enum of them), and when no row shares anything the choice is among all rows or `none`.
//!    Where the skill says to add values up, the rows whose names together cover the question
//!    are shown instead, with each column of numbers added up (`rows_to_add`).
//!    A skill without scripts looks up one passage instead (a row, a list item or a paragraph
//!    of its resources), under the headings that share the most with the question
//!    ([`likely_passages`]).
//! 4. **Decide**: one constrained decision per step, at most [`GuidedOptions::max_steps`]: run a
//!    script (its name from the skill's scripts, its arguments shaped as the body shows them:
//!    named options, positional arguments, one JSON document shaped like the example), read a
//!    resource, or answer (once a result is in). Scripts each named by a numbered step of their
//!    own are offered in the steps' order. Each result joins the next decision. Before a script
//!    runs, arithmetic written in place of a number is worked out, and values the question
//!    states otherwise are put right (`values`: an option's own number, `5 doors`; a stated
//!    percentage; a decimal point moved in copying); each change is noted in the decision's
//!    record.
//! 5. **Answer**: when the last script printed a JSON object, one constrained choice of the
//!    fields the question asks for (an enum of the field names, less the inputs it echoes:
//!    values that are numbers the question states; a lone field left is taken without asking);
//!    a question's "how many …" naming one field by its unit or word chooses it without asking;
//!    then one request with the question, the results and those values, no tools. A number in
//!    the answer found in neither the question nor a result, or an answer without one of the
//!    values asked for (or, when those are not known, of the output's), makes it ask once more;
//!    failing that, the answer is the script's output, quoted, saying so.
//!
//! Every call (load, read, run) is made through the agent's [`CallRunner`] — the tool loop's
//! approvals, sandbox, spans and audit records — and lands in the session as the tool loop's
//! calls do, each marked with its [`Author`]. A held call ends the run with it pending; the
//! answers resume the strategy where it stopped, read back from the session.
//!
//! [`activation_candidates`]: skillful_provider::search::activation_candidates
//! [`GuidedOptions::candidates`]: crate::GuidedOptions::candidates
//! [`GuidedOptions::disclose_budget`]: crate::GuidedOptions::disclose_budget
//! [`GuidedOptions::max_steps`]: crate::GuidedOptions::max_steps
//! [`CallRunner`]: skillful_decorators::CallRunner

mod constrained;
mod grounding;
mod prompts;
mod reading;
mod relevance;
mod shapes;
mod values;

use std::time::Instant;

use serde_json::{Value, json};
use skillful_chat::{
    ChatRequest, Content, FunctionCall, FunctionResult, Message, Role, SharedTool,
};
use skillful_decorators::{CallActor, CallEnd};
use skillful_provider::ToolKind;
use skillful_provider::search::activation_candidates;

use crate::agent::Agent;
use crate::aids::skills_to_load;
use crate::error::AgentError;
use crate::run_options::RunOptions;
use crate::session::{Author, Session};
use crate::stages::{Stage, StageRecord};
use crate::turn::{Gathered, Made, Offered, TurnInput, runtime_call_id};
use reading::{Passage, Table, answer_step, body_of, names, passages, steps_naming, tables};
use relevance::{
    Likely, columns_asked, field_asked, flag_condition_met, heading_fits, likely_passages,
    likely_rows, rows_to_add, says_to_add_up, states_a_number,
};
use shapes::{Action, Arguments, Choices};

/// One turn in the guided strategy.
pub(crate) async fn turn(
    agent: &Agent,
    input: &TurnInput,
    gathered: &Gathered,
    session: &Session,
    run: &RunOptions,
) -> Result<Made, AgentError> {
    let mut conversation: Vec<(Message, Author)> = session
        .messages()
        .iter()
        .enumerate()
        .map(|(at, message)| (message.clone(), session.author(at)))
        .collect();
    conversation.extend(
        input
            .messages
            .iter()
            .map(|message| (message.clone(), Author::Conversation)),
    );
    let since = conversation
        .iter()
        .rposition(|(message, _)| message.user_query().is_some())
        .map_or(0, |at| at + 1);
    let question = since
        .checked_sub(1)
        .and_then(|at| conversation[at].0.user_query())
        .unwrap_or_default();
    let history = prompts::history(&earlier_texts(&conversation[..since.saturating_sub(1)]));
    let mut guided = Guided {
        agent,
        gathered,
        session_id: session.id(),
        conversation,
        since,
        question,
        history,
        rows: None,
        made: Made::default(),
    };
    agent
        .audit_unanswered(&input.unanswered, session.id())
        .await;
    let mut phase = if input.query.is_some() {
        guided.start(run).await?
    } else {
        guided.resume().await
    };
    loop {
        phase = match phase {
            Phase::Disclose(skill) => guided.disclose(&skill).await,
            Phase::Decide(skill) => guided.decide(&skill).await?,
            Phase::Answer(skill) => {
                guided.answer(skill.as_deref()).await?;
                break;
            }
            Phase::Held => break,
        };
    }
    // The turn's tokens are its stages' (each stage counts its own model calls).
    let mut made = guided.made;
    made.usage = made
        .stages
        .iter()
        .filter_map(|stage| stage.usage)
        .reduce(|mut total, usage| {
            total.add(usage);
            total
        });
    Ok(made)
}

/// Where the strategy goes next.
enum Phase {
    /// Load the resources the skill's body names.
    Disclose(String),
    /// The next decision.
    Decide(String),
    /// Answer, from the skill's results (or directly, without one).
    Answer(Option<String>),
    /// A call waits for approval: the run ends here.
    Held,
}

/// The state of one guided turn.
struct Guided<'a> {
    agent: &'a Agent,
    gathered: &'a Gathered,
    session_id: &'a str,
    /// The session's messages, the input's, then what this turn made, each with its author.
    conversation: Vec<(Message, Author)>,
    /// Where the messages after the last user query start.
    since: usize,
    question: String,
    /// The conversation's earlier text, for the requests that stand alone.
    history: String,
    /// The table rows the lookups found (once looked up in this run).
    rows: Option<Vec<(String, String)>>,
    made: Made,
}

impl<'a> Guided<'a> {
    /// A new prompt: the skills the user named, else the selection.
    async fn start(&mut self, run: &RunOptions) -> Result<Phase, AgentError> {
        if !run.skills.is_empty() {
            let offered: Vec<(String, String)> = self
                .gathered
                .names_and_descriptions()
                .into_iter()
                .map(|(name, description)| (name.to_owned(), description.to_owned()))
                .collect();
            let named = skills_to_load(self.agent.aids, run, &self.question, &offered)?;
            let mut first = None;
            let mut held = false;
            for (skill, _) in named {
                let started = Instant::now();
                let end = self
                    .load(&skill, Author::Invocation, CallActor::Runtime)
                    .await;
                let mut record =
                    StageRecord::new(Stage::Select, format!("{skill} (named by the user)"));
                record.duration = started.elapsed();
                self.made.stages.push(record);
                held |= end == Loaded::Held;
                if end == Loaded::Yes && first.is_none() {
                    first = Some(skill);
                }
            }
            return Ok(match (held, first) {
                (true, _) => Phase::Held,
                (false, Some(skill)) => Phase::Disclose(skill),
                (false, None) => Phase::Answer(None),
            });
        }
        let Some(skill) = self.select().await? else {
            return Ok(Phase::Answer(None));
        };
        Ok(
            match self.load(&skill, Author::Selection, CallActor::Model).await {
                Loaded::Yes => Phase::Disclose(skill),
                Loaded::No => Phase::Answer(None),
                Loaded::Held => Phase::Held,
            },
        )
    }

    /// The selection: the first candidate the model says fits the request, asked one at a
    /// time in the activation match's order, or `None`.
    async fn select(&mut self) -> Result<Option<String>, AgentError> {
        let matchable = self.gathered.matchable(&self.question);
        let offered = matchable.skills;
        let mut record = StageRecord::new(Stage::Select, shapes::NONE);
        for (name, phrase) in &matchable.excluded {
            record.notes.push(format!(
                "not asked about {name}: the request holds its anti-trigger \"{phrase}\""
            ));
        }
        let candidates: Vec<(&str, &str)> = activation_candidates(
            &self.question,
            offered.iter().copied(),
            self.agent.guided.candidates,
        )
        .into_iter()
        .filter_map(|found| {
            offered
                .iter()
                .copied()
                .find(|(name, _)| *name == found.name)
        })
        .collect();
        if candidates.is_empty() {
            record.detail = "none (no skill matches the request)".to_owned();
            self.made.stages.push(record);
            return Ok(None);
        }
        // A calculation needs the request's numbers: without one, its script could only be
        // run with made-up values, and the request asks for something else (an explanation,
        // advice). Measured on the evaluation set: this is where a small model says yes to
        // questions only worded near a skill.
        let stated = states_a_number(&self.question) || states_a_number(&self.history);
        let mut kept = Vec::new();
        let mut calculations = Vec::new();
        for (name, description) in candidates {
            if !stated && self.calculates(name).await {
                calculations.push(name);
            } else {
                kept.push((name, description));
            }
        }
        if !calculations.is_empty() {
            record.notes.push(format!(
                "not asked about {}: a calculation, and the request states no number",
                calculations.join(", ")
            ));
        }
        let candidates = kept;
        if candidates.is_empty() {
            record.detail =
                "none (the request states no number for the calculations matching it)".to_owned();
            self.made.stages.push(record);
            return Ok(None);
        }
        let names: Vec<&str> = candidates.iter().map(|(name, _)| *name).collect();
        let schema = shapes::selection();
        let mut chosen = None;
        for (name, description) in &candidates {
            let messages = prompts::select(name, description, &self.history, &self.question);
            match constrained::decide(self.agent, "selection", messages, &schema, &mut record)
                .await?
            {
                Ok(reply) if reply["fits"] == "yes" => {
                    chosen = Some((*name).to_owned());
                    break;
                }
                Ok(_) => {}
                Err(error) => {
                    record.notes.push(format!("{error}; taken as no"));
                    record.error = Some(error);
                }
            }
        }
        record.detail = format!(
            "{} (asked about {})",
            chosen.as_deref().unwrap_or(shapes::NONE),
            names.join(", ")
        );
        self.made.stages.push(record);
        Ok(chosen)
    }

    /// Whether the offered skill `name` is a calculation: it has scripts, and each takes two
    /// numbers or more ([`shapes::numbers_taken`]).
    async fn calculates(&self, name: &str) -> bool {
        let Some(offered) = self.gathered.skill(name) else {
            return false;
        };
        let scripts = offered.skill.scripts();
        if scripts.is_empty() {
            return false;
        }
        let Ok(document) = offered.skill.document().await else {
            return false;
        };
        scripts.iter().all(|script| {
            shapes::numbers_taken(script.parameters_schema(), script.name(), &document.body)
                >= MIN_CALCULATION_NUMBERS
        })
    }

    /// The approval answers resume the held calls; the strategy goes on from the stage they
    /// belong to.
    async fn resume(&mut self) -> Phase {
        let messages: Vec<Message> = self.messages();
        let pending = skillful_decorators::pending_approvals(&messages);
        let Some(first) = pending.first() else {
            return Phase::Answer(self.loaded().map(|(skill, _)| skill));
        };
        let author = self
            .conversation
            .iter()
            .find(|(message, _)| {
                message
                    .approval_requests()
                    .any(|request| request.call.call_id == first.call.call_id)
            })
            .map_or(Author::Conversation, |(_, author)| *author);
        let actor = match author {
            Author::Selection | Author::Decision | Author::Conversation => CallActor::Model,
            _ => CallActor::Runtime,
        };
        // The person said no to a step: what it would have given is not to be had.
        let refused = messages.last().is_some_and(|answers| {
            answers.contents.iter().any(
                |content| matches!(content, Content::ApprovalResponse(answer) if !answer.approved),
            )
        });
        let results = self
            .agent
            .calls
            .calls(&self.gathered.tools, Some(self.session_id), actor)
            .resume(&messages)
            .await
            .unwrap_or_default();
        self.push(
            vec![Message::new(
                Role::Tool,
                results.into_iter().map(Content::FunctionResult).collect(),
            )],
            author,
        );
        match (author, self.loaded()) {
            (Author::Selection | Author::Invocation, Some((skill, _))) => Phase::Disclose(skill),
            (Author::Disclosure, Some((skill, _))) => Phase::Decide(skill),
            (Author::Decision, Some((skill, _))) if !refused => Phase::Decide(skill),
            (_, loaded) => Phase::Answer(loaded.map(|(skill, _)| skill)),
        }
    }

    /// Loads `skill` with its provider's `load_skill`, `author` making the call.
    async fn load(&mut self, skill: &str, author: Author, actor: CallActor) -> Loaded {
        let gathered = self.gathered;
        let Some(offered) = gathered.skill(skill) else {
            return Loaded::No;
        };
        let load = std::slice::from_ref(&offered.load);
        let arguments = json!({"skillName": skill});
        match self
            .call(load, &offered.load, arguments, actor, author)
            .await
        {
            CallEnd::Ran(result) if !result.is_error => Loaded::Yes,
            CallEnd::Held => Loaded::Held,
            CallEnd::Ran(_) | CallEnd::Refused(_) => Loaded::No,
        }
    }

    /// The disclosure: the resources the loaded skill's body names, read in the order the
    /// skill lists them while the budget lasts.
    async fn disclose(&mut self, skill: &str) -> Phase {
        let started = Instant::now();
        let gathered = self.gathered;
        let (Some(offered), Some((_, body))) = (gathered.skill(skill), self.loaded()) else {
            return Phase::Answer(None);
        };
        let Some(read) = tool(offered, ToolKind::ReadSkillResource) else {
            return Phase::Decide(skill.to_owned());
        };
        let named: Vec<String> = offered
            .skill
            .resources()
            .iter()
            .map(|resource| resource.name().to_owned())
            // Files the scripts read (`assets/`) are the scripts' business, not instructions.
            .filter(|name| names(&body, name) && !name.starts_with("assets/"))
            .collect();
        let mut budget = self.agent.guided.disclose_budget;
        let mut disclosed = Vec::new();
        let mut held = false;
        for name in named {
            if budget < MIN_DISCLOSED_CHARS {
                break;
            }
            let arguments = json!({"skillName": skill, "resourceName": name, "limit": budget});
            let tools = offered.tools.clone();
            match self
                .call(
                    &tools,
                    &read,
                    arguments,
                    CallActor::Runtime,
                    Author::Disclosure,
                )
                .await
            {
                CallEnd::Ran(result) if !result.is_error => {
                    budget = budget.saturating_sub(result.result.chars().count());
                    disclosed.push(name);
                }
                CallEnd::Held => held = true,
                CallEnd::Ran(_) | CallEnd::Refused(_) => {}
            }
        }
        let mut record = StageRecord::new(
            Stage::Disclose,
            if disclosed.is_empty() {
                skill.to_owned()
            } else {
                format!("{skill} with {}", disclosed.join(", "))
            },
        );
        record.duration = started.elapsed();
        self.made.stages.push(record);
        if held {
            Phase::Held
        } else {
            Phase::Decide(skill.to_owned())
        }
    }

    /// The next decision, and what it asks for, until the model answers, every script ran,
    /// or the steps run out. The first one is preceded by the lookups of the disclosed tables.
    async fn decide(&mut self, skill: &str) -> Result<Phase, AgentError> {
        let gathered = self.gathered;
        let Some(offered) = gathered.skill(skill) else {
            return Ok(Phase::Answer(None));
        };
        let Some((_, body)) = self.loaded() else {
            return Ok(Phase::Answer(None));
        };
        let mut scripts: Vec<(String, Arguments)> = offered
            .skill
            .scripts()
            .iter()
            .map(|script| {
                let shape =
                    Arguments::declared_or_of(script.parameters_schema(), script.name(), &body);
                (script.name().to_owned(), shape)
            })
            .collect();
        // In the order the instructions name them (those they do not name last).
        scripts.sort_by_key(|(name, _)| body.find(name.as_str()).unwrap_or(usize::MAX));
        let names: Vec<String> = scripts.iter().map(|(name, _)| name.clone()).collect();
        let steps = steps_naming(&body, &names);
        // Scripts each named by a numbered step of their own are run in the steps' order.
        let in_sequence = scripts.len() > 1
            && steps.iter().all(Option::is_some)
            && steps.windows(2).all(|pair| pair[0] < pair[1]);
        loop {
            let state = self.skill_state(offered, &scripts);
            for done in state.done.iter().filter(|done| done.failed()) {
                if let Some(failed) = done.call.arguments["scriptName"].as_str()
                    && let Some((_, shape)) = scripts.iter_mut().find(|(name, _)| name == failed)
                {
                    *shape = shape.clone().told_by(&done.result.result);
                }
            }
            let decided = state
                .done
                .iter()
                .filter(|done| done.author == Author::Decision)
                .count();
            let all_ran = !scripts.is_empty()
                && scripts
                    .iter()
                    .all(|(name, _)| state.succeeded.contains(name));
            if decided >= self.agent.guided.max_steps
                || all_ran
                || (scripts.is_empty() && state.readable.is_empty())
            {
                return Ok(Phase::Answer(Some(skill.to_owned())));
            }
            if self.rows.is_none() {
                self.rows = Some(self.look_up(offered, skill, &body, &state).await?);
            }
            let offered_scripts: Vec<(String, Arguments)> = if in_sequence {
                scripts
                    .iter()
                    .find(|(name, _)| !state.succeeded.contains(name))
                    .into_iter()
                    .cloned()
                    .collect()
            } else {
                scripts.clone()
            };
            let choices = Choices {
                scripts: offered_scripts,
                resources: state.readable.clone(),
                can_answer: !state.succeeded.is_empty() || scripts.is_empty(),
            };
            let rows = self.rows.clone().unwrap_or_default();
            let context = state.context(skill, &body, &self.question, &rows);
            let mut record = StageRecord::new(Stage::Decide, "");
            let shown = context.shown();
            let reply = constrained::decide(
                self.agent,
                "step",
                context.decide(choices.can_answer),
                &choices.schema(),
                &mut record,
            )
            .await?;
            let action = match reply {
                Ok(reply) => Action::of(&reply),
                Err(error) => {
                    record.notes.push(error.to_string());
                    record.error = Some(error);
                    None
                }
            };
            let Some(action) = action else {
                record.detail = "no decision".to_owned();
                self.made.stages.push(record);
                return Ok(Phase::Answer(Some(skill.to_owned())));
            };
            let (kind, arguments) = match &action {
                Action::Answer => {
                    record.detail = "answer".to_owned();
                    self.made.stages.push(record);
                    return Ok(Phase::Answer(Some(skill.to_owned())));
                }
                Action::Run { script, arguments } => {
                    let shape = scripts.iter().find(|(name, _)| name == script);
                    let (arguments, left_out) = match shape {
                        Some((_, shape)) => without_unmet_flags(
                            arguments.clone(),
                            shape,
                            &body,
                            offered.skill.description(),
                            &self.question,
                        ),
                        None => (arguments.clone(), Vec::new()),
                    };
                    for flag in left_out {
                        record.notes.push(format!(
                            "`{flag}` left out: the question meets none of its condition"
                        ));
                    }
                    let (arguments, worked_out) = values::worked_out_in(arguments, &shown);
                    record.notes.extend(worked_out);
                    let (arguments, percentages) =
                        values::percentages_as_stated(arguments, &self.question);
                    record.notes.extend(percentages);
                    let (arguments, attached) =
                        values::as_the_question_attaches(arguments, &self.question);
                    record.notes.extend(attached);
                    record.detail = format!("run {script} {arguments}");
                    (
                        ToolKind::RunSkillScript,
                        json!({"skillName": skill, "scriptName": script, "arguments": arguments}),
                    )
                }
                Action::Read { resource } => {
                    record.detail = format!("read {resource}");
                    (
                        ToolKind::ReadSkillResource,
                        json!({"skillName": skill, "resourceName": resource}),
                    )
                }
            };
            self.made.stages.push(record);
            let repeated = state.done.iter().any(|done| {
                done.author == Author::Decision
                    && done.call.name == kind.name()
                    && done.call.arguments == arguments
            });
            if repeated {
                // The model asks again for a result it has: that result is the answer's (a
                // call that failed fails again).
                return Ok(Phase::Answer(Some(skill.to_owned())));
            }
            let Some(chosen) = tool(offered, kind) else {
                return Ok(Phase::Answer(Some(skill.to_owned())));
            };
            let started = Instant::now();
            let tools = offered.tools.clone();
            let end = self
                .call(
                    &tools,
                    &chosen,
                    arguments,
                    CallActor::Model,
                    Author::Decision,
                )
                .await;
            let stage = if kind == ToolKind::RunSkillScript {
                Stage::Run
            } else {
                Stage::Read
            };
            let mut record = StageRecord::new(stage, outcome(&end));
            record.duration = started.elapsed();
            self.made.stages.push(record);
            match end {
                CallEnd::Held => return Ok(Phase::Held),
                // Refused now, refused again: the answer says what there is.
                CallEnd::Refused(_) => return Ok(Phase::Answer(Some(skill.to_owned()))),
                CallEnd::Ran(_) => {}
            }
        }
    }

    /// What applies to the question in the skill's text: for a skill with scripts, the rows of
    /// its tables ([`Self::lookups`]), which its scripts take values from; for one without, the
    /// passage its answer stands on ([`Self::passage`]).
    async fn look_up(
        &mut self,
        offered: &Offered,
        skill: &str,
        body: &str,
        state: &SkillState,
    ) -> Result<Vec<(String, String)>, AgentError> {
        if offered.skill.scripts().is_empty() {
            self.passage(skill, body, state).await
        } else {
            self.lookups(skill, body, state).await
        }
    }

    /// The passage of the disclosed resources (the body when there are none) that applies to
    /// the question: a table's row, a list item or a paragraph, found as a table's rows are
    /// ([`likely_passages`]: its heading's words count as its own). One is taken as it is; among
    /// a few ([`MAX_PASSAGES`]), one constrained choice decides; when none shares anything, or
    /// too many share as much, nothing is shown and the answer reads the whole text.
    ///
    /// A skill without scripts answers from its rules, which are as often a list under a
    /// heading (bereavement leave, a fee) as a table's row: a lookup of its tables alone showed
    /// a row of another section as the one that applies.
    async fn passage(
        &mut self,
        skill: &str,
        body: &str,
        state: &SkillState,
    ) -> Result<Vec<(String, String)>, AgentError> {
        let texts: Vec<(&str, &str)> = if state.disclosed.is_empty() {
            vec![("the skill's instructions", body)]
        } else {
            state
                .disclosed
                .iter()
                .map(|(name, text)| (name.as_str(), text.as_str()))
                .collect()
        };
        // Each passage, and the name of the text it is in.
        let (names, all): (Vec<&str>, Vec<Passage>) = texts
            .iter()
            .flat_map(|(name, text)| {
                passages(text)
                    .into_iter()
                    .map(move |passage| (*name, passage))
            })
            .unzip();
        let likely = likely_passages(&all, &self.question);
        let mut record = StageRecord::new(Stage::Lookup, "");
        let chosen = match likely.rows[..] {
            _ if likely.shared == 0 => {
                record
                    .notes
                    .push("no passage shares a word or number with the question".to_owned());
                None
            }
            [only] => {
                record
                    .notes
                    .push("the one passage sharing the most with the question".to_owned());
                Some(only)
            }
            _ if likely.rows.len() > MAX_PASSAGES => {
                record.notes.push(format!(
                    "{} passages share as much with the question: none is shown",
                    likely.rows.len()
                ));
                None
            }
            _ => {
                let first = names[likely.rows[0]];
                let place = if likely.rows.iter().all(|at| names[*at] == first) {
                    format!("`{first}`")
                } else {
                    "the skill's resources".to_owned()
                };
                let choices: Vec<String> =
                    likely.rows.iter().map(|at| all[*at].text.clone()).collect();
                let context = state.context(skill, body, &self.question, &[]);
                let messages = context.passage(&place);
                self.choose("passage", messages, &choices, &mut record)
                    .await?
                    .map(|at| likely.rows[at])
            }
        };
        let Some(at) = chosen else {
            record.detail = shapes::NONE.to_owned();
            self.made.stages.push(record);
            return Ok(Vec::new());
        };
        let (resource, passage) = (names[at], &all[at]);
        // A row with several columns shows the ones the question asks about: read whole, a
        // fare's row answered the cabin bags' question with the checked bags' weight.
        let columns: Vec<String> = passage
            .cells
            .iter()
            .skip(1)
            .map(|(column, _)| column.clone())
            .collect();
        let text = match columns_asked(&columns, &self.question) {
            Some(asked) => {
                record.notes.push(format!(
                    "the columns asked about: {}",
                    asked
                        .iter()
                        .map(|at| columns[*at].as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
                passage.with_columns(&asked)
            }
            None => passage.text.clone(),
        };
        record.detail = format!("{resource}: {text}");
        self.made.stages.push(record);
        let what = if passage.first_cell.is_some() {
            "The row of the table in"
        } else {
            "The line of"
        };
        let place = match &passage.heading {
            Some(heading) => {
                format!("{what} `{resource}`, under \u{201c}{heading}\u{201d}, that applies")
            }
            None => format!("{what} `{resource}` that applies"),
        };
        Ok(vec![(place, text)])
    }

    /// The lookups: for each table of the disclosed resources (at most [`MAX_LOOKUPS`]), the
    /// row that applies to the question, if one does, with each cell named by its column.
    ///
    /// The rows that share the most with the question ([`likely_rows`]) are the candidates:
    /// one is taken as it is; among several, one constrained choice decides; when no row shares
    /// anything, the choice is among all rows or `none`. Of a text's tables with the same
    /// columns (one under `Dogs`, one under `Cats`), only those sharing the most with the
    /// question (a heading sharing a word counts one) are looked up.
    async fn lookups(
        &mut self,
        skill: &str,
        body: &str,
        state: &SkillState,
    ) -> Result<Vec<(String, String)>, AgentError> {
        let mut found = Vec::new();
        let texts = std::iter::once(("the skill's instructions".to_owned(), body.to_owned()))
            .chain(state.disclosed.iter().cloned());
        let question = self.question.clone();
        let adds_up_everywhere = says_to_add_up(body);
        let tables: Vec<(String, Table, Likely, bool)> = texts
            .flat_map(|(name, text)| {
                let adds_up = adds_up_everywhere || says_to_add_up(&text);
                let tables: Vec<(Table, Likely, usize)> = tables(&text)
                    .into_iter()
                    .map(|table| {
                        let likely = likely_rows(&table, &question);
                        let heading = table
                            .heading
                            .as_deref()
                            .is_some_and(|heading| heading_fits(heading, &question));
                        let score = likely.shared + usize::from(heading);
                        (table, likely, score)
                    })
                    .collect();
                let best: Vec<bool> = tables
                    .iter()
                    .map(|(table, _, score)| {
                        tables
                            .iter()
                            .all(|(other, _, more)| other.header != table.header || more <= score)
                    })
                    .collect();
                tables
                    .into_iter()
                    .zip(best)
                    .filter(|(_, best)| *best)
                    .map(move |((table, likely, _), _)| (name.clone(), table, likely, adds_up))
            })
            .take(MAX_LOOKUPS)
            .collect();
        for (resource, table, likely, adds_up) in tables {
            let place = match &table.heading {
                Some(heading) => format!("`{resource}`, under \u{201c}{heading}\u{201d},"),
                None => format!("`{resource}`"),
            };
            let mut record = StageRecord::new(Stage::Lookup, "");
            let to_add = if adds_up {
                rows_to_add(&table, &question)
            } else {
                Vec::new()
            };
            if to_add.len() > 1 {
                let rows = table.added_up(&to_add);
                record.notes.push(
                    "the skill says to add up: the rows whose names together cover the question"
                        .to_owned(),
                );
                record.detail = format!("{resource}: {rows}");
                self.made.stages.push(record);
                found.push((
                    format!("The rows of the table in {place} that apply, added up,"),
                    rows,
                ));
                continue;
            }
            let chosen = if let [only] = likely.rows[..]
                && likely.shared > 0
            {
                record
                    .notes
                    .push("the one row sharing the most with the question".to_owned());
                Some(only)
            } else {
                let context = state.context(skill, body, &self.question, &[]);
                self.choose_row(context, &place, &table, &likely, &mut record)
                    .await?
            };
            let row = chosen.map(|at| table.labelled(at));
            record.detail = format!("{resource}: {}", row.as_deref().unwrap_or(shapes::NONE));
            self.made.stages.push(record);
            if let Some(row) = row {
                found.push((format!("The row of the table in {place} that applies"), row));
            }
        }
        Ok(found)
    }

    /// One constrained choice among the `likely` rows of `table` (in `place`), or `none` when
    /// no row shares anything with the question; the row chosen.
    async fn choose_row(
        &self,
        context: prompts::SkillContext<'_>,
        place: &str,
        table: &Table,
        likely: &Likely,
        record: &mut StageRecord,
    ) -> Result<Option<usize>, AgentError> {
        // The rows are named by their first cell where those are all different (a short name
        // is easier to choose than a whole row), else by the whole row.
        let keys: Vec<String> = likely
            .rows
            .iter()
            .map(|at| table.rows[*at].first().cloned().unwrap_or_default())
            .collect();
        let unique = keys
            .iter()
            .enumerate()
            .all(|(at, key)| !key.is_empty() && !keys[..at].contains(key));
        let mut choices: Vec<String> = if unique {
            keys
        } else {
            likely.rows.iter().map(|at| table.row(*at)).collect()
        };
        let may_be_none = likely.shared == 0;
        if may_be_none {
            choices.push(shapes::NONE.to_owned());
        }
        let messages = context.lookup(place, unique, may_be_none);
        let chosen = self.choose("lookup", messages, &choices, record).await?;
        Ok(chosen.and_then(|at| likely.rows.get(at).copied()))
    }

    /// One constrained choice (`kind`, as the record names it) of one of `choices` by the
    /// request `messages`: its index, or `None` when the reply does not fit (then the record
    /// holds the error).
    async fn choose(
        &self,
        kind: &'static str,
        messages: Vec<Message>,
        choices: &[String],
        record: &mut StageRecord,
    ) -> Result<Option<usize>, AgentError> {
        let schema = json!({
            "type": "object",
            "properties": {"row": {"type": "string", "enum": choices}},
            "required": ["row"],
            "additionalProperties": false,
        });
        let reply = constrained::decide(self.agent, kind, messages, &schema, record).await?;
        let chosen = match reply {
            Ok(reply) => reply["row"].as_str().map(str::to_owned),
            Err(error) => {
                record.notes.push(error.to_string());
                record.error = Some(error);
                None
            }
        };
        Ok(chosen.and_then(|chosen| choices.iter().position(|choice| *choice == chosen)))
    }

    /// What the turn has of the loaded skill `offered`: the calls made since the question, the
    /// resources disclosed (or read), those left to read, the scripts that ran.
    fn skill_state(&self, offered: &Offered, scripts: &[(String, Arguments)]) -> SkillState {
        let done = self.done();
        let disclosed: Vec<(String, String)> = done
            .iter()
            .filter(|done| {
                matches!(done.author, Author::Disclosure | Author::Decision)
                    && done.call.name == ToolKind::ReadSkillResource.name()
                    && !done.result.is_error
            })
            .filter_map(|done| {
                let name = done.call.arguments["resourceName"].as_str()?;
                Some((name.to_owned(), done.result.result.clone()))
            })
            .collect();
        let ran: Vec<&Done> = done
            .iter()
            .filter(|done| {
                done.author == Author::Decision && done.call.name == ToolKind::RunSkillScript.name()
            })
            .collect();
        let results: Vec<String> = ran.iter().map(|done| described(done)).collect();
        let succeeded: Vec<String> = ran
            .iter()
            .filter(|done| !done.failed())
            .filter_map(|done| {
                done.call.arguments["scriptName"]
                    .as_str()
                    .map(str::to_owned)
            })
            .collect();
        let readable: Vec<String> = offered
            .skill
            .resources()
            .iter()
            .map(|resource| resource.name().to_owned())
            .filter(|name| !disclosed.iter().any(|(known, _)| known == name))
            .collect();
        let order: Vec<(String, bool)> = scripts
            .iter()
            .map(|(name, _)| (name.clone(), succeeded.contains(name)))
            .collect();
        SkillState {
            done,
            disclosed,
            readable,
            results,
            succeeded,
            order,
        }
    }

    /// The answer: from the skill's results, or directly when no skill was loaded (or nothing
    /// it gave can answer).
    async fn answer(&mut self, skill: Option<&str>) -> Result<(), AgentError> {
        let mut record = StageRecord::new(Stage::Answer, "");
        let gathered = self.gathered;
        let loaded = self.loaded();
        let offered = skill.and_then(|skill| gathered.skill(skill));
        // `sources`: what an answer's numbers must come from (with the question); `outputs`:
        // the scripts' outputs, quoted when an answer fails; `results`: what an answer from a
        // script must give one value of.
        let (messages, sources, outputs, results) = match (skill, offered, &loaded) {
            (Some(skill), Some(offered), Some((_, body))) => {
                let state = self.skill_state(offered, &[]);
                let ran: Vec<&Done> = state
                    .done
                    .iter()
                    .filter(|done| {
                        done.author == Author::Decision
                            && done.call.name == ToolKind::RunSkillScript.name()
                            && !done.failed()
                    })
                    .collect();
                let outputs: Vec<String> = ran.iter().map(|done| described(done)).collect();
                let last_output = ran.last().map(|done| done.result.result.clone());
                if outputs.is_empty() {
                    // A skill whose scripts did not run is answered from what it says, with
                    // what was looked up already; one without scripts is looked up now.
                    if self.rows.is_none() && offered.skill.scripts().is_empty() {
                        self.rows = Some(self.look_up(offered, skill, body, &state).await?);
                    }
                    record.detail = "from the skill's instructions and resources".to_owned();
                    let rows = self.rows.clone().unwrap_or_default();
                    let context = state.context(skill, body, &self.question, &rows);
                    let sources: Vec<String> = std::iter::once(body.clone())
                        .chain(state.disclosed.iter().map(|(_, text)| text.clone()))
                        .collect();
                    (context.answer(), sources, Vec::new(), Vec::new())
                } else {
                    record.detail = "from the script's output".to_owned();
                    let answer_with = answer_step(body);
                    let asked_for = match &last_output {
                        Some(output) => self.asked_for(output, &answer_with, &mut record).await?,
                        None => None,
                    };
                    let messages = prompts::answer(
                        &self.history,
                        &self.question,
                        &answer_with,
                        &outputs,
                        asked_for.as_deref(),
                    );
                    // An answer must give a value the question asks for, where those are known.
                    let results = asked_for.map_or_else(|| outputs.clone(), |values| vec![values]);
                    (messages, outputs.clone(), outputs, results)
                }
            }
            _ => {
                record.detail = "directly, without a skill".to_owned();
                (self.direct(), Vec::new(), Vec::new(), Vec::new())
            }
        };
        let (mut text, reason) = self.ask(messages.clone(), &mut record).await?;
        if !sources.is_empty() {
            let mut known: Vec<&str> = sources.iter().map(String::as_str).collect();
            known.push(&self.question);
            let results: Vec<&str> = results.iter().map(String::as_str).collect();
            // What is wrong with an answer: numbers found in no result, or (from a script's
            // output) none of the output's values.
            let fault = |text: &str| {
                let missing = grounding::ungrounded(text, &known);
                if !missing.is_empty() {
                    Some((
                        prompts::ground(&missing),
                        format!("had {} (in no result)", missing.join(", ")),
                    ))
                } else if !grounding::gives_a_result(text, &results) {
                    Some((
                        prompts::give_a_result(&results),
                        "gave none of the values asked for".to_owned(),
                    ))
                } else {
                    None
                }
            };
            if let Some((ask_again, why)) = fault(&text) {
                record.notes.push(format!("the answer {why}: asked again"));
                let mut again = messages;
                again.push(Message::assistant(text.clone()));
                again.push(Message::user(ask_again));
                let (second, _) = self.ask(again, &mut record).await?;
                match fault(&second) {
                    None => text = second,
                    Some((_, why)) if !outputs.is_empty() => {
                        record.notes.push(format!(
                            "the second answer {why} too: the script's output is quoted"
                        ));
                        text = prompts::quoted(&outputs);
                    }
                    Some((_, why)) => {
                        record.notes.push(format!("the second answer {why} too"));
                        text = second;
                    }
                }
            }
        }
        self.made.finish_reason = reason;
        self.made.stages.push(record);
        self.push(vec![Message::assistant(text)], Author::Answer);
        Ok(())
    }

    /// Which values of a script's JSON `output` the question asks for, as `name = value`
    /// lines, by one constrained choice among the output's fields (counted on `record`); `None`
    /// when the output is not a JSON object of two or more plain values, or the choice fails.
    /// A small model asked to answer from a whole output often gives the wrong field of it
    /// (the daily amount for one per meal, the bags for the volume).
    async fn asked_for(
        &self,
        output: &str,
        answer_with: &str,
        record: &mut StageRecord,
    ) -> Result<Option<String>, AgentError> {
        let Some(mut fields) = plain_fields(output) else {
            return Ok(None);
        };
        // An input the script echoes is given by the question, not asked for; leaving those
        // out makes the choice smaller, or needless.
        let restated = grounding::restated_by(&self.question);
        let not_given: Vec<(String, String)> = fields
            .iter()
            .filter(|(_, value)| !restated(value))
            .cloned()
            .collect();
        if !not_given.is_empty() {
            fields = not_given;
        }
        if let [(name, value)] = fields.as_slice() {
            let line = format!("{name} = {value}");
            record.notes.push(format!(
                "asked for: {line} (the one value the question does not give)"
            ));
            return Ok(Some(line));
        }
        let names: Vec<&str> = fields.iter().map(|(name, _)| name.as_str()).collect();
        if let Some(at) = field_asked(&self.question, &names) {
            let (name, value) = &fields[at];
            let line = format!("{name} = {value}");
            record.notes.push(format!(
                "asked for: {line} (the value the question's \u{201c}how many\u{201d} names)"
            ));
            return Ok(Some(line));
        }
        let schema = shapes::asked_for(&names);
        let messages = prompts::asked_for(&self.question, answer_with, output.trim());
        let reply = constrained::decide(self.agent, "values", messages, &schema, record).await?;
        let chosen: Vec<String> = match reply {
            Ok(reply) => reply["values"]
                .as_array()
                .map(|values| {
                    values
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            Err(error) => {
                record.notes.push(error.to_string());
                return Ok(None);
            }
        };
        let lines: Vec<String> = fields
            .iter()
            .filter(|(name, _)| chosen.contains(name))
            .map(|(name, value)| format!("{name} = {value}"))
            .collect();
        if lines.is_empty() {
            return Ok(None);
        }
        record
            .notes
            .push(format!("asked for: {}", lines.join(", ")));
        Ok(Some(lines.join("\n")))
    }

    /// The request of an answer without a skill: the agent's instructions, the conversation's
    /// earlier text and the question.
    fn direct(&self) -> Vec<Message> {
        let mut messages = Vec::new();
        if let Some(instructions) = &self.agent.instructions {
            messages.push(Message::system(instructions.clone()));
        }
        messages.push(Message::user(format!("{}{}", self.history, self.question)));
        messages
    }

    /// Asks `messages` without tools; the reply's text and finish reason.
    async fn ask(
        &self,
        messages: Vec<Message>,
        record: &mut StageRecord,
    ) -> Result<(String, Option<String>), AgentError> {
        let mut options = self.agent.options.clone();
        options.conversation_id = None;
        options.tool_choice = None;
        let started = Instant::now();
        let response = self
            .agent
            .model
            .get_response(ChatRequest::new(messages).with_options(options))
            .await?;
        record.add_call(response.usage);
        record.duration += started.elapsed();
        Ok((response.text().trim().to_owned(), response.finish_reason))
    }

    /// Makes a call of `tool` (one of `tools`) with `arguments`, as `actor` chose and `author`
    /// marks it, through the agent's call runner; its messages join the turn.
    async fn call(
        &mut self,
        tools: &[SharedTool],
        tool: &SharedTool,
        arguments: Value,
        actor: CallActor,
        author: Author,
    ) -> CallEnd {
        let call = FunctionCall {
            call_id: runtime_call_id(&self.messages()),
            name: tool.name().to_owned(),
            arguments,
        };
        let (mut messages, mut end) = self
            .agent
            .own_call(tools, call, actor, self.session_id)
            .await;
        // A script that became a task is waited for: the decisions go on from its result.
        if let CallEnd::Ran(result) = &mut end
            && let Some((text, failed)) = self
                .agent
                .task_result(self.session_id, &result.result)
                .await
        {
            result.result = text;
            result.is_error = failed;
            for content in messages
                .iter_mut()
                .flat_map(|message| &mut message.contents)
            {
                if let Content::FunctionResult(shown) = content
                    && shown.call_id == result.call_id
                {
                    *shown = result.clone();
                }
            }
        }
        self.push(messages, author);
        end
    }

    fn push(&mut self, messages: Vec<Message>, author: Author) {
        self.conversation
            .extend(messages.iter().cloned().map(|message| (message, author)));
        self.made.push(messages, author);
    }

    fn messages(&self) -> Vec<Message> {
        self.conversation
            .iter()
            .map(|(message, _)| message.clone())
            .collect()
    }

    /// The skill loaded since the question (selected or named) and its body.
    fn loaded(&self) -> Option<(String, String)> {
        self.done()
            .into_iter()
            .find(|done| {
                matches!(done.author, Author::Selection | Author::Invocation)
                    && done.call.name == ToolKind::LoadSkill.name()
                    && !done.result.is_error
            })
            .and_then(|done| {
                let skill = done.call.arguments["skillName"].as_str()?.to_owned();
                Some((skill, body_of(&done.result.result).to_owned()))
            })
    }

    /// The calls made since the question that have results, in order.
    fn done(&self) -> Vec<Done> {
        let since = &self.conversation[self.since..];
        let results: Vec<&FunctionResult> = since
            .iter()
            .flat_map(|(message, _)| &message.contents)
            .filter_map(|content| match content {
                Content::FunctionResult(result) => Some(result),
                _ => None,
            })
            .collect();
        since
            .iter()
            .flat_map(|(message, author)| message.contents.iter().map(move |c| (c, *author)))
            .filter_map(|(content, author)| {
                let call = match content {
                    Content::FunctionCall(call) => call,
                    Content::ApprovalRequest(request) => &request.call,
                    _ => return None,
                };
                let result = results
                    .iter()
                    .find(|result| result.call_id == call.call_id)?;
                Some(Done {
                    call: call.clone(),
                    result: (*result).clone(),
                    author,
                })
            })
            .collect()
    }
}

/// What a turn has of its loaded skill ([`Guided::skill_state`]).
struct SkillState {
    done: Vec<Done>,
    /// Each resource disclosed or read: its name and text.
    disclosed: Vec<(String, String)>,
    /// The resources left to read.
    readable: Vec<String>,
    /// Each script run: what ran and what it gave.
    results: Vec<String>,
    /// The scripts that ran and succeeded.
    succeeded: Vec<String>,
    /// The scripts in the instructions' order, and whether each ran.
    order: Vec<(String, bool)>,
}

impl SkillState {
    /// The context of a request about `skill`.
    fn context<'a>(
        &'a self,
        skill: &'a str,
        body: &'a str,
        question: &'a str,
        rows: &'a [(String, String)],
    ) -> prompts::SkillContext<'a> {
        prompts::SkillContext {
            skill,
            body,
            disclosed: &self.disclosed,
            readable: &self.readable,
            scripts: &self.order,
            results: &self.results,
            question,
            rows,
        }
    }
}

/// The most tables looked up in one run.
const MAX_LOOKUPS: usize = 3;

/// The most passages one choice is among: past that, sharing as much says little about which
/// applies.
const MAX_PASSAGES: usize = 6;

/// The fewest numbers each script of a calculation takes: one number alone (a `--limit 10`)
/// is often an option with a default, not the request's values.
const MIN_CALCULATION_NUMBERS: usize = 2;

/// A call made since the question, with its result and who made it.
struct Done {
    call: FunctionCall,
    result: FunctionResult,
    author: Author,
}

impl Done {
    /// Whether the call failed: its result is an error, or the script it ran exited with a
    /// code other than 0 (a script's usage error is output the model is shown, not an error of
    /// the tool: taken for a result, it sent the next script on with an invented value).
    fn failed(&self) -> bool {
        self.result.is_error
            || (self.call.name == ToolKind::RunSkillScript.name()
                && crate::audit::exit_code(&self.result.result, false) != Some(0))
    }
}

/// What became of a load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Loaded {
    Yes,
    No,
    Held,
}

/// The fewest characters worth disclosing of one more resource.
const MIN_DISCLOSED_CHARS: usize = 200;

/// The most characters of one result a decision or an answer is shown.
const MAX_RESULT_CHARS: usize = 4_000;

/// The provider's tool of `kind` for `offered`.
fn tool(offered: &Offered, kind: ToolKind) -> Option<SharedTool> {
    offered
        .tools
        .iter()
        .find(|tool| tool.name() == kind.name())
        .cloned()
}

/// A call's result as a decision or an answer is shown it: what ran, and what it gave.
fn described(done: &Done) -> String {
    let result = skillful_core::text::cut(done.result.result.trim(), MAX_RESULT_CHARS);
    match done.call.arguments["scriptName"].as_str() {
        Some(script) => {
            let verb = if done.failed() { "failed" } else { "printed" };
            format!(
                "`{script}` with {} {verb}:\n{result}",
                done.call.arguments["arguments"]
            )
        }
        None => format!("{}:\n{result}", done.call.name),
    }
}

/// The plain (string, number, true/false) fields of a script's `output` when it is one JSON
/// object (or its last line is) with at least two of them: each name and value as printed.
fn plain_fields(output: &str) -> Option<Vec<(String, String)>> {
    let object = serde_json::from_str::<Value>(output.trim())
        .ok()
        .or_else(|| serde_json::from_str(output.trim().lines().last()?).ok())?;
    let fields: Vec<(String, String)> = object
        .as_object()?
        .iter()
        .filter_map(|(name, value)| match value {
            Value::String(text) => Some((name.clone(), text.clone())),
            Value::Number(_) | Value::Bool(_) => Some((name.clone(), value.to_string())),
            _ => None,
        })
        .collect();
    (fields.len() >= 2).then_some(fields)
}

/// `arguments` (of a script shaped `shape`) without the optional flags set to `true` whose
/// condition in `body` the question does not meet ([`flag_condition_met`]), and the names of
/// those left out.
fn without_unmet_flags(
    arguments: Value,
    shape: &Arguments,
    body: &str,
    description: &str,
    question: &str,
) -> (Value, Vec<String>) {
    let (Arguments::Options { required, .. }, Value::Object(mut options)) =
        (shape, arguments.clone())
    else {
        return (arguments, Vec::new());
    };
    let unmet: Vec<String> = options
        .iter()
        .filter(|(name, value)| **value == Value::Bool(true) && !required.contains(name))
        .filter(|(name, _)| flag_condition_met(name, body, description, question) == Some(false))
        .map(|(name, _)| name.clone())
        .collect();
    for name in &unmet {
        options.remove(name);
    }
    (Value::Object(options), unmet)
}

/// What became of a decision's call, in a few words.
fn outcome(end: &CallEnd) -> String {
    match end {
        CallEnd::Ran(result) if result.is_error => format!(
            "failed: {}",
            skillful_core::text::cut(result.result.trim(), 200)
        ),
        CallEnd::Ran(result) => skillful_core::text::cut(result.result.trim(), 200).to_owned(),
        CallEnd::Refused(result) => format!(
            "refused: {}",
            skillful_core::text::cut(result.result.trim(), 200)
        ),
        CallEnd::Held => "waits for approval".to_owned(),
    }
}

/// The user and assistant texts of `messages`, in order (`true` for the user's).
fn earlier_texts(messages: &[(Message, Author)]) -> Vec<(bool, String)> {
    let texts: Vec<(bool, String)> = messages
        .iter()
        .filter_map(|(message, _)| match message.role {
            Role::User => message.user_query().map(|text| (true, text)),
            Role::Assistant => {
                let text = message.joined_text();
                (!text.trim().is_empty()).then_some((false, text))
            }
            _ => None,
        })
        .collect();
    let keep = texts.len().saturating_sub(MAX_HISTORY_MESSAGES);
    texts.into_iter().skip(keep).collect()
}

/// The most earlier messages a request that stands alone carries.
const MAX_HISTORY_MESSAGES: usize = 4;
