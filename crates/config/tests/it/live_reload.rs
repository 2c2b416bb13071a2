//! `Composition::watch`: the composition's file skills kept live with a real watcher on real
//! directories; precedence and enable/disable still apply to what was reloaded, and a burst of
//! writes is one reload (counted by the reloads' generation, not timed).

use std::fs;
use std::path::Path;
use std::time::Duration;

use skillful_config::{Composition, Environment, SkillsConfig};
use skillful_core::SourceContext;
use skillful_watch::Reload;
use tokio::sync::watch;

/// How long a test waits for something the watcher must bring about.
const BOUND: Duration = Duration::from_secs(20);

fn write_skill(root: &Path, name: &str, description: &str) {
    let dir = root.join(name);
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\nBody.\n"),
    )
    .unwrap();
}

async fn active(composition: &Composition) -> Vec<(String, String)> {
    composition
        .load(&SourceContext::default())
        .await
        .unwrap()
        .active()
        .iter()
        .map(|skill| {
            (
                skill.frontmatter().name.clone(),
                skill.frontmatter().description.clone(),
            )
        })
        .collect()
}

async fn next_reload(reloads: &mut watch::Receiver<Reload>) -> Reload {
    tokio::time::timeout(BOUND, reloads.changed())
        .await
        .expect("a reload within the bound")
        .unwrap();
    reloads.borrow_and_update().clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn added_changed_and_removed_skills_show_at_the_next_load_with_precedence_kept() {
    let temp = tempfile::tempdir().unwrap();
    let (first, second) = (temp.path().join("first"), temp.path().join("second"));
    fs::create_dir_all(&first).unwrap();
    fs::create_dir_all(&second).unwrap();
    write_skill(&second, "shared", "From the second root.");
    let composition = SkillsConfig::new(Environment::under(temp.path().join("env")))
        .root(&first)
        .root(&second)
        .disable("off")
        .build()
        .unwrap();
    let watched = composition.watch().await;
    // Watching again gives the same watcher.
    assert!(std::sync::Arc::ptr_eq(&watched, &composition.watch().await));
    let mut reloads = watched.reloads();
    assert_eq!(
        active(&composition).await,
        [("shared".into(), "From the second root.".into())]
    );

    // Added in the root of higher precedence: it shadows the other at once.
    write_skill(&first, "shared", "From the first root.");
    next_reload(&mut reloads).await;
    assert_eq!(
        active(&composition).await,
        [("shared".into(), "From the first root.".into())]
    );

    write_skill(&first, "shared", "Changed in the first root.");
    let reload = next_reload(&mut reloads).await;
    assert_eq!(reload.changed, ["shared"]);
    assert_eq!(
        active(&composition.clone()).await,
        [("shared".into(), "Changed in the first root.".into())]
    );

    // A disabled skill stays disabled when it appears.
    write_skill(&first, "off", "Disabled for this composition.");
    next_reload(&mut reloads).await;
    assert_eq!(
        active(&composition).await,
        [("shared".into(), "Changed in the first root.".into())]
    );

    fs::remove_dir_all(first.join("shared")).unwrap();
    let reload = next_reload(&mut reloads).await;
    assert_eq!(reload.removed, ["shared"]);
    assert_eq!(
        active(&composition).await,
        [("shared".into(), "From the second root.".into())]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_burst_of_a_thousand_file_writes_is_one_reload() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    fs::create_dir_all(&root).unwrap();
    let composition = SkillsConfig::new(Environment::under(temp.path().join("env")))
        .root(&root)
        .build()
        .unwrap();
    // A long quiet period and deadline: the whole burst lands inside one debounce window.
    let watched = composition
        .watch_with(|builder| {
            builder
                .debounce(Duration::from_millis(500))
                .max_delay(Duration::from_secs(60))
        })
        .await;
    let mut reloads = watched.reloads();

    for i in 0..250 {
        let name = format!("skill-{i:03}");
        write_skill(&root, &name, "Burst.");
        for file in ["a.md", "b.md", "c.md"] {
            fs::write(root.join(&name).join(file), "x").unwrap();
        }
    }
    let reload = next_reload(&mut reloads).await;
    assert_eq!(reload.generation, 1, "the burst was more than one reload");
    assert_eq!(reload.added.len(), 250);
    assert_eq!(active(&composition).await.len(), 250);
    // Loading read the watched skills: no further reload was caused, and none was pending.
    assert_eq!(watched.reloads().borrow().generation, 1);
}
