//! Search quality on real skills: the names, descriptions and headings of the skills of two
//! public collections and of this repository's examples (`tests/data/search-corpus.json`; the
//! collections' licences are in `tests/data/licenses/`), searched with requests a person would
//! type, written for this test in other words than the descriptions'.
//!
//! The requests come in two files written at different times: `search-queries.json` before the
//! ranking was built (the ranking's features were chosen while looking at its misses) and
//! `search-queries-heldout.json` after, which no change was tuned on since. Each is checked
//! alone and together.
//!
//! `cargo test -p skillful-provider --test it search::quality -- --nocapture --test-threads 1`
//! prints the tables.

use serde::Deserialize;
use skillful_provider::search::{SearchDocument, SearchIndex};

use super::baseline::PlainBm25;

const CORPUS: &str = include_str!("../../data/search-corpus.json");
const TUNING: &str = include_str!("../../data/search-queries.json");
const HELD_OUT: &str = include_str!("../../data/search-queries-heldout.json");

/// The share of requests whose skill must be among the first three hits.
const MIN_RECALL_AT_3: f64 = 0.8;

#[derive(Deserialize)]
struct Corpus {
    skills: Vec<CorpusSkill>,
}

#[derive(Deserialize)]
struct CorpusSkill {
    name: String,
    description: String,
    headings: Vec<String>,
}

#[derive(Deserialize)]
struct Request {
    query: String,
    skill: String,
}

fn corpus(with_headings: bool) -> Vec<SearchDocument> {
    let corpus: Corpus = serde_json::from_str(CORPUS).unwrap();
    corpus
        .skills
        .into_iter()
        .map(|skill| {
            let doc = SearchDocument::new(skill.name, skill.description);
            if with_headings {
                doc.with_headings(skill.headings)
            } else {
                doc
            }
        })
        .collect()
}

/// The evaluation sets by name, and all of them together.
fn request_sets() -> Vec<(&'static str, Vec<Request>)> {
    let tuning: Vec<Request> = serde_json::from_str(TUNING).unwrap();
    let held_out: Vec<Request> = serde_json::from_str(HELD_OUT).unwrap();
    let all = tuning
        .iter()
        .chain(&held_out)
        .map(|r| Request {
            query: r.query.clone(),
            skill: r.skill.clone(),
        })
        .collect();
    vec![("tuning", tuning), ("held out", held_out), ("all", all)]
}

const KS: [usize; 3] = [1, 3, 5];

/// Recall@1, @3 and @5: the share of requests whose skill is among the first k results.
#[derive(Debug, Clone, Copy)]
struct Recall([f64; 3]);

impl Recall {
    fn measure(requests: &[Request], mut ranked: impl FnMut(&str) -> Vec<String>) -> Self {
        let mut found = [0_usize; 3];
        for request in requests {
            let names = ranked(&request.query);
            for (slot, k) in found.iter_mut().zip(KS) {
                if names.iter().take(k).any(|name| *name == request.skill) {
                    *slot += 1;
                }
            }
        }
        Self(found.map(|hits| hits as f64 / requests.len() as f64))
    }

    fn row(self, label: &str) -> String {
        let [r1, r3, r5] = self.0.map(|r| format!("{:.1}%", r * 100.0));
        format!("| {label} | {r1} | {r3} | {r5} |")
    }
}

fn ours(index: &SearchIndex, requests: &[Request]) -> Recall {
    Recall::measure(requests, |query| {
        index
            .search(query, 5)
            .into_iter()
            .map(|hit| hit.name)
            .collect()
    })
}

fn baseline(index: &PlainBm25, requests: &[Request]) -> Recall {
    Recall::measure(requests, |query| {
        index
            .search(query, 5)
            .into_iter()
            .map(str::to_owned)
            .collect()
    })
}

#[test]
fn the_evaluation_sets_are_large_and_every_label_is_a_skill_of_the_corpus() {
    let docs = corpus(false);
    let sets = request_sets();
    let (_, all) = sets.last().unwrap();
    assert!(all.len() >= 60, "only {} requests", all.len());
    for request in all {
        assert!(
            docs.iter().any(|doc| doc.name == request.skill),
            "{:?} is labelled with the unknown skill {}",
            request.query,
            request.skill
        );
    }
}

#[test]
fn the_right_skill_is_in_the_top_three_for_most_requests_and_never_less_often_than_bm25() {
    let docs = corpus(false);
    let plain = PlainBm25::new(
        docs.iter()
            .map(|d| (d.name.as_str(), d.description.as_str())),
    );
    let without_headings = SearchIndex::new(docs.clone());
    let with_headings = SearchIndex::new(corpus(true));
    for (set, requests) in request_sets() {
        let baseline = baseline(&plain, &requests);
        let rows = [
            (
                "SearchIndex, name + description",
                ours(&without_headings, &requests),
            ),
            (
                "SearchIndex, name + description + headings",
                ours(&with_headings, &requests),
            ),
        ];
        println!(
            "\n{set}: {} requests over {} skills",
            requests.len(),
            docs.len()
        );
        println!("| ranking | recall@1 | recall@3 | recall@5 |\n|---|---|---|---|");
        println!(
            "{}",
            baseline.row("plain BM25 (k1 1.5, b 0.75), name + description")
        );
        for (label, recall) in rows {
            println!("{}", recall.row(label));
        }
        for (label, recall) in rows {
            for ((k, ours), theirs) in KS.into_iter().zip(recall.0).zip(baseline.0) {
                assert!(
                    ours >= theirs,
                    "{set}: recall@{k} of {label} is {ours}, below plain BM25's {theirs}"
                );
            }
            if set == "all" {
                let at3 = recall.0[1];
                assert!(
                    at3 >= MIN_RECALL_AT_3,
                    "{set}: recall@3 of {label} is {at3}"
                );
            }
        }
    }
}

#[test]
fn a_first_hit_not_marked_low_confidence_is_right_more_often_than_one_marked() {
    let sets = request_sets();
    let (_, all) = sets.last().unwrap();
    for with_headings in [false, true] {
        let index = SearchIndex::new(corpus(with_headings));
        // [marked low confidence][right]
        let mut counts = [[0_u32; 2]; 2];
        for request in all {
            if let Some(first) = index.search(&request.query, 5).first() {
                counts[usize::from(first.low_confidence)]
                    [usize::from(first.name == request.skill)] += 1;
            }
        }
        let precision = |[wrong, right]: [u32; 2]| f64::from(right) / f64::from(right + wrong);
        let (confident, weak) = (precision(counts[0]), precision(counts[1]));
        println!(
            "headings: {with_headings}: first hits confident {}/{} right ({:.0}%), marked low \
             confidence {}/{} right ({:.0}%)",
            counts[0][1],
            counts[0][0] + counts[0][1],
            confident * 100.0,
            counts[1][1],
            counts[1][0] + counts[1][1],
            weak * 100.0
        );
        assert!(counts[0][1] > 0 && counts[1][0] > 0, "{counts:?}");
        assert!(confident > weak, "{counts:?}");
    }
}
