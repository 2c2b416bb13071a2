//! The listing budget: fair shortening, omission order, the note, byte stability, and the
//! `search_skills` tool that finds what the listing leaves out.

use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use serde_json::{Value, json};
use skillful_core::{Scope, Skill, SkillError, SkillsSource, SourceContext};
use skillful_inline::InlineSkillsSource;
use skillful_provider::{
    Listing, MIN_DESCRIPTION_CHARS, SkillsProvider, ToolErrorCode, ToolKind,
    listing_budget_for_context_window,
};

use crate::common::{TestSkill, call, expect_error, expect_text, inline, run_of};

/// A skill called `name` in `scope` with `description`.
fn scoped(name: &str, description: &str, scope: Scope) -> Arc<dyn Skill> {
    let mut skill = TestSkill::new(name);
    skill.frontmatter.description = description.to_owned();
    skill.origin = skill.origin.with_scope(scope);
    Arc::new(skill)
}

fn skill(name: &str, description: &str) -> Arc<dyn Skill> {
    scoped(name, description, Scope::Explicit)
}

fn provider_with(
    skills: Vec<Arc<dyn Skill>>,
    configure: impl FnOnce(
        skillful_provider::SkillsProviderBuilder,
    ) -> skillful_provider::SkillsProviderBuilder,
) -> SkillsProvider {
    let source = Arc::new(InlineSkillsSource::from_skills(skills));
    configure(SkillsProvider::builder(source)).build().unwrap()
}

/// The skills part of a catalog: what is between `<available_skills>` and its end tag.
fn listing_text(instructions: &str) -> &str {
    let start = instructions.find("<available_skills>\n").unwrap() + "<available_skills>\n".len();
    let end = instructions.find("\n</available_skills>").unwrap();
    &instructions[start..end]
}

/// The names and descriptions listed, in order.
fn listed(instructions: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = listing_text(instructions).lines().collect();
    lines
        .windows(2)
        .filter_map(|pair| {
            let name = pair[0]
                .strip_prefix("    <name>")?
                .strip_suffix("</name>")?;
            let description = pair[1]
                .strip_prefix("    <description>")?
                .strip_suffix("</description>")?;
            Some((name.to_owned(), description.to_owned()))
        })
        .collect()
}

fn names(instructions: &str) -> Vec<String> {
    listed(instructions)
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

/// `n` skills `skill-000` ... with descriptions of `chars` characters.
fn many(n: usize, chars: usize) -> Vec<Arc<dyn Skill>> {
    (0..n)
        .map(|i| skill(&format!("skill-{i:03}"), &"d".repeat(chars)))
        .collect()
}

async fn catalog(provider: &SkillsProvider) -> (String, Listing, Vec<ToolKind>) {
    let run = run_of(provider).await;
    let tools = run.tools().iter().map(|tool| tool.kind()).collect();
    (run.instructions().unwrap().to_owned(), run.listing(), tools)
}

#[test]
fn the_budget_for_a_context_window_is_two_percent_at_four_characters_a_token() {
    assert_eq!(listing_budget_for_context_window(128_000), 10_240);
    assert_eq!(listing_budget_for_context_window(100_000), 8_000);
    assert_eq!(listing_budget_for_context_window(0), 0);
    assert_eq!(
        listing_budget_for_context_window(usize::MAX),
        usize::MAX / 100
    );
}

#[tokio::test]
async fn the_default_budget_is_8000_characters_and_context_window_sets_it() {
    let default = provider_with(many(1, 10), |builder| builder);
    assert_eq!(catalog(&default).await.1.budget, 8_000);
    let window = provider_with(many(1, 10), |builder| builder.context_window(50_000));
    assert_eq!(catalog(&window).await.1.budget, 4_000);
    let last_wins = provider_with(many(1, 10), |builder| {
        builder.context_window(50_000).listing_budget(123)
    });
    assert_eq!(catalog(&last_wins).await.1.budget, 123);
}

#[tokio::test]
async fn a_listing_that_fits_exactly_is_the_reference_catalog_and_offers_three_tools() {
    let skills = vec![
        skill("pdf", "Fills PDF forms & more."),
        skill("unit-converter", "Converts units."),
    ];
    let unlimited = provider_with(skills.clone(), |builder| builder.listing_budget(usize::MAX));
    let (reference, listing, tools) = catalog(&unlimited).await;
    assert_eq!(listing.chars, listing_text(&reference).chars().count());
    assert!(!listing.is_cut());
    assert_eq!(tools, ToolKind::ALL[..3]);

    let exact = provider_with(skills, |builder| builder.listing_budget(listing.chars));
    let (instructions, exact_listing, tools) = catalog(&exact).await;
    assert_eq!(instructions, reference);
    assert_eq!(
        (
            exact_listing.listed,
            exact_listing.shortened,
            exact_listing.omitted
        ),
        (2, 0, 0)
    );
    assert_eq!(tools, ToolKind::ALL[..3]);
}

#[tokio::test]
async fn descriptions_are_shortened_fairly_longest_first_to_the_largest_common_length() {
    let long = "L".repeat(300);
    let medium = "M".repeat(200);
    let short = "S".repeat(50);
    let skills = vec![skill("a", &long), skill("b", &medium), skill("c", &short)];
    let full = catalog(&provider_with(skills.clone(), |b| {
        b.listing_budget(usize::MAX)
    }))
    .await
    .1
    .chars;
    // Room for everything but 250 characters of description, and the note.
    let budget = full - 250;
    let (instructions, listing, tools) =
        catalog(&provider_with(skills, |b| b.listing_budget(budget))).await;
    let listed = listed(&instructions);
    let lengths: Vec<usize> = listed.iter().map(|(_, d)| d.chars().count()).collect();
    // Both long ones are cut to the same length, which the short one is under.
    assert_eq!(lengths[0], lengths[1]);
    assert!(lengths[0] < 200 && lengths[0] >= MIN_DESCRIPTION_CHARS);
    assert_eq!(listed[2].1, short);
    assert!(listed[0].1.ends_with('\u{2026}') && listed[1].1.ends_with('\u{2026}'));
    assert!(long.starts_with(listed[0].1.trim_end_matches('\u{2026}')));
    assert_eq!(
        (listing.listed, listing.shortened, listing.omitted),
        (3, 2, 0)
    );
    assert_eq!(listing.chars, listing_text(&instructions).chars().count());
    assert!(listing.chars <= budget);
    // The largest length that fits: one more character for each cut description would not.
    assert!(listing.chars + 2 > budget);
    assert!(listing_text(&instructions).ends_with(
        "(Descriptions ending in \u{2026} are shortened; `search_skills` returns them in full.)"
    ));
    assert_eq!(tools, ToolKind::ALL[..4]);
}

#[tokio::test]
async fn only_descriptions_over_the_common_length_are_cut() {
    let skills = vec![
        skill("a", &"A".repeat(400)),
        skill("b", &"B".repeat(90)),
        skill("c", &"C".repeat(80)),
    ];
    let full = catalog(&provider_with(skills.clone(), |b| {
        b.listing_budget(usize::MAX)
    }))
    .await
    .1
    .chars;
    let (instructions, listing, _) =
        catalog(&provider_with(skills, |b| b.listing_budget(full - 200))).await;
    let lengths: Vec<usize> = listed(&instructions)
        .iter()
        .map(|(_, d)| d.chars().count())
        .collect();
    assert_eq!(lengths[1..], [90, 80]);
    assert!(lengths[0] > 90 && lengths[0] < 400);
    assert_eq!(listing.shortened, 1);
}

#[tokio::test]
async fn descriptions_never_go_below_the_minimum_skills_are_left_out_instead() {
    let (instructions, listing, tools) =
        catalog(&provider_with(many(40, 500), |b| b.listing_budget(2_000))).await;
    assert!(listing.omitted > 0);
    assert_eq!(listing.listed + listing.omitted, 40);
    for (_, description) in listed(&instructions) {
        assert!(description.chars().count() >= MIN_DESCRIPTION_CHARS);
    }
    assert!(listing.chars <= 2_000);
    assert_eq!(listing.chars, listing_text(&instructions).chars().count());
    assert_eq!(tools, ToolKind::ALL[..4]);
}

#[tokio::test]
async fn skills_are_left_out_lowest_priority_first_named_then_scope_then_name() {
    let description = "x".repeat(40);
    let skills = vec![
        scoped("admin-a", &description, Scope::Admin),
        scoped("user-b", &description, Scope::User),
        scoped("user-a", &description, Scope::User),
        scoped("project-z", &description, Scope::Project),
        scoped("explicit-y", &description, Scope::Explicit),
        scoped("admin-named", &description, Scope::Admin),
        scoped("user-named", &description, Scope::User),
    ];
    // The cost of one entry, from a catalog of one.
    let one = catalog(&provider_with(vec![skills[0].clone()], |b| {
        b.listing_budget(usize::MAX)
    }))
    .await
    .1
    .chars;
    let kept = |count: usize| {
        let skills = skills.clone();
        async move {
            // Room for `count` entries and the note, not for one more.
            let budget = count * (one + 1) + 240;
            let provider = provider_with(skills, |b| {
                b.listing_budget(budget)
                    .list_first(["user-named", "no-such-skill", "admin-named"])
            });
            let (instructions, listing, _) = catalog(&provider).await;
            assert_eq!(listing.listed, count, "{instructions}");
            names(&instructions)
        }
    };
    assert_eq!(kept(2).await, ["admin-named", "user-named"]);
    assert_eq!(
        kept(4).await,
        ["admin-named", "explicit-y", "project-z", "user-named"]
    );
    assert_eq!(
        kept(5).await,
        [
            "admin-named",
            "explicit-y",
            "project-z",
            "user-a",
            "user-named"
        ]
    );
}

#[tokio::test]
async fn the_note_says_how_many_skills_are_not_listed_and_names_search_skills() {
    let (instructions, listing, _) =
        catalog(&provider_with(many(100, 30), |b| b.listing_budget(1_000))).await;
    let text = listing_text(&instructions);
    let note = text.lines().last().unwrap();
    assert_eq!(
        note,
        format!(
            "  ({} more skills are not listed here. To find skills for a task, call `search_skills` with a few words about it; `load_skill` takes any skill's exact name, listed or not.)",
            listing.omitted
        )
    );
    assert_eq!(listing.listed + listing.omitted, 100);

    // Names are never shortened: a long one is what a budget leaves out alone.
    let skills = vec![
        skill("a", "A."),
        skill("b", "B."),
        skill(&"z".repeat(400), "Z."),
    ];
    let (instructions, listing, _) =
        catalog(&provider_with(skills, |b| b.listing_budget(600))).await;
    assert_eq!((listing.listed, listing.omitted), (2, 1));
    assert!(
        listing_text(&instructions).ends_with("  (1 more skill is not listed here. To find skills for a task, call `search_skills` with a few words about it; `load_skill` takes any skill's exact name, listed or not.)")
    );
}

#[tokio::test]
async fn a_budget_too_small_for_any_skill_still_has_the_note() {
    let (instructions, listing, _) =
        catalog(&provider_with(many(3, 30), |b| b.listing_budget(0))).await;
    assert_eq!(listing.listed, 0);
    assert_eq!(listing.omitted, 3);
    assert!(listing_text(&instructions).starts_with("  (3 more skills are not listed here."));
}

#[tokio::test]
async fn the_same_skills_and_settings_give_the_same_bytes_whatever_the_order() {
    let mut skills: Vec<Arc<dyn Skill>> = (0..60)
        .map(|i| {
            let scope = [Scope::Admin, Scope::User, Scope::Project][i % 3];
            scoped(
                &format!("s{:02}", (i * 37) % 60),
                &format!("Does thing {i} & <more> {}", "words ".repeat(i % 20)),
                scope,
            )
        })
        .collect();
    let budget = |b: skillful_provider::SkillsProviderBuilder| {
        b.listing_budget(3_000).list_first(["s07", "s42"])
    };
    let provider = provider_with(skills.clone(), budget);
    let first = catalog(&provider).await.0;
    assert_eq!(catalog(&provider).await.0, first);
    skills.reverse();
    assert_eq!(
        catalog(&provider_with(skills.clone(), budget)).await.0,
        first
    );
    skills.rotate_left(17);
    assert_eq!(catalog(&provider_with(skills, budget)).await.0, first);
}

#[tokio::test]
async fn search_skills_is_always_available_and_offered_when_asked() {
    let provider = provider_with(many(2, 10), |b| b);
    let run = run_of(&provider).await;
    assert_eq!(run.tools().len(), 3);
    let search = run.tool("search_skills").unwrap();
    assert_eq!(search.kind(), ToolKind::SearchSkills);
    assert!(search.is_read_only());
    assert_eq!(
        search.risk_tier(&json!({"query": "x"})),
        skillful_core::RiskTier::Read
    );
    let always = provider_with(many(2, 10), |b| b.always_offer_search(true));
    let kinds: Vec<ToolKind> = run_of(&always)
        .await
        .tools()
        .iter()
        .map(|tool| tool.kind())
        .collect();
    assert_eq!(kinds, ToolKind::ALL[..4]);
    let schema = search.parameters();
    assert_eq!(schema["required"], json!(["query"]));
    assert_eq!(schema["properties"]["limit"]["maximum"], 20);
    assert_eq!(schema["properties"]["limit"]["default"], 5);
}

/// A library of 30 skills of which the budget lists few, with a name holding spaces.
fn library() -> Vec<Arc<dyn Skill>> {
    let mut skills = many(30, 200);
    let mut invoices = TestSkill::new("Invoice Maker")
        .text("references/template.md", "Invoice template")
        .script("scripts/make.py", None);
    // The machine's: listed after everyone else's.
    invoices.origin = invoices.origin.with_scope(Scope::Admin);
    skills.push(Arc::new(invoices));
    skills.push(skill(
        "zz-pdf-forms",
        "Fills in PDF forms and merges PDF files.",
    ));
    skills
}

#[tokio::test]
async fn skills_left_out_of_the_listing_stay_loadable_readable_and_runnable_by_name() {
    let provider = provider_with(library(), |b| b.listing_budget(1_500));
    let run = run_of(&provider).await;
    let instructions = run.instructions().unwrap();
    assert!(!names(instructions).contains(&"Invoice Maker".to_owned()));
    assert!(run.listing().omitted > 0);
    let loaded = expect_text(call(&run, "load_skill", json!({"skillName": "Invoice Maker"})).await);
    assert!(loaded.contains("Content of Invoice Maker."));
    let read = expect_text(
        call(
            &run,
            "read_skill_resource",
            json!({"skillName": "Invoice Maker", "resourceName": "references/template.md"}),
        )
        .await,
    );
    assert_eq!(read, "Invoice template");
    let ran = expect_text(
        call(
            &run,
            "run_skill_script",
            json!({"skillName": "Invoice Maker", "scriptName": "scripts/make.py", "arguments": ["x"]}),
        )
        .await,
    );
    assert_eq!(ran, r#"ran with ["x"]"#);
}

#[tokio::test]
async fn what_the_model_calls_leaves_the_catalog_as_it_was() {
    let provider = provider_with(library(), |b| b.listing_budget(1_500));
    let first = catalog(&provider).await.0;
    let run = run_of(&provider).await;
    for (tool, arguments) in [
        ("load_skill", json!({"skillName": "Invoice Maker"})),
        (
            "read_skill_resource",
            json!({"skillName": "Invoice Maker", "resourceName": "references/template.md"}),
        ),
        (
            "run_skill_script",
            json!({"skillName": "Invoice Maker", "scriptName": "scripts/make.py", "arguments": ["x"]}),
        ),
        ("search_skills", json!({"query": "fill a pdf form"})),
        ("load_skill", json!({"skillName": "no-such-skill"})),
    ] {
        call(&run, tool, arguments).await;
    }
    assert_eq!(run.instructions().unwrap(), first);
    assert_eq!(catalog(&provider).await.0, first);
}

fn hits(text: &str) -> Vec<Value> {
    serde_json::from_str::<Value>(text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[tokio::test]
async fn search_skills_finds_skills_that_are_not_listed_with_their_full_description() {
    let provider = provider_with(library(), |b| b.listing_budget(1_500));
    let run = run_of(&provider).await;
    assert!(!names(run.instructions().unwrap()).contains(&"zz-pdf-forms".to_owned()));
    let text = expect_text(call(&run, "search_skills", json!({"query": "fill a pdf form"})).await);
    let found = hits(&text);
    assert_eq!(found[0]["name"], "zz-pdf-forms");
    assert_eq!(
        found[0]["description"],
        "Fills in PDF forms and merges PDF files."
    );
    assert!(found[0]["score"].as_f64().unwrap() > 0.0);
    let spaced = expect_text(call(&run, "search_skills", json!({"query": "invoice maker"})).await);
    assert_eq!(hits(&spaced)[0]["name"], "Invoice Maker");
    // The same query gives the same bytes.
    let again = expect_text(call(&run, "search_skills", json!({"query": "fill a pdf form"})).await);
    assert_eq!(again, text);
}

#[tokio::test]
async fn search_skills_limits_default_to_5_and_stop_at_20_and_nothing_matching_is_an_empty_array() {
    let provider = provider_with(many(30, 20), |b| b);
    let run = run_of(&provider).await;
    // Every description is "ddd...", so the query matches every skill.
    let query = "d".repeat(20);
    let count = |arguments: Value| {
        let run = &run;
        async move { hits(&expect_text(call(run, "search_skills", arguments).await)).len() }
    };
    assert_eq!(count(json!({"query": query})).await, 5);
    assert_eq!(count(json!({"query": query, "limit": 7})).await, 7);
    assert_eq!(count(json!({"query": query, "limit": 500})).await, 20);
    assert_eq!(count(json!({"query": query, "limit": 0})).await, 1);
    let nothing = call(&run, "search_skills", json!({"query": "zebra migration"})).await;
    assert_eq!(expect_text(nothing), "[]");
}

#[tokio::test]
async fn search_skills_refuses_a_missing_or_blank_query_and_a_bad_limit() {
    let provider = provider_with(many(2, 10), |b| b);
    let run = run_of(&provider).await;
    for arguments in [json!({}), json!({"query": "  "}), json!(null)] {
        let error = expect_error(call(&run, "search_skills", arguments).await);
        assert_eq!(error.code, ToolErrorCode::InvalidArguments);
        assert_eq!(error.message, "Error: Query cannot be empty.");
    }
    let error = expect_error(call(&run, "search_skills", json!({"query": "x", "limit": -1})).await);
    assert_eq!(error.code, ToolErrorCode::InvalidArguments);
    let from_string = call(&run, "search_skills", json!(r#"{"query": "skill"}"#)).await;
    assert!(!from_string.is_error());
}

/// A source whose skills the test replaces between runs.
#[derive(Debug, Default)]
struct Changing(Mutex<Vec<Arc<dyn Skill>>>);

#[async_trait::async_trait]
impl SkillsSource for Changing {
    async fn skills(&self, _: &SourceContext) -> Result<Vec<Arc<dyn Skill>>, SkillError> {
        Ok(self.0.lock().unwrap().clone())
    }
}

#[tokio::test]
async fn the_search_index_follows_the_skills_when_they_change() {
    let source = Arc::new(Changing::default());
    *source.0.lock().unwrap() = vec![Arc::new(inline("pdf-tools", "Fills PDF forms."))];
    let provider = SkillsProvider::new(source.clone());
    let search = |run: skillful_provider::RunContext, query: &'static str| async move {
        hits(&expect_text(
            call(&run, "search_skills", json!({"query": query})).await,
        ))
        .iter()
        .map(|hit| hit["name"].as_str().unwrap().to_owned())
        .collect::<Vec<_>>()
    };
    assert_eq!(
        search(run_of(&provider).await, "pdf form").await,
        ["pdf-tools"]
    );
    assert!(
        search(run_of(&provider).await, "spreadsheet")
            .await
            .is_empty()
    );
    *source.0.lock().unwrap() = vec![
        Arc::new(inline("pdf-tools", "Fills PDF forms.")),
        Arc::new(inline("sheets", "Cleans a spreadsheet.")),
    ];
    assert_eq!(
        search(run_of(&provider).await, "spreadsheet").await,
        ["sheets"]
    );
    // A changed description is searched too.
    *source.0.lock().unwrap() = vec![Arc::new(inline("pdf-tools", "Resizes images."))];
    assert_eq!(
        search(run_of(&provider).await, "resize images").await,
        ["pdf-tools"]
    );
    assert!(
        search(run_of(&provider).await, "spreadsheet")
            .await
            .is_empty()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever the descriptions (entities included) and the budget, the reported size is the
    /// listing's, within the budget unless only the note is left, and every skill is listed or
    /// counted as left out.
    #[test]
    fn the_listing_is_within_its_budget_and_counts_right(
        descriptions in proptest::collection::vec("[a-z &<>'\"é]{0,300}", 1..25),
        budget in 0usize..6_000,
    ) {
        let skills: Vec<Arc<dyn Skill>> = descriptions
            .iter()
            .enumerate()
            .map(|(i, description)| skill(&format!("s{i:02}"), description))
            .collect();
        let total = skills.len();
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let (instructions, listing, _) = runtime
            .block_on(async { catalog(&provider_with(skills, |b| b.listing_budget(budget))).await });
        let text = listing_text(&instructions);
        prop_assert_eq!(listing.chars, text.chars().count());
        prop_assert_eq!(listing.listed + listing.omitted, total);
        prop_assert_eq!(listing.listed, names(&instructions).len());
        if listing.listed > 0 {
            prop_assert!(listing.chars <= budget, "{} > {}", listing.chars, budget);
        }
        for (_, description) in listed(&instructions) {
            if description.ends_with('\u{2026}') {
                prop_assert!(description.chars().count() >= MIN_DESCRIPTION_CHARS);
            }
        }
    }
}

#[tokio::test]
async fn skills_whose_names_look_the_same_are_told_apart_in_the_catalog() {
    let cyrillic = "pdf-t\u{43e}\u{43e}ls";
    let provider = provider_with(
        vec![
            skill("pdf-tools", "Merges PDF files."),
            skill(cyrillic, "Merges PDF files (really)."),
            skill("sheets", "Cleans spreadsheets."),
        ],
        |builder| builder,
    );
    let (instructions, listing, _) = catalog(&provider).await;
    let text = listing_text(&instructions);
    assert!(
        text.contains(
            "    <name>pdf-tools</name>\n    <description>Merges PDF files.</description>\n    <lookalike>This name is spelled `pdf-tools`: it is not `pdf-t[U+043E][U+043E]ls`, whose name looks the same.</lookalike>\n  </skill>"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "    <lookalike>This name is spelled `pdf-t[U+043E][U+043E]ls`: it is not `pdf-tools`, whose name looks the same.</lookalike>"
        ),
        "{text}"
    );
    // A name without a look-alike is written as the reference writes it.
    assert!(text.contains(
        "    <name>sheets</name>\n    <description>Cleans spreadsheets.</description>\n  </skill>"
    ));
    // The line counts against the listing budget like the rest of the entry.
    assert_eq!(listing.chars, text.chars().count());
}

#[tokio::test]
async fn a_runs_tools_work_on_the_skills_its_catalog_was_made_from() {
    let source = Arc::new(Changing::default());
    *source.0.lock().unwrap() = vec![Arc::new(inline("pdf-tools", "Fills PDF forms."))];
    let provider = SkillsProvider::new(source.clone());
    let run = run_of(&provider).await;

    // The source changes after the run's catalog was made: the run's tools keep its skills.
    *source.0.lock().unwrap() = vec![Arc::new(inline("sheets", "Cleans a spreadsheet."))];
    let loaded = expect_text(call(&run, "load_skill", json!({"skillName": "pdf-tools"})).await);
    assert!(loaded.contains("Instructions of pdf-tools."), "{loaded}");
    let error = expect_error(call(&run, "load_skill", json!({"skillName": "sheets"})).await);
    assert_eq!(error.code, ToolErrorCode::SkillNotFound);

    // The next run is made from the skills of its moment.
    let next = run_of(&provider).await;
    assert_eq!(names(next.instructions().unwrap()), ["sheets"]);
    expect_text(call(&next, "load_skill", json!({"skillName": "sheets"})).await);
}
