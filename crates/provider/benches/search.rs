//! `SearchIndex` (the `search_skills` ranking) on generated skills of 1,000 and 10,000 skills.
//!
//! The skills are the ones `../shared/bench/make_corpus.py` writes (the same names, descriptions
//! and `Usage` heading), generated here in memory because only their text matters:
//!
//! - `search_build`: `SearchIndex::new` over every skill;
//! - `search_query`: 3-word queries; `all_match` is matched by every skill (the worst case: all
//!   postings are read and ranked), `one_best` by one skill best and by every skill in part.
//!
//! Criterion's reported median is the p50.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use skillful_provider::search::{SearchDocument, SearchIndex};

const SIZES: [usize; 2] = [1_000, 10_000];

/// The frontmatter text of make_corpus.py's skill number `i`.
fn synthetic_skill(i: usize) -> SearchDocument {
    SearchDocument::new(
        format!("skill-{i:05}"),
        format!(
            "Skill number {i}: converts, checks and reports values for domain {}.",
            i % 97
        ),
    )
    .with_headings(["Usage"])
}

fn corpus(skills: usize) -> Vec<SearchDocument> {
    (0..skills).map(synthetic_skill).collect()
}

fn build(c: &mut Criterion) {
    let mut group = c.benchmark_group("search_build");
    for skills in SIZES {
        let docs = corpus(skills);
        group.throughput(Throughput::Elements(skills as u64));
        group.bench_with_input(BenchmarkId::from_parameter(skills), &docs, |b, docs| {
            b.iter_batched(
                || docs.clone(),
                |docs| SearchIndex::new(black_box(docs)),
                criterion::BatchSize::LargeInput,
            );
        });
    }
    group.finish();
}

fn query(c: &mut Criterion) {
    let mut group = c.benchmark_group("search_query");
    for skills in SIZES {
        let index = SearchIndex::new(corpus(skills));
        for (label, query) in [
            ("all_match", "check domain values"),
            ("one_best", "skill number 42"),
        ] {
            assert!(!index.search(query, 5).is_empty(), "{query} finds nothing");
            group.bench_with_input(BenchmarkId::new(label, skills), &query, |b, query| {
                b.iter(|| index.search(black_box(query), 5));
            });
        }
    }
    group.finish();
}

criterion_group!(benches, build, query);
criterion_main!(benches);
