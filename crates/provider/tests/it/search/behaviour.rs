//! What `SearchIndex::search` promises, on small hand-made skill sets: determinism, empty and
//! weak results, the word splitting, stemming and joining, the name boost, limits, and the JSON
//! the `search_skills` tool shows.

use proptest::prelude::*;
use serde_json::json;
use skillful_provider::search::{
    DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, SearchDocument, SearchHit, SearchIndex,
    clamp_search_limit,
};

fn doc(name: &str, description: &str) -> SearchDocument {
    SearchDocument::new(name, description)
}

fn names(hits: &[SearchHit]) -> Vec<&str> {
    hits.iter().map(|hit| hit.name.as_str()).collect()
}

/// A small library whose skills share some words, so that rankings have something to decide.
fn library() -> Vec<SearchDocument> {
    vec![
        doc("pdf-tools", "Splits, merges and fills PDF forms."),
        doc(
            "spreadsheet-cleaner",
            "Removes duplicate rows and fixes dates in spreadsheets.",
        ),
        doc(
            "release-notes",
            "Writes release notes from merged pull requests.",
        ),
        doc(
            "GoogleSheets",
            "Reads and updates cells of online workbooks.",
        ),
        doc(
            "image_resizer",
            "Shrinks photos for the web and converts them to WebP.",
        ),
        doc(
            "test-driven-development",
            "Write the failing check first, then the code.",
        ),
        doc(
            "log-triage",
            "Groups debug output by error and finds the first failure.",
        ),
        doc(
            "invoice maker",
            "Creates invoices as PDF files from a list of items.",
        ),
    ]
}

#[test]
fn the_same_documents_and_query_give_the_same_hits_whatever_the_order_of_the_documents() {
    let forward = SearchIndex::new(library());
    let mut reversed_docs = library();
    reversed_docs.reverse();
    let reversed = SearchIndex::new(reversed_docs);
    let mut rotated_docs = library();
    rotated_docs.rotate_left(3);
    let rotated = SearchIndex::new(rotated_docs);
    for query in [
        "merge pdf",
        "fix the spreadsheet dates",
        "write notes for the release",
        "pdf",
        "google sheets cells",
        "debug failure",
    ] {
        let first = forward.search(query, 20);
        assert!(!first.is_empty(), "{query}");
        assert_eq!(
            forward.search(query, 20),
            first,
            "{query}: a second search differs"
        );
        assert_eq!(
            reversed.search(query, 20),
            first,
            "{query}: reversed documents differ"
        );
        assert_eq!(
            rotated.search(query, 20),
            first,
            "{query}: rotated documents differ"
        );
    }
}

#[test]
fn an_index_can_be_shared_between_threads() {
    fn shareable<T: Send + Sync + 'static>(_: &T) {}
    shareable(&SearchIndex::new(library()));
}

#[test]
fn equal_scores_are_ordered_by_name() {
    let docs = || {
        vec![
            doc("zeta", "Formats tables."),
            doc("alpha", "Formats tables."),
            doc("mid", "Formats tables."),
        ]
    };
    let mut reversed = docs();
    reversed.reverse();
    for index in [SearchIndex::new(docs()), SearchIndex::new(reversed)] {
        let hits = index.search("format a table", 5);
        assert_eq!(names(&hits), ["alpha", "mid", "zeta"]);
        assert!(hits.iter().all(|hit| hit.score == hits[0].score));
    }
}

#[test]
fn hits_are_best_first_and_at_most_the_limit() {
    let index = SearchIndex::new(library());
    let hits = index.search("pdf", 20);
    assert_eq!(names(&hits), ["pdf-tools", "invoice maker"]);
    assert!(hits[0].score > hits[1].score);
    assert_eq!(names(&index.search("pdf", 1)), ["pdf-tools"]);
    assert!(index.search("pdf", 0).is_empty());
}

#[test]
fn a_query_that_matches_nothing_returns_no_hits_rather_than_a_guess() {
    let index = SearchIndex::new(library());
    for query in [
        "xyzzy plugh frobnicate",
        "",
        "   \t\n",
        "!!! ??? ...",
        "how do I do it with the",
        "42",
    ] {
        assert_eq!(index.search(query, 5), [], "{query:?}");
    }
    assert_eq!(SearchIndex::new([]).search("pdf", 5), []);
}

#[test]
fn a_hit_that_matches_little_of_the_query_is_marked_low_confidence() {
    let index = SearchIndex::new(library());
    let strong = index.search("merge pdf forms", 5);
    assert_eq!(strong[0].name, "pdf-tools");
    assert!(!strong[0].low_confidence, "{strong:?}");

    // Only "pdf" of five rare words occurs anywhere.
    let weak = index.search("notarize quarterly pdf affidavits kubernetes", 5);
    assert_eq!(weak[0].name, "pdf-tools");
    assert!(weak.iter().all(|hit| hit.low_confidence), "{weak:?}");
}

#[test]
fn a_hit_scoring_far_below_the_best_is_marked_low_confidence() {
    let index = SearchIndex::new(library());
    // The others match one word each ("pdf", "merged").
    let hits = index.search("split merge fill pdf forms", 5);
    assert_eq!(
        names(&hits),
        ["pdf-tools", "invoice maker", "release-notes"]
    );
    assert!(!hits[0].low_confidence);
    assert!(hits[1..].iter().all(|hit| hit.low_confidence), "{hits:?}");
}

#[test]
fn adjacent_query_words_match_a_name_written_as_one_word() {
    let index = SearchIndex::new([
        doc(
            "googlesheets",
            "Reads and updates cells of online workbooks.",
        ),
        doc("sheet-music", "Typesets scores for choirs."),
        doc("search-engine", "Looks things up on Google."),
    ]);
    let hits = index.search("Google Sheets", 5);
    assert_eq!(hits[0].name, "googlesheets", "{hits:?}");
    // And the other way round: one query word for a name written in parts.
    let index = SearchIndex::new([
        doc(
            "google-sheets",
            "Reads and updates cells of online workbooks.",
        ),
        doc("calendar", "Books meetings."),
    ]);
    assert_eq!(names(&index.search("googlesheets", 5)), ["google-sheets"]);
}

#[test]
fn camel_case_hyphens_and_underscores_split_words_in_names_and_queries() {
    let index = SearchIndex::new(library());
    assert_eq!(index.search("sheets", 5)[0].name, "GoogleSheets");
    assert_eq!(index.search("resizer", 5)[0].name, "image_resizer");
    assert_eq!(index.search("triage", 5)[0].name, "log-triage");
    assert_eq!(index.search("imageResizer", 5)[0].name, "image_resizer");
    assert_eq!(index.search("log_triage", 5)[0].name, "log-triage");
    assert_eq!(index.search("INVOICE-MAKER", 5)[0].name, "invoice maker");
}

#[test]
fn inflections_match_through_stemming_and_abbreviations_through_prefixes() {
    let index = SearchIndex::new(library());
    // "debugging" and "debug", "failures" and "failure", "invoicing" and "invoices".
    assert_eq!(index.search("debugging failures", 5)[0].name, "log-triage");
    assert_eq!(index.search("invoicing", 5)[0].name, "invoice maker");
    // "spreadsh" abbreviates "spreadsheets", and "evals" abbreviates "evaluations".
    assert_eq!(index.search("spreadsh", 5)[0].name, "spreadsheet-cleaner");
    let index = SearchIndex::new([
        doc("grader", "Runs evals of prompts."),
        doc("linter", "Checks style."),
    ]);
    assert_eq!(names(&index.search("evaluations", 5)), ["grader"]);
}

#[test]
fn a_long_name_is_also_found_by_its_initials() {
    let index = SearchIndex::new(library());
    assert_eq!(index.search("TDD", 5)[0].name, "test-driven-development");
}

#[test]
fn a_word_in_the_name_counts_more_than_the_same_word_in_the_description() {
    let index = SearchIndex::new([
        doc("notes", "Formats any text as a list of points."),
        doc("formatter", "Formats any text as a list of notes."),
    ]);
    assert_eq!(names(&index.search("notes", 5)), ["notes", "formatter"]);
}

#[test]
fn headings_help_but_count_less_than_the_description() {
    let with_heading = SearchIndex::new([
        doc("reviewer", "Reads changes and comments on them.").with_headings(["Security audit"]),
        doc("auditor", "Runs a security audit of dependencies."),
        doc("linter", "Checks style."),
    ]);
    assert_eq!(
        names(&with_heading.search("security audit", 5)),
        ["auditor", "reviewer"]
    );
    assert!(with_heading.search("linter audit", 5)[0].name == "linter");
}

#[test]
fn a_hit_serialises_as_the_tool_shows_it() {
    let confident = SearchHit {
        name: "pdf tools".into(),
        description: "Splits PDFs.".into(),
        score: 1.5,
        low_confidence: false,
    };
    assert_eq!(
        serde_json::to_value(&confident).unwrap(),
        json!({"name": "pdf tools", "description": "Splits PDFs.", "score": 1.5})
    );
    let weak = SearchHit {
        low_confidence: true,
        ..confident
    };
    assert_eq!(
        serde_json::to_value(&weak).unwrap(),
        json!({"name": "pdf tools", "description": "Splits PDFs.", "score": 1.5, "low_confidence": true})
    );
}

#[test]
fn hits_carry_the_name_and_the_whole_description_as_given() {
    let description = format!("Fills PDF forms. {}", "More detail. ".repeat(500));
    let index = SearchIndex::new([doc("My PDF Skill", &description)]);
    let hits = index.search("pdf", 5);
    assert_eq!(hits[0].name, "My PDF Skill");
    assert_eq!(hits[0].description, description);
}

#[test]
fn the_tool_limit_defaults_to_five_and_is_clamped_to_one_through_twenty() {
    assert_eq!(DEFAULT_SEARCH_LIMIT, 5);
    assert_eq!(MAX_SEARCH_LIMIT, 20);
    assert_eq!(clamp_search_limit(None), 5);
    assert_eq!(clamp_search_limit(Some(0)), 1);
    assert_eq!(clamp_search_limit(Some(7)), 7);
    assert_eq!(clamp_search_limit(Some(21)), 20);
    assert_eq!(clamp_search_limit(Some(u64::MAX)), 20);
}

#[test]
fn huge_fields_and_queries_are_bounded_not_fatal() {
    let huge = "word ".repeat(200_000);
    let index = SearchIndex::new([
        doc(&huge, &huge).with_headings(vec![huge.clone(); 1_000]),
        doc("pdf-tools", "Splits PDF files."),
    ]);
    let hits = index.search(&format!("pdf {}", "zzz ".repeat(100_000)), 5);
    assert!(hits.len() == 1 && hits[0].name == "pdf-tools");
    assert!(index.search("word", 5)[0].name.len() == huge.len());
    // Only the first 1,024 characters of a query are read.
    assert!(
        index
            .search(&format!("{} pdf", "zzz ".repeat(256)), 5)
            .is_empty()
    );
    assert!(
        !index
            .search(&format!("{} pdf", "zzz ".repeat(255)), 5)
            .is_empty()
    );
}

proptest! {
    #[test]
    fn any_text_indexes_and_searches_without_panicking(
        docs in proptest::collection::vec((any::<String>(), any::<String>(), proptest::collection::vec(any::<String>(), 0..3)), 0..8),
        query in any::<String>(),
        limit in 0_usize..25,
    ) {
        let index = SearchIndex::new(docs.into_iter().map(|(name, description, headings)| {
            SearchDocument::new(name, description).with_headings(headings)
        }));
        let hits = index.search(&query, limit);
        prop_assert!(hits.len() <= limit);
        prop_assert!(hits.windows(2).all(|pair| pair[0].score >= pair[1].score));
        prop_assert!(hits.iter().all(|hit| hit.score.is_finite() && hit.score > 0.0));
    }

    #[test]
    fn a_document_is_found_by_any_word_of_its_name(
        words in proptest::collection::vec("[a-z]{5,9}", 1..4),
        separator in prop::sample::select(vec!["-", "_", " "]),
    ) {
        let name = words.join(separator);
        let index = SearchIndex::new([
            SearchDocument::new(name.clone(), "A skill."),
            SearchDocument::new("other", "Something unrelated."),
        ]);
        for word in &words {
            let hits = index.search(word, 5);
            prop_assert!(hits.iter().any(|hit| hit.name == name), "{} not found by {}", name, word);
        }
    }
}
