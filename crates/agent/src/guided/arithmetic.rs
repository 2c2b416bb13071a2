//! Arithmetic in a decision's arguments: a value the question gives only through a sum or a
//! difference ("my meter went from 40112 to 40310") may be written as the arithmetic
//! (`"40310 - 40112"`), and the runtime computes it before the script runs. A small model
//! copies numbers far more reliably than it subtracts them.
//!
//! Only plain arithmetic is computed: digits, `.`, `+ - * /`, parentheses and spaces, with an
//! operator a date or a fraction does not have (`+` or `*`, or one with spaces around it), so
//! `2020-01-01` and `3/5` reach the script as written.

use serde_json::Value;

/// The longest text taken as arithmetic.
const MAX_EXPRESSION_CHARS: usize = 120;

/// One value computed from the arithmetic the model wrote.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Computed {
    /// The arithmetic as written.
    pub(crate) written: String,
    /// What it comes to.
    pub(crate) value: Value,
}

impl std::fmt::Display for Computed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} = {}", self.written, self.value)
    }
}

/// `arguments` with every text that is arithmetic (at any depth) replaced by its value, and the
/// values computed, in the order met.
pub(crate) fn compute(arguments: Value) -> (Value, Vec<Computed>) {
    let mut computed = Vec::new();
    let arguments = replace(arguments, &mut computed);
    (arguments, computed)
}

fn replace(value: Value, computed: &mut Vec<Computed>) -> Value {
    match value {
        Value::String(text) => match evaluate(&text) {
            Some(number) => {
                computed.push(Computed {
                    written: text.trim().to_owned(),
                    value: number.clone(),
                });
                number
            }
            None => Value::String(text),
        },
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|item| replace(item, computed))
                .collect(),
        ),
        Value::Object(entries) => Value::Object(
            entries
                .into_iter()
                .map(|(key, item)| (key, replace(item, computed)))
                .collect(),
        ),
        other => other,
    }
}

/// The value of `text` when it is arithmetic ([the module's rule](self)), as a JSON number:
/// whole where it is whole, else rounded to ten decimals (`0.1 + 0.2` is `0.3`).
fn evaluate(text: &str) -> Option<Value> {
    let text = text.trim();
    if text.is_empty()
        || text.len() > MAX_EXPRESSION_CHARS
        || !text
            .chars()
            .all(|c| c.is_ascii_digit() || " .+-*/()".contains(c))
        || !text.chars().any(|c| c.is_ascii_digit())
        || !has_operator(text)
    {
        return None;
    }
    let value = exmex::eval_str::<f64>(text).ok()?;
    if !value.is_finite() {
        return None;
    }
    let rounded = (value * 1e10).round() / 1e10;
    if rounded.fract() == 0.0 && rounded.abs() < 1e15 {
        #[expect(
            clippy::cast_possible_truncation,
            reason = "a whole number under 1e15 fits an i64 exactly"
        )]
        return Some(Value::from(rounded as i64));
    }
    serde_json::Number::from_f64(rounded).map(Value::Number)
}

/// Whether `text` has an operator that a date (`2020-01-01`) or a fraction (`3/5`) has not: a
/// `+` or `*`, or any operator between spaces.
fn has_operator(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    chars.iter().enumerate().any(|(at, c)| match c {
        '+' | '*' => at > 0,
        '-' | '/' => {
            at > 0
                && chars[at - 1] == ' '
                && chars.get(at + 1) == Some(&' ')
                && chars[..at].iter().any(char::is_ascii_digit)
        }
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arithmetic_in_options_and_lists_is_computed() {
        let (arguments, computed) = compute(json!({
            "tariff": "fixed-24",
            "kwh": "40310 - 40112",
            "days": 33,
        }));
        assert_eq!(
            arguments,
            json!({"tariff": "fixed-24", "kwh": 198, "days": 33})
        );
        assert_eq!(computed.len(), 1);
        assert_eq!(computed[0].to_string(), "40310 - 40112 = 198");
        let (listed, _) = compute(json!(["26+26+10", "2 * (6 + 1.2) * 2.4", "0.1 + 0.2"]));
        assert_eq!(listed, json!([62, 34.56, 0.3]));
    }

    #[test]
    fn dates_fractions_numbers_and_words_stay_as_written() {
        for text in [
            "2020-01-01",
            "3/5",
            "-12",
            "12",
            "1.5",
            "fixed-24",
            "a - b",
            "- 3",
            "()",
        ] {
            let (same, computed) = compute(json!([text]));
            assert_eq!(same, json!([text]), "{text}");
            assert!(computed.is_empty(), "{text}");
        }
        // Too long to be a value the question gives.
        let long = vec!["1"; 100].join(" + ");
        assert_eq!(compute(json!(long.clone())).0, json!(long));
        // Division by zero is no value.
        assert_eq!(compute(json!("1 / 0")).0, json!("1 / 0"));
    }
}
