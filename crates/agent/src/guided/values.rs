//! Values a decision writes other than as the script takes them. Arithmetic in place of a
//! number: a value the question gives as several
//! numbers to combine (a meter's two readings, the sizes of the sets a password is drawn from)
//! may be written as `"40310 - 40112"` or `"26 + 26 + 10"`, and is worked out before the script
//! runs. A 1.5B model copies numbers well and adds them badly: asked for the electricity used
//! between two readings, it passed the later reading as the kWh.
//!
//! Only `+ - * /` (and `×`, `÷`, `−`), parentheses and decimal numbers are read, in `f64`; a
//! text that is anything else (a name, a date, a phone number) is left as it is. Hand-written
//! because the evaluator crates read more than arithmetic (variables, functions, strings) and
//! divide integers as integers (`7 / 2` is 3), which a value for a script must not be.

use serde_json::{Number, Value};

use super::relevance::{names_what_option_is_of, number_in_unit_of, number_stated_for, states};

/// `arguments` with each string that is arithmetic ([`worked_out`]) on numbers `shown` states
/// (the decision's request: the skill, its resources, the results, the question) replaced by
/// its value, and for each, a line saying what was worked out (`` `kwh`: 40310 - 40112 = 198
/// ``). Arithmetic on a number found nowhere in `shown` is left as written (the script refuses
/// it, and the decision is asked again with its error), with a line saying why: the 1.5B copied
/// the request's own example of arithmetic (`165 - 120`) into a call as an extra argument.
pub(crate) fn worked_out_in(arguments: Value, shown: &str) -> (Value, Vec<String>) {
    let mut notes = Vec::new();
    let value = replace(arguments, None, shown, &mut notes);
    (value, notes)
}

fn replace(value: Value, name: Option<&str>, shown: &str, notes: &mut Vec<String>) -> Value {
    match value {
        Value::String(text) => {
            let Some(number) = worked_out(&text) else {
                return Value::String(text);
            };
            let what = name.map_or_else(String::new, |name| format!("`{name}`: "));
            let unknown: Vec<String> = operands(&text)
                .into_iter()
                .filter(|operand| !states(shown, *operand))
                .map(|operand| operand.to_string())
                .collect();
            if unknown.is_empty() {
                notes.push(format!("worked out {what}{} = {number}", text.trim()));
                Value::Number(number)
            } else {
                notes.push(format!(
                    "{what}{} not worked out: {} in neither the question nor the skill",
                    text.trim(),
                    unknown.join(", ")
                ));
                Value::String(text)
            }
        }
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|item| replace(item, name, shown, notes))
                .collect(),
        ),
        Value::Object(entries) => Value::Object(
            entries
                .into_iter()
                .map(|(key, item)| {
                    let item = replace(item, Some(&key), shown, notes);
                    (key, item)
                })
                .collect(),
        ),
        other => other,
    }
}

/// The numbers of the arithmetic `text`.
fn operands(text: &str) -> Vec<f64> {
    tokens(text)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|token| match token {
            Token::Number(value) => Some(value),
            _ => None,
        })
        .collect()
}

/// The value of `text` when it is arithmetic on two numbers or more: a whole number when the
/// value is one, else the value to 10 decimals. `None` for a lone number (the script reads it
/// as it is), for anything but arithmetic, for a division by zero, and for texts that read as
/// something else: a number with a leading zero (`2024-01-05`), or numbers joined by bare `-`
/// only (`555-1234`, an identifier rather than a difference, which is written `a - b`).
pub(crate) fn worked_out(text: &str) -> Option<Number> {
    let tokens = tokens(text)?;
    let operators = tokens
        .iter()
        .filter(|token| matches!(token, Token::Operator(..)))
        .count();
    if operators == 0 {
        return None;
    }
    let bare_minus_only = tokens.iter().all(|token| match token {
        Token::Operator(operator, spaced) => *operator == '-' && !spaced,
        _ => true,
    });
    if bare_minus_only {
        return None;
    }
    let mut parser = Parser { tokens, at: 0 };
    let value = parser.sum()?;
    if parser.at != parser.tokens.len() || !value.is_finite() {
        return None;
    }
    whole_or_fraction(value)
}

/// `value` as a JSON number: a whole number when it is one (a script reading an integer
/// refuses `5.0`), else to 10 decimals (`0.1 + 0.2` is 0.3).
fn whole_or_fraction(value: f64) -> Option<Number> {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        // Exact: the value is whole and well within an i64.
        #[allow(clippy::cast_possible_truncation)]
        return Some(Number::from(value as i64));
    }
    Number::from_f64((value * 1e10).round() / 1e10)
}

/// `arguments` (an object of options) with each option named as a percentage (`waste-percent`,
/// `tip_pct`) given the percentage the question states for it, where the decision gave another
/// value: the question's one percentage when the question names what the option is of
/// (`waste` in "5% extra for waste"), else the percentage whose hundredth the decision gave
/// (`0.05` for `5%`); for each, a line saying so. The 1.5B wrote "5% extra" as 0.05, or kept the
/// 10 the skill's instructions name as the usual allowance.
pub(crate) fn percentages_as_stated(arguments: Value, question: &str) -> (Value, Vec<String>) {
    let Value::Object(mut options) = arguments else {
        return (arguments, Vec::new());
    };
    let stated = percentages_in(question);
    let mut notes = Vec::new();
    for (name, value) in &mut options {
        let lower = name.to_lowercase();
        if !(lower.contains("percent") || lower.contains("pct")) {
            continue;
        }
        let Some(given) = value.as_f64() else {
            continue;
        };
        let percentage = match stated[..] {
            [only]
                if names_what_option_is_of(name, &["percent", "percentage", "pct"], question) =>
            {
                Some(only)
            }
            _ => stated
                .iter()
                .copied()
                .find(|percentage| (given * 100.0 - percentage).abs() < 1e-9),
        };
        if let Some(percentage) = percentage
            && (given - percentage).abs() > 1e-9
            && let Some(number) = whole_or_fraction(percentage)
        {
            notes.push(format!(
                "`{name}`: the question states {percentage}%, given as {percentage} (not {given})"
            ));
            *value = Value::Number(number);
        }
    }
    (Value::Object(options), notes)
}

/// `arguments` (an object of options) with each option the question attaches a number to
/// ([`number_stated_for`]: `5 doors`, `no windows`) given that number, where the decision gave it
/// another number the question states (one it attaches to something else); for each, a line
/// saying so; and an option in a unit (`depth-cm`) given the one number the question states in
/// that unit (`7.5 cm`) where the decision gave it with its decimal point moved (`75`). Other
/// values the question does not state (worked out, or looked up) are left as they are.
///
/// The 1.5B shifted a hallway's numbers by one option: `doors` 2.4 (the walls' height) and
/// `windows` 5 (the doors).
pub(crate) fn as_the_question_attaches(arguments: Value, question: &str) -> (Value, Vec<String>) {
    let Value::Object(mut options) = arguments else {
        return (arguments, Vec::new());
    };
    let mut notes = Vec::new();
    for (name, value) in &mut options {
        let given = match value {
            Value::Number(number) => number.as_f64(),
            Value::String(text) => text.trim().parse::<f64>().ok(),
            _ => None,
        };
        let Some(given) = given else { continue };
        if let Some(stated) = number_stated_for(name, question)
            && (stated - given).abs() > 1e-9
            && states(question, given)
            && let Some(number) = whole_or_fraction(stated)
        {
            notes.push(format!(
                "`{name}`: {given} is another of the question's numbers; the question gives {stated} for it"
            ));
            *value = Value::Number(number);
        } else if let Some(stated) = number_in_unit_of(name, question)
            && misplaced_point(given, stated)
            && let Some(number) = whole_or_fraction(stated)
        {
            notes.push(format!(
                "`{name}`: {given} is the question's {stated} with its decimal point moved"
            ));
            *value = Value::Number(number);
        }
    }
    (Value::Object(options), notes)
}

/// Whether `given` is `stated` with its decimal point moved (`75` for `7.5`): a copying slip,
/// as no conversion is needed between a number and an option in the same unit.
fn misplaced_point(given: f64, stated: f64) -> bool {
    if given == 0.0 || stated == 0.0 || (given - stated).abs() < 1e-9 {
        return false;
    }
    let exponent = (given / stated).abs().log10();
    (exponent - exponent.round()).abs() < 1e-9 && (1.0..=3.0).contains(&exponent.round().abs())
}

/// The numbers `text` states as percentages: `5%`, `5 %`, `12.5 percent`.
fn percentages_in(text: &str) -> Vec<f64> {
    let lower = text.to_lowercase();
    let mut found = Vec::new();
    let chars: Vec<(usize, char)> = lower.char_indices().collect();
    let mut at = 0;
    while at < chars.len() {
        if !chars[at].1.is_ascii_digit() {
            at += 1;
            continue;
        }
        let start = chars[at].0;
        while at < chars.len() && (chars[at].1.is_ascii_digit() || chars[at].1 == '.') {
            at += 1;
        }
        let end = chars.get(at).map_or(lower.len(), |(byte, _)| *byte);
        let rest = lower[end..].trim_start();
        if (rest.starts_with('%') || rest.starts_with("percent"))
            && let Ok(value) = lower[start..end].trim_end_matches('.').parse::<f64>()
        {
            found.push(value);
        }
    }
    found
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Token {
    Number(f64),
    /// An operator, and whether a space stands on either side of it.
    Operator(char, bool),
    Open,
    Close,
}

fn tokens(text: &str) -> Option<Vec<Token>> {
    let chars: Vec<char> = text.trim().chars().collect();
    let mut tokens = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        let char = chars[at];
        match char {
            ' ' => at += 1,
            '0'..='9' | '.' => {
                let start = at;
                while at < chars.len() && (chars[at].is_ascii_digit() || chars[at] == '.') {
                    at += 1;
                }
                let digits: String = chars[start..at].iter().collect();
                let leading_zero =
                    digits.len() > 1 && digits.starts_with('0') && !digits.starts_with("0.");
                if leading_zero {
                    return None;
                }
                tokens.push(Token::Number(digits.parse().ok()?));
            }
            '+' | '-' | '*' | '/' | '×' | '÷' | '−' => {
                let operator = match char {
                    '×' => '*',
                    '÷' => '/',
                    '−' => '-',
                    other => other,
                };
                let spaced = (at > 0 && chars[at - 1] == ' ')
                    || chars.get(at + 1).is_some_and(|next| *next == ' ');
                tokens.push(Token::Operator(operator, spaced));
                at += 1;
            }
            '(' => {
                tokens.push(Token::Open);
                at += 1;
            }
            ')' => {
                tokens.push(Token::Close);
                at += 1;
            }
            _ => return None,
        }
    }
    Some(tokens)
}

/// A recursive-descent reading of `sum := product (('+' | '-') product)*`, `product := factor
/// (('*' | '/') factor)*`, `factor := '-' factor | number | '(' sum ')'`.
struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn next(&self) -> Option<Token> {
        self.tokens.get(self.at).copied()
    }

    fn sum(&mut self) -> Option<f64> {
        let mut value = self.product()?;
        while let Some(Token::Operator(operator @ ('+' | '-'), _)) = self.next() {
            self.at += 1;
            let right = self.product()?;
            value = if operator == '+' {
                value + right
            } else {
                value - right
            };
        }
        Some(value)
    }

    fn product(&mut self) -> Option<f64> {
        let mut value = self.factor()?;
        while let Some(Token::Operator(operator @ ('*' | '/'), _)) = self.next() {
            self.at += 1;
            let right = self.factor()?;
            value = if operator == '*' {
                value * right
            } else if right == 0.0 {
                return None;
            } else {
                value / right
            };
        }
        Some(value)
    }

    fn factor(&mut self) -> Option<f64> {
        let token = self.next()?;
        self.at += 1;
        match token {
            Token::Number(value) => Some(value),
            Token::Operator('-', _) => Some(-self.factor()?),
            Token::Open => {
                let value = self.sum()?;
                (self.next()? == Token::Close).then(|| {
                    self.at += 1;
                    value
                })
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arithmetic_is_worked_out_in_order_of_operations() {
        let cases = [
            ("40310 - 40112", json!(198)),
            ("26 + 26 + 10", json!(62)),
            ("28 * 3 / 5", json!(16.8)),
            ("2 + 3 × 4", json!(14)),
            ("(2 + 3) * 4", json!(20)),
            ("1.8*1.8", json!(3.24)),
            ("7 / 2", json!(3.5)),
            ("0.1 + 0.2", json!(0.3)),
            ("10 − -2", json!(12)),
        ];
        for (text, expected) in &cases {
            assert_eq!(
                worked_out(text).map(Value::Number).as_ref(),
                Some(expected),
                "{text}"
            );
        }
        // Numbers joined by a bare minus alone read as an identifier, not a difference.
        assert_eq!(worked_out("40310-40112"), None);
    }

    #[test]
    fn a_percentage_given_as_a_fraction_is_given_as_the_question_states_it() {
        let question = "A 1.8 m square footing, 15 cm deep, with only 5% extra for waste.";
        let (arguments, notes) = percentages_as_stated(
            json!({"length-m": 1.8, "depth-cm": 0.15, "waste-percent": 0.05}),
            question,
        );
        assert_eq!(
            arguments,
            json!({"length-m": 1.8, "depth-cm": 0.15, "waste-percent": 5})
        );
        assert_eq!(notes.len(), 1);
        // The usual allowance the skill names is not the question's.
        let (arguments, _) = percentages_as_stated(json!({"waste-percent": 10}), question);
        assert_eq!(arguments, json!({"waste-percent": 5}));
        // An option not named as a percentage stays; so does one whose subject the question
        // does not name, unless its value is the hundredth of a stated percentage.
        let (arguments, notes) = percentages_as_stated(
            json!({"tax-percent": 20, "tip-percent": 0.05, "share": 0.05}),
            question,
        );
        assert_eq!(
            arguments,
            json!({"tax-percent": 20, "tip-percent": 5, "share": 0.05})
        );
        assert_eq!(notes.len(), 1);
        assert_eq!(
            percentages_in("tip 12.5 percent, then 5 % off, 3 items"),
            [12.5, 5.0]
        );
    }

    #[test]
    fn an_option_takes_the_number_the_question_attaches_to_its_name() {
        let question = "Our hallway is 6 m long and 1.2 m wide with 2.4 m walls and 5 doors, no \
                        windows.";
        let (arguments, notes) = as_the_question_attaches(
            json!({"length": 6, "width": 1.2, "height": 2.4, "doors": 2.4, "windows": 5}),
            question,
        );
        assert_eq!(
            arguments,
            json!({"length": 6, "width": 1.2, "height": 2.4, "doors": 5, "windows": 0})
        );
        assert_eq!(notes.len(), 2);
        // A decimal point dropped in copying a number in the option's unit is put back.
        let path = "Garden path: 6 m long, 0.9 m wide, 7.5 cm deep.";
        let (arguments, notes) =
            as_the_question_attaches(json!({"length-m": 6, "depth-cm": 75}), path);
        assert_eq!(arguments, json!({"length-m": 6, "depth-cm": 7.5}));
        assert_eq!(notes.len(), 1);
        let (arguments, _) = as_the_question_attaches(json!({"depth-cm": 8}), path);
        assert_eq!(arguments, json!({"depth-cm": 8}));
        // A value worked out from the question's numbers is not one it states.
        let meter = "my meter went from 40112 to 40310 kWh in 33 days";
        let (arguments, notes) = as_the_question_attaches(json!({"kwh": 198, "days": 33}), meter);
        assert_eq!(arguments, json!({"kwh": 198, "days": 33}));
        assert!(notes.is_empty());
    }

    #[test]
    fn what_is_not_arithmetic_is_left_alone() {
        for text in [
            "fixed-24",
            "2024-01-05",
            "555-1234",
            "42",
            "3 apples + 2",
            "1 / 0",
            "(2 + 3",
            "2 +",
            "",
            "1e5 + 1",
        ] {
            assert_eq!(worked_out(text), None, "{text}");
        }
    }

    #[test]
    fn each_string_of_the_arguments_that_is_arithmetic_is_replaced_and_noted() {
        let shown = "Question: my meter went from 40112 to 40310 kWh in 33 days";
        let (arguments, notes) = worked_out_in(
            json!({
                "tariff": "fixed-24",
                "kwh": "40310 - 40112",
                "days": 33,
            }),
            shown,
        );
        assert_eq!(
            arguments,
            json!({"tariff": "fixed-24", "kwh": 198, "days": 33})
        );
        assert_eq!(notes, ["worked out `kwh`: 40310 - 40112 = 198"]);
        let (arguments, notes) = worked_out_in(
            json!(["12", "26 + 26 + 10"]),
            "lowercase 26, uppercase 26, digits 10; 12 characters",
        );
        assert_eq!(arguments, json!(["12", 62]));
        assert_eq!(notes, ["worked out 26 + 26 + 10 = 62"]);
        // The request's own example of arithmetic, copied into a call, is not worked out.
        let (arguments, notes) = worked_out_in(json!(["5.8", "64", "165 - 120"]), "MET 5.8, 64 kg");
        assert_eq!(arguments, json!(["5.8", "64", "165 - 120"]));
        assert_eq!(
            notes,
            ["165 - 120 not worked out: 165, 120 in neither the question nor the skill"]
        );
    }
}
