//! The source pipeline: aggregate, cache, filter, dedupe, and the builder composing them; the
//! rule of names they follow.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use skillful_core::{Scope, Skill, SkillError, SkillOrigin, SkillsSource, SourceContext};
use skillful_inline::{
    AggregatingSource, CachingSource, DEFAULT_CACHED_KEYS, DedupingSource, InlineSkill,
    InlineSkillsSource, Precedence, Rank, SkillsSourceBuilder,
};
use tokio::task::JoinSet;

/// An inline skill with only the required parts.
fn inline(name: &str, description: &str) -> InlineSkill {
    InlineSkill::builder(name, description)
        .instructions(format!("Instructions of {name}."))
        .build()
        .unwrap()
}

type Answer =
    dyn Fn(&SourceContext, usize) -> Result<Vec<Arc<dyn Skill>>, SkillError> + Send + Sync;

/// A source that counts its calls, takes a second to answer, and answers with `answer(context,
/// call number)`.
struct CountingSource {
    calls: AtomicUsize,
    answer: Box<Answer>,
}

impl std::fmt::Debug for CountingSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CountingSource")
            .field("calls", &self.calls)
            .finish()
    }
}

impl CountingSource {
    fn new(
        answer: impl Fn(&SourceContext, usize) -> Result<Vec<Arc<dyn Skill>>, SkillError>
        + Send
        + Sync
        + 'static,
    ) -> Arc<Self> {
        Arc::new(Self {
            calls: AtomicUsize::new(0),
            answer: Box::new(answer),
        })
    }

    /// Answers with one skill named after the isolation key (or `shared`) and the call number.
    fn named_by_key() -> Arc<Self> {
        Self::new(|context, call| {
            let key = context.isolation_key.as_deref().unwrap_or("shared");
            Ok(vec![
                Arc::new(inline(&format!("{key}-{call}"), "Counted.")) as Arc<dyn Skill>
            ])
        })
    }

    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl SkillsSource for CountingSource {
    async fn skills(&self, context: &SourceContext) -> Result<Vec<Arc<dyn Skill>>, SkillError> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        // A slow source, under test (the cache's single flight): the tests run on paused time,
        // so this second passes only when every other task waits, with no real waiting.
        tokio::time::sleep(Duration::from_secs(1)).await;
        (self.answer)(context, call)
    }
}

fn fixed(skills: &[(&str, &str)]) -> Arc<dyn SkillsSource> {
    Arc::new(InlineSkillsSource::new(
        skills
            .iter()
            .map(|(name, description)| inline(name, description)),
    ))
}

async fn names(source: &dyn SkillsSource, context: &SourceContext) -> Vec<String> {
    let skills = source.skills(context).await.unwrap();
    skills
        .iter()
        .map(|skill| skill.frontmatter().name.clone())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn the_cache_reaches_the_inner_source_once_under_concurrency() {
    let inner = CountingSource::named_by_key();
    let cache = Arc::new(CachingSource::new(inner.clone()));
    let mut callers = JoinSet::new();
    for _ in 0..10 {
        let cache = Arc::clone(&cache);
        callers.spawn(async move { names(cache.as_ref(), &SourceContext::default()).await });
    }
    let results = callers.join_all().await;
    assert_eq!(inner.calls(), 1);
    assert_eq!(results.len(), 10);
    assert!(results.iter().all(|names| names == &["shared-1"]));
}

#[tokio::test(start_paused = true)]
async fn a_failure_is_not_cached() {
    let inner = CountingSource::new(|_, call| match call {
        1 => Err(SkillError::Other("index unavailable".into())),
        _ => Ok(vec![Arc::new(inline("late", "Arrived.")) as Arc<dyn Skill>]),
    });
    let cache = CachingSource::new(inner.clone());
    let context = SourceContext::default();
    assert_eq!(
        cache.skills(&context).await.unwrap_err().to_string(),
        "index unavailable"
    );
    assert_eq!(names(&cache, &context).await, ["late"]);
    assert_eq!(names(&cache, &context).await, ["late"]);
    assert_eq!(inner.calls(), 2);
}

#[tokio::test(start_paused = true)]
async fn each_isolation_key_has_its_own_entry() {
    let inner = CountingSource::named_by_key();
    let cache = CachingSource::new(inner.clone());
    let (alice, bob, shared) = (
        SourceContext::isolated("alice"),
        SourceContext::isolated("bob"),
        SourceContext::default(),
    );
    assert_eq!(names(&cache, &alice).await, ["alice-1"]);
    assert_eq!(names(&cache, &bob).await, ["bob-2"]);
    assert_eq!(names(&cache, &shared).await, ["shared-3"]);
    assert_eq!(names(&cache, &alice).await, ["alice-1"]);
    assert_eq!(names(&cache, &bob).await, ["bob-2"]);
    assert_eq!(inner.calls(), 3);
}

#[tokio::test(start_paused = true)]
async fn the_cache_forgets_the_least_recently_used_isolation_key_past_its_capacity() {
    // One session per isolation key, as a server that isolates each session does: the cache
    // must not keep a full skill list for every session it ever saw.
    let inner = CountingSource::named_by_key();
    let cache = CachingSource::new(inner.clone());
    let first = SourceContext::isolated("session-0");
    assert_eq!(names(&cache, &first).await, ["session-0-1"]);
    for session in 1..=DEFAULT_CACHED_KEYS {
        names(
            &cache,
            &SourceContext::isolated(format!("session-{session}")),
        )
        .await;
    }
    let calls = DEFAULT_CACHED_KEYS + 1;
    assert_eq!(inner.calls(), calls);
    // The most recent key is still served from memory; the first one was forgotten.
    let last = SourceContext::isolated(format!("session-{DEFAULT_CACHED_KEYS}"));
    assert_eq!(
        names(&cache, &last).await,
        [format!("session-{DEFAULT_CACHED_KEYS}-{calls}")]
    );
    assert_eq!(inner.calls(), calls);
    assert_eq!(
        names(&cache, &first).await,
        [format!("session-0-{}", calls + 1)]
    );
}

#[tokio::test(start_paused = true)]
async fn a_used_key_is_kept_over_one_left_unused() {
    let inner = CountingSource::named_by_key();
    let cache = CachingSource::new(inner.clone()).capacity(2);
    let (alice, bob, carol) = (
        SourceContext::isolated("alice"),
        SourceContext::isolated("bob"),
        SourceContext::isolated("carol"),
    );
    names(&cache, &alice).await;
    names(&cache, &bob).await;
    names(&cache, &alice).await;
    names(&cache, &carol).await;
    assert_eq!(inner.calls(), 3);
    assert_eq!(names(&cache, &alice).await, ["alice-1"]);
    assert_eq!(names(&cache, &bob).await, ["bob-4"]);
}

#[tokio::test(start_paused = true)]
async fn a_result_is_fetched_afresh_once_the_refresh_interval_has_passed() {
    let inner = CountingSource::named_by_key();
    let cache = CachingSource::new(inner.clone()).refresh_every(Duration::from_secs(60));
    let context = SourceContext::default();
    assert_eq!(names(&cache, &context).await, ["shared-1"]);
    tokio::time::advance(Duration::from_secs(58)).await;
    assert_eq!(names(&cache, &context).await, ["shared-1"]);
    tokio::time::advance(Duration::from_secs(2)).await;
    assert_eq!(names(&cache, &context).await, ["shared-2"]);
    assert_eq!(inner.calls(), 2);
}

#[tokio::test(start_paused = true)]
async fn without_a_refresh_interval_the_cache_never_expires() {
    let inner = CountingSource::named_by_key();
    let cache = CachingSource::new(inner.clone());
    let context = SourceContext::default();
    names(&cache, &context).await;
    tokio::time::advance(Duration::from_secs(365 * 24 * 3600)).await;
    assert_eq!(names(&cache, &context).await, ["shared-1"]);
    assert_eq!(inner.calls(), 1);
}

#[tokio::test]
async fn dedupe_keeps_the_first_of_each_name_ignoring_case() {
    let aggregate = AggregatingSource::new([
        fixed(&[("pdf", "first"), ("docx", "only")]),
        fixed(&[("PDF", "second"), ("Pdf", "third")]),
    ]);
    let dedupe = DedupingSource::new(Arc::new(aggregate));
    let skills = dedupe.skills(&SourceContext::default()).await.unwrap();
    let kept: Vec<(&str, &str)> = skills
        .iter()
        .map(|skill| {
            (
                skill.frontmatter().name.as_str(),
                skill.frontmatter().description.as_str(),
            )
        })
        .collect();
    assert_eq!(kept, [("pdf", "first"), ("docx", "only")]);
}

#[tokio::test(start_paused = true)]
async fn aggregate_keeps_registration_order_and_fails_when_a_source_fails() {
    let context = SourceContext::default();
    let aggregate =
        AggregatingSource::new([fixed(&[("b", "B."), ("a", "A.")]), fixed(&[("c", "C.")])]);
    assert_eq!(names(&aggregate, &context).await, ["b", "a", "c"]);
    let failing = CountingSource::new(|_, _| Err(SkillError::Other("down".into())));
    let aggregate = AggregatingSource::new([fixed(&[("a", "A.")]), failing]);
    assert_eq!(
        aggregate.skills(&context).await.unwrap_err().to_string(),
        "down"
    );
}

#[tokio::test]
async fn filter_keeps_the_skills_the_predicate_accepts() {
    let filter = DedupingSource::new(fixed(&[
        ("keep-a", "A."),
        ("drop-b", "B."),
        ("keep-c", "C."),
    ]))
    .filter(|skill| skill.frontmatter().name.starts_with("keep-"));
    assert_eq!(
        names(&filter, &SourceContext::default()).await,
        ["keep-a", "keep-c"]
    );
}

/// An inline skill of `scope`, as a host that reads several scopes would make it.
fn scoped(name: &str, description: &str, scope: Scope) -> Arc<dyn Skill> {
    Arc::new(inline(name, description).with_origin(SkillOrigin::inline().with_scope(scope)))
}

#[tokio::test(start_paused = true)]
async fn aggregate_puts_a_higher_scope_first_and_so_its_skill_wins_the_name() {
    // The composition's precedence, in the library's pipeline too: a user skill registered
    // before an explicit one of the same name is still shadowed by it.
    let user: Arc<dyn SkillsSource> = Arc::new(InlineSkillsSource::from_skills([
        scoped("notes", "The user's.", Scope::User),
        scoped("admin-only", "The machine's.", Scope::Admin),
    ]));
    let explicit: Arc<dyn SkillsSource> = Arc::new(InlineSkillsSource::from_skills([scoped(
        "Notes",
        "The run's.",
        Scope::Explicit,
    )]));
    let context = SourceContext::default();
    let aggregate = AggregatingSource::new([Arc::clone(&user), Arc::clone(&explicit)]);
    assert_eq!(
        names(&aggregate, &context).await,
        ["Notes", "notes", "admin-only"]
    );
    let pipeline = SkillsSourceBuilder::new()
        .source(user)
        .source(explicit)
        .build();
    let skills = pipeline.skills(&context).await.unwrap();
    let offered: Vec<&str> = skills.iter().map(|skill| skill.description()).collect();
    assert_eq!(offered, ["The run's.", "The machine's."]);
}

#[test]
fn a_ranking_leaves_the_filtered_out_claiming_nothing_and_says_who_shadows() {
    let skill =
        |name: &str, description: &str| -> Arc<dyn Skill> { Arc::new(inline(name, description)) };
    let (disabled, first, later, other) = (
        skill("pdf", "Disabled."),
        skill("Pdf", "First."),
        skill("PDF", "Later."),
        skill("docx", "Other."),
    );
    let precedence = Precedence::new().hint("list them all to see both");
    let mut ranking = precedence.ranking();
    assert!(!ranking.is_taken("pdf"));
    assert!(matches!(
        ranking.rank(&disabled, "pdf", Err("the user's settings")),
        Rank::LeftOut("the user's settings")
    ));
    assert!(!ranking.is_taken("PDF"));
    assert!(matches!(
        ranking.rank(&first, "Pdf", Ok::<(), &str>(())),
        Rank::Offered
    ));
    assert!(ranking.is_taken("pDF"));
    match ranking.rank(&later, "PDF", Ok::<(), &str>(())) {
        Rank::Shadowed { by_name, by } => {
            assert_eq!(by_name, "Pdf");
            assert_eq!(by.description(), "First.");
        }
        rank => panic!("{rank:?}"),
    }
    assert!(matches!(
        ranking.rank(&other, "docx", Ok::<(), &str>(())),
        Rank::Offered
    ));
    // Each list is ranked afresh: nothing is taken in a new ranking.
    assert!(!precedence.ranking().is_taken("pdf"));
}

#[tokio::test(start_paused = true)]
async fn the_builder_aggregates_caches_filters_then_dedupes() {
    let counted = CountingSource::named_by_key();
    let pipeline = SkillsSourceBuilder::new()
        .source(fixed(&[("tool", "draft"), ("guide", "First guide.")]))
        .source(fixed(&[("Tool", "Released."), ("GUIDE", "Second guide.")]))
        .source(counted.clone())
        .filter(|skill| skill.frontmatter().description != "draft")
        .cache()
        .build();
    let context = SourceContext::default();
    // The draft `tool` is filtered out before dedupe, so the released `Tool` is not hidden by it.
    let expected = ["guide", "Tool", "shared-1"];
    assert_eq!(names(pipeline.as_ref(), &context).await, expected);
    assert_eq!(names(pipeline.as_ref(), &context).await, expected);
    assert_eq!(counted.calls(), 1);
}

#[tokio::test(start_paused = true)]
async fn the_builder_without_cache_asks_every_time_and_refresh_implies_cache() {
    let counted = CountingSource::named_by_key();
    let uncached = SkillsSourceBuilder::new().source(counted.clone()).build();
    names(uncached.as_ref(), &SourceContext::default()).await;
    names(uncached.as_ref(), &SourceContext::default()).await;
    assert_eq!(counted.calls(), 2);

    let counted = CountingSource::named_by_key();
    let refreshed = SkillsSourceBuilder::new()
        .source(counted.clone())
        .refresh_every(Duration::from_secs(10))
        .build();
    names(refreshed.as_ref(), &SourceContext::default()).await;
    names(refreshed.as_ref(), &SourceContext::default()).await;
    assert_eq!(counted.calls(), 1);
    tokio::time::advance(Duration::from_secs(10)).await;
    assert_eq!(
        names(refreshed.as_ref(), &SourceContext::default()).await,
        ["shared-2"]
    );
}

#[tokio::test]
async fn several_filters_must_all_hold_and_no_source_gives_no_skills() {
    let pipeline = SkillsSourceBuilder::new()
        .source(fixed(&[("a1", "x"), ("a2", "y"), ("b1", "x")]))
        .filter(|skill| skill.frontmatter().name.starts_with('a'))
        .filter(|skill| skill.frontmatter().description == "x")
        .build();
    assert_eq!(
        names(pipeline.as_ref(), &SourceContext::default()).await,
        ["a1"]
    );
    let empty = SkillsSourceBuilder::new().build();
    assert!(
        names(empty.as_ref(), &SourceContext::default())
            .await
            .is_empty()
    );
}
