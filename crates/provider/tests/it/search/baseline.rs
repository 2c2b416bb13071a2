//! The plain BM25 the ranking must not fall below: k1 1.5, b 0.75, one field of name and
//! description, lower-cased words split at anything that is not a letter or digit, no stemming,
//! no stop words. For comparison only; not part of the library.

use std::collections::HashMap;

const K1: f64 = 1.5;
const B: f64 = 0.75;

fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Documents as bags of words, and each word's document frequency.
pub(crate) struct PlainBm25 {
    names: Vec<String>,
    frequencies: Vec<HashMap<String, usize>>,
    lengths: Vec<usize>,
    average_length: f64,
    containing: HashMap<String, usize>,
}

impl PlainBm25 {
    pub(crate) fn new<'a>(docs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut index = Self {
            names: Vec::new(),
            frequencies: Vec::new(),
            lengths: Vec::new(),
            average_length: 0.0,
            containing: HashMap::new(),
        };
        for (name, description) in docs {
            let words = tokens(&format!("{name} {description}"));
            let mut frequencies = HashMap::new();
            for word in &words {
                *frequencies.entry(word.clone()).or_insert(0) += 1;
            }
            for word in frequencies.keys() {
                *index.containing.entry(word.clone()).or_insert(0) += 1;
            }
            index.names.push(name.to_owned());
            index.lengths.push(words.len());
            index.frequencies.push(frequencies);
        }
        index.average_length =
            index.lengths.iter().sum::<usize>() as f64 / index.names.len().max(1) as f64;
        index
    }

    /// The names of the `limit` best documents with a positive score, best first, ties by name.
    pub(crate) fn search(&self, query: &str, limit: usize) -> Vec<&str> {
        let n = self.names.len() as f64;
        let query = tokens(query);
        let mut scored: Vec<(f64, &str)> = (0..self.names.len())
            .map(|doc| {
                let length_norm = 1.0 - B + B * self.lengths[doc] as f64 / self.average_length;
                let score = query
                    .iter()
                    .filter_map(|word| {
                        let tf = *self.frequencies[doc].get(word)? as f64;
                        let df = self.containing[word] as f64;
                        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                        Some(idf * tf * (K1 + 1.0) / (tf + K1 * length_norm))
                    })
                    .sum();
                (score, self.names[doc].as_str())
            })
            .filter(|(score, _)| *score > 0.0)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        scored
            .into_iter()
            .take(limit)
            .map(|(_, name)| name)
            .collect()
    }
}
