//! Which rows of a table a question is about, by what they share: its words (or words they
//! begin, `month` in `months`), its numbers with their units (`80 lb`), a number within a row's
//! range when its unit is the range's (`6 years` in `5 to 9` under `completed years of
//! service`). A lookup offers the model only the rows that share the most: a small model picks
//! the wrong row among twenty far more often than among two (see the book's measurements).

use super::reading::{Passage, Table};

/// The rows of a table most like a question ([`likely_rows`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Likely {
    /// The rows, in the table's order.
    pub(crate) rows: Vec<usize>,
    /// How many of the question's terms each of them shares; 0 when no row shares any (then
    /// `rows` is every row).
    pub(crate) shared: usize,
}

/// The rows of `table` that share the most with `question`; every row when none shares
/// anything.
pub(crate) fn likely_rows(table: &Table, question: &str) -> Likely {
    let column = table.header.first().map_or("", String::as_str);
    let candidates: Vec<Candidate> = table
        .rows
        .iter()
        .map(|cells| {
            let first = cells.first().map(|cell| (cell.as_str(), column));
            Candidate::new(&cells.join(" "), first)
        })
        .collect();
    likely(&candidates, question)
}

/// Whether `text` (a skill's instructions, or the resource a table is in) says to add values
/// up (`Add up the sets the password is drawn from`): then several rows of a table may apply
/// to one question at once ([`rows_to_add`]).
pub(crate) fn says_to_add_up(text: &str) -> bool {
    let lower = text.to_lowercase();
    ADDING.iter().any(|phrase| lower.contains(phrase))
}

/// The phrases that tell a reader to add values up.
const ADDING: &[&str] = &[
    "add up",
    "added up",
    "adding up",
    "add together",
    "added together",
    "sum of the",
    "sum the",
];

/// The rows of `table` whose names (first cells) together cover the words of `question`: the
/// row naming most of the words not yet covered first, then the next, until no row names a
/// word left; a tie goes to the row more of whose name the question covers (`digits 0-9`
/// before `PIN (digits only)`). Numbers do not count: a row's name is its words.
///
/// Asked about "upper- and lowercase letters and digits" where the skill says to add up the
/// sets, the one row sharing the most (`lowercase letters`) is a third of the answer.
pub(crate) fn rows_to_add(table: &Table, question: &str) -> Vec<usize> {
    let asked: Vec<Term> = terms(question)
        .into_iter()
        .filter(|term| matches!(term, Term::Word(_)))
        .collect();
    let names: Vec<Vec<Term>> = table
        .rows
        .iter()
        .map(|cells| {
            terms(cells.first().map_or("", String::as_str))
                .into_iter()
                .filter(|term| matches!(term, Term::Word(_)))
                .collect()
        })
        .collect();
    let mut covered = vec![false; asked.len()];
    let mut chosen: Vec<usize> = Vec::new();
    loop {
        // For each row not chosen: the question's words it newly covers, and the share of its
        // name's words the question has.
        let best = (0..names.len())
            .filter(|at| !chosen.contains(at))
            .map(|at| {
                let new = (0..asked.len())
                    .filter(|word| {
                        !covered[*word] && names[at].iter().any(|known| asked[*word].matches(known))
                    })
                    .collect::<Vec<_>>();
                let named = names[at]
                    .iter()
                    .filter(|known| asked.iter().any(|word| word.matches(known)))
                    .count();
                let share = named as f64 / names[at].len().max(1) as f64;
                (at, new, share)
            })
            .filter(|(_, new, _)| !new.is_empty())
            .max_by(|(a, new_a, share_a), (b, new_b, share_b)| {
                new_a
                    .len()
                    .cmp(&new_b.len())
                    .then(share_a.total_cmp(share_b))
                    // The earlier row wins a full tie.
                    .then(b.cmp(a))
            });
        let Some((at, new, _)) = best else {
            break;
        };
        for word in new {
            covered[word] = true;
        }
        chosen.push(at);
    }
    chosen.sort_unstable();
    chosen
}

/// The one of a script's output `fields` that the question's "how many …" or "how much …"
/// names by its unit or its word (`How many cubic metres` names `volume_m3`, `How many 80 lb
/// bags` names `bags`); `None` when the question has no such phrase, or it names no field or
/// several.
///
/// Asked for cubic metres, the 1.5B chose the bags the same output gave.
pub(crate) fn field_asked(question: &str, fields: &[&str]) -> Option<usize> {
    let lower = question.to_lowercase();
    let after = ["how many ", "how much "]
        .iter()
        .find_map(|phrase| lower.find(phrase).map(|at| &lower[at + phrase.len()..]))?;
    let mut phrase: String = after
        .split(['?', ',', '.', ';'])
        .next()
        .unwrap_or("")
        .to_owned();
    for (spelled, unit) in UNIT_SPELLINGS {
        phrase = phrase.replace(spelled, &format!(" {unit} "));
    }
    // The phrase's first few words: the unit or thing counted, before what it is of.
    let asked: Vec<&str> = phrase
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty() && !word.chars().all(|c| c.is_ascii_digit()))
        .take(3)
        .collect();
    let naming: Vec<usize> = (0..fields.len())
        .filter(|at| {
            fields[*at]
                .to_lowercase()
                .split(|c: char| !c.is_alphanumeric())
                .any(|part| {
                    asked.iter().any(|word| {
                        *word == part
                            || (word.len() >= 3 && part.len() >= 3 && same_word(word, part))
                    })
                })
        })
        .collect();
    match naming[..] {
        [only] => Some(only),
        _ => None,
    }
}

/// The number `question` attaches to an option named `name` (`doors`, `waste-percent`): the
/// one number written just before a word of the name (`5 doors`), or 0 where `no` stands there
/// (`no windows`); `None` when the question attaches none, or several different ones.
pub(crate) fn number_stated_for(name: &str, question: &str) -> Option<f64> {
    let named: Vec<String> = words(&name.replace(['-', '_'], " "))
        .into_iter()
        .filter(|word| word.len() >= 3 && !FUNCTION_WORDS.contains(&word.as_str()))
        .collect();
    let lower = question.to_lowercase();
    let tokens = tokens(&lower);
    let mut found: Vec<f64> = Vec::new();
    for pair in tokens.windows(2) {
        let [before, word] = pair else { continue };
        if !named.iter().any(|known| same_word(word, known)) {
            continue;
        }
        let value = match before.parse::<f64>() {
            Ok(value) => value,
            Err(_) if *before == "no" => 0.0,
            Err(_) => continue,
        };
        if !found.contains(&value) {
            found.push(value);
        }
    }
    match found[..] {
        [only] => Some(only),
        _ => None,
    }
}

/// The one number `question` states in a unit that the option `name` is in (`7.5 cm` for
/// `depth-cm`); `None` when the name holds no such unit or the question has several numbers in
/// it (`6 m long, 0.9 m wide` for `length-m`).
pub(crate) fn number_in_unit_of(name: &str, question: &str) -> Option<f64> {
    let parts = words(&name.replace(['-', '_'], " "));
    let mut found = None;
    for term in terms(question) {
        let Term::Number {
            value,
            unit: Some(unit),
        } = term
        else {
            continue;
        };
        if parts.contains(&unit) {
            if found.is_some_and(|known: f64| (known - value).abs() > 1e-9) {
                return None;
            }
            found = Some(value);
        }
    }
    found
}

/// Whether `question` names what the option `name` is of: a word of the name (of three letters
/// or more) other than `skip` (`waste` of `waste-percent`, skipping `percent`), or the name
/// has no other word.
pub(crate) fn names_what_option_is_of(name: &str, skip: &[&str], question: &str) -> bool {
    let named: Vec<String> = words(&name.replace(['-', '_'], " "))
        .into_iter()
        .filter(|word| word.len() >= 3 && !skip.contains(&word.as_str()))
        .collect();
    let asked = words(question);
    named.is_empty()
        || named
            .iter()
            .any(|known| asked.iter().any(|word| same_word(word, known)))
}

/// Whether `question` states the number `value` (in digits).
pub(crate) fn states(question: &str, value: f64) -> bool {
    terms(question).iter().any(
        |term| matches!(term, Term::Number { value: stated, .. } if (stated - value).abs() < 1e-9),
    )
}

/// Units as a question spells them, and as a field's name abbreviates them (`volume_m3`).
const UNIT_SPELLINGS: &[(&str, &str)] = &[
    ("cubic metres", "m3"),
    ("cubic meters", "m3"),
    ("m³", "m3"),
    ("square metres", "m2"),
    ("square meters", "m2"),
    ("m²", "m2"),
    ("kilometres", "km"),
    ("kilometers", "km"),
    ("kilograms", "kg"),
    ("litres", "litres l"),
    ("liters", "litres l"),
];

/// The passages most like `question`: of those under the headings that share the most with
/// it (every passage when no heading shares anything), the ones whose heading and text share
/// the most; all of them when none of those shares more than the others.
///
/// The heading comes first because a rules document is written by section (`Bereavement
/// leave`, `Fees`) and a question names the section's subject more often than its lines'
/// words (`grandmother` for the line `grandparent … 3 days`).
pub(crate) fn likely_passages(passages: &[Passage], question: &str) -> Likely {
    let in_range = holding_a_number(passages, question);
    let pool: Vec<usize> = match in_range.len() {
        0 => (0..passages.len()).collect(),
        // Its number is what it shares; the words below tell apart only several.
        1 => {
            return Likely {
                rows: in_range,
                shared: 1,
            };
        }
        _ => in_range,
    };
    let headings: Vec<Candidate> = pool
        .iter()
        .map(|at| Candidate::new(passages[*at].heading.as_deref().unwrap_or(""), None))
        .collect();
    let by_heading = likely(&headings, question);
    let within: Vec<usize> = by_heading.rows.iter().map(|at| pool[*at]).collect();
    let candidates: Vec<Candidate> = within
        .iter()
        .map(|at| {
            let passage = &passages[*at];
            let text = match &passage.heading {
                Some(heading) => format!("{heading} {}", passage.text),
                None => passage.text.clone(),
            };
            let first = passage
                .first_cell
                .as_ref()
                .map(|(cell, column)| (cell.as_str(), column.as_str()));
            Candidate::new(&text, first)
        })
        .collect();
    let by_text = likely(&candidates, question);
    let shared = by_heading.shared + by_text.shared;
    Likely {
        rows: by_text.rows.iter().map(|at| within[*at]).collect(),
        // Passages holding the question's number share that much, however alike their words.
        shared: if pool.len() < passages.len() {
            shared.max(1)
        } else {
            shared
        },
    }
}

/// The passages whose range holds a number of `question` in the range's unit (`27 kg` in
/// `Overweight checked bag, 23.1 to 32 kg`): a question's measurement names its rule more
/// surely than its words, which name the section it is asked from (`Classic fare`).
fn holding_a_number(passages: &[Passage], question: &str) -> Vec<usize> {
    let numbers: Vec<Term> = terms(question)
        .into_iter()
        .filter(|term| matches!(term, Term::Number { unit: Some(_), .. }))
        .collect();
    (0..passages.len())
        .filter(|at| {
            let passage = &passages[*at];
            let first = passage
                .first_cell
                .as_ref()
                .map(|(cell, column)| (cell.as_str(), column.as_str()));
            let candidate = Candidate {
                terms: Vec::new(),
                range: Candidate::new(&passage.text, first).range,
            };
            numbers.iter().any(|number| candidate.shares(number))
        })
        .collect()
}

/// The columns of a table's row (after its first, which names the row) that `question` asks
/// about: those whose names share the most with it; `None` when none shares anything, or all
/// share as much.
pub(crate) fn columns_asked(columns: &[String], question: &str) -> Option<Vec<usize>> {
    let candidates: Vec<Candidate> = columns
        .iter()
        .map(|column| Candidate::new(column, None))
        .collect();
    let likely = likely(&candidates, question);
    (likely.shared > 0 && likely.rows.len() < columns.len()).then_some(likely.rows)
}

/// What a question is matched against: a text's terms, and the range the text stands for with
/// the words that may name the range's unit.
struct Candidate {
    terms: Vec<Term>,
    range: Option<(Range, Vec<String>)>,
}

impl Candidate {
    /// The candidate of `text`; `first_cell` is a table row's first cell and its column's name,
    /// whose range (`5 to 9` under `completed years of service`) counts. Elsewhere the first
    /// range written with a unit (`23.1 to 32 kg`) counts.
    fn new(text: &str, first_cell: Option<(&str, &str)>) -> Candidate {
        let mut terms = terms(text);
        let range = match first_cell {
            Some((cell, column)) => Range::of(cell).map(|range| {
                // `under`, `over`, `more` are the range's syntax there, not a subject.
                let syntax = words(cell);
                terms.retain(|term| {
                    !matches!(term, Term::Word(word)
                        if RANGE_WORDS.contains(&word.as_str()) && syntax.contains(word))
                });
                (range, words(&format!("{cell} {column}")))
            }),
            None => Range::within(text),
        };
        Candidate { terms, range }
    }

    /// Whether `term` (of the question) is this candidate's: one of its terms, or a number in
    /// its range in the range's unit.
    fn shares(&self, term: &Term) -> bool {
        self.terms.iter().any(|known| term.matches(known))
            || match (term, &self.range) {
                (
                    Term::Number {
                        value,
                        unit: Some(unit),
                    },
                    Some((range, words)),
                ) => range.holds(*value) && words.iter().any(|word| same_word(unit, word)),
                _ => false,
            }
    }
}

/// The candidates that share the most with `question`; every one when none shares anything.
/// A term every candidate has tells them apart no more than one none has, so it does not
/// count.
fn likely(candidates: &[Candidate], question: &str) -> Likely {
    let asked = terms(question);
    // Each telling term with how many candidates share it.
    let telling: Vec<(&Term, usize)> = asked
        .iter()
        .map(|term| {
            let sharing = candidates
                .iter()
                .filter(|candidate| candidate.shares(term))
                .count();
            (term, sharing)
        })
        .filter(|(_, sharing)| *sharing < candidates.len())
        .collect();
    let scores: Vec<(f64, usize)> = candidates
        .iter()
        .map(|candidate| {
            telling
                .iter()
                .filter(|(term, _)| candidate.shares(term))
                .fold((0.0, 0), |(weight, count), (_, sharing)| {
                    (weight + 1.0 / *sharing as f64, count + 1)
                })
        })
        .collect();
    let best = scores.iter().map(|(weight, _)| *weight).fold(0.0, f64::max);
    let is_best = |at: &usize| best > 0.0 && (scores[*at].0 - best).abs() < 1e-9;
    let shared = (0..candidates.len())
        .filter(is_best)
        .map(|at| scores[at].1)
        .max()
        .unwrap_or(0);
    Likely {
        rows: (0..candidates.len())
            .filter(|at| shared == 0 || is_best(at))
            .collect(),
        shared,
    }
}

/// The words that write a range (`under 2`, `15 or more`).
const RANGE_WORDS: &[&str] = &["under", "less", "than", "below", "over", "more", "above"];

/// Whether `heading` (a table's) shares a word with `question`.
pub(crate) fn heading_fits(heading: &str, question: &str) -> bool {
    let asked = terms(question);
    terms(heading)
        .iter()
        .any(|known| matches!(known, Term::Word(_)) && asked.iter().any(|term| term.matches(known)))
}

/// Whether `text` states a number: in digits (`12`, `4.5`) or in words (`twelve`, `a dozen`,
/// `half`).
pub(crate) fn states_a_number(text: &str) -> bool {
    terms(text)
        .iter()
        .any(|term| matches!(term, Term::Number { .. }))
        || words(text)
            .iter()
            .any(|word| NUMBER_WORDS.contains(&word.as_str()))
}

/// Whether `question` meets the condition the skill's `body` sets on the flag `name` (``add
/// `"round-trip": true` when the user drives there and back``): `None` when the sentence that
/// names it states no condition (after `when` or `if`), else whether the question shares a word
/// with the condition or the flag's name. Words of the skill's `description` do not count: they
/// are the skill's topic, which every question it is chosen for shares (a `drive` is not a
/// drive there and back).
///
/// The 1.5B set every flag a skill names, whatever the question said ("one way").
pub(crate) fn flag_condition_met(
    name: &str,
    body: &str,
    description: &str,
    question: &str,
) -> Option<bool> {
    let quoted = [
        format!("`{name}`"),
        format!("\"{name}\""),
        format!("--{name}"),
    ];
    let sentence = body.split(['.', ';', '\n']).find(|sentence| {
        quoted
            .iter()
            .any(|quoted| sentence.contains(quoted.as_str()))
    })?;
    let after_name = quoted
        .iter()
        .filter_map(|quoted| sentence.find(quoted.as_str()))
        .min()
        .map_or(sentence, |at| &sentence[at..]);
    let lower = after_name.to_lowercase();
    let condition = [" when ", " if ", " unless "]
        .iter()
        .filter_map(|word| lower.find(word).map(|at| &lower[at + word.len()..]))
        .min_by_key(|rest| std::cmp::Reverse(rest.len()))?;
    let topic = terms(description);
    let telling: Vec<Term> = terms(condition)
        .into_iter()
        .chain(terms(&name.replace(['-', '_'], " ")))
        .filter(
            |term| matches!(term, Term::Word(word) if !CONDITION_FILLER.contains(&word.as_str())),
        )
        .filter(|term| !topic.iter().any(|known| known.matches(term)))
        .collect();
    let asked = terms(question);
    Some(
        telling
            .iter()
            .any(|term| asked.iter().any(|asked| asked.matches(term))),
    )
}

/// Words of a condition that name no circumstance.
const CONDITION_FILLER: &[&str] = &["user", "users", "one", "they", "their", "asks", "says"];

/// The words that state a number.
const NUMBER_WORDS: &[&str] = &[
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
    "thirty",
    "forty",
    "fifty",
    "sixty",
    "seventy",
    "eighty",
    "ninety",
    "hundred",
    "thousand",
    "million",
    "billion",
    "dozen",
    "half",
    "quarter",
    "twice",
    "double",
    "triple",
    "once",
    "single",
    "pair",
    "couple",
];

/// A word (lower case, at least three letters, not a function word) or a number (with the
/// word after it, its unit: `lb` of `80 lb`) of a text.
#[derive(Debug, Clone, PartialEq)]
enum Term {
    Word(String),
    Number { value: f64, unit: Option<String> },
}

impl Term {
    /// Whether this term (of the question) is `known` (of a row): the same number in the same
    /// unit, or the same word ([`same_word`]).
    fn matches(&self, known: &Term) -> bool {
        match (self, known) {
            (
                Term::Number {
                    value,
                    unit: Some(unit),
                },
                Term::Number {
                    value: other,
                    unit: Some(other_unit),
                },
            ) => (value - other).abs() < 1e-9 && same_word(unit, other_unit),
            (Term::Word(a), Term::Word(b)) => same_word(a, b),
            _ => false,
        }
    }
}

/// Whether `a` and `b` are the same word: equal, one the plural of the other, or one begins
/// with the other and the shorter has at least four letters (`month`, `months`; `upper`,
/// `uppercase`).
fn same_word(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    long.starts_with(short)
        && (short.len() >= 4 || long.len() == short.len() || long[short.len()..] == *"s")
}

/// Function words, which say nothing about which row applies.
const FUNCTION_WORDS: &[&str] = &[
    "about", "and", "any", "are", "but", "can", "could", "did", "does", "each", "for", "from",
    "get", "has", "have", "how", "into", "its", "many", "much", "not", "off", "our", "per",
    "should", "that", "the", "them", "then", "there", "this", "was", "what", "when", "which",
    "who", "why", "will", "with", "would", "you", "your",
];

/// The terms of `text`, each once.
fn terms(text: &str) -> Vec<Term> {
    let lower = text.to_lowercase();
    let tokens = tokens(&lower);
    let mut found: Vec<Term> = Vec::new();
    for (at, token) in tokens.iter().enumerate() {
        let term = if let Ok(value) = token.parse::<f64>() {
            let unit = tokens
                .get(at + 1)
                .filter(|next| next.chars().all(char::is_alphabetic))
                .map(|unit| (*unit).to_owned());
            Term::Number { value, unit }
        } else if token.chars().count() >= 3
            && token.chars().all(char::is_alphabetic)
            && !FUNCTION_WORDS.contains(token)
        {
            Term::Word((*token).to_owned())
        } else {
            continue;
        };
        if !found.contains(&term) {
            found.push(term);
        }
    }
    found
}

/// The tokens of `lower` (a lower-case text): its words and numbers (`4.5`), without the
/// punctuation around them.
fn tokens(lower: &str) -> Vec<&str> {
    lower
        .split(|c: char| !(c.is_alphanumeric() || c == '.'))
        .map(|token| token.trim_matches('.'))
        .filter(|token| !token.is_empty())
        .collect()
}

/// The words of `text`, of any length, lower case.
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphabetic())
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The numbers a row's first cell stands for: `5 to 9`, `19-22`, `under 2`, `over 8`,
/// `15 or more`, `up to 12`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Range {
    low: f64,
    high: f64,
}

impl Range {
    fn of(cell: &str) -> Option<Range> {
        let lower = cell.to_lowercase();
        let numbers: Vec<f64> = lower
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter_map(|token| token.trim_matches('.').parse().ok())
            .collect();
        let says = |words: &[&str]| words.iter().any(|word| lower.contains(word));
        match numbers.as_slice() {
            [low, high] if low <= high && (says(&[" to "]) || lower.contains('-')) => Some(Range {
                low: *low,
                high: *high,
            }),
            [high] if says(&["under ", "less than ", "below ", "up to "]) => Some(Range {
                low: f64::NEG_INFINITY,
                high: *high,
            }),
            [low] if says(&["over ", "more than ", "above ", " or more", "+"]) => Some(Range {
                low: *low,
                high: f64::INFINITY,
            }),
            _ => None,
        }
    }

    /// The first range of `text` written as `<low> to <high> <unit>` (`23.1 to 32 kg`), with
    /// its unit.
    fn within(text: &str) -> Option<(Range, Vec<String>)> {
        let lower = text.to_lowercase();
        tokens(&lower).windows(4).find_map(|four| {
            let low: f64 = four[0].parse().ok()?;
            let high: f64 = four[2].parse().ok()?;
            let unit = four[3];
            (four[1] == "to" && low <= high && unit.chars().all(char::is_alphabetic))
                .then(|| (Range { low, high }, vec![unit.to_owned()]))
        })
    }

    fn holds(self, number: f64) -> bool {
        (self.low..=self.high).contains(&number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guided::reading::passages;

    fn table(rows: &[&str]) -> Table {
        Table {
            heading: None,
            header: vec!["a".to_owned(), "b".to_owned()],
            rows: rows
                .iter()
                .map(|row| row.split(" | ").map(str::to_owned).collect())
                .collect(),
        }
    }

    #[test]
    fn the_field_a_how_many_question_names_is_found_by_its_unit_or_word() {
        let concrete = ["waste_percent", "volume_m3", "bags"];
        let cases = [
            (
                "How many cubic metres of concrete do I need? I'll use 40 kg bags.",
                Some(1),
            ),
            (
                "A 1.8 m square footing, 15 cm deep. How many 80 lb bags?",
                Some(2),
            ),
            ("What will it cost?", None),
            ("How many do I need?", None),
        ];
        for (question, expected) in cases {
            assert_eq!(field_asked(question, &concrete), expected, "{question}");
        }
        assert_eq!(
            field_asked(
                "How many bits of entropy is that?",
                &["entropy_bits", "rating"]
            ),
            Some(0)
        );
        assert_eq!(
            field_asked(
                "How much paint in litres do I need?",
                &["litres", "tins_2_5_litre"]
            ),
            None,
            "litres names both fields"
        );
    }

    #[test]
    fn a_number_is_attached_to_an_option_by_the_word_after_it() {
        let question = "Our hallway is 6 m long and 1.2 m wide with 2.4 m walls and 5 doors, no \
                        windows. Litres for 2 coats?";
        assert_eq!(number_stated_for("doors", question), Some(5.0));
        assert_eq!(number_stated_for("windows", question), Some(0.0));
        assert_eq!(number_stated_for("coats", question), Some(2.0));
        assert_eq!(number_stated_for("length", question), None);
        assert_eq!(
            number_stated_for("kwh", "my meter went from 40112 to 40310 kWh in 33 days"),
            Some(40310.0)
        );
        assert_eq!(number_stated_for("days", "2 days here, 3 days there"), None);
        assert!(states(question, 2.4));
        assert!(!states(question, 3.0));
    }

    #[test]
    fn an_option_in_a_unit_takes_the_one_number_stated_in_it() {
        let question = "Garden path: 6 m long, 0.9 m wide, 7.5 cm deep. How many 30 kg bags?";
        assert_eq!(number_in_unit_of("depth-cm", question), Some(7.5));
        assert_eq!(number_in_unit_of("length-m", question), None);
        assert_eq!(number_in_unit_of("bag-yield", question), None);
        assert!(names_what_option_is_of(
            "waste-percent",
            &["percent"],
            "5% extra for waste"
        ));
        assert!(!names_what_option_is_of(
            "tax-percent",
            &["percent"],
            "a 15% tip"
        ));
        assert!(names_what_option_is_of(
            "percent",
            &["percent"],
            "a 15% tip"
        ));
    }

    #[test]
    fn rows_to_add_up_are_those_whose_names_cover_the_question() {
        let sets = table(&[
            "lowercase letters a-z | 26",
            "uppercase letters A-Z | 26",
            "digits 0-9 | 10",
            "ASCII punctuation and symbols | 32",
            "hexadecimal digits 0-9 a-f | 16",
            "PIN (digits only) | 10",
            "Diceware word list (one word per position) | 7776",
            "EFF short word list (one word per position) | 1296",
        ]);
        let cases: [(&str, &[usize]); 4] = [
            (
                "a random 12-character password of upper- and lowercase letters and digits",
                &[0, 1, 2],
            ),
            (
                "20 characters of uppercase, lowercase, digits and all the ASCII symbols",
                &[0, 1, 2, 3],
            ),
            ("16 lowercase letters", &[0]),
            ("a 6-word Diceware passphrase", &[6]),
        ];
        for (question, rows) in cases {
            assert_eq!(rows_to_add(&sets, question), rows, "{question}");
        }
        assert!(says_to_add_up(
            "Add up the sets the password is drawn from."
        ));
        assert!(!says_to_add_up("Find the fare's row in the table."));
    }

    #[test]
    fn the_rows_sharing_the_most_words_and_numbers_are_offered() {
        let met = table(&[
            "walking, slow (2 mph / 3.2 km/h) | 2.8",
            "cycling, moderate (19-22 km/h) | 8.0",
            "running, 8 km/h (5 mph) | 8.3",
            "running, 9.7 km/h (6 mph) | 9.8",
            "tennis, singles | 8.0",
        ]);
        let ran = "I weigh 82 kg and ran at 6 mph for 35 minutes.";
        assert_eq!(likely_rows(&met, ran).rows, [3]);
        assert_eq!(likely_rows(&met, "singles tennis for 75 min").rows, [4]);
        assert_eq!(likely_rows(&met, "cycling at 20 km/h").rows, [1]);
        // Nothing shared: every row.
        assert_eq!(likely_rows(&met, "yoga for an hour").shared, 0);
        assert_eq!(likely_rows(&met, "yoga for an hour").rows, [0, 1, 2, 3, 4]);
    }

    #[test]
    fn a_number_within_a_rows_range_counts() {
        let mut leave = table(&[
            "under 2 | 22",
            "2 to 4 | 24",
            "5 to 9 | 26",
            "15 or more | 30",
        ]);
        leave.header = vec!["completed years of service".to_owned(), "days".to_owned()];
        assert_eq!(
            likely_rows(&leave, "I have been here 6 years. How many days?").rows,
            [2]
        );
        // A number in another unit is in no range, and no row's number.
        assert_eq!(
            likely_rows(&leave, "I have 9 days left; how many carry over?").shared,
            0
        );
        assert_eq!(likely_rows(&leave, "after 17 years").rows, [3]);
        assert_eq!(
            likely_rows(&leave, "in my first year, 1 year done").rows,
            [0]
        );
    }

    #[test]
    fn a_word_of_every_row_and_function_words_do_not_count() {
        let fees = table(&[
            "adult, neutered | 1.6",
            "adult, intact | 1.8",
            "puppy | 3.0",
        ]);
        assert_eq!(likely_rows(&fees, "a neutered adult dog").rows, [0]);
        let all_adult = table(&["adult, neutered | 1.6", "adult, intact | 1.8"]);
        assert_eq!(likely_rows(&all_adult, "an adult").rows, [0, 1]);
        assert_eq!(likely_rows(&fees, "how much for a puppy").rows, [2]);
    }

    #[test]
    fn numbers_are_stated_in_digits_or_words() {
        assert!(states_a_number("I used 287 kWh over a 31-day period."));
        assert!(states_a_number("Granola for twelve people"));
        assert!(states_a_number("a dozen eggs"));
        assert!(states_a_number("costs 1.5 a litre"));
        assert!(!states_a_number(
            "What is the difference between a fixed-rate and a variable-rate mortgage?"
        ));
        assert!(!states_a_number("Why is my internet connection so slow?"));
        // A digit inside a word (`v2`, `x86`) is a name, not a number stated.
        assert!(!states_a_number("Is IPv6 faster than IPv4?"));
    }

    #[test]
    fn a_passage_is_looked_for_under_the_headings_that_share_the_most() {
        let rules = "# Library\n\n## Loans\n\n| membership | books at a time |\n|---|---|\n| \
                     child | 5 |\n| adult | 10 |\n\n## Late fees\n\n- books: 20p a day\n- DVDs: \
                     £1 a day\n- anything borrowed by a child: no fee\n\n## Lost items\n\nA lost \
                     book costs its price plus £5.\n";
        let passages = passages(rules);
        let texts = |question: &str| -> Vec<String> {
            likely_passages(&passages, question)
                .rows
                .iter()
                .map(|at| passages[*at].text.clone())
                .collect()
        };
        // The heading decides the section, then the lines' words.
        assert_eq!(
            texts("My DVD is 3 days late; what is the fee?"),
            ["DVDs: £1 a day"]
        );
        assert_eq!(
            texts("My grandson has lost a book."),
            ["A lost book costs its price plus £5."]
        );
        // Nothing in the section but its heading: the whole section.
        assert_eq!(texts("What are the late fees?").len(), 3);
        // No heading shares anything: every passage competes.
        assert_eq!(
            texts("How many books can an adult borrow?"),
            ["membership: adult; books at a time: 10"]
        );
        assert_eq!(likely_passages(&passages, "Is it raining?").shared, 0);
    }

    #[test]
    fn a_range_in_a_line_counts_in_its_unit_and_a_ranges_syntax_is_not_a_subject() {
        let fees = passages(
            "## Fees\n\n- Overweight bag, 23.1 to 32 kg: €70.\n- Extra bag: €55.\n- Bicycle: €80.",
        );
        let rows = likely_passages(&fees, "My suitcase weighs 27 kg, what do I pay?").rows;
        assert_eq!(rows, [0]);
        assert_eq!(
            likely_passages(&fees, "My suitcase is 27 cm long, what do I pay?").shared,
            0
        );
        let mut leave = table(&["under 2 | 22", "2 to 4 | 24", "15 or more | 30"]);
        leave.header = vec!["completed years of service".to_owned(), "days".to_owned()];
        // `under` is the first row's range, not a word the question shares with it.
        assert_eq!(
            likely_rows(&leave, "How much leave may I take under the policy?").shared,
            0
        );
        assert_eq!(likely_rows(&leave, "I'm 17 years in").rows, [2]);
    }

    #[test]
    fn a_number_in_a_passages_range_finds_it_before_the_sections_words() {
        let rules = passages(
            "## Included in each fare

| fare | checked bags |
|---|---|
| Light | none |
|              Classic | 1 bag, up to 23 kg |

Frequent flyers get 1 extra checked bag on any              fare.

## Fees

- Overweight checked bag, 23.1 to 32 kg: €70 per flight.
-              Over 32 kg: send it as cargo.
- Extra checked bag: €55.
",
        );
        // The heading `Included in each fare` shares `fare`, the Classic row `Classic`: the
        // suitcase's weight is what names the rule.
        let question = "I'm on a Classic fare and my suitcase weighs 27 kg. Do I pay extra?";
        let likely = likely_passages(&rules, question);
        assert_eq!(likely.rows, [3]);
        assert!(likely.shared > 0);
        // Without a number in a range, the sections' words decide as before.
        assert_eq!(
            likely_passages(&rules, "What does a Classic fare include?").rows,
            [1]
        );
    }

    #[test]
    fn the_columns_asked_about_are_those_whose_names_share_the_most() {
        let columns = [
            "personal item (under the seat)".to_owned(),
            "cabin bag (55 x 40 x 23 cm)".to_owned(),
            "checked bags".to_owned(),
        ];
        // `bags` is in two columns' names, `cabin` in one.
        assert_eq!(
            columns_asked(&columns, "What's the total weight allowed for cabin bags?"),
            Some(vec![1])
        );
        assert_eq!(
            columns_asked(&columns, "How many checked bags are included?"),
            Some(vec![2])
        );
        assert_eq!(columns_asked(&columns, "What does the fare include?"), None);
    }

    #[test]
    fn a_flags_condition_is_met_by_a_word_of_the_question_beyond_the_skills_topic() {
        let body = "1. Run `scripts/fuel.py` with the options `distance-km` (one way) and\n   \
                    `consumption`; add `\"round-trip\": true` when the user drives there and back.\n\
                    2. Pass `--metric` for the units.";
        let description = "Estimates what a car trip's fuel costs. Use when someone asks what a \
                           drive will cost.";
        let met = |question| flag_condition_met("round-trip", body, description, question);
        assert_eq!(
            met("315 km to a festival and back: what does fuel cost?"),
            Some(true)
        );
        assert_eq!(met("What will a round trip of 96 km cost?"), Some(true));
        // `drive` and `trip` are the skill's topic; `one way` says nothing of a return.
        assert_eq!(
            met("What does a 1,260 km drive cost in diesel?"),
            Some(false)
        );
        assert_eq!(met("My trip is 840 km, one way. Fuel cost?"), Some(false));
        // A flag the body sets no condition on, or does not name, is not judged.
        assert_eq!(
            flag_condition_met("metric", body, description, "a drive"),
            None
        );
        assert_eq!(
            flag_condition_met("fast", body, description, "a drive"),
            None
        );
    }

    #[test]
    fn headings_fit_a_question_by_their_words() {
        assert!(heading_fits("Cats", "a neutered adult cat"));
        assert!(!heading_fits("Dogs", "a neutered adult cat"));
    }
}
