//! The texts of the guided strategy's requests. Each request stands alone (no tools, no tool
//! history): what the model needs for one decision, the user's question last.

use skillful_chat::Message;

/// The selection's system message.
const SELECT: &str = "You decide whether a skill is needed to answer the user's request. A \
skill is a set of instructions and scripts for one kind of task. Choose the skill whose \
description fits what the request asks for, or \"none\" when the request is about something \
else, can be answered without a skill, or no description fits it. Reply with JSON only.";

/// The decision's system message.
const DECIDE: &str = "You carry out a skill for the user's question, one step at a time. Each \
step is one JSON object. Follow the skill's instructions: run its script with the arguments \
the instructions describe, taking every value from the user's question and from the skill's \
resources (a table, a list of rates) where the instructions say so. The values in the skill's \
examples are only examples: use the question's own values. Reply with JSON only.";

/// The answer's system message.
const ANSWER: &str = "You answer the user's question from the results you are given, in one or \
two plain sentences. Use the numbers of the results as they are; do not compute anything \
yourself and do not call tools.";

/// The selection's request: the candidates (name and description) and the request, after
/// `history` (the conversation's earlier text, if any).
pub(crate) fn select(candidates: &[(&str, &str)], history: &str, question: &str) -> Vec<Message> {
    let listed: Vec<String> = candidates
        .iter()
        .map(|(name, description)| format!("- {name}: {description}"))
        .collect();
    vec![
        Message::system(SELECT),
        Message::user(format!(
            "Skills:\n{}\n- none: no skill; the request is answered without one.\n\n{history}Request: {question}",
            listed.join("\n")
        )),
    ]
}

/// What a decision is shown: the skill's instructions, the resources disclosed with them, the
/// resources it may read, the results so far, then the question and what to choose.
pub(crate) struct Step<'a> {
    pub(crate) skill: &'a str,
    pub(crate) body: &'a str,
    /// Each disclosed resource: its name and its text.
    pub(crate) disclosed: &'a [(String, String)],
    /// The resources it may still read.
    pub(crate) readable: &'a [String],
    /// Each result so far: what was done and what it gave.
    pub(crate) results: &'a [String],
    /// With several scripts: each, in the order the body first names them, and whether it ran.
    pub(crate) scripts: &'a [(String, bool)],
    pub(crate) question: &'a str,
    /// Whether answering is a choice of this step.
    pub(crate) can_answer: bool,
}

impl Step<'_> {
    /// The decision's request.
    pub(crate) fn messages(&self) -> Vec<Message> {
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
        let choose = match (self.can_answer, self.readable.is_empty()) {
            (false, true) => "Choose the script to run for this question and its arguments.",
            (false, false) => {
                "Choose the next step: run a script with its arguments, or read a resource."
            }
            (true, true) => {
                "Choose the next step: run a script with its arguments, or answer if the \
                 results answer the question."
            }
            (true, false) => {
                "Choose the next step: run a script with its arguments, read a resource, or \
                 answer if the results answer the question."
            }
        };
        text.push_str(&format!("\nQuestion: {}\n\n{choose}", self.question));
        vec![Message::system(DECIDE), Message::user(text)]
    }
}

/// The answer's request: the question, what the results are, then the results.
pub(crate) fn answer(history: &str, question: &str, from: From<'_>) -> Vec<Message> {
    let text = match from {
        From::Scripts(outputs) => format!(
            "{history}Question: {question}\n\nThe skill's script computed this for the question:\n\n{}\n\nAnswer the question with this result.",
            outputs.join("\n\n")
        ),
        From::Instructions(texts) => format!(
            "{history}Question: {question}\n\nThe skill's instructions and resources:\n\n{}\n\nAnswer the question from them.",
            texts.join("\n\n")
        ),
    };
    vec![Message::system(ANSWER), Message::user(text)]
}

/// What an answer is made from.
pub(crate) enum From<'a> {
    /// The scripts' outputs (each with the script's name).
    Scripts(&'a [String]),
    /// A skill without script results: its body and resources.
    Instructions(&'a [String]),
}

/// What the model is told when its answer holds numbers found in no result.
pub(crate) fn ground(missing: &[String]) -> String {
    format!(
        "Your answer has {}, which is in neither the question nor the results. Answer again \
         with the numbers of the results only.",
        missing.join(", ")
    )
}

/// The answer given when the model's answers hold numbers found in no result: the scripts'
/// outputs, quoted, and a sentence saying so.
pub(crate) fn quoted(outputs: &[String]) -> String {
    format!(
        "The model's answer held numbers found in no result, so here is the skill's script \
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
