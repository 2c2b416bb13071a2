//! Text analysis shared by indexing and querying: words split at separators and case changes,
//! lower-cased, stop words dropped, stemmed (Porter2), plus the joined forms that let
//! "Google Sheets" find `googlesheets` and `google-sheets` find "GoogleSheets".

use rust_stemmers::{Algorithm, Stemmer};

use super::stop_words::is_stop_word;

/// Characters that join the parts of one compound word (`slack-gif`, `snake_case`, `p5.js`) when
/// they stand between two letters or digits.
const CONNECTORS: [char; 3] = ['-', '_', '.'];

/// A run of parts written without spaces: `slack-gif-creator`, `GoogleSheets`, `p5.js`, or one
/// plain word. Parts are lower-cased and not yet stemmed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Compound {
    pub(super) parts: Vec<String>,
}

impl Compound {
    /// The parts written together, separators and case dropped: `slackgifcreator`.
    pub(super) fn joined(&self) -> String {
        self.parts.concat()
    }
}

/// Splits `text` into compounds. A part ends at anything that is not a letter or digit, and at a
/// change to upper case (`googleSheets`, `HTMLParser` → `html`, `parser`); a compound continues
/// across a single connector between two letters or digits. An apostrophe between letters stays
/// in its part so that the stemmer can drop a possessive `'s`.
pub(super) fn compounds(text: &str) -> Vec<Compound> {
    let mut out = Vec::new();
    let mut compound = Compound::default();
    let mut part = String::new();
    let mut chars = text.chars().peekable();
    let mut prev = None;
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        if c.is_alphanumeric() {
            if !part.is_empty() && starts_camel_part(prev, c, next) {
                compound.parts.push(std::mem::take(&mut part));
            }
            if c.is_ascii() {
                part.push(c.to_ascii_lowercase());
            } else {
                part.extend(c.to_lowercase());
            }
        } else if is_apostrophe(c)
            && !part.is_empty()
            && prev.is_some_and(char::is_alphabetic)
            && next.is_some_and(char::is_alphabetic)
        {
            part.push('\'');
        } else {
            if !part.is_empty() {
                compound.parts.push(std::mem::take(&mut part));
            }
            let joins = CONNECTORS.contains(&c)
                && prev.is_some_and(char::is_alphanumeric)
                && next.is_some_and(char::is_alphanumeric);
            if !joins && !compound.parts.is_empty() {
                out.push(std::mem::take(&mut compound));
            }
        }
        prev = Some(c);
    }
    if !part.is_empty() {
        compound.parts.push(part);
    }
    if !compound.parts.is_empty() {
        out.push(compound);
    }
    out
}

fn is_apostrophe(c: char) -> bool {
    c == '\'' || c == '\u{2019}'
}

/// Whether `c` (preceded by `prev`, followed by `next`) starts a new camel-case part:
/// `googleSheets` before `S`, `HTMLParser` before `P`.
fn starts_camel_part(prev: Option<char>, c: char, next: Option<char>) -> bool {
    let Some(prev) = prev else { return false };
    c.is_uppercase()
        && (prev.is_lowercase() || (prev.is_uppercase() && next.is_some_and(char::is_lowercase)))
}

/// Turns words into index terms: drops stop words and stems the rest.
pub(super) struct Analyzer {
    stemmer: Stemmer,
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Analyzer(english)")
    }
}

impl Analyzer {
    pub(super) fn english() -> Self {
        Self {
            stemmer: Stemmer::create(Algorithm::English),
        }
    }

    /// Whether a lower-cased word carries no meaning for search: a stop word, or a single
    /// letter (what is left of `e.g.` or a dropped apostrophe).
    pub(super) fn is_noise(word: &str) -> bool {
        let mut chars = word.chars();
        match (chars.next(), chars.next()) {
            (None, _) => true,
            (Some(c), None) => c.is_alphabetic(),
            _ => is_stop_word(word),
        }
    }

    /// The term for a lower-cased word, or `None` for noise.
    pub(super) fn term(&self, word: &str) -> Option<String> {
        if Self::is_noise(word) {
            return None;
        }
        // English suffixes do not follow digits (`mp3`, `v2`, `00042`), and skipping these
        // words saves most of the stemming of generated names.
        if word.contains(|c: char| c.is_ascii_digit()) {
            return Some(word.replace('\'', ""));
        }
        let stem = self.stemmer.stem(word);
        // The stemmer only drops a possessive apostrophe; one left inside (`rock'n'roll`) would
        // keep the word from matching its spelling without it.
        Some(stem.replace('\'', ""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str) -> Vec<Vec<String>> {
        compounds(text).into_iter().map(|c| c.parts).collect()
    }

    #[test]
    fn splits_separators_and_camel_case_into_parts_of_one_compound() {
        assert_eq!(
            parts("slack-gif_creator GoogleSheets HTMLParser p5.js"),
            vec![
                vec!["slack", "gif", "creator"],
                vec!["google", "sheets"],
                vec!["html", "parser"],
                vec!["p5", "js"],
            ]
        );
    }

    #[test]
    fn punctuation_and_spaces_end_compounds() {
        assert_eq!(
            parts("Reports, e.g. -- (status)/updates end."),
            vec![
                vec!["reports"],
                vec!["e", "g"],
                vec!["status"],
                vec!["updates"],
                vec!["end"]
            ]
        );
    }

    #[test]
    fn apostrophes_between_letters_stay_in_the_word_and_possessives_stem_away() {
        assert_eq!(
            parts("Anthropic’s don't 'quoted'"),
            vec![vec!["anthropic's"], vec!["don't"], vec!["quoted"]]
        );
        let analyzer = Analyzer::english();
        assert_eq!(analyzer.term("anthropic's"), analyzer.term("anthropic"));
        assert_eq!(analyzer.term("don't"), None);
    }

    #[test]
    fn stems_inflections_to_one_term_and_drops_noise() {
        let analyzer = Analyzer::english();
        assert_eq!(analyzer.term("debugging"), analyzer.term("debug"));
        assert_eq!(analyzer.term("tests"), analyzer.term("testing"));
        assert_eq!(analyzer.term("the"), None);
        assert_eq!(analyzer.term("x"), None);
        assert_eq!(analyzer.term("5"), Some("5".to_owned()));
    }
}
