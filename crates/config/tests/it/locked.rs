//! Skills covered by a lock at load time: a real `skills-lock.json` written by
//! `skillful-install`, real files changed under it, and the digest cache in the user's cache
//! directory (stamps first: an unchanged tree is not read again).

use std::fs;
use std::path::Path;

use skillful_config::{Environment, ListedSkill, Loaded, Settings, SkillsConfig, Status};
use skillful_core::SourceContext;
use skillful_install::{Installer, Selection, Source};

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A temporary world with `demo` and `other` installed (and locked) into `home/.agents/skills`
/// from a local directory, and `loose` there too, not locked.
fn world() -> (tempfile::TempDir, std::path::PathBuf) {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().canonicalize().unwrap();
    for name in ["demo", "other"] {
        write(
            &root.join(format!("src/{name}/SKILL.md")),
            &format!("---\nname: {name}\ndescription: The {name} skill.\n---\nBody.\n"),
        );
        write(&root.join(format!("src/{name}/references/a.md")), "A\n");
    }
    let skills = root.join("home/.agents/skills");
    let installer = Installer::new(&skills);
    let prepared = installer
        .prepare(Source::Local(root.join("src")), &Selection::default())
        .unwrap();
    installer.install(&prepared, false).unwrap();
    write(
        &skills.join("loose/SKILL.md"),
        "---\nname: loose\ndescription: Not from a lock.\n---\n",
    );
    (temp, root)
}

async fn load(root: &Path, locked: bool) -> Loaded {
    SkillsConfig::new(Environment::under(root))
        .root(root.join("home/.agents/skills"))
        .locked(locked)
        .build()
        .unwrap()
        .load(&SourceContext::default())
        .await
        .unwrap()
}

fn status<'a>(loaded: &'a Loaded, name: &str) -> &'a Status {
    &loaded
        .entries
        .iter()
        .find(|entry| entry.own_name == name)
        .unwrap()
        .status
}

#[tokio::test]
async fn an_unchanged_locked_tree_is_checked_from_stamps_alone() {
    let (_temp, root) = world();
    let first = load(&root, true).await;
    assert_eq!(
        first.files_hashed, 4,
        "the first check hashes every locked file"
    );
    assert_eq!(first.active().len(), 3);
    // The cache lives in the user's cache directory, private.
    let cache = root.join("user/cache/manifest-digests.json");
    assert!(cache.is_file());

    let again = load(&root, true).await;
    assert_eq!(again.files_hashed, 0, "an unchanged tree is read again");
    assert!(
        again
            .entries
            .iter()
            .all(|entry| entry.status == Status::Active)
    );

    // One file rewritten: only it is read.
    write(
        &root.join("home/.agents/skills/demo/SKILL.md"),
        "---\nname: demo\ndescription: The demo skill.\n---\nTampered.\n",
    );
    let changed = load(&root, false).await;
    assert_eq!(changed.files_hashed, 1);
}

#[tokio::test]
async fn a_modified_skill_is_reported_and_refused_when_locked() {
    let (_temp, root) = world();
    let demo = root.join("home/.agents/skills/demo");
    write(
        &demo.join("SKILL.md"),
        "---\nname: demo\ndescription: The demo skill.\n---\nTampered.\n",
    );
    write(&demo.join("references/new.md"), "new\n");

    let loaded = load(&root, false).await;
    let modified = Status::Modified {
        files: vec!["SKILL.md".to_owned(), "references/new.md".to_owned()],
        offered: true,
    };
    assert_eq!(status(&loaded, "demo"), &modified);
    assert_eq!(status(&loaded, "other"), &Status::Active);
    assert_eq!(
        status(&loaded, "loose"),
        &Status::Active,
        "not covered by the lock"
    );
    assert_eq!(
        loaded.active().len(),
        3,
        "offered all the same without --locked"
    );
    let listed = serde_json::to_value(ListedSkill::from(
        loaded
            .entries
            .iter()
            .find(|e| e.own_name == "demo")
            .unwrap(),
    ))
    .unwrap();
    assert_eq!(listed["status"], "modified");
    assert_eq!(listed["modified_files"][1], "references/new.md");
    assert_eq!(listed["offered"], true);

    let locked = load(&root, true).await;
    assert!(matches!(
        status(&locked, "demo"),
        Status::Modified { offered: false, .. }
    ));
    let names: Vec<String> = locked
        .active()
        .iter()
        .map(|skill| skill.name().to_owned())
        .collect();
    assert_eq!(names, ["loose", "other"]);

    // The setting does what the flag does.
    let config = root.join("user/config/config.toml");
    write(&config, "[skills]\nlocked = true\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&config, fs::Permissions::from_mode(0o600)).unwrap();
    }
    let settings = Settings::load(&config, skillful_config::SettingsLevel::User).unwrap();
    assert!(settings.locked);
    let by_setting = load(&root, false).await;
    assert_eq!(by_setting.active().len(), 2);
}
