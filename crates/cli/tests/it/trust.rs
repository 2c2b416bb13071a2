//! Project trust tried as an attacker would: a trusted directory removed and re-created, another
//! user's checkout nested in a trusted directory, `.agents` planted in a shared sticky
//! directory, and a path that is not UTF-8 with a look-alike twin.

use crate::common;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::text;
use crate::common::unprivileged::{as_unprivileged_user, give_to, test_user_ids};

/// `skills ARGS` in `dir`, with its home, configuration and state under `home`.
fn skills_in(dir: &Path, home: &Path, args: &[&OsStr]) -> Output {
    common::command_at_home(dir, home)
        .args(args)
        .output()
        .expect("the skills binary runs")
}

fn skills(dir: &Path, home: &Path, args: &[&str]) -> Output {
    let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    skills_in(dir, home, &args)
}

/// A project directory `dir` (a repository) with one skill `name` in `.agents/skills`.
fn project(dir: &Path, name: &str) {
    fs::create_dir_all(dir.join(".git")).unwrap();
    agents_skill(dir, name);
}

/// A skill `name` in `dir/.agents/skills`.
fn agents_skill(dir: &Path, name: &str) {
    let skill = dir.join(".agents/skills").join(name);
    fs::create_dir_all(&skill).unwrap();
    fs::write(
        skill.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: The skill {name}.\n---\nDo it.\n"),
    )
    .unwrap();
}

/// `skills trust` in `dir`, which must succeed; what it printed.
fn trust_here(dir: &Path, home: &Path) -> String {
    let trust = skills(dir, home, &["trust"]);
    assert_eq!(trust.status.code(), Some(0), "{}", text(&trust.stderr));
    text(&trust.stdout)
}

/// The names `skills list` printed.
fn listed(output: &Output) -> Vec<String> {
    text(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect()
}

/// A temporary world: a home and a place for projects, canonical.
struct World {
    _temp: tempfile::TempDir,
    root: PathBuf,
}

impl World {
    fn new() -> Self {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().canonicalize().unwrap();
        fs::create_dir_all(root.join("home")).unwrap();
        Self { _temp: temp, root }
    }

    fn home(&self) -> PathBuf {
        self.root.join("home")
    }
}

/// Another user's uid and gid, when this test runs as root (it gives directories away); `None`
/// otherwise, the test skipped saying why (a failure under CI, where it must run).
fn another_user() -> Option<(u32, u32)> {
    let reason = match as_unprivileged_user() {
        Ok(prefix) if !prefix.is_empty() => return Some(test_user_ids()),
        Ok(_) => "it runs as root, to give directories to another user".to_owned(),
        Err(reason) => reason,
    };
    skillful_test_support::prerequisite_missing(&format!(
        "this test needs another user, and {reason}"
    ));
    None
}

#[test]
fn a_trusted_directory_removed_and_re_created_is_no_longer_trusted() {
    let Some(other) = another_user() else {
        return;
    };
    let world = World::new();
    let home = world.home();
    let repo = world.root.join("repo");
    project(&repo, "mine");
    trust_here(&repo, &home);
    assert_eq!(listed(&skills(&repo, &home, &["list"])), ["mine"]);

    // Another user removes it (or it was removed) and re-creates it with skills of their own.
    fs::remove_dir_all(&repo).unwrap();
    project(&repo, "planted");
    give_to(&repo, other);
    let output = skills(&repo, &home, &["list"]);
    assert_eq!(listed(&output), Vec::<String>::new());
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(&format!("{}: project refused", repo.display()))
            && stderr.contains(&format!("owned by another user (uid {})", other.0)),
        "{stderr}"
    );
    assert!(!stderr.contains("skills trust"), "{stderr}");

    // Re-created by the user themselves, it is another directory: trusted again only when asked.
    // (The old one is moved away, not removed, so that the new one cannot get its inode back.)
    fs::remove_dir_all(&repo).unwrap();
    project(&repo, "old");
    trust_here(&repo, &home);
    fs::rename(&repo, world.root.join("moved")).unwrap();
    project(&repo, "again");
    let output = skills(&repo, &home, &["list"]);
    assert_eq!(listed(&output), Vec::<String>::new());
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("was trusted, but it has been removed and re-created since")
            && stderr.contains(&format!("run `skills trust {}`", repo.display())),
        "{stderr}"
    );
    trust_here(&repo, &home);
    assert_eq!(listed(&skills(&repo, &home, &["list"])), ["again"]);
}

#[test]
fn a_checkout_nested_in_a_trusted_directory_is_a_project_of_its_own() {
    let Some(other) = another_user() else {
        return;
    };
    let world = World::new();
    let home = world.home();
    let work = world.root.join("work");
    fs::create_dir_all(&work).unwrap();
    let trusted = trust_here(&work, &home);
    assert!(trusted.contains("repositories of their own"), "{trusted}");

    // A folder of the trusted directory that is no repository is covered.
    let notes = work.join("notes");
    agents_skill(&notes, "noted");
    assert_eq!(listed(&skills(&notes, &home, &["list"])), ["noted"]);

    // Another user's checkout inside it is refused; the user's own is a project to trust apart.
    let theirs = work.join("theirs");
    project(&theirs, "planted");
    give_to(&theirs, other);
    let inside = theirs.join("src");
    fs::create_dir_all(&inside).unwrap();
    let output = skills(&inside, &home, &["list"]);
    assert_eq!(listed(&output), Vec::<String>::new());
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(&format!("{}: project refused", theirs.display()))
            && stderr.contains("owned by another user"),
        "{stderr}"
    );

    let mine = work.join("mine");
    project(&mine, "nested");
    let output = skills(&mine, &home, &["list"]);
    assert_eq!(listed(&output), Vec::<String>::new());
    assert!(
        text(&output.stderr).contains(&format!("run `skills trust {}`", mine.display())),
        "{}",
        text(&output.stderr)
    );

    // `.agents` given to another user inside a project of the user's own is refused too.
    give_to(&notes.join(".agents"), other);
    let output = skills(&notes, &home, &["list"]);
    assert_eq!(listed(&output), Vec::<String>::new());
    assert!(
        text(&output.stderr).contains("has a .agents that is owned by another user"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn agents_planted_in_a_shared_sticky_directory_is_never_proposed_and_trusted_only_by_force() {
    let world = World::new();
    let home = world.home();
    let shared = world.root.join("shared");
    agents_skill(&shared, "planted");
    fs::set_permissions(&shared, fs::Permissions::from_mode(0o1777)).unwrap();
    let mine = shared.join("mine");
    fs::create_dir(&mine).unwrap();
    fs::set_permissions(&mine, fs::Permissions::from_mode(0o700)).unwrap();

    let output = skills(&mine, &home, &["list"]);
    assert_eq!(listed(&output), Vec::<String>::new());
    let stderr = text(&output.stderr);
    assert!(!stderr.contains("skills trust"), "{stderr}");
    assert!(
        stderr.contains(&format!("{}: project refused", shared.display()))
            && stderr.contains("writable by every user"),
        "{stderr}"
    );

    for args in [&["trust"][..], &["trust", shared.to_str().unwrap()]] {
        let refused = skills(&mine, &home, args);
        assert_eq!(refused.status.code(), Some(2), "{args:?}");
        let stderr = text(&refused.stderr);
        assert!(
            stderr.contains(&format!("{}: not trusted", shared.display()))
                && stderr.contains("writable by every user")
                && stderr.contains("--force"),
            "{stderr}"
        );
    }
    let listed_trust = skills(&mine, &home, &["trust", "--list"]);
    assert_eq!(text(&listed_trust.stdout), "");

    let forced = skills(
        &mine,
        &home,
        &["trust", "--force", shared.to_str().unwrap()],
    );
    assert_eq!(forced.status.code(), Some(0), "{}", text(&forced.stderr));
    assert!(
        text(&forced.stderr).contains("trusted anyway (--force)"),
        "{}",
        text(&forced.stderr)
    );
    let listed_trust = skills(&mine, &home, &["trust", "--list"]);
    assert_eq!(
        text(&listed_trust.stdout),
        format!("{}  (trusted with --force)\n", shared.display())
    );
    assert_eq!(listed(&skills(&mine, &home, &["list"])), ["planted"]);
}

#[test]
fn a_directory_whose_name_is_not_utf8_is_trusted_itself_never_its_look_alike() {
    let world = World::new();
    let home = world.home();
    let exact = world.root.join(OsStr::from_bytes(b"proj\xff"));
    let twin = world.root.join("proj\u{FFFD}");
    project(&exact, "exact");
    project(&twin, "twin");

    trust_here(&exact, &home);
    assert_eq!(listed(&skills(&exact, &home, &["list"])), ["exact"]);
    let output = skills(&twin, &home, &["list"]);
    assert_eq!(listed(&output), Vec::<String>::new());
    assert!(
        text(&output.stderr).contains("the project is not trusted"),
        "{}",
        text(&output.stderr)
    );
    let list = skills(&exact, &home, &["trust", "--list"]);
    assert_eq!(
        text(&list.stdout),
        format!("{}/proj\\xFF\n", world.root.display())
    );

    let untrust = skills_in(&exact, &home, &[OsStr::new("untrust"), exact.as_os_str()]);
    assert_eq!(untrust.status.code(), Some(0), "{}", text(&untrust.stderr));
    assert_eq!(
        listed(&skills(&exact, &home, &["list"])),
        Vec::<String>::new()
    );
}

#[test]
fn trust_list_json_names_each_directory_and_whether_it_is_honoured() {
    let world = World::new();
    let home = world.home();
    let output = skills(&world.root, &home, &["trust", "--list", "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        common::json_of("trust-list", &output)["directories"],
        serde_json::json!([])
    );

    let repo = world.root.join("repo");
    project(&repo, "mine");
    trust_here(&repo, &home);
    let output = skills(&world.root, &home, &["trust", "--list", "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        common::json_of("trust-list", &output)["directories"],
        serde_json::json!([{ "dir": repo.display().to_string(), "honoured": true, "forced": false }])
    );
    // --json lists; it trusts nothing.
    let output = skills(&world.root, &home, &["trust", "--json"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
}
