//! Finds skills by what a request says: [`SearchIndex`], the ranking behind the `search_skills`
//! tool and `skills search`.
//!
//! Lexical and local (no network, no model): BM25F over a skill's name, description and
//! (optionally) SKILL.md headings, with the name weighted most. Words are split at spaces,
//! punctuation, `-`, `_`, `.` and case changes (`GoogleSheets`), lower-cased and stemmed (Porter2,
//! so `debugging` finds `debug`); stop words ("how do I ...") are dropped from the query.
//! Adjacent query words are also tried written together against names ("Google Sheets" finds
//! `googlesheets`), a name of three or more words is also found by its initials
//! (`test-driven-development` by "TDD"), and a word of four or more letters also matches, at half
//! weight, the words it abbreviates or that abbreviate it ("config" finds "configuration",
//! "failing" finds "failure").
//!
//! Results are best first and deterministic: the same documents (in any order) and query give
//! the same hits, ties broken by name. A query none of whose words occurs in any skill returns
//! no hits rather than a guess; a hit that matched only a small part of the query, or scored far
//! below the best, is marked [`SearchHit::low_confidence`].
//!
//! # Example
//! ```
//! use skillful_provider::search::{SearchDocument, SearchIndex};
//!
//! let index = SearchIndex::new([
//!     SearchDocument::new("google-sheets", "Reads and writes spreadsheet cells."),
//!     SearchDocument::new("pdf-tools", "Splits, merges and fills PDF forms."),
//! ]);
//! let hits = index.search("update a cell in Google Sheets", 5);
//! assert_eq!(hits[0].name, "google-sheets");
//! assert!(index.search("zebra migration", 5).is_empty());
//! ```

mod activation;
mod analyze;
mod index;
mod stop_words;

use serde::Serialize;

pub use activation::{
    ACTIVATION_THRESHOLD, ActivationMatch, CANDIDATE_THRESHOLD, MIN_CANDIDATE_WEIGHT,
    MIN_MATCHED_WEIGHT, activation_candidates, activation_match, activation_score,
};
pub use index::SearchIndex;

/// How many hits the `search_skills` tool returns when the model does not say.
pub const DEFAULT_SEARCH_LIMIT: usize = 5;

/// The most hits the `search_skills` tool returns, whatever the model asks for.
pub const MAX_SEARCH_LIMIT: usize = 20;

/// The number of hits to return for a requested `limit`: [`DEFAULT_SEARCH_LIMIT`] when none is
/// given, otherwise the request clamped to `1..=`[`MAX_SEARCH_LIMIT`].
#[must_use]
pub fn clamp_search_limit(requested: Option<u64>) -> usize {
    requested.map_or(DEFAULT_SEARCH_LIMIT, |limit| {
        usize::try_from(limit).map_or(MAX_SEARCH_LIMIT, |limit| limit.clamp(1, MAX_SEARCH_LIMIT))
    })
}

/// What the index knows of one skill.
///
/// Text is untrusted: each field is cut to its first [`MAX_FIELD_CHARS`] characters (and at most
/// [`MAX_HEADINGS`] headings are read) before indexing, which bounds the index whatever a skill
/// says. Hits return `name` and `description` whole.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchDocument {
    /// The skill's name, exactly as its frontmatter says.
    pub name: String,
    /// The skill's description, exactly as its frontmatter says.
    pub description: String,
    /// The headings of its SKILL.md body (without the leading `#`s), if the caller has them.
    pub headings: Vec<String>,
}

/// The most characters of one field (name, description, one heading) that are indexed.
pub const MAX_FIELD_CHARS: usize = 4096;

/// The most SKILL.md headings of one skill that are indexed.
pub const MAX_HEADINGS: usize = 128;

impl SearchDocument {
    /// A document with a name and a description and no headings.
    #[must_use]
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            headings: Vec::new(),
        }
    }

    /// The same document with these SKILL.md headings.
    #[must_use]
    pub fn with_headings<H: Into<String>>(mut self, headings: impl IntoIterator<Item = H>) -> Self {
        self.headings = headings.into_iter().map(Into::into).collect();
        self
    }
}

/// One skill found by [`SearchIndex::search`].
///
/// Serialises as the `search_skills` tool shows it: `{"name", "description", "score"}`, plus
/// `"low_confidence": true` only on a weak match.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SearchHit {
    /// The skill's name, exactly as its frontmatter says.
    pub name: String,
    /// The skill's full description.
    pub description: String,
    /// How well the skill matches, higher is better (rounded to three decimals); comparable
    /// only between hits of the same query on the same index.
    pub score: f64,
    /// The hit matched less than a third of what the query says (its words weighted by how
    /// rare they are), or scored less than half the best hit: a guess to check against the
    /// description rather than rely on.
    #[serde(skip_serializing_if = "is_false")]
    pub low_confidence: bool,
}

// serde's skip_serializing_if passes a reference.
fn is_false(value: &bool) -> bool {
    !*value
}
