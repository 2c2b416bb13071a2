//! The texts of the guided strategy's requests. Each request stands alone (no tools, no tool
//! history): what the model needs for one decision, the user's question last.
//!
//! The requests about one skill (a table lookup, each decision, an answer from the skill's
//! instructions) begin with the same system message and the same [`SkillContext`], and differ
//! only after the question: a local engine re-processes only that tail from one request to the
//! next (its prompt cache keeps the common prefix).

use skillful_chat::Message;

/// The selection's system message.
const SELECT: &str = "You decide whether a skill fits a user's request. Answer yes when the \
request asks for what the skill does, as its description says (a calculation it makes, a fact it \
looks up), even in other words. Answer no when the request is about the same subject but asks \
for something else: advice, an explanation, how-to steps, an opinion. Reply with JSON only.";

/// The system message of every request about one skill.
const SKILL: &str = "You follow a skill to answer the user's question. The skill's \
instructions and resources come first, then the question. Take every value from the question \
and from the skill's resources (a table, a list of rates) where the instructions say so; the \
values in the skill's examples are only examples.";

/// The system message of the choice of the values that answer the question.
const ASKED_FOR: &str = "You choose which values of a script's output answer the user's \
question: the ones it asks for, not the inputs it gave. Reply with JSON only.";

/// The answer's system message.
const ANSWER: &str = "You answer the user's question from the results you are given, in one or \
two plain sentences. Use the numbers of the results as they are; do not compute anything \
yourself and do not call tools.";

/// What a decision is told of values to combine ([`super::values`]).
const ARITHMETIC: &str = "Where the question gives an argument as several numbers to combine \
(readings that went from 120 to 165, parts to add up), write that arithmetic as a string \
(\"165 - 120\"); it is worked out before the script runs.";

/// The selection's request about one candidate (its name and description): whether it fits
/// the request, after `history` (the conversation's earlier text, if any).
pub(crate) fn select(name: &str, description: &str, history: &str, question: &str) -> Vec<Message> {
    vec![
        Message::system(SELECT),
        Message::user(format!(
            "Skill {name}: {description}\n\n{history}Request: {question}\n\nDoes the skill fit the request?"
        )),
    ]
}

/// What every request about one skill shows first: its instructions, the resources disclosed
/// with them, the resources it may still read, its scripts in order and the results so far.
pub(crate) struct SkillContext<'a> {
    pub(crate) skill: &'a str,
    pub(crate) body: &'a str,
    /// Each disclosed resource: its name and its text.
    pub(crate) disclosed: &'a [(String, String)],
    /// The resources it may still read.
    pub(crate) readable: &'a [String],
    /// With several scripts: each, in the order the body first names them, and whether it ran.
    pub(crate) scripts: &'a [(String, bool)],
    /// Each result so far: what was done and what it gave.
    pub(crate) results: &'a [String],
    pub(crate) question: &'a str,
    /// What the lookups found for the question: each as what and where it is (`The row of the
    /// table in `resource`, under “heading”, that applies`) and its text (a row's cells named by
    /// their columns).
    pub(crate) rows: &'a [(String, String)],
}

impl SkillContext<'_> {
    /// The common prefix, then the question and the rows that apply, then `task`.
    fn messages(&self, task: &str) -> Vec<Message> {
        let mut text = format!("The skill `{}`:\n\n{}\n", self.skill, self.body.trim());
        for (name, content) in self.disclosed {
            text.push_str(&format!(
                "\nThe skill's resource `{name}`:\n\n{}\n",
                content.trim()
            ));
        }
        if !self.readable.is_empty() {
            let names: Vec<String> = self
                .readable
                .iter()
                .map(|name| format!("`{name}`"))
                .collect();
            text.push_str(&format!(
                "\nResources not shown, which you may read: {}.\n",
                names.join(", ")
            ));
        }
        if self.scripts.len() > 1 {
            let listed: Vec<String> = self
                .scripts
                .iter()
                .map(|(name, ran)| {
                    let state = if *ran { "has run" } else { "has not run yet" };
                    format!("`{name}` ({state})")
                })
                .collect();
            text.push_str(&format!(
                "\nThe skill's scripts, in the order its instructions use them: {}.\n",
                listed.join(", ")
            ));
        }
        if !self.results.is_empty() {
            text.push_str("\nResults so far:\n\n");
            text.push_str(&self.results.join("\n\n"));
            text.push('\n');
        }
        text.push_str(&format!("\nQuestion: {}\n", self.question));
        for (what, found) in self.rows {
            text.push_str(&format!("\n{what} to the question: {found}\n"));
        }
        text.push_str(&format!("\n{task}"));
        vec![Message::system(SKILL), Message::user(text)]
    }

    /// What every request about the skill shows, without a task: the skill, its resources, the
    /// results, the question, the rows found. A value a decision writes stands on this (the
    /// task's own example values do not count).
    pub(crate) fn shown(&self) -> String {
        self.messages("")
            .iter()
            .map(Message::joined_text)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// A decision's request; `can_answer` says whether answering is one of its choices.
    pub(crate) fn decide(&self, can_answer: bool) -> Vec<Message> {
        let task = match (can_answer, self.readable.is_empty()) {
            (false, true) => "Choose the script to run for this question and its arguments.",
            (false, false) => {
                "Choose the next step: run a script with its arguments, or read a resource."
            }
            (true, true) => {
                "Choose the next step: run a script with its arguments, or answer if the results \
                 answer the question."
            }
            (true, false) => {
                "Choose the next step: run a script with its arguments, read a resource, or \
                 answer if the results answer the question."
            }
        };
        self.messages(&format!("{task} {ARITHMETIC} Reply with JSON."))
    }

    /// A lookup's request: which row of the table in `place` (the resource, in backticks, and
    /// its heading) applies, named by its first cell (`by_first_cell`) or whole, or none when
    /// that is a choice (`may_be_none`).
    pub(crate) fn lookup(
        &self,
        place: &str,
        by_first_cell: bool,
        may_be_none: bool,
    ) -> Vec<Message> {
        let how = if by_first_cell {
            "by its first cell"
        } else {
            "whole"
        };
        let none = if may_be_none {
            ", or \"none\" when no row does"
        } else {
            ""
        };
        self.messages(&format!(
            "Which row of the table in {place} applies to the question? Name it {how}, exactly \
             as written{none}. Reply with JSON."
        ))
    }

    /// A passage lookup's request: which line of `place` (resources, in backticks) applies,
    /// named exactly as written.
    pub(crate) fn passage(&self, place: &str) -> Vec<Message> {
        self.messages(&format!(
            "Which line of {place} applies to the question? Name it exactly as written. Reply \
             with JSON."
        ))
    }

    /// The request of an answer from the skill's instructions and resources.
    pub(crate) fn answer(&self) -> Vec<Message> {
        self.messages(
            "Answer the question from the skill's instructions and resources, in one or two plain \
             sentences.",
        )
    }
}

/// The answer's request from the scripts' outputs: the question, what the skill says to answer
/// with, the outputs, then the values the question asks for (`name = value` lines) if known.
pub(crate) fn answer(
    history: &str,
    question: &str,
    answer_with: &str,
    outputs: &[String],
    asked_for: Option<&str>,
) -> Vec<Message> {
    let says = if answer_with.is_empty() {
        String::new()
    } else {
        format!("The skill says: {answer_with}\n\n")
    };
    let values = asked_for.map_or_else(String::new, |values| {
        format!("The values the question asks for:\n{values}\n\n")
    });
    let text = format!(
        "{history}Question: {question}\n\nThe skill's script computed this for the question:\n\n{}\n\n{says}{values}Answer the question with this result.",
        outputs.join("\n\n")
    );
    vec![Message::system(ANSWER), Message::user(text)]
}

/// The request of which values of a script's `output` answer `question`: the output, what the
/// skill says to answer with, then the question.
pub(crate) fn asked_for(question: &str, answer_with: &str, output: &str) -> Vec<Message> {
    let says = if answer_with.is_empty() {
        String::new()
    } else {
        format!("The skill says: {answer_with}\n\n")
    };
    vec![
        Message::system(ASKED_FOR),
        Message::user(format!(
            "The skill's script printed:\n{output}\n\n{says}Question: {question}\n\nWhich \
             of the output's values does the question ask for? Reply with JSON."
        )),
    ]
}

/// What the model is told when its answer holds numbers found in no result.
pub(crate) fn ground(missing: &[String]) -> String {
    format!(
        "Your answer has {}, which is in neither the question nor the results. Answer again \
         with the numbers of the results only.",
        missing.join(", ")
    )
}

/// What the model is told when its answer gives none of `results` (the values asked for, or
/// the scripts' outputs).
pub(crate) fn give_a_result(results: &[&str]) -> String {
    format!(
        "Your answer gives none of these values:\n{}\nAnswer the question with the value it \
         asks for, taken from them.",
        results.join("\n")
    )
}

/// The answer given when the model's answers do not stand on the results (numbers found in no
/// result, or none of the output's values): the scripts' outputs, quoted, and a sentence saying
/// so.
pub(crate) fn quoted(outputs: &[String]) -> String {
    format!(
        "The model's answer did not match the skill's results, so here is the skill's script \
         output as it is:\n\n{}",
        outputs.join("\n\n")
    )
}

/// The conversation's earlier text, for a request that stands alone: each earlier user and
/// assistant text of `earlier`, cut.
pub(crate) fn history(earlier: &[(bool, String)]) -> String {
    if earlier.is_empty() {
        return String::new();
    }
    let lines: Vec<String> = earlier
        .iter()
        .map(|(user, text)| {
            let who = if *user { "User" } else { "Assistant" };
            format!(
                "{who}: {}",
                skillful_core::text::cut(text, MAX_HISTORY_CHARS)
            )
        })
        .collect();
    format!("Earlier in the conversation:\n{}\n\n", lines.join("\n"))
}

/// The most characters of one earlier message a request carries.
const MAX_HISTORY_CHARS: usize = 600;
