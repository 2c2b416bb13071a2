//! Live reload with a real file watcher on real directories: added, changed and removed skills,
//! a burst of changes, polling, and a root that appears later.

use std::fs;
use std::path::Path;
use std::time::Duration;

use skillful_core::{SkillsSource, SourceContext};
use skillful_discovery::FileSkillsSource;
use skillful_watch::{Reload, WatchedSource, Watching};
use tokio::sync::watch;

/// Long enough for a loaded machine; the tests wait for events, they do not time them.
const PATIENCE: Duration = Duration::from_secs(20);

fn write_skill(root: &Path, name: &str, description: &str) {
    let dir = root.join(name);
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\nDo it.\n"),
    )
    .unwrap();
}

async fn names(source: &WatchedSource) -> Vec<String> {
    source
        .skills(&SourceContext::default())
        .await
        .unwrap()
        .iter()
        .map(|skill| skill.frontmatter().name.clone())
        .collect()
}

/// The next reload announced on `reloads`.
async fn next_reload(reloads: &mut watch::Receiver<Reload>) -> Reload {
    tokio::time::timeout(PATIENCE, reloads.changed())
        .await
        .expect("a reload within the patience")
        .unwrap();
    reloads.borrow_and_update().clone()
}

async fn watched(
    root: &Path,
    configure: impl FnOnce(skillful_watch::WatchedSourceBuilder) -> skillful_watch::WatchedSourceBuilder,
) -> WatchedSource {
    let files = FileSkillsSource::builder().root(root).build().unwrap();
    configure(WatchedSource::builder(files).debounce(Duration::from_millis(50)))
        .start()
        .await
}

#[tokio::test(flavor = "multi_thread")]
async fn added_changed_and_removed_skills_take_effect_at_the_next_call() {
    let root = tempfile::tempdir().unwrap();
    write_skill(root.path(), "alpha", "First.");
    let source = watched(root.path(), |b| b).await;
    assert_eq!(source.watching(), [Watching::Native]);
    assert_eq!(names(&source).await, ["alpha"]);
    let mut reloads = source.reloads();

    write_skill(root.path(), "beta", "Second.");
    let reload = next_reload(&mut reloads).await;
    assert_eq!(
        (reload.generation, reload.added.as_slice()),
        (1, ["beta".to_owned()].as_slice())
    );
    assert_eq!(names(&source).await, ["alpha", "beta"]);

    write_skill(root.path(), "alpha", "First, edited.");
    let reload = next_reload(&mut reloads).await;
    assert_eq!(reload.changed, ["alpha"]);
    let skills = source.skills(&SourceContext::default()).await.unwrap();
    assert_eq!(skills[0].frontmatter().description, "First, edited.");

    fs::remove_dir_all(root.path().join("beta")).unwrap();
    let reload = next_reload(&mut reloads).await;
    assert_eq!(reload.removed, ["beta"]);
    assert_eq!(names(&source).await, ["alpha"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_burst_of_a_thousand_files_gives_one_reload() {
    let root = tempfile::tempdir().unwrap();
    let files = FileSkillsSource::builder()
        .root(root.path())
        .build()
        .unwrap();
    let source = WatchedSource::builder(files)
        .debounce(Duration::from_millis(500))
        .max_delay(Duration::from_secs(30))
        .start()
        .await;
    let mut reloads = source.reloads();

    for i in 0..500 {
        let name = format!("skill-{i:03}");
        write_skill(root.path(), &name, "Burst.");
        fs::write(root.path().join(&name).join("notes.md"), "x").unwrap();
    }
    let reload = next_reload(&mut reloads).await;
    assert_eq!(reload.generation, 1);
    assert_eq!(reload.added.len(), 500);
    // Nothing more comes: the burst was one reload.
    let more = tokio::time::timeout(Duration::from_secs(2), reloads.changed()).await;
    assert!(more.is_err(), "a second reload: {:?}", reloads.borrow());
    assert_eq!(names(&source).await.len(), 500);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_polled_root_reloads_too() {
    let root = tempfile::tempdir().unwrap();
    write_skill(root.path(), "alpha", "First.");
    let source = watched(root.path(), |b| {
        b.polling(true).poll_interval(Duration::from_millis(100))
    })
    .await;
    assert_eq!(source.watching(), [Watching::Polling]);
    let mut reloads = source.reloads();

    write_skill(root.path(), "beta", "Second.");
    assert_eq!(next_reload(&mut reloads).await.added, ["beta"]);
    fs::remove_dir_all(root.path().join("alpha")).unwrap();
    assert_eq!(next_reload(&mut reloads).await.removed, ["alpha"]);
    assert_eq!(names(&source).await, ["beta"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_root_that_cannot_be_watched_yet_is_looked_for_and_watched_once_it_exists() {
    let parent = tempfile::tempdir().unwrap();
    let root = parent.path().join("skills");
    let source = watched(&root, |b| b.poll_interval(Duration::from_millis(100))).await;
    assert_eq!(source.watching(), [Watching::Missing]);
    assert!(names(&source).await.is_empty());
    let mut reloads = source.reloads();

    write_skill(&root, "alpha", "First.");
    assert_eq!(next_reload(&mut reloads).await.added, ["alpha"]);
    assert_eq!(source.watching(), [Watching::Native]);
    write_skill(&root, "beta", "Second.");
    assert_eq!(next_reload(&mut reloads).await.added, ["beta"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn reading_the_skills_does_not_trigger_a_reload() {
    let root = tempfile::tempdir().unwrap();
    write_skill(root.path(), "alpha", "First.");
    fs::write(root.path().join("alpha/notes.md"), "x").unwrap();
    let source = watched(root.path(), |b| b).await;
    let mut reloads = source.reloads();
    for skill in source.skills(&SourceContext::default()).await.unwrap() {
        skill.document().await.unwrap();
        for resource in skill.resources() {
            resource.read().await.unwrap();
        }
    }
    let reload = tokio::time::timeout(Duration::from_secs(1), reloads.changed()).await;
    assert!(
        reload.is_err(),
        "reads caused a reload: {:?}",
        reloads.borrow()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_skill_of_a_name_kept_as_a_duplicate_is_a_change() {
    let (first, second) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write_skill(second.path(), "shared", "From the second root.");
    let files = FileSkillsSource::builder()
        .root(first.path())
        .root(second.path())
        .keep_duplicates(true)
        .build()
        .unwrap();
    let source = WatchedSource::builder(files)
        .debounce(Duration::from_millis(50))
        .start()
        .await;
    let mut reloads = source.reloads();

    write_skill(first.path(), "shared", "From the first root.");
    let reload = next_reload(&mut reloads).await;
    assert_eq!(reload.added, ["shared"]);
    assert_eq!(names(&source).await, ["shared", "shared"]);

    fs::remove_dir_all(second.path().join("shared")).unwrap();
    let reload = next_reload(&mut reloads).await;
    assert_eq!(reload.removed, ["shared"]);
    assert_eq!(names(&source).await, ["shared"]);
}

/// A host on a single-threaded runtime that blocks it (reading stdin between turns) never runs
/// the reloading task meanwhile; the next call must still wait for the change the watcher's
/// thread heard of, not answer from the skills it made stale.
#[test]
fn a_change_heard_while_the_runtime_was_blocked_is_waited_for() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let root = tempfile::tempdir().unwrap();
        let source = watched(root.path(), |builder| builder).await;
        assert!(names(&source).await.is_empty());
        write_skill(
            root.path(),
            "late",
            "Written while the runtime was blocked.",
        );
        // Blocks the only thread of the runtime, which is what is under test (a host reading
        // stdin between turns): the watcher's own thread hears of the change within this bound,
        // the reloading task cannot run.
        std::thread::sleep(Duration::from_secs(2));
        assert_eq!(names(&source).await, ["late"]);
    });
}

/// Files that never stop changing under a root (a build, a log) must not starve a caller: each
/// call takes the next reload that started after it arrived, and sees a change reloaded before.
#[tokio::test(flavor = "multi_thread")]
async fn calls_are_answered_under_continuous_churn_and_see_earlier_changes() {
    let root = tempfile::tempdir().unwrap();
    write_skill(root.path(), "alpha", "First.");
    fs::create_dir(root.path().join("build")).unwrap();
    let source = watched(root.path(), |builder| {
        builder.max_delay(Duration::from_millis(300))
    })
    .await;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let churn = {
        let (stop, log) = (std::sync::Arc::clone(&stop), root.path().join("build/log"));
        std::thread::spawn(move || {
            let mut round = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                fs::write(&log, round.to_string()).unwrap();
                round += 1;
                std::thread::sleep(Duration::from_millis(2));
            }
        })
    };
    let mut reloads = source.reloads();
    for round in 0..5 {
        let name = format!("added-{round}");
        write_skill(root.path(), &name, "Added under churn.");
        // The churn changes no skill: the next reload announced is the one that added it.
        assert_eq!(
            next_reload(&mut reloads).await.added,
            std::slice::from_ref(&name)
        );
        let names = tokio::time::timeout(PATIENCE, names(&source))
            .await
            .expect("an answer while the files keep changing");
        assert!(names.contains(&name), "{names:?}");
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    churn.join().unwrap();
}
