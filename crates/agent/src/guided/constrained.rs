//! One constrained decision: a request whose reply must fit a JSON Schema, sent with the
//! server's structured-output parameter; the reply is read and checked against the same schema
//! whatever the server did with it, and one repair request is made for a reply that does not
//! fit.

use std::time::Instant;

use serde_json::Value;
use skillful_chat::{ChatOptions, ChatRequest, Message, ResponseFormat};

use crate::agent::Agent;
use crate::aids::schema::fits;
use crate::error::AgentError;
use crate::stages::{DecisionError, StageRecord};

/// The most characters of a reply a [`DecisionError`] keeps.
const MAX_REPLY_CHARS: usize = 400;

/// Asks `messages` for a reply fitting `schema` (named `name` on the wire), counting each model
/// call on `record`; the reply's JSON. A reply that does not fit gets one repair request (the
/// reply, what is wrong with it, the schema); one that still does not fit is a
/// [`DecisionError`] (`Ok(Err(..))`). `Err` when the model could not be asked.
pub(crate) async fn decide(
    agent: &Agent,
    decision: &'static str,
    mut messages: Vec<Message>,
    schema: &Value,
    record: &mut StageRecord,
) -> Result<Result<Value, DecisionError>, AgentError> {
    let options = constrained_options(&agent.options, decision, schema);
    let mut repaired = false;
    loop {
        let started = Instant::now();
        let response = agent
            .model
            .get_response(ChatRequest::new(messages.clone()).with_options(options.clone()))
            .await?;
        record.add_call(response.usage);
        record.duration += started.elapsed();
        let reply = response.text();
        let problem = match read_json(&reply) {
            Ok(value) if fits(schema, &value) => return Ok(Ok(value)),
            Ok(_) => DecisionError::Unfit {
                decision,
                reply: cut(&reply),
            },
            Err(reason) => DecisionError::NotJson {
                decision,
                reason,
                reply: cut(&reply),
            },
        };
        if repaired {
            return Ok(Err(problem));
        }
        repaired = true;
        record
            .notes
            .push(format!("a reply that did not fit was repaired: {problem}"));
        messages.push(Message::assistant(reply));
        messages.push(Message::user(repair_prompt(&problem, schema)));
    }
}

/// `options` for a decision: the reply constrained to `schema`, no tools, no conversation (the
/// decorators keep no state for it).
fn constrained_options(options: &ChatOptions, decision: &str, schema: &Value) -> ChatOptions {
    let mut options = options.clone();
    options.conversation_id = None;
    options.tool_choice = None;
    options.response_format = Some(ResponseFormat::json_schema(
        format!("skillful_{decision}"),
        schema.clone(),
    ));
    options
}

/// What the model is told when its reply did not fit.
fn repair_prompt(problem: &DecisionError, schema: &Value) -> String {
    let what = match problem {
        DecisionError::NotJson { reason, .. } => format!("That reply is not JSON ({reason})."),
        DecisionError::Unfit { .. } => "That reply does not fit the required shape.".to_owned(),
    };
    format!(
        "{what} Reply with one JSON object only, no other text, that fits this JSON Schema:\n{schema}"
    )
}

/// The JSON object in `reply`: all of it, or the first fenced block, or from its first `{` to
/// its last `}` (servers that do not constrain replies let models wrap them).
fn read_json(reply: &str) -> Result<Value, String> {
    let text = reply.trim();
    let unfenced = text
        .strip_prefix("```json")
        .or_else(|| text.strip_prefix("```"))
        .and_then(|rest| rest.rsplit_once("```").map(|(inside, _)| inside))
        .unwrap_or(text)
        .trim();
    match serde_json::from_str::<Value>(unfenced) {
        Ok(value) => Ok(value),
        Err(error) => match (unfenced.find('{'), unfenced.rfind('}')) {
            (Some(start), Some(end)) if start < end => {
                serde_json::from_str(&unfenced[start..=end]).map_err(|_| error.to_string())
            }
            _ => Err(error.to_string()),
        },
    }
}

fn cut(reply: &str) -> String {
    skillful_core::text::cut(reply, MAX_REPLY_CHARS).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn replies_are_read_bare_fenced_or_wrapped_in_prose() {
        assert_eq!(read_json(r#"{"a": 1}"#), Ok(json!({"a": 1})));
        assert_eq!(read_json("```json\n{\"a\": 1}\n```"), Ok(json!({"a": 1})));
        assert_eq!(
            read_json("Here it is: {\"a\": {\"b\": 2}} hope that helps"),
            Ok(json!({"a": {"b": 2}}))
        );
        assert!(read_json("no json here").is_err());
    }
}
