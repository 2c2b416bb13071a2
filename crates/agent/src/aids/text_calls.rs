//! Tool calls written as text: small local models (and some chat templates) write a call as JSON
//! in the message instead of a structured `tool_calls` entry. Recovered calls become ordinary
//! function calls, so they run like any other and the history stays valid on the wire.
//!
//! Recognised, for the tools offered only:
//! - a fenced block (```` ```json ````, or any other or no info string) holding a call object
//!   `{"name": TOOL, "arguments": {...}}` (or `"parameters"`), a list of them, or `<tool_call>`
//!   tags;
//! - the same JSON bare, starting a line and ending it;
//! - Hermes/Qwen tags, `<tool_call>{...}</tool_call>` (the closing tag may be cut off).
//!
//! A call object has only the keys `name`, `arguments` or `parameters`, `id` and `type`; its
//! arguments are an object (or JSON text of one) that fits the tool's schema
//! ([`schema::fits`](super::schema)). A call may also name what a tool acts on instead of the
//! tool (a name [`Offered::claimed`] says a tool claims), whatever its arguments: the
//! misnamed-call correction turns it into a call of that tool. A block or list is taken whole or not at all,
//! and JSON that names no offered tool (nor anything one claims), has no name, or whose arguments
//! do not fit is left as text.

use std::ops::Range;

use serde_json::{Map, Value};
use skillful_chat::{Content, FunctionCall, Message, Role, SharedTool};

use super::schema;

/// Longer texts are not searched for calls: the search is linear in the text, with a constant
/// bounded by JSON's nesting limit, and a message of tool calls is a few hundred bytes.
const MAX_SCANNED_BYTES: usize = 256 * 1024;

/// The tools a reply may call: those offered, and the names a tool claims.
pub(crate) struct Offered<'a> {
    /// The tools of the request.
    pub(crate) tools: &'a [SharedTool],
    /// Whether an offered tool takes a call of `name`, a tool that does not exist (a skill's
    /// name, which `load_skill` takes).
    pub(crate) claimed: &'a dyn Fn(&str) -> bool,
}

const OPEN_TAG: &str = "<tool_call>";
const CLOSE_TAG: &str = "</tool_call>";

/// Turns the calls `message` writes as text into function calls (with empty ids, for the loop to
/// assign), keeping the text around them as the message's text. Returns how many were found; a
/// message that already holds calls, or holds anything but text, is left alone.
pub(crate) fn recover(message: &mut Message, offered: &Offered<'_>) -> usize {
    if message.role != Role::Assistant
        || offered.tools.is_empty()
        || !message
            .contents
            .iter()
            .all(|content| matches!(content, Content::Text { .. }))
    {
        return 0;
    }
    let text = message.joined_text();
    if text.len() > MAX_SCANNED_BYTES {
        return 0;
    }
    let found = find_calls(&text, offered);
    if found.is_empty() {
        return 0;
    }
    let mut kept = String::new();
    let mut at = 0;
    let mut calls = Vec::new();
    for (span, span_calls) in found {
        kept.push_str(&text[at..span.start]);
        kept.push('\n');
        at = span.end;
        calls.extend(span_calls);
    }
    kept.push_str(&text[at..]);
    let kept = tidy(&kept);
    let count = calls.len();
    message.contents = (!kept.is_empty())
        .then(|| Content::Text { text: kept })
        .into_iter()
        .chain(calls.into_iter().map(Content::FunctionCall))
        .collect();
    count
}

/// The spans of `text` that are calls, in order, with their calls.
fn find_calls(text: &str, offered: &Offered<'_>) -> Vec<(Range<usize>, Vec<FunctionCall>)> {
    let mut found = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let line_end = text[at..].find('\n').map_or(text.len(), |n| at + n + 1);
        let line = &text[at..line_end];
        let start = at + (line.len() - line.trim_start().len());
        let rest = &text[start..line_end];
        if rest.starts_with("```") {
            let (content, block_end) = fenced_block(text, line_end);
            if let Some(calls) = block_calls(&text[content], offered) {
                found.push((at..block_end, calls));
            }
            at = block_end;
            continue;
        }
        if rest.starts_with(['{', '['])
            && let Some((end, calls)) = bare_calls(text, start, offered)
        {
            found.push((start..end, calls));
            at = end;
            continue;
        }
        if let Some(tag) = line.find(OPEN_TAG) {
            let tag_start = at + tag;
            match tagged_call(text, tag_start) {
                Some((value, end)) => {
                    if let Some(calls) = calls_in(&value, offered) {
                        found.push((tag_start..end, calls));
                    }
                    at = end;
                }
                None => at = tag_start + OPEN_TAG.len(),
            }
            continue;
        }
        at = line_end;
    }
    found
}

/// The calls of bare JSON starting at `start` and ending its line, and the end of that line.
fn bare_calls(
    text: &str,
    start: usize,
    offered: &Offered<'_>,
) -> Option<(usize, Vec<FunctionCall>)> {
    let (value, end) = json_at(text, start)?;
    let line_end = text[end..].find('\n').map_or(text.len(), |n| end + n + 1);
    if !text[end..line_end].trim().is_empty() {
        return None;
    }
    Some((line_end, calls_in(&value, offered)?))
}

/// The content and the end of a fenced block whose opening line ends at `content_start`: up to
/// a line of backticks only, or the end of the text (a model cut off mid-block).
fn fenced_block(text: &str, content_start: usize) -> (Range<usize>, usize) {
    let mut at = content_start;
    while at < text.len() {
        let line_end = text[at..].find('\n').map_or(text.len(), |n| at + n + 1);
        let line = text[at..line_end].trim();
        if line.len() >= 3 && line.bytes().all(|byte| byte == b'`') {
            return (content_start..at, line_end);
        }
        at = line_end;
    }
    (content_start..text.len(), text.len())
}

/// The calls a fenced block's content holds: one JSON value, or only `<tool_call>` tags.
fn block_calls(content: &str, offered: &Offered<'_>) -> Option<Vec<FunctionCall>> {
    let content = content.trim();
    if let Ok(value) = serde_json::from_str::<Value>(content) {
        return calls_in(&value, offered);
    }
    let mut calls = Vec::new();
    let mut at = 0;
    while at < content.len() {
        let (value, end) = tagged_call(content, at)?;
        calls.extend(calls_in(&value, offered)?);
        at = end + (content[end..].len() - content[end..].trim_start().len());
    }
    (!calls.is_empty()).then_some(calls)
}

/// The JSON after a `<tool_call>` tag at `start`, and the end of its closing tag (or of the JSON
/// when the tag is not closed).
fn tagged_call(text: &str, start: usize) -> Option<(Value, usize)> {
    if !text[start..].starts_with(OPEN_TAG) {
        return None;
    }
    let after_tag = start + OPEN_TAG.len();
    let json_start = after_tag + (text[after_tag..].len() - text[after_tag..].trim_start().len());
    let (value, end) = json_at(text, json_start)?;
    let closing = end + (text[end..].len() - text[end..].trim_start().len());
    let end = match text[closing..].strip_prefix(CLOSE_TAG) {
        Some(_) => closing + CLOSE_TAG.len(),
        None => end,
    };
    Some((value, end))
}

/// One JSON value starting at `start`, and where it ends.
fn json_at(text: &str, start: usize) -> Option<(Value, usize)> {
    let mut values = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
    let value = values.next()?.ok()?;
    Some((value, start + values.byte_offset()))
}

/// The calls `value` is: one call object, or a non-empty list of them; `None` if it is anything
/// else or any element is not a call to an offered tool with fitting arguments.
fn calls_in(value: &Value, offered: &Offered<'_>) -> Option<Vec<FunctionCall>> {
    match value {
        Value::Object(object) => Some(vec![call(object, offered)?]),
        Value::Array(items) if !items.is_empty() => items
            .iter()
            .map(|item| call(item.as_object()?, offered))
            .collect(),
        _ => None,
    }
}

fn call(object: &Map<String, Value>, offered: &Offered<'_>) -> Option<FunctionCall> {
    if object.keys().any(|key| {
        !matches!(
            key.as_str(),
            "name" | "arguments" | "parameters" | "id" | "type"
        )
    }) {
        return None;
    }
    let name = object.get("name")?.as_str()?;
    let tool = offered.tools.iter().find(|tool| tool.name() == name);
    let arguments = match (object.get("arguments"), object.get("parameters")) {
        (Some(_), Some(_)) => return None,
        (Some(arguments), None) | (None, Some(arguments)) => arguments.clone(),
        (None, None) => Value::Object(Map::new()),
    };
    let arguments = match arguments {
        Value::Null => Value::Object(Map::new()),
        Value::String(text) => serde_json::from_str(&text).ok()?,
        other => other,
    };
    let fits = match tool {
        Some(tool) => schema::fits(tool.parameters(), &arguments),
        // A name a tool claims: the correction gives the call that tool's arguments for it.
        None => (offered.claimed)(name),
    };
    (arguments.is_object() && fits).then(|| FunctionCall {
        call_id: String::new(),
        name: name.to_owned(),
        arguments,
    })
}

/// The text left around the calls: trimmed, with no more than one blank line in a row.
fn tidy(text: &str) -> String {
    let mut tidied = String::new();
    let mut blank_run = 0;
    for line in text.trim().lines() {
        if line.trim().is_empty() {
            blank_run += 1;
            if blank_run > 1 {
                continue;
            }
        } else {
            blank_run = 0;
        }
        tidied.push_str(line.trim_end());
        tidied.push('\n');
    }
    tidied.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use std::any::Any;
    use std::sync::Arc;

    use async_trait::async_trait;
    use serde_json::json;
    use skillful_chat::Tool;

    use super::*;

    #[derive(Debug)]
    struct Declared(&'static str, Value);

    #[async_trait]
    impl Tool for Declared {
        fn name(&self) -> &str {
            self.0
        }
        fn description(&self) -> &str {
            "A tool."
        }
        fn parameters(&self) -> &Value {
            &self.1
        }
        async fn invoke(&self, _arguments: Value) -> Result<String, String> {
            Err("not run in these tests".to_owned())
        }
        fn as_any(&self) -> &dyn Any {
            self
        }
    }

    fn tools() -> Vec<SharedTool> {
        let skill = json!({
            "type": "object",
            "properties": {"skillName": {"type": "string"}},
            "required": ["skillName"]
        });
        vec![
            Arc::new(Declared("load_skill", skill)),
            Arc::new(Declared("now", json!({"type": "object", "properties": {}}))),
        ]
    }

    /// `tools` offered, claiming no other name.
    fn offered(tools: &[SharedTool]) -> Offered<'_> {
        Offered {
            tools,
            claimed: &|_| false,
        }
    }

    /// The text kept and the calls found, as `name arguments`.
    fn recovered(text: &str) -> (String, Vec<String>) {
        let mut message = Message::assistant(text);
        recover(&mut message, &offered(&tools()));
        let calls = message
            .function_calls()
            .map(|call| format!("{} {}", call.name, call.arguments))
            .collect();
        (message.joined_text(), calls)
    }

    const LOAD: &str = r#"load_skill {"skillName":"unit-converter"}"#;

    #[test]
    fn each_format_is_recovered_and_the_text_around_is_kept() {
        let cases = [
            "I will load it.\n```json\n{\"name\": \"load_skill\", \"arguments\": {\"skillName\": \"unit-converter\"}}\n```\nThen answer.",
            "I will load it.\n```\n{\"name\": \"load_skill\", \"parameters\": {\"skillName\": \"unit-converter\"}}\n```\nThen answer.",
            "I will load it.\n{\"name\": \"load_skill\", \"arguments\": \"{\\\"skillName\\\": \\\"unit-converter\\\"}\"}\nThen answer.",
            "I will load it.\n<tool_call>\n{\"name\": \"load_skill\", \"arguments\": {\"skillName\": \"unit-converter\"}}\n</tool_call>\nThen answer.",
            "I will load it. <tool_call>{\"name\": \"load_skill\", \"arguments\": {\"skillName\": \"unit-converter\"}}</tool_call>\nThen answer.",
            "I will load it.\n```xml\n<tool_call>\n{\"name\": \"load_skill\", \"arguments\": {\"skillName\": \"unit-converter\"}}\n</tool_call>\n```\nThen answer.",
        ];
        for text in cases {
            let (kept, calls) = recovered(text);
            assert_eq!(calls, [LOAD], "{text}");
            assert_eq!(kept, "I will load it.\n\nThen answer.", "{text}");
        }
    }

    #[test]
    fn lists_several_tags_and_unclosed_endings_give_every_call() {
        let list = "```json\n[{\"name\": \"load_skill\", \"arguments\": {\"skillName\": \"a\"}}, {\"name\": \"now\"}]\n```";
        assert_eq!(
            recovered(list),
            (
                String::new(),
                vec![
                    r#"load_skill {"skillName":"a"}"#.to_owned(),
                    "now {}".to_owned()
                ]
            )
        );
        let tags = "<tool_call>{\"name\": \"now\", \"arguments\": {}}</tool_call>\n<tool_call>{\"name\": \"load_skill\", \"arguments\": {\"skillName\": \"b\"}}";
        assert_eq!(
            recovered(tags).1,
            ["now {}", r#"load_skill {"skillName":"b"}"#]
        );
        let cut_off_fence = "```json\n{\"name\": \"now\", \"arguments\": {}}\n";
        assert_eq!(recovered(cut_off_fence).1, ["now {}"]);
    }

    #[test]
    fn json_that_is_no_call_to_an_offered_tool_stays_text() {
        for text in [
            "```json\n{\"name\": \"delete_everything\", \"arguments\": {}}\n```",
            "{\"arguments\": {\"skillName\": \"a\"}}",
            "{\"name\": \"load_skill\", \"arguments\": {\"skill_name\": \"a\"}}",
            "{\"name\": \"load_skill\", \"arguments\": {\"skillName\": 3}}",
            "{\"name\": \"load_skill\", \"arguments\": {\"skillName\": \"a\"}, \"parameters\": {}}",
            "{\"name\": \"load_skill\", \"description\": \"Loads a skill.\", \"parameters\": {\"skillName\": \"a\"}}",
            "[{\"name\": \"now\"}, {\"name\": \"nope\"}]",
            "[]",
            "Call it like {\"name\": \"now\", \"arguments\": {}} when you need the time.",
            "{\"name\": \"now\", \"arguments\": {}} is how you would call it.",
            "For example:\n```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```\nbut I have no such tool.",
            "<tool_call>not json</tool_call>",
            "```json\n{\"name\": \"now\"\n```",
        ] {
            let (kept, calls) = recovered(text);
            assert!(calls.is_empty(), "{text}: {calls:?}");
            assert_eq!(kept, text);
        }
    }

    #[test]
    fn messages_with_calls_or_without_tools_are_left_alone() {
        let text = "{\"name\": \"now\"}";
        let mut message = Message::assistant(text);
        assert_eq!(recover(&mut message, &offered(&[])), 0);
        message.contents.push(Content::FunctionCall(FunctionCall {
            call_id: "c1".into(),
            name: "now".into(),
            arguments: json!({}),
        }));
        assert_eq!(recover(&mut message, &offered(&tools())), 0);
        let mut from_user = Message::user(text);
        assert_eq!(recover(&mut from_user, &offered(&tools())), 0);
        let mut huge = Message::assistant(format!("{text}\n{}", " ".repeat(MAX_SCANNED_BYTES)));
        assert_eq!(recover(&mut huge, &offered(&tools())), 0);
    }
}
