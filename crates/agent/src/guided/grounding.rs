//! Whether an answer is grounded: every number in it appears in the question or a result, as
//! written or rounded (`42.16` for `42.1648`), with or without thousands separators.

/// The numbers of `answer` found in none of `sources`, as the answer writes them.
pub(crate) fn ungrounded(answer: &str, sources: &[&str]) -> Vec<String> {
    let known: Vec<Number> = sources.iter().flat_map(|text| numbers(text)).collect();
    let mut missing: Vec<String> = Vec::new();
    for number in numbers(answer) {
        let grounded = known.iter().any(|source| number.stands_for(source));
        if !grounded && !missing.contains(&number.written) {
            missing.push(number.written);
        }
    }
    missing
}

/// Whether `answer` gives a value of `results`: one of its numbers stands for one of theirs
/// (as written or rounded). `true` when the results hold no number.
pub(crate) fn gives_a_result(answer: &str, results: &[&str]) -> bool {
    let known: Vec<Number> = results.iter().flat_map(|text| numbers(text)).collect();
    known.is_empty()
        || numbers(answer)
            .iter()
            .any(|number| known.iter().any(|source| number.stands_for(source)))
}

/// Whether a value (a script's output field) is only a number, one that `question` states: an
/// input the script echoes, which the question gives rather than asks for. The question is read
/// once, for every value asked about.
pub(crate) fn restated_by(question: &str) -> impl Fn(&str) -> bool {
    let stated = numbers(question);
    move |value| {
        let found = numbers(value);
        let [number] = found.as_slice() else {
            return false;
        };
        number.written.len() == value.trim().len() && stated.iter().any(|known| number.is(known))
    }
}

/// A number as written in a text.
#[derive(Debug, Clone, PartialEq)]
struct Number {
    written: String,
    value: f64,
    /// Digits after the decimal point.
    decimals: i32,
}

impl Number {
    /// Whether this number has `other`'s value (to floating-point noise).
    fn is(&self, other: &Number) -> bool {
        (self.value - other.value).abs() < 1e-9 * other.value.abs().max(1.0)
    }

    /// Whether this number (of an answer) is `source`, or `source` rounded or cut to this
    /// number's decimals.
    fn stands_for(&self, source: &Number) -> bool {
        if self.decimals > source.decimals {
            return self.is(source);
        }
        let step = 10f64.powi(-self.decimals);
        (self.value - source.value).abs() <= step * 0.5 + 1e-9 * source.value.abs().max(1.0)
            || (source.value - self.value).abs() < step && source.value.abs() >= self.value.abs()
    }
}

/// The numbers of `text`: digits with an optional sign, thousands separators (`1,234`) and
/// decimals (`3.5`); a number that is part of a word (`v2`, `x86`) is not one.
fn numbers(text: &str) -> Vec<Number> {
    let chars: Vec<char> = text.chars().collect();
    let mut found = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        let starts = c.is_ascii_digit()
            && (at == 0 || !(chars[at - 1].is_alphanumeric() || chars[at - 1] == '_'));
        if !starts {
            at += 1;
            continue;
        }
        let negative =
            at > 0 && chars[at - 1] == '-' && (at < 2 || !chars[at - 2].is_alphanumeric());
        let start = at;
        let mut integer = String::new();
        let mut decimals = String::new();
        while at < chars.len() {
            let c = chars[at];
            if c.is_ascii_digit() {
                integer.push(c);
                at += 1;
            } else if c == ','
                && chars[at + 1..]
                    .iter()
                    .take(3)
                    .filter(|c| c.is_ascii_digit())
                    .count()
                    == 3
                && chars.get(at + 4).is_none_or(|c| !c.is_ascii_digit())
            {
                at += 1;
            } else {
                break;
            }
        }
        if at + 1 < chars.len() && chars[at] == '.' && chars[at + 1].is_ascii_digit() {
            at += 1;
            while at < chars.len() && chars[at].is_ascii_digit() {
                decimals.push(chars[at]);
                at += 1;
            }
        }
        let glued = at < chars.len() && (chars[at].is_alphabetic() || chars[at] == '_');
        let written: String = chars[start..at].iter().collect();
        let text = if decimals.is_empty() {
            integer.clone()
        } else {
            format!("{integer}.{decimals}")
        };
        if let (false, Ok(value)) = (glued && !is_unit_suffix(&chars[at..]), text.parse::<f64>()) {
            found.push(Number {
                written,
                value: if negative { -value } else { value },
                decimals: decimals.len() as i32,
            });
        }
    }
    found
}

/// Whether the letters after a number are a unit written against it (`26.2km`, `5kg`, `10%`
/// aside), which still leaves it a number.
fn is_unit_suffix(rest: &[char]) -> bool {
    let word: String = rest.iter().take_while(|c| c.is_alphabetic()).collect();
    word.len() <= 3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounded_and_separated_numbers_are_grounded() {
        let sources = ["A marathon is 26.2 miles.", r#"{"result": 42.1648}"#];
        assert!(ungrounded("It is 42.16 km (26.2 miles).", &sources).is_empty());
        assert!(ungrounded("About 42.2 kilometres.", &sources).is_empty());
        assert!(ungrounded("It is 42.1648km.", &sources).is_empty());
        assert_eq!(ungrounded("It is 43.5 km.", &sources), ["43.5"]);
        assert!(ungrounded("Total: 1,234.50", &[r#"{"total": 1234.5}"#]).is_empty());
        assert_eq!(
            ungrounded("Each pays 31.90 euros.", &[r#"{"per_person": 31.9}"#]),
            Vec::<String>::new()
        );
    }

    #[test]
    fn an_answer_gives_a_result_when_one_of_its_numbers_is_the_results() {
        let results = [r#"{"months": 28, "total_interest": 540.28}"#];
        assert!(gives_a_result("It takes 28 months.", &results));
        assert!(gives_a_result("About 540.3 in interest.", &results));
        assert!(!gives_a_result("total_interest", &results));
        assert!(!gives_a_result("For 3 people it is cheaper.", &results));
        assert!(gives_a_result("Done.", &["no numbers here"]));
    }

    #[test]
    fn a_value_restates_the_question_when_it_is_only_a_number_the_question_states() {
        let restates = restated_by("A path 6 m long and 0.90 m wide, 7.5 cm deep: how many bags?");
        assert!(restates("6.0"));
        assert!(restates("0.9"));
        assert!(restates(" 7.5 "));
        assert!(!restates("32"));
        assert!(!restates("6 m"));
        assert!(!restates("Flex"));
        assert!(!restated_by("How many bags for a path?")("6"));
    }

    #[test]
    fn numbers_inside_words_are_not_numbers() {
        assert!(ungrounded("Use python3 and v2 of x86.", &[]).is_empty());
        assert_eq!(ungrounded("-5 degrees", &["5"]), ["5"]);
        assert!(ungrounded("-5 degrees", &["-5"]).is_empty());
    }
}
