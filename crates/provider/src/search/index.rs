//! The inverted index and its BM25F scoring.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;

use super::analyze::{Analyzer, Compound, compounds};
use super::{MAX_FIELD_CHARS, MAX_HEADINGS, SearchDocument, SearchHit};

/// BM25 term-frequency saturation.
const K1: f64 = 1.2;

/// The fields of a document; the discriminant indexes [`FIELDS`].
#[derive(Debug, Clone, Copy)]
enum Field {
    Name = 0,
    Description = 1,
    Headings = 2,
}

/// How a field counts: `weight` scales its term frequencies (the name boost), `b` is how much
/// its length normalises them.
struct FieldParams {
    weight: f64,
    b: f64,
}

const FIELDS: [FieldParams; 3] = [
    FieldParams {
        weight: 3.0,
        b: 0.5,
    },
    FieldParams {
        weight: 1.0,
        b: 0.75,
    },
    FieldParams {
        weight: 0.5,
        b: 0.75,
    },
];

/// A query word also matches the terms it begins (`config` → `configur`) and the terms that
/// begin it (`evalu` → `eval`) when both have at least this many characters: abbreviations and
/// derivations the stemmer keeps apart (`fail`, `failur`).
const MIN_VARIANT_CHARS: usize = 4;

/// How much a variant's match counts against an exact one.
const VARIANT_WEIGHT: f64 = 0.5;

/// The most variants one query word matches (the first in term order).
const MAX_VARIANTS: usize = 16;

/// A hit whose matched words carry less than this share of the query's word weight (IDF) is
/// weak. On the evaluation set in `tests/data`, first hits above it are right 81-87% of the time
/// and those below about half the time (`search::quality` in the tests prints the split).
const MIN_COVERAGE: f64 = 1.0 / 3.0;

/// A hit scoring less than this share of the best hit is weak.
const MIN_RELATIVE_SCORE: f64 = 0.5;

/// The most characters of a query that are read; the rest is ignored.
const MAX_QUERY_CHARS: usize = 1024;

/// The most distinct words of a query that count (one bit each in a coverage mask).
const MAX_QUERY_WORDS: usize = 64;

/// One document's share of a term: its BM25F score for that term, computed once at build time
/// because nothing it depends on changes afterwards.
#[derive(Debug, Clone, Copy)]
struct Posting {
    doc: u32,
    score: f32,
}

#[derive(Debug)]
struct StoredDoc {
    name: String,
    description: String,
}

/// Every term once, sorted, in one string; a term's id is its rank.
#[derive(Debug, Default)]
struct Vocabulary {
    text: String,
    /// Each term's byte range in `text`.
    spans: Vec<(usize, usize)>,
}

impl Vocabulary {
    fn term(&self, (start, end): (usize, usize)) -> &str {
        &self.text[start..end]
    }

    fn len(&self) -> usize {
        self.spans.len()
    }

    /// The rank of the first term not less than `word`.
    fn lower_bound(&self, word: &str) -> usize {
        self.spans.partition_point(|&span| self.term(span) < word)
    }

    fn find(&self, word: &str) -> Option<usize> {
        let at = self.lower_bound(word);
        let span = *self.spans.get(at)?;
        (self.term(span) == word).then_some(at)
    }

    /// The terms `word` begins and the terms that begin it (each of at least
    /// [`MIN_VARIANT_CHARS`] characters), `word` itself excluded.
    fn variants(&self, word: &str) -> Vec<usize> {
        let mut found = Vec::new();
        if word.chars().count() < MIN_VARIANT_CHARS {
            return found;
        }
        // Skipping the first characters leaves the ends of the prefixes long enough.
        for (end, _) in word.char_indices().skip(MIN_VARIANT_CHARS) {
            found.extend(self.find(&word[..end]));
        }
        let start = self.lower_bound(word);
        let longer = self.spans[start..]
            .iter()
            .map_while(|&span| self.term(span).starts_with(word).then_some(span))
            .zip(start..)
            .filter(|&(span, _)| self.term(span) != word)
            .map(|(_, rank)| rank)
            .take(MAX_VARIANTS);
        found.extend(longer);
        found.truncate(MAX_VARIANTS);
        found
    }
}

/// An immutable search index over skills' names, descriptions and headings.
///
/// Building is linear in the text indexed; each distinct word is stemmed once. Terms are
/// interned in one sorted string, and each term's postings (document, precomputed score) lie in
/// one contiguous array, so a query costs a binary search per word plus a pass over the
/// documents that contain it.
pub struct SearchIndex {
    analyzer: Analyzer,
    docs: Vec<StoredDoc>,
    vocabulary: Vocabulary,
    /// `postings[offsets[t]..offsets[t + 1]]` are term `t`'s postings, in document order.
    offsets: Vec<usize>,
    postings: Vec<Posting>,
}

impl fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SearchIndex")
            .field("documents", &self.docs.len())
            .field("terms", &self.vocabulary.len())
            .field("postings", &self.postings.len())
            .finish_non_exhaustive()
    }
}

impl SearchIndex {
    /// Indexes `docs`. Their order does not matter: hits depend only on the set of documents.
    #[must_use]
    pub fn new(docs: impl IntoIterator<Item = SearchDocument>) -> Self {
        let mut builder = Builder::new();
        for doc in docs {
            builder.add(doc);
        }
        builder.finish()
    }

    /// The number of documents indexed.
    #[must_use]
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether no document is indexed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The at most `limit` documents that match `query` best, best first; ties in score are
    /// ordered by name. Empty when no word of the query occurs in any document (or `limit` is 0).
    ///
    /// `limit` is taken as given; the `search_skills` tool clamps the model's request with
    /// [`clamp_search_limit`](super::clamp_search_limit). Only the first 1,024 characters and
    /// the first 64 distinct words of `query` count.
    #[must_use]
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        if limit == 0 || self.docs.is_empty() {
            return Vec::new();
        }
        let query = Query::parse(
            &self.analyzer,
            skillful_core::text::cut(query, MAX_QUERY_CHARS),
        );
        let mut scores = Scores::new(self.docs.len());
        let mut scratch = Vec::new();
        for (bit, word) in query.words.iter().enumerate() {
            self.score_word(word, 1 << bit, &mut scores, &mut scratch);
        }
        for (joined, covers) in &query.joined {
            if let Some(term) = self.vocabulary.find(joined) {
                for posting in self.postings_of(term) {
                    scores.add(posting.doc, f64::from(posting.score), *covers);
                }
            }
        }
        let Scores {
            score,
            matched,
            mut touched,
        } = scores;
        if touched.is_empty() {
            return Vec::new();
        }
        let rank = |a: &u32, b: &u32| self.rank(*a, *b, &score);
        if touched.len() > limit {
            touched.select_nth_unstable_by(limit - 1, rank);
            touched.truncate(limit);
        }
        touched.sort_unstable_by(rank);
        let best = score[touched[0] as usize];
        let weights: Vec<f64> = query.words.iter().map(|w| self.word_weight(w)).collect();
        let total_weight: f64 = weights.iter().sum();
        touched
            .into_iter()
            .map(|doc| {
                let doc = doc as usize;
                let matched_weight: f64 = weights
                    .iter()
                    .enumerate()
                    .filter(|(bit, _)| matched[doc] & (1 << bit) != 0)
                    .map(|(_, weight)| weight)
                    .sum();
                let coverage = if total_weight > 0.0 {
                    matched_weight / total_weight
                } else {
                    1.0
                };
                SearchHit {
                    name: self.docs[doc].name.clone(),
                    description: self.docs[doc].description.clone(),
                    score: (score[doc] * 1000.0).round() / 1000.0,
                    low_confidence: coverage < MIN_COVERAGE
                        || score[doc] < MIN_RELATIVE_SCORE * best,
                }
            })
            .collect()
    }

    /// Adds one query word's score to every document that has it or a variant of it; a
    /// document counts the best of these once.
    fn score_word(&self, word: &str, bit: u64, scores: &mut Scores, scratch: &mut Vec<(u32, f64)>) {
        let exact = self.vocabulary.find(word);
        let variants = self.vocabulary.variants(word);
        scratch.clear();
        if let Some(term) = exact {
            scratch.extend(
                self.postings_of(term)
                    .iter()
                    .map(|p| (p.doc, f64::from(p.score))),
            );
        }
        for term in variants {
            scratch.extend(
                self.postings_of(term)
                    .iter()
                    .map(|p| (p.doc, VARIANT_WEIGHT * f64::from(p.score))),
            );
        }
        scratch.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
        scratch.dedup_by_key(|(doc, _)| *doc);
        for &(doc, score) in scratch.iter() {
            scores.add(doc, score, bit);
        }
    }

    /// Orders documents best first: by score, then name, then description. Scores are finite
    /// sums of finite postings, and two documents equal in all three are interchangeable.
    fn rank(&self, a: u32, b: u32, scores: &[f64]) -> Ordering {
        let (a, b) = (a as usize, b as usize);
        scores[b]
            .total_cmp(&scores[a])
            .then_with(|| self.docs[a].name.cmp(&self.docs[b].name))
            .then_with(|| self.docs[a].description.cmp(&self.docs[b].description))
    }

    fn postings_of(&self, term: usize) -> &[Posting] {
        &self.postings[self.offsets[term]..self.offsets[term + 1]]
    }

    /// How much a query word counts towards coverage: its IDF, or the highest possible IDF for a
    /// word no document has (such a word is as specific as a word can be, and matched nowhere).
    /// A number no document has counts for nothing: quantities ("5 miles") are not topics.
    fn word_weight(&self, word: &str) -> f64 {
        match self.vocabulary.find(word) {
            Some(term) => idf(self.docs.len(), self.postings_of(term).len()),
            None if word.chars().all(|c| c.is_ascii_digit()) => 0.0,
            None => idf(self.docs.len(), 0),
        }
    }
}

/// Per-document running scores of one query.
struct Scores {
    score: Vec<f64>,
    /// The query words each document matched, one bit each.
    matched: Vec<u64>,
    /// The documents with a score, in the order they got one.
    touched: Vec<u32>,
}

impl Scores {
    fn new(documents: usize) -> Self {
        Self {
            score: vec![0.0; documents],
            matched: vec![0; documents],
            touched: Vec::new(),
        }
    }

    /// Adds to a document's score; `covers` (never 0) marks the query words it matched.
    fn add(&mut self, doc: u32, score: f64, covers: u64) {
        let at = doc as usize;
        if self.matched[at] == 0 {
            self.touched.push(doc);
        }
        self.score[at] += score;
        self.matched[at] |= covers;
    }
}

/// BM25's inverse document frequency, in the form that is never negative.
fn idf(documents: usize, containing: usize) -> f64 {
    let (n, df) = (documents as f64, containing as f64);
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// A query as terms to look up.
#[derive(Debug, Default)]
struct Query {
    /// The distinct meaningful words, stemmed; bit `i` of a mask stands for `words[i]`.
    words: Vec<String>,
    /// Compounds and runs of two or three adjacent words written together (`googlesheet`), with
    /// the words each covers; only exact matches count.
    joined: Vec<(String, u64)>,
}

impl Query {
    fn parse(analyzer: &Analyzer, text: &str) -> Self {
        let mut query = Self::default();
        // The current run of adjacent meaningful compounds: each written together, and the
        // words it covers.
        let mut run: Vec<(String, u64)> = Vec::new();
        for compound in compounds(text) {
            let covers = compound
                .parts
                .iter()
                .filter_map(|part| analyzer.term(part))
                .fold(0, |covers, term| covers | query.add_word(term));
            if covers == 0 {
                run.clear();
                continue;
            }
            if compound.parts.len() > 1 {
                query.add_joined(analyzer, &compound.joined(), covers);
            }
            run.push((compound.joined(), covers));
            for n in 2..=run.len().min(3) {
                let tail = &run[run.len() - n..];
                let joined: String = tail.iter().map(|(text, _)| text.as_str()).collect();
                let covers = tail.iter().fold(0, |mask, (_, covers)| mask | covers);
                query.add_joined(analyzer, &joined, covers);
            }
        }
        query
    }

    /// Adds a word (once) and returns its bit; words past [`MAX_QUERY_WORDS`] are ignored.
    fn add_word(&mut self, term: String) -> u64 {
        if let Some(bit) = self.words.iter().position(|word| *word == term) {
            return 1 << bit;
        }
        if self.words.len() == MAX_QUERY_WORDS {
            return 0;
        }
        self.words.push(term);
        1 << (self.words.len() - 1)
    }

    fn add_joined(&mut self, analyzer: &Analyzer, joined: &str, covers: u64) {
        let Some(term) = analyzer.term(joined) else {
            return;
        };
        if self.words.contains(&term) {
            return;
        }
        match self.joined.iter_mut().find(|(known, _)| *known == term) {
            Some((_, known)) => *known |= covers,
            None => self.joined.push((term, covers)),
        }
    }
}

/// Accumulates documents' terms, then lays out the postings.
struct Builder {
    analyzer: Analyzer,
    docs: Vec<StoredDoc>,
    /// Each term and its id, in the order first seen.
    terms: HashMap<Box<str>, u32>,
    /// Each lower-cased word seen so far and its term (`None`: noise), so that a word is
    /// stemmed once.
    words: HashMap<String, Option<u32>>,
    /// Per document, per distinct term, the term's frequency in each field.
    doc_terms: Vec<(u32, u32, [u16; 3])>,
    /// Per document, the number of words in each field.
    lengths: Vec<[u32; 3]>,
    /// Scratch: the current document's (term, field) occurrences.
    occurrences: Vec<(u32, Field)>,
}

impl Builder {
    fn new() -> Self {
        Self {
            analyzer: Analyzer::english(),
            docs: Vec::new(),
            terms: HashMap::new(),
            words: HashMap::new(),
            doc_terms: Vec::new(),
            lengths: Vec::new(),
            occurrences: Vec::new(),
        }
    }

    fn add(&mut self, doc: SearchDocument) {
        let Ok(id) = u32::try_from(self.docs.len()) else {
            return;
        };
        let mut lengths = [0; 3];
        lengths[Field::Name as usize] =
            self.add_name(skillful_core::text::cut(&doc.name, MAX_FIELD_CHARS));
        lengths[Field::Description as usize] = self.add_text(
            skillful_core::text::cut(&doc.description, MAX_FIELD_CHARS),
            Field::Description,
        );
        for heading in doc.headings.iter().take(MAX_HEADINGS) {
            lengths[Field::Headings as usize] += self.add_text(
                skillful_core::text::cut(heading, MAX_FIELD_CHARS),
                Field::Headings,
            );
        }
        self.lengths.push(lengths);
        self.occurrences
            .sort_unstable_by_key(|&(term, field)| (term, field as u8));
        for group in self.occurrences.chunk_by(|a, b| a.0 == b.0) {
            let mut frequencies = [0_u16; 3];
            for &(_, field) in group {
                let slot = &mut frequencies[field as usize];
                *slot = slot.saturating_add(1);
            }
            self.doc_terms.push((id, group[0].0, frequencies));
        }
        self.occurrences.clear();
        self.docs.push(StoredDoc {
            name: doc.name,
            description: doc.description,
        });
    }

    /// Indexes a description or heading: each word, and each compound (`look-and-feel`) also
    /// written together. Returns the number of words.
    fn add_text(&mut self, text: &str, field: Field) -> u32 {
        let mut length = 0;
        for compound in compounds(text) {
            length += self.add_parts(&compound, field);
            if compound.parts.len() > 1 {
                self.add_extra(&compound.joined(), field);
            }
        }
        length
    }

    /// Indexes a name: each word; the whole name written together; each run of two or three
    /// adjacent meaningful words written together; and, for three or more, their initials.
    /// Returns the number of words.
    fn add_name(&mut self, name: &str) -> u32 {
        let compounds = compounds(name);
        let mut length = 0;
        for compound in &compounds {
            length += self.add_parts(compound, Field::Name);
        }
        let parts: Vec<&str> = compounds
            .iter()
            .flat_map(|compound| compound.parts.iter().map(String::as_str))
            .collect();
        let meaningful: Vec<&str> = parts
            .iter()
            .copied()
            .filter(|part| !Analyzer::is_noise(part))
            .collect();
        let mut forms: Vec<String> = (2..=3)
            .flat_map(|n| meaningful.windows(n).map(<[&str]>::concat))
            .collect();
        if parts.len() > 1 {
            forms.push(parts.concat());
        }
        if meaningful.len() >= 3 {
            forms.push(meaningful.iter().filter_map(|p| p.chars().next()).collect());
        }
        // A run can be the whole name again; each form counts once.
        forms.sort_unstable();
        forms.dedup();
        for form in forms {
            self.add_extra(&form, Field::Name);
        }
        length
    }

    fn add_parts(&mut self, compound: &Compound, field: Field) -> u32 {
        let mut length = 0;
        for part in &compound.parts {
            if let Some(term) = self.term_of(part) {
                self.occurrences.push((term, field));
                length += 1;
            }
        }
        length
    }

    /// Indexes a joined form, which does not add to the field's length.
    fn add_extra(&mut self, joined: &str, field: Field) {
        if let Some(term) = self.term_of(joined) {
            self.occurrences.push((term, field));
        }
    }

    fn term_of(&mut self, word: &str) -> Option<u32> {
        if let Some(&term) = self.words.get(word) {
            return term;
        }
        let term = self.analyzer.term(word).and_then(|stem| {
            if let Some(&id) = self.terms.get(stem.as_str()) {
                return Some(id);
            }
            let id = u32::try_from(self.terms.len()).ok()?;
            self.terms.insert(stem.into_boxed_str(), id);
            Some(id)
        });
        self.words.insert(word.to_owned(), term);
        term
    }

    /// Sorts the vocabulary, then lays out each term's postings with their scores.
    fn finish(self) -> SearchIndex {
        let documents = self.docs.len();
        let mut sorted: Vec<(&str, u32)> = self.terms.iter().map(|(t, &id)| (&**t, id)).collect();
        sorted.sort_unstable();
        let mut rank_of = vec![0_usize; sorted.len()];
        let mut vocabulary = Vocabulary {
            text: String::with_capacity(sorted.iter().map(|(t, _)| t.len()).sum()),
            spans: Vec::with_capacity(sorted.len()),
        };
        for (rank, (term, id)) in sorted.into_iter().enumerate() {
            rank_of[id as usize] = rank;
            let start = vocabulary.text.len();
            vocabulary.text.push_str(term);
            vocabulary.spans.push((start, vocabulary.text.len()));
        }

        let mut averages = [0.0_f64; 3];
        for (field, average) in averages.iter_mut().enumerate() {
            let total: u64 = self.lengths.iter().map(|l| u64::from(l[field])).sum();
            *average = total as f64 / documents.max(1) as f64;
        }
        let mut offsets = vec![0_usize; vocabulary.len() + 1];
        for &(_, term, _) in &self.doc_terms {
            offsets[rank_of[term as usize] + 1] += 1;
        }
        for t in 1..offsets.len() {
            offsets[t] += offsets[t - 1];
        }
        let mut next = offsets.clone();
        let mut postings = vec![Posting { doc: 0, score: 0.0 }; self.doc_terms.len()];
        for &(doc, term, frequencies) in &self.doc_terms {
            let term = rank_of[term as usize];
            let weighted = bm25f_frequency(&frequencies, &self.lengths[doc as usize], &averages);
            let containing = offsets[term + 1] - offsets[term];
            let score = idf(documents, containing) * weighted * (K1 + 1.0) / (K1 + weighted);
            postings[next[term]] = Posting {
                doc,
                score: score as f32,
            };
            next[term] += 1;
        }
        SearchIndex {
            analyzer: self.analyzer,
            docs: self.docs,
            vocabulary,
            offsets,
            postings,
        }
    }
}

/// BM25F's pseudo term frequency: each field's frequency, normalised by the field's length
/// against its average and weighted, summed over the fields.
fn bm25f_frequency(frequencies: &[u16; 3], lengths: &[u32; 3], averages: &[f64; 3]) -> f64 {
    (0..3)
        .filter(|&f| frequencies[f] > 0)
        .map(|f| {
            let params = &FIELDS[f];
            // A field no document has words in can still hold a joined form.
            let relative_length = if averages[f] > 0.0 {
                f64::from(lengths[f]) / averages[f]
            } else {
                1.0
            };
            let norm = 1.0 - params.b + params.b * relative_length;
            params.weight * f64::from(frequencies[f]) / norm
        })
        .sum()
}
