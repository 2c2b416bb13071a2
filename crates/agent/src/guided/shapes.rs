//! What a decision may say, as JSON Schemas: the selection's enum of skills, and for each step
//! the skill's scripts with their arguments shaped as the skill's body shows them (named
//! options, positional arguments, one JSON document), the resources left to read, and whether
//! answering is a choice yet.

use serde_json::{Value, json};

/// The value of the selection that chooses no skill.
pub(crate) const NONE: &str = "none";

/// The selection's schema about one candidate: `{"fits": "yes" | "no"}`.
pub(crate) fn selection() -> Value {
    json!({
        "type": "object",
        "properties": {"fits": {"type": "string", "enum": ["yes", "no"]}},
        "required": ["fits"],
        "additionalProperties": false,
    })
}

/// The schema of the values a question asks for among a script's output fields `names`:
/// `{"values": [one or more of names]}`.
pub(crate) fn asked_for(names: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": {"values": {
            "type": "array",
            "items": {"type": "string", "enum": names},
            "minItems": 1,
            "maxItems": names.len().min(MAX_ASKED_FOR),
        }},
        "required": ["values"],
        "additionalProperties": false,
    })
}

/// The most values one question is taken to ask for.
const MAX_ASKED_FOR: usize = 3;

/// How a script takes its arguments, as the skill's body shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Arguments {
    /// Named options (`--name value`, or the keys of a JSON object): every name the body gives
    /// near the script, and those its example sets, which are required; `whole` are those the
    /// script refused a fraction for ([`Arguments::told_by`]).
    Options {
        names: Vec<String>,
        required: Vec<String>,
        whole: Vec<String>,
    },
    /// About this many positional arguments (the example's count).
    Positional(usize),
    /// One argument holding a JSON document shaped like this example's.
    Json(Value),
    /// The body does not say: an object of options or a list of positional arguments.
    Open,
    /// The script declares its parameters (an inline, class or MCP skill's script): this JSON
    /// Schema of an object.
    Declared(Value),
}

impl Arguments {
    /// The shape of a script that declares `schema` for its arguments: that schema when it
    /// names parameters (an object schema with `properties`), else what `body` shows (the
    /// generic schema of a file script says nothing).
    pub(crate) fn declared_or_of(schema: Option<&Value>, script: &str, body: &str) -> Self {
        match schema {
            Some(schema)
                if schema
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(|properties| !properties.is_empty()) =>
            {
                Arguments::Declared(schema.clone())
            }
            _ => Arguments::of(script, body),
        }
    }

    /// How `script`'s arguments are shaped in `body`: from the lines that name the script (its
    /// path, or its file name) and the lines after each up to a blank one. An example on such a
    /// line (`python3 scripts/x.py --a 1 --b 2`, `scripts/x.py 12 34`, `` `scripts/x.py` with
    /// `{"a": 1}` `` or `` `["12", "34"]` ``) says which names are required, or how many
    /// arguments there are.
    pub(crate) fn of(script: &str, body: &str) -> Self {
        let file = script.rsplit('/').next().unwrap_or(script);
        let lines: Vec<&str> = body.lines().collect();
        let mut names: Vec<String> = Vec::new();
        let mut required: Vec<String> = Vec::new();
        let mut example: Option<Example> = None;
        let mut spans: Vec<String> = Vec::new();
        let mut says_options = false;
        for (at, line) in lines.iter().enumerate() {
            if !line.contains(file) {
                continue;
            }
            let step = step_at(&lines, at);
            let joined = step.join(" ");
            for name in option_names(&joined).into_iter().chain(json_keys(&joined)) {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            let here = example_in(&step, file).map(|(example, _)| example);
            // Options named in code spans count where a step says they are options, or the
            // script's example passes options.
            says_options |= joined.to_ascii_lowercase().contains("option");
            for name in code_span_names(&joined, file) {
                if !spans.contains(&name) {
                    spans.push(name);
                }
            }
            if example.is_none() {
                example = here;
            }
        }
        if says_options || matches!(example, Some(Example::Options(_))) {
            for name in spans {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        match example {
            Some(Example::Options(set)) => {
                for name in &set {
                    if !names.contains(name) {
                        names.push(name.clone());
                    }
                }
                required = set;
            }
            Some(Example::Json(document)) => return Arguments::Json(document),
            Some(Example::Positional(count)) if names.is_empty() => {
                return Arguments::Positional(count);
            }
            Some(Example::Positional(_)) => {}
            None => required.clone_from(&names),
        }
        if names.is_empty() {
            Arguments::Open
        } else {
            Arguments::Options {
                names,
                required,
                whole: Vec::new(),
            }
        }
    }

    /// The JSON Schema of a decision's `arguments` for this shape.
    pub(crate) fn schema(&self) -> Value {
        let scalar = json!({"anyOf": [{"type": "number"}, {"type": "string"}]});
        match self {
            Arguments::Options {
                names,
                required,
                whole,
            } => {
                let value =
                    json!({"anyOf": [{"type": "number"}, {"type": "string"}, {"type": "boolean"}]});
                let properties: serde_json::Map<String, Value> = names
                    .iter()
                    .map(|name| {
                        let value = if whole.contains(name) {
                            json!({"type": "integer"})
                        } else {
                            value.clone()
                        };
                        (name.clone(), value)
                    })
                    .collect();
                json!({
                    "type": "object",
                    "properties": properties,
                    "required": required,
                    "additionalProperties": false,
                })
            }
            Arguments::Positional(count) => json!({
                "type": "array",
                "items": scalar,
                "minItems": count.saturating_sub(1).max(1),
                "maxItems": count + 1,
            }),
            Arguments::Json(document) => json!({
                "type": "array",
                "items": shape_of(document),
                "minItems": 1,
                "maxItems": 1,
            }),
            Arguments::Declared(schema) => schema.clone(),
            Arguments::Open => json!({
                "anyOf": [
                    {"type": "object"},
                    {"type": "array", "items": scalar},
                ]
            }),
        }
    }

    /// This shape with what a failed run's `output` says of its options: an option the script
    /// refused a fraction for (Python's argparse: `argument --doors: invalid int value: '2.4'`;
    /// click: `Invalid value for '--doors': '2.4' is not a valid integer`) takes whole numbers.
    /// Shown its own usage error, the 1.5B sent the same fraction again.
    pub(crate) fn told_by(self, output: &str) -> Self {
        let Arguments::Options {
            names,
            required,
            mut whole,
        } = self
        else {
            return self;
        };
        for line in output.lines() {
            let option = if line.contains("invalid int value") {
                line.split("argument ")
                    .nth(1)
                    .and_then(|rest| rest.split(':').next())
            } else if line.contains("is not a valid integer") {
                line.split("Invalid value for '")
                    .nth(1)
                    .and_then(|rest| rest.split('\'').next())
            } else {
                None
            };
            // `--doors/-d` names one option several ways.
            let named = option.into_iter().flat_map(|option| option.split('/'));
            for name in named.map(|name| name.trim().trim_start_matches('-')) {
                if names.iter().any(|known| known == name) && !whole.iter().any(|w| w == name) {
                    whole.push(name.to_owned());
                }
            }
        }
        Arguments::Options {
            names,
            required,
            whole,
        }
    }

    /// A decision's `arguments` as the script is called with them: each item of a list that is
    /// not a string or a number (the JSON document of [`Arguments::Json`]) becomes its JSON
    /// text, so that it is passed as one argument.
    pub(crate) fn for_the_call(arguments: Value) -> Value {
        match arguments {
            Value::Array(items) => Value::Array(
                items
                    .into_iter()
                    .map(|item| match item {
                        Value::String(_) | Value::Number(_) => item,
                        other => Value::String(other.to_string()),
                    })
                    .collect(),
            ),
            other => other,
        }
    }
}

/// How many numbers a call of `script` takes, as far as the skill says: the required number
/// parameters of its declared `schema` (where that names parameters), else the numbers its
/// first example in `body` passes (`--weight 12.5`, `["2400", "19.9"]`, `{"kwh": 410}`, a JSON
/// document's numbers). 0 when the body shows no example.
pub(crate) fn numbers_taken(schema: Option<&Value>, script: &str, body: &str) -> usize {
    if let Arguments::Declared(schema) = Arguments::declared_or_of(schema, script, "") {
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        return required
            .iter()
            .filter(|name| {
                matches!(
                    schema["properties"][**name]["type"].as_str(),
                    Some("number" | "integer")
                )
            })
            .count();
    }
    let file = script.rsplit('/').next().unwrap_or(script);
    let lines: Vec<&str> = body.lines().collect();
    lines
        .iter()
        .enumerate()
        .filter(|(_, line)| line.contains(file))
        .find_map(|(at, _)| example_in(&step_at(&lines, at), file))
        .map_or(0, |(_, arguments)| numbers_in(&arguments))
}

/// The numbers in `value`: its JSON numbers, its texts that are numbers (`"19.9"`) and those
/// in its texts that are JSON documents (one argument holding a document).
fn numbers_in(value: &Value) -> usize {
    match value {
        Value::Number(_) => 1,
        Value::String(text) => match document(text) {
            Some(inner) => numbers_in(&inner),
            None => usize::from(text.trim().parse::<f64>().is_ok()),
        },
        Value::Array(items) => items.iter().map(numbers_in).sum(),
        Value::Object(entries) => entries.values().map(numbers_in).sum(),
        Value::Bool(_) | Value::Null => 0,
    }
}

/// The step of `lines` that names a script on line `at`: that line and those continuing it, up
/// to a blank line, a code block (an output) or the next item of a list.
fn step_at<'a>(lines: &[&'a str], at: usize) -> Vec<&'a str> {
    std::iter::once(lines[at])
        .chain(
            lines[at + 1..]
                .iter()
                .take_while(|line| {
                    let trimmed = line.trim_start();
                    !trimmed.is_empty() && !trimmed.starts_with("```") && !starts_item(trimmed)
                })
                .copied(),
        )
        .take(6)
        .collect()
}

/// The example call of `file` in `step` (its first line names the script): on that line, else
/// "for example `{"value": 26.2}`" on a line below it; what it shows and its arguments as
/// written (an invocation's words as a list of texts, or the JSON).
fn example_in(step: &[&str], file: &str) -> Option<(Example, Value)> {
    let (first, below) = step.split_first()?;
    Example::on(first, file).or_else(|| below.iter().find_map(|line| inline_example(line)))
}

/// What an example invocation on one line shows.
enum Example {
    /// These named options.
    Options(Vec<String>),
    /// This many positional arguments.
    Positional(usize),
    /// One JSON document: this one.
    Json(Value),
}

/// The JSON Schema of documents shaped like `example`: objects with its keys (all required, no
/// others), lists of items shaped like its first, and a number or a text for every scalar.
fn shape_of(example: &Value) -> Value {
    match example {
        Value::Object(entries) => {
            let properties: serde_json::Map<String, Value> = entries
                .iter()
                .map(|(key, value)| (key.clone(), shape_of(value)))
                .collect();
            let keys: Vec<&String> = entries.keys().collect();
            json!({
                "type": "object",
                "properties": properties,
                "required": keys,
                "additionalProperties": false,
            })
        }
        Value::Array(items) => match items.first() {
            Some(first) => json!({"type": "array", "items": shape_of(first), "minItems": 1}),
            None => json!({"type": "array"}),
        },
        _ => json!({"anyOf": [{"type": "number"}, {"type": "string"}]}),
    }
}

/// `text` as the JSON object or array it holds.
fn document(text: &str) -> Option<Value> {
    serde_json::from_str::<Value>(text.trim())
        .ok()
        .filter(|value| value.is_array() || value.is_object())
}

impl Example {
    /// The example of `file` on `line` (a command line after the file's name, or the JSON
    /// arguments given after it) and its arguments as written.
    fn on(line: &str, file: &str) -> Option<(Example, Value)> {
        if let Some(words) = invocation_arguments(line, file) {
            let options: Vec<String> = words
                .iter()
                .filter_map(|word| word.strip_prefix("--"))
                .map(str::to_owned)
                .collect();
            let example = if !options.is_empty() {
                Example::Options(options)
            } else {
                match words.as_slice() {
                    [only] if document(only).is_some() => Example::Json(document(only)?),
                    words => Example::Positional(words.len()),
                }
            };
            return Some((example, json!(words)));
        }
        let arguments = json_after(line, file)?;
        let example = match &arguments {
            Value::Object(entries) => Example::Options(entries.keys().cloned().collect()),
            Value::Array(items) => match items.as_slice() {
                [Value::String(only)] if document(only).is_some() => Example::Json(document(only)?),
                [only @ (Value::Object(_) | Value::Array(_))] => Example::Json(only.clone()),
                items => Example::Positional(items.len()),
            },
            _ => return None,
        };
        Some((example, arguments))
    }
}

/// A JSON object of arguments written in a code span on `line` (`` `{"value": 26.2}` ``), and
/// the object.
fn inline_example(line: &str) -> Option<(Example, Value)> {
    let start = line.find("`{")? + 1;
    let mut values = serde_json::Deserializer::from_str(&line[start..]).into_iter::<Value>();
    match values.next() {
        Some(Ok(Value::Object(entries))) => Some((
            Example::Options(entries.keys().cloned().collect()),
            Value::Object(entries),
        )),
        _ => None,
    }
}

/// The JSON object or array that follows `file` on `line` (as in `` `scripts/x.py` with
/// `{"a": 1}` ``), if one does.
fn json_after(line: &str, file: &str) -> Option<Value> {
    let at = line.find(file)? + file.len();
    let rest = &line[at..];
    let start = rest.find(['{', '['])?;
    // Only the arguments of this call: not past a second script named on the line.
    let rest = &rest[start..];
    let mut values = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
    match values.next() {
        Some(Ok(value @ (Value::Object(_) | Value::Array(_)))) => Some(value),
        _ => None,
    }
}

/// The keys written as `"name":` on `line`.
fn json_keys(line: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut rest = line;
    while let Some(open) = rest.find('"') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('"') else {
            break;
        };
        let key = &after[..close];
        let tail = after[close + 1..].trim_start();
        if tail.starts_with(':')
            && !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            && !keys.iter().any(|known| known == key)
        {
            keys.push(key.to_owned());
        }
        rest = &after[close + 1..];
    }
    keys
}

/// Whether `line` (trimmed) begins a list item (`3. `, `- `, `* `).
fn starts_item(line: &str) -> bool {
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    (digits > 0 && (line[digits..].starts_with(". ") || line[digits..].starts_with(") ")))
        || line.starts_with("- ")
        || line.starts_with("* ")
}

/// The names in code spans of `text` that look like option names (`weight-kg`, `factor`): a
/// letter first, then letters, digits, `-` and `_`; not `file` or a path.
fn code_span_names(text: &str, file: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (index, span) in text.split('`').enumerate() {
        let inside = index % 2 == 1;
        let name = span.trim();
        if inside
            && name != file
            && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            && !names.iter().any(|known: &String| known == name)
        {
            names.push(name.to_owned());
        }
    }
    names
}

/// The `--name` options of `line` (as written in its code spans or plain text).
fn option_names(line: &str) -> Vec<String> {
    let mut names = Vec::new();
    let bytes = line.as_bytes();
    let mut at = 0;
    while let Some(found) = line[at..].find("--") {
        let start = at + found;
        let preceded =
            start == 0 || !bytes[start - 1].is_ascii_alphanumeric() && bytes[start - 1] != b'-';
        let name: String = line[start + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .collect();
        if preceded
            && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && !names.contains(&name)
        {
            names.push(name.trim_end_matches('-').to_owned());
        }
        at = start + 2 + name.len();
    }
    names
}

/// The words after `file` on an invocation `line` (`python3 scripts/x.py 12 "a b"`), split as a
/// shell would (quotes group, and are removed); `None` when the line is not an invocation (the
/// file is not followed by arguments on it, or the line is prose).
fn invocation_arguments(line: &str, file: &str) -> Option<Vec<String>> {
    let line = line
        .trim()
        .trim_start_matches(['$', '>', ' '])
        .trim_matches('`');
    let at = line.find(file)?;
    let rest = &line[at + file.len()..];
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let words = shell_words(rest.trim());
    // Prose after the name ("with the bill's total") is not an invocation: every word of an
    // invocation's arguments holds a digit, a quote-grouped text, a JSON document or an option.
    let plausible = words.iter().all(|word| {
        word.starts_with('-')
            || document(word).is_some()
            || word.chars().any(|c| c.is_ascii_digit())
            || word.contains(' ')
    });
    (plausible && !words.is_empty()).then_some(words)
}

/// `text` split into words as a shell would: whitespace separates, single and double quotes
/// group (and are removed), a word ends at a `#` comment or a `` ` ``.
fn shell_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    for c in text.chars() {
        match quote {
            Some(open) if c == open => quote = None,
            Some(_) => word.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                started = true;
            }
            None if c.is_whitespace() => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            None if c == '#' || c == '`' => break,
            None => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

/// What one step of the decision may choose.
#[derive(Debug, Clone)]
pub(crate) struct Choices {
    /// The scripts to run, each with its arguments' shape.
    pub(crate) scripts: Vec<(String, Arguments)>,
    /// The resources left to read.
    pub(crate) resources: Vec<String>,
    /// Whether answering is a choice (a result is in, or there is no script to run).
    pub(crate) can_answer: bool,
}

/// The action of a step whose choice has several kinds.
pub(crate) const RUN: &str = "run_script";
pub(crate) const READ: &str = "read_resource";
pub(crate) const ANSWER: &str = "answer";

impl Choices {
    /// Whether only scripts may be chosen (the step's schema then has no `action`).
    pub(crate) fn runs_only(&self) -> bool {
        self.resources.is_empty() && !self.can_answer
    }

    /// The step's schema: with scripts only, `{"script", "arguments"}` (one variant per script
    /// when their arguments differ); else each kind of action as a variant with its `action`
    /// first.
    pub(crate) fn schema(&self) -> Value {
        let runs_only = self.runs_only();
        let mut variants: Vec<Value> = Vec::new();
        let same_shape = self.scripts.windows(2).all(|pair| pair[0].1 == pair[1].1);
        let mut run_variant = |names: Vec<&str>, arguments: &Arguments| {
            let mut properties = serde_json::Map::new();
            let mut required = Vec::new();
            if !runs_only {
                properties.insert("action".into(), json!({"const": RUN}));
                required.push("action");
            }
            properties.insert("script".into(), json!({"type": "string", "enum": names}));
            properties.insert("arguments".into(), arguments.schema());
            required.extend(["script", "arguments"]);
            variants.push(json!({
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": false,
            }));
        };
        if same_shape {
            if let Some((_, arguments)) = self.scripts.first() {
                let names = self.scripts.iter().map(|(name, _)| name.as_str()).collect();
                run_variant(names, arguments);
            }
        } else {
            for (name, arguments) in &self.scripts {
                run_variant(vec![name.as_str()], arguments);
            }
        }
        if !self.resources.is_empty() {
            variants.push(json!({
                "type": "object",
                "properties": {
                    "action": {"const": READ},
                    "resource": {"type": "string", "enum": self.resources},
                },
                "required": ["action", "resource"],
                "additionalProperties": false,
            }));
        }
        if self.can_answer {
            variants.push(json!({
                "type": "object",
                "properties": {"action": {"const": ANSWER}},
                "required": ["action"],
                "additionalProperties": false,
            }));
        }
        if variants.len() == 1 {
            variants.remove(0)
        } else {
            json!({"anyOf": variants})
        }
    }
}

/// A step's choice, read from a reply that fits [`Choices::schema`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Action {
    /// Run this script with these arguments (as the script is called).
    Run { script: String, arguments: Value },
    /// Read this resource.
    Read { resource: String },
    /// Answer now.
    Answer,
}

impl Action {
    /// The action `reply` (which fits the step's schema) chooses.
    pub(crate) fn of(reply: &Value) -> Option<Action> {
        let action = reply.get("action").and_then(Value::as_str);
        match action {
            Some(ANSWER) => Some(Action::Answer),
            Some(READ) => Some(Action::Read {
                resource: reply.get("resource")?.as_str()?.to_owned(),
            }),
            None | Some(RUN) => Some(Action::Run {
                script: reply.get("script")?.as_str()?.to_owned(),
                arguments: Arguments::for_the_call(reply.get("arguments")?.clone()),
            }),
            Some(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_options_are_read_from_the_lines_that_name_the_script() {
        let body = "1. Read `references/tipping.md` for the tip.\n\
                    2. Run `scripts/split.py` with `--total` (the bill), `--tip-percent`\n   \
                    (the percentage) and `--people` (how many share it).\n\n\
                    Example: `python3 scripts/split.py --total 50 --tip-percent 10 --people 2`";
        let names: Vec<String> = ["total", "tip-percent", "people"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            Arguments::of("scripts/split.py", body),
            Arguments::Options {
                names: names.clone(),
                required: names,
                whole: Vec::new(),
            }
        );
        let json = "1. Run `scripts/fuel.py` with the options `distance-km` and `consumption`; add\n   \
                    `\"round-trip\": true` for a return trip.\n\n\
                    Run `scripts/fuel.py` with `{\"distance-km\": 480, \"consumption\": 7.4}`.";
        assert_eq!(
            Arguments::of("scripts/fuel.py", json),
            Arguments::Options {
                names: ["round-trip", "distance-km", "consumption"]
                    .map(String::from)
                    .to_vec(),
                required: ["distance-km", "consumption"].map(String::from).to_vec(),
                whole: Vec::new(),
            }
        );
    }

    #[test]
    fn an_option_the_script_refused_a_fraction_for_takes_whole_numbers() {
        let body = "Run `scripts/wall.py` with the options `height`, `doors` and `windows`.";
        let shape = Arguments::of("scripts/wall.py", body);
        let argparse = "[stderr]\nusage: wall.py [-h] --height HEIGHT [--doors DOORS]\n\
                        wall.py: error: argument --doors: invalid int value: '2.4'\n\
                        [exit code: 2]";
        let click = "Error: Invalid value for '--windows/-w': '0.5' is not a valid integer.";
        let told = shape.clone().told_by(argparse).told_by(click);
        let schema = told.schema();
        assert_eq!(schema["properties"]["doors"], json!({"type": "integer"}));
        assert_eq!(schema["properties"]["windows"], json!({"type": "integer"}));
        assert_eq!(
            schema["properties"]["height"],
            shape.schema()["properties"]["height"]
        );
        // Other failures, and options the skill does not name, change nothing.
        let other = "error: argument --height: expected one argument\n\
                     error: argument --rooms: invalid int value: '1.5'";
        assert_eq!(shape.clone().told_by(other), shape);
    }

    #[test]
    fn positional_arguments_are_counted_from_an_example_invocation() {
        let body = "Run the script with the start and end dates:\n\n```\npython3 scripts/days.py 2020-01-01 2020-03-01\n```\n";
        assert_eq!(
            Arguments::of("scripts/days.py", body),
            Arguments::Positional(2)
        );
        let prose = "Run `scripts/days.py` with the two dates.";
        assert_eq!(Arguments::of("scripts/days.py", prose), Arguments::Open);
        let listed = "Run `scripts/t.py` with `[\"4.7\", \"GB\", \"50\"]`. It prints:";
        assert_eq!(
            Arguments::of("scripts/t.py", listed),
            Arguments::Positional(3)
        );
    }

    #[test]
    fn one_json_document_is_one_argument() {
        let body = "```sh\npython3 scripts/avg.py '[{\"score\": 70, \"weight\": 2}]'\n```";
        let shaped = Arguments::of("scripts/avg.py", body);
        assert_eq!(shaped, Arguments::Json(json!([{"score": 70, "weight": 2}])));
        let item = &shaped.schema()["items"];
        assert_eq!(item["items"]["required"], json!(["score", "weight"]));
        let quoted = "Run `scripts/avg.py` with `[\"[{\\\"score\\\": 72}]\"]`. It prints:";
        assert_eq!(
            Arguments::of("scripts/avg.py", quoted),
            Arguments::Json(json!([{"score": 72}]))
        );
        assert_eq!(
            Arguments::for_the_call(json!([[{"score": 80}]])),
            json!(["[{\"score\":80}]"])
        );
        assert_eq!(Arguments::for_the_call(json!(["1", 2])), json!(["1", 2]));
    }

    #[test]
    fn the_numbers_a_script_takes_are_counted_from_its_example() {
        let options =
            "Run `scripts/bill.py` with `{\"tariff\": \"flex\", \"kwh\": 410, \"days\": 30}`.";
        assert_eq!(numbers_taken(None, "scripts/bill.py", options), 2);
        let positional = "```\npython3 scripts/payoff.py 2400 19.9 120\n```";
        assert_eq!(numbers_taken(None, "scripts/payoff.py", positional), 3);
        let listed = "Run `scripts/t.py` with `[\"4.7\", \"GB\", \"50\"]`.";
        assert_eq!(numbers_taken(None, "scripts/t.py", listed), 2);
        let document = "python3 scripts/avg.py '[{\"score\": 70, \"weight\": 2}]'";
        assert_eq!(numbers_taken(None, "scripts/avg.py", document), 2);
        let quoted = "Run `scripts/avg.py` with `[\"[{\\\"score\\\": 72, \\\"weight\\\": 20}]\"]`.";
        assert_eq!(numbers_taken(None, "scripts/avg.py", quoted), 2);
        let below =
            "2. Run `scripts/convert.py`\n   for example `{\"value\": 26.2, \"from\": \"mi\"}`";
        assert_eq!(numbers_taken(None, "scripts/convert.py", below), 1);
        let limit = "```\npython3 scripts/list_prs.py --limit 10\n```";
        assert_eq!(numbers_taken(None, "scripts/list_prs.py", limit), 1);
        assert_eq!(
            numbers_taken(None, "scripts/x.py", "Run `scripts/x.py`."),
            0
        );
        let declared = json!({
            "type": "object",
            "properties": {
                "principal": {"type": "number"},
                "years": {"type": "integer"},
                "currency": {"type": "string"},
                "extra": {"type": "number"},
            },
            "required": ["principal", "years", "currency"],
        });
        assert_eq!(numbers_taken(Some(&declared), "payment", ""), 2);
    }

    #[test]
    fn a_step_with_scripts_only_has_no_action() {
        let choices = Choices {
            scripts: vec![("scripts/a.py".into(), Arguments::Positional(1))],
            resources: vec![],
            can_answer: false,
        };
        let schema = choices.schema();
        assert_eq!(
            schema["properties"]["script"]["enum"],
            json!(["scripts/a.py"])
        );
        assert!(schema["properties"].get("action").is_none());
        let later = Choices {
            can_answer: true,
            resources: vec!["references/t.md".into()],
            ..choices
        };
        let variants = later.schema()["anyOf"].as_array().unwrap().len();
        assert_eq!(variants, 3);
        assert_eq!(
            Action::of(&json!({"action": "read_resource", "resource": "references/t.md"})),
            Some(Action::Read {
                resource: "references/t.md".into()
            })
        );
    }
}
