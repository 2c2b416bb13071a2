//! Whether a request matches one skill confidently enough for the runtime to load it before the
//! model's first call ([`activation_match`]).
//!
//! Unlike [`SearchIndex`](super::SearchIndex), whose scores weigh words by how rare they are in
//! the library, a skill's score here depends only on the request and that skill's own name and
//! description: the same request activates the same skill in a library of one skill as among a
//! thousand. (Only the order of a selection's candidates, [`activation_candidates`], weighs
//! words by how many of the offered skills have them.) The score is the share of the request's
//! words (stop words and numbers left out) that the skill's name or description has: a word
//! counts whole when the skill has it (after stemming), half when one word begins the other
//! (four letters or more: "config", "configuration") or when it is a short abbreviation of a
//! word of the skill (two or three letters, in order, from its first: "km" for "kilometres",
//! "kg" for "kilograms").

use std::collections::HashSet;

use super::analyze::{Analyzer, compounds};

/// The score from which a request activates a skill: calibrated on the evaluation set of
/// `tests/activation/requests.json` (precision and recall in the book's chapter on running
/// skills with a model).
pub const ACTIVATION_THRESHOLD: f64 = 0.5;

/// The least matched weight (whole words count 1, partial matches ½) of an activation, so that
/// a one-word request sharing its word with a skill activates nothing.
pub const MIN_MATCHED_WEIGHT: f64 = 1.5;

/// The score from which a skill is a candidate of a selection: the skills a model then chooses
/// among (or none of them). Lower than [`ACTIVATION_THRESHOLD`]: the model's choice decides, the
/// score only keeps the choice small.
pub const CANDIDATE_THRESHOLD: f64 = 0.1;

/// The least matched weight of a candidate: one whole word of the request.
pub const MIN_CANDIDATE_WEIGHT: f64 = 1.0;

/// The most characters of a request that count.
const MAX_REQUEST_CHARS: usize = 1024;

/// The weight of a partial match (a prefix, or an abbreviation).
const PARTIAL: f64 = 0.5;

/// The shortest word a prefix match applies to.
const MIN_PREFIX_CHARS: usize = 4;

/// A skill a request matches confidently: its name and the score (see the module's
/// documentation).
#[derive(Debug, Clone, PartialEq)]
pub struct ActivationMatch {
    /// The skill's name, as given.
    pub name: String,
    /// The share of the request's words the skill has, from 0 to 1.
    pub score: f64,
}

/// How well `request` matches one skill, from 0 to 1, and the matched weight; independent of any
/// other skill.
#[must_use]
pub fn activation_score(request: &str, name: &str, description: &str) -> (f64, f64) {
    let analyzer = Analyzer::english();
    let words = request_words(&analyzer, request);
    score_words(&analyzer, &words, name, description)
}

/// The skill of `skills` (name, description) that `request` matches best, when that match is
/// confident: a score of at least [`ACTIVATION_THRESHOLD`] and a matched weight of at least
/// [`MIN_MATCHED_WEIGHT`]. Ties go to the first skill given. `None` when no skill matches so.
#[must_use]
pub fn activation_match<'a>(
    request: &str,
    skills: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Option<ActivationMatch> {
    let analyzer = Analyzer::english();
    let words = request_words(&analyzer, request);
    if words.is_empty() {
        return None;
    }
    let mut best: Option<ActivationMatch> = None;
    for (name, description) in skills {
        let (score, matched) = score_words(&analyzer, &words, name, description);
        if score >= ACTIVATION_THRESHOLD
            && matched >= MIN_MATCHED_WEIGHT
            && best.as_ref().is_none_or(|best| score > best.score)
        {
            best = Some(ActivationMatch {
                name: name.to_owned(),
                score,
            });
        }
    }
    best
}

/// The skills of `skills` (name, description) that `request` matches well enough to be offered
/// to a model's choice: a score of at least [`CANDIDATE_THRESHOLD`] and a matched weight of at
/// least [`MIN_CANDIDATE_WEIGHT`], at most `limit`.
///
/// Whether a skill is a candidate depends on it alone; their order does not. They come best
/// first by the words they match, each word weighed by how few of the skills given have it (a
/// word one skill has counts whole, one that four have counts a quarter), then by score, then in
/// the order given: a request's rare word ("people", of a recipe's servings) tells more than
/// a common one ("takes") many descriptions share, and the limit keeps only the
/// first.
///
/// # Example
/// ```
/// use skillful_provider::search::activation_candidates;
///
/// let skills = [
///     ("unit-converter", "Converts lengths, masses and temperatures between units."),
///     ("tip-splitter", "Splits a restaurant bill between people, with the tip."),
/// ];
/// let found = activation_candidates("How many kilometres is 26.2 miles in length?", skills, 3);
/// assert_eq!(found.len(), 1);
/// assert_eq!(found[0].name, "unit-converter");
/// assert!(activation_candidates("What is the capital of France?", skills, 3).is_empty());
/// ```
#[must_use]
pub fn activation_candidates<'a>(
    request: &str,
    skills: impl IntoIterator<Item = (&'a str, &'a str)>,
    limit: usize,
) -> Vec<ActivationMatch> {
    let analyzer = Analyzer::english();
    let words = request_words(&analyzer, request);
    if words.is_empty() {
        return Vec::new();
    }
    let matches: Vec<(&str, Vec<f64>)> = skills
        .into_iter()
        .map(|(name, description)| (name, word_matches(&analyzer, &words, name, description)))
        .collect();
    let holders: Vec<f64> = (0..words.len())
        .map(|word| {
            matches
                .iter()
                .filter(|(_, matched)| matched[word] > 0.0)
                .count() as f64
        })
        .collect();
    let mut found: Vec<(ActivationMatch, f64)> = matches
        .into_iter()
        .filter_map(|(name, matched)| {
            let weight: f64 = matched.iter().sum();
            let score = weight / words.len() as f64;
            (score >= CANDIDATE_THRESHOLD && weight >= MIN_CANDIDATE_WEIGHT).then(|| {
                // A word this skill matches has at least this one holder.
                let telling = matched
                    .iter()
                    .zip(&holders)
                    .filter(|(part, _)| **part > 0.0)
                    .map(|(part, holders)| part / holders)
                    .sum();
                let found = ActivationMatch {
                    name: name.to_owned(),
                    score,
                };
                (found, telling)
            })
        })
        .collect();
    // Stable: ties keep the order given.
    found.sort_by(|(a, a_telling), (b, b_telling)| {
        b_telling
            .total_cmp(a_telling)
            .then(b.score.total_cmp(&a.score))
    });
    found.truncate(limit);
    found.into_iter().map(|(found, _)| found).collect()
}

/// The request's distinct terms: stop words, single letters and words with digits left out.
fn request_words(analyzer: &Analyzer, request: &str) -> Vec<String> {
    let cut = request
        .char_indices()
        .nth(MAX_REQUEST_CHARS)
        .map_or(request, |(at, _)| &request[..at]);
    let mut words = Vec::new();
    for part in compounds(cut)
        .into_iter()
        .flat_map(|compound| compound.parts)
    {
        if part.contains(|c: char| c.is_ascii_digit()) {
            continue;
        }
        if let Some(term) = analyzer.term(&part)
            && !words.contains(&term)
        {
            words.push(term);
        }
    }
    words
}

/// The score and matched weight of `words` against one skill.
fn score_words(analyzer: &Analyzer, words: &[String], name: &str, description: &str) -> (f64, f64) {
    if words.is_empty() {
        return (0.0, 0.0);
    }
    let matched: f64 = word_matches(analyzer, words, name, description)
        .iter()
        .sum();
    (matched / words.len() as f64, matched)
}

/// How much one skill has each of `words` ([`word_match`]), in their order.
fn word_matches(analyzer: &Analyzer, words: &[String], name: &str, description: &str) -> Vec<f64> {
    let mut terms = HashSet::new();
    for text in [name, description] {
        let cut = text
            .char_indices()
            .nth(super::MAX_FIELD_CHARS)
            .map_or(text, |(at, _)| &text[..at]);
        for part in compounds(cut)
            .into_iter()
            .flat_map(|compound| compound.parts)
        {
            if let Some(term) = analyzer.term(&part) {
                terms.insert(term);
            }
        }
    }
    words.iter().map(|word| word_match(word, &terms)).collect()
}

/// How much the skill's `terms` have `word`: 1, [`PARTIAL`] or 0.
fn word_match(word: &str, terms: &HashSet<String>) -> f64 {
    if terms.contains(word) {
        return 1.0;
    }
    let partial = terms.iter().any(|term| {
        let prefix = word.chars().count() >= MIN_PREFIX_CHARS
            && term.chars().count() >= MIN_PREFIX_CHARS
            && (term.starts_with(word) || word.starts_with(term.as_str()));
        prefix || abbreviates(word, term)
    });
    if partial { PARTIAL } else { 0.0 }
}

/// Whether `short` (two or three ASCII letters) abbreviates `word` (five letters or more): its
/// first letter begins `word` and the others follow in order.
fn abbreviates(short: &str, word: &str) -> bool {
    let letters = short.len();
    if !(2..=3).contains(&letters)
        || !short.bytes().all(|b| b.is_ascii_lowercase())
        || word.len() < 5
        || !word.starts_with(&short[..1])
    {
        return false;
    }
    let mut rest = word[1..].chars();
    short[1..].chars().all(|c| rest.any(|w| w == c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abbreviations_take_their_letters_in_order_from_the_first() {
        assert!(abbreviates("km", "kilometr"));
        assert!(abbreviates("kg", "kilogram"));
        assert!(!abbreviates("mk", "kilometr"));
        assert!(!abbreviates("km", "km"));
        assert!(!abbreviates("kilo", "kilometr"));
    }

    #[test]
    fn a_word_few_skills_have_ranks_a_candidate_above_a_word_many_share() {
        let skills = [
            (
                "concrete-volume",
                "Calculates the concrete for a slab. Use when someone asks what a job takes.",
            ),
            (
                "credit-card-payoff",
                "How many months it takes to clear a card balance.",
            ),
            (
                "data-transfer-time",
                "How long a download takes at a given speed.",
            ),
            (
                "recipe-scaling",
                "Rescales a recipe for more or fewer people.",
            ),
        ];
        let request = "Soup for 4 people takes 2 onions, and I want it for 10.";
        // By score the four tie (one word each), and ties keep the order given.
        let score = |at: usize| activation_score(request, skills[at].0, skills[at].1).0;
        assert!((0..3).all(|at| score(at) == score(3)));
        let found = activation_candidates(request, skills, 2);
        let names: Vec<&str> = found.iter().map(|found| found.name.as_str()).collect();
        // "people" is the recipe's alone; "takes" three skills share.
        assert_eq!(names, ["recipe-scaling", "concrete-volume"]);
        assert_eq!(found[0].score, score(3));
    }

    #[test]
    fn the_score_is_the_share_of_the_request_the_skill_has() {
        let analyzer = Analyzer::english();
        let request = "A marathon is 26.2 miles. How many km is that?";
        assert_eq!(
            request_words(&analyzer, request),
            ["marathon", "mile", "mani", "km"]
        );
        let (score, matched) =
            activation_score(request, "unit-converter", "Converts miles to kilometres.");
        // marathon, many: no; mile: yes; km: abbreviates kilometres.
        assert_eq!(matched, 1.5);
        assert_eq!(score, 1.5 / 4.0);
    }
}
