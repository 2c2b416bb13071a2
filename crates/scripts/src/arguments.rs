//! The model's JSON arguments as a command line.

use serde_json::Value;

/// The command-line arguments for the model's JSON `arguments`:
///
/// - an array: each item as is (a string), or as its JSON text (a number or a boolean);
/// - an object: `--key value` per entry in order (a key already starting with `-` is kept as
///   written); a string value as is, a number as its JSON text, `true` as a bare `--key` flag,
///   `false` and `null` left out;
/// - null: no arguments.
///
/// # Errors
/// What is wrong, for anything else: a string or number instead of an array or object, an array
/// item or object value that is itself an array, object (or null, in an array), an empty key.
pub(crate) fn command_line(arguments: &Value) -> Result<Vec<String>, String> {
    match arguments {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(index, item)| {
                scalar(item).ok_or_else(|| {
                    format!(
                        "item {index} of the arguments array is {}; pass every argument as a string",
                        kind(item)
                    )
                })
            })
            .collect(),
        Value::Object(entries) => {
            let mut line = Vec::with_capacity(entries.len() * 2);
            for (key, value) in entries {
                if key.trim().is_empty() {
                    return Err(
                        "the arguments object has an empty key; name each option, e.g. {\"value\": 26.2}"
                            .to_owned(),
                    );
                }
                let option = if key.starts_with('-') {
                    key.clone()
                } else {
                    format!("--{key}")
                };
                match value {
                    Value::Bool(true) => line.push(option),
                    Value::Bool(false) | Value::Null => {}
                    Value::Array(_) | Value::Object(_) => {
                        return Err(format!(
                            "the value of `{key}` is {}; a command line takes only strings, numbers and booleans (true is a bare --{key} flag)",
                            kind(value)
                        ));
                    }
                    scalar_value => {
                        line.push(option);
                        line.extend(scalar(scalar_value));
                    }
                }
            }
            Ok(line)
        }
        other => Err(format!(
            "the arguments are {}; pass a JSON object (each entry becomes --key value), an array of strings (passed as is), or null for none",
            kind(other)
        )),
    }
}

/// A string as is, a number or boolean as its JSON text; nothing else.
fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn arrays_pass_strings_as_is_and_scalars_as_their_json_text() {
        assert_eq!(
            command_line(&json!(["--value", 26.2, "$(rm -rf /)", true])).unwrap(),
            ["--value", "26.2", "$(rm -rf /)", "true"]
        );
    }

    #[test]
    fn objects_become_options_in_order_with_flags_for_true() {
        assert_eq!(
            command_line(&json!({
                "value": 26.2, "unit": "km", "verbose": true, "quiet": false,
                "missing": null, "-x": "1", "count": 3
            }))
            .unwrap(),
            [
                "--value",
                "26.2",
                "--unit",
                "km",
                "--verbose",
                "-x",
                "1",
                "--count",
                "3"
            ]
        );
    }

    #[test]
    fn null_is_no_arguments() {
        assert!(command_line(&Value::Null).unwrap().is_empty());
    }

    #[test]
    fn everything_else_is_refused_with_what_to_pass_instead() {
        let refused = [
            (json!("--value 3"), "the arguments are a string"),
            (json!(3), "the arguments are a number"),
            (json!(["a", null]), "item 1 of the arguments array is null"),
            (
                json!(["a", ["b"]]),
                "item 1 of the arguments array is an array",
            ),
            (json!({"tags": ["a"]}), "the value of `tags` is an array"),
            (
                json!({"nested": {"a": 1}}),
                "the value of `nested` is an object",
            ),
            (json!({" ": "x"}), "empty key"),
        ];
        for (arguments, expected) in refused {
            let message = command_line(&arguments).unwrap_err();
            assert!(message.contains(expected), "{arguments}: {message}");
        }
    }
}
