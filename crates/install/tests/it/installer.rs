//! An [`Installer`] over a scope of its own in a temporary directory, with skills taken from a
//! local directory or a git repository made for the test.

use std::fs;
use std::path::Path;

use skillful_core::RiskTier;
use skillful_install::{InstallError, Installer, Selection, Source, Verified};
use skillful_manifest::ManifestError;
use skillful_test_support::git;

/// A SKILL.md of `name` whose body is `body`; its script `scripts/run.py` declares `write-high`.
fn skill_md(name: &str, body: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: The {name} skill.\nmetadata:\n  risk.scripts/run.py: write-high\n---\n# {name}\n\n{body}"
    )
}

fn write(dir: &Path, relative: &str, text: &str) {
    let path = dir.join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// Two skills, `alpha` (with a script) and `beta`, under `skills/` of `dir`.
fn two_skills(dir: &Path) {
    write(
        dir,
        "skills/alpha/SKILL.md",
        &skill_md("alpha", "Version one.\n"),
    );
    write(dir, "skills/alpha/scripts/run.py", "print('alpha')\n");
    write(dir, "skills/beta/SKILL.md", &skill_md("beta", ""));
    write(dir, "README.md", "Two skills.\n");
}

/// The source at the local directory `dir`.
fn local(dir: &Path) -> Source {
    Source::parse(dir.to_str().unwrap()).unwrap()
}

/// An installer into `scope/skills` under `temp`.
fn scoped(temp: &Path) -> Installer {
    Installer::new(temp.join("scope/skills"))
}

fn only(name: &str) -> Selection {
    Selection {
        skills: vec![name.to_owned()],
        path: None,
    }
}

/// A new git repository at `dir`, on branch `main`.
fn repository(dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "--quiet", "--initial-branch=main"]);
}

/// A repository at `dir` whose first commit (returned) holds [`two_skills`] and whose second
/// changes `alpha` to version two.
fn two_versions(dir: &Path) -> String {
    repository(dir);
    two_skills(dir);
    let v1 = commit(dir, "one");
    write(
        dir,
        "skills/alpha/SKILL.md",
        &skill_md("alpha", "Version two.\n"),
    );
    commit(dir, "two");
    v1
}

/// The `SKILL.md` of `alpha` as `installer` installed it.
fn installed_alpha(installer: &Installer) -> String {
    fs::read_to_string(installer.skills_dir().join("alpha/SKILL.md")).unwrap()
}

/// Commits every file of `dir`; returns the commit.
fn commit(dir: &Path, message: &str) -> String {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "--quiet", "-m", message]);
    git(dir, &["rev-parse", "HEAD"])
}

#[test]
fn a_local_skill_is_installed_locked_verified_and_removed() {
    let temp = tempfile::tempdir().unwrap();
    let source = temp.path().join("source");
    two_skills(&source);
    let installer = scoped(temp.path());

    let prepared = installer.prepare(local(&source), &only("alpha")).unwrap();
    let [candidate] = prepared.candidates.as_slice() else {
        panic!("one candidate: {:?}", prepared.candidates);
    };
    assert_eq!(candidate.name, "alpha");
    assert_eq!(candidate.path, "skills/alpha");
    assert_eq!(
        candidate.scripts,
        [("scripts/run.py".to_owned(), RiskTier::WriteHigh)]
    );
    assert_eq!(installer.install(&prepared, false).unwrap(), ["alpha"]);
    assert!(installed_alpha(&installer).contains("Version one."));
    let lock = installer.lock().unwrap();
    let entry = &lock.skills["alpha"];
    assert_eq!(entry.path, "skills/alpha");
    assert_eq!(entry.files.files().len(), 2);
    assert_eq!(entry.digest.len(), 64);
    assert_eq!(
        installer.verify(&[]).unwrap(),
        [("alpha".to_owned(), Verified::Intact)]
    );

    // Tampered, added and removed files are each named.
    let installed = installer.skills_dir().join("alpha");
    fs::write(installed.join("SKILL.md"), skill_md("alpha", "Tampered.\n")).unwrap();
    fs::write(installed.join("extra.md"), "new").unwrap();
    fs::remove_file(installed.join("scripts/run.py")).unwrap();
    let verified = installer.verify(&["alpha".to_owned()]).unwrap();
    let [(_, Verified::Modified(diff))] = verified.as_slice() else {
        panic!("alpha is modified: {verified:?}");
    };
    assert_eq!(diff.added, ["extra.md"]);
    assert_eq!(diff.removed, ["scripts/run.py"]);
    assert_eq!(diff.changed, ["SKILL.md"]);

    // Installing again is refused unless replacing; removing takes the directory and the entry.
    assert!(matches!(
        installer.install(&prepared, false),
        Err(InstallError::AlreadyInstalled { name, .. }) if name == "alpha"
    ));
    installer.install(&prepared, true).unwrap();
    assert_eq!(
        installer.verify(&[]).unwrap(),
        [("alpha".to_owned(), Verified::Intact)]
    );
    installer.remove("alpha").unwrap();
    assert!(!installed.exists());
    assert!(installer.lock().unwrap().skills.is_empty());
    assert!(matches!(
        installer.verify(&["alpha".to_owned()]),
        Err(InstallError::NotLocked { .. })
    ));
}

#[test]
fn a_tag_of_a_git_repository_locks_its_commit() {
    let temp = tempfile::tempdir().unwrap();
    let work = temp.path().join("work");
    let v1 = two_versions(&work);
    git(&work, &["tag", "v1", &v1]);
    let url = format!("file://{}", work.display());
    let installer = scoped(temp.path());

    let prepared = installer
        .prepare(Source::parse(&format!("{url}@v1")).unwrap(), &only("alpha"))
        .unwrap();
    assert_eq!(prepared.commit.as_deref(), Some(v1.as_str()));
    installer.install(&prepared, false).unwrap();

    // The tag's files, not the branch's newer ones; the lock says where they came from.
    assert!(installed_alpha(&installer).contains("Version one."));
    let entry = &installer.lock().unwrap().skills["alpha"];
    assert_eq!(entry.source, url);
    assert_eq!(entry.source_type, "git");
    assert_eq!(entry.reference.as_deref(), Some("v1"));
    assert_eq!(entry.commit.as_deref(), Some(v1.as_str()));
}

#[cfg(unix)]
#[test]
fn a_link_leaving_the_skill_is_refused_and_nothing_is_installed() {
    let temp = tempfile::tempdir().unwrap();
    let source = temp.path().join("source");
    two_skills(&source);
    std::os::unix::fs::symlink("/etc/passwd", source.join("skills/alpha/passwd")).unwrap();
    let installer = scoped(temp.path());

    let refused = installer.prepare(local(&source), &only("alpha"));
    assert!(
        matches!(&refused, Err(InstallError::Unsafe { skill, .. }) if skill == "alpha"),
        "{refused:?}"
    );
    assert!(installer.lock().unwrap().skills.is_empty());
    assert!(!installer.skills_dir().join("alpha").exists());
}

#[test]
fn a_skill_missing_from_the_source_is_no_skill_to_install() {
    let temp = tempfile::tempdir().unwrap();
    let source = temp.path().join("source");
    two_skills(&source);
    let installer = scoped(temp.path());

    let missing = installer.prepare(local(&source), &only("gamma"));
    assert!(
        matches!(missing, Err(InstallError::NoSkills { .. })),
        "{missing:?}"
    );
}

/// What `prepare` says of a git repository holding one skill `evil` as `build` leaves it: it
/// must be refused, nothing installed or locked, and no fetched tree left in the skills
/// directory.
fn refused_from_git(build: impl FnOnce(&Path)) -> InstallError {
    let temp = tempfile::tempdir().unwrap();
    let work = temp.path().join("work");
    repository(&work);
    write(&work, "evil/SKILL.md", &skill_md("evil", ""));
    build(&work);
    commit(&work, "evil");
    let installer = scoped(temp.path());

    let source = Source::parse(&format!("file://{}", work.display())).unwrap();
    let Err(refused) = installer.prepare(source, &Selection::default()) else {
        panic!("the skill evil is installable");
    };
    assert!(installer.lock().unwrap().skills.is_empty());
    let left: Vec<_> = fs::read_dir(installer.skills_dir())
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name())
        .collect();
    assert!(left.is_empty(), "{left:?}");
    refused
}

#[test]
fn a_submodule_is_refused() {
    let refused = refused_from_git(|work| {
        let inner = work.parent().unwrap().join("inner");
        fs::create_dir_all(&inner).unwrap();
        git(&inner, &["init", "--quiet"]);
        write(&inner, "x.md", "x");
        commit(&inner, "x");
        let inner = inner.to_str().unwrap();
        git(work, &["submodule", "--quiet", "add", inner, "evil/vendor"]);
    });
    assert!(
        matches!(&refused, InstallError::Refused { skill, reason }
            if skill == "evil" && reason.contains("submodule \"evil/vendor\"")),
        "{refused:?}"
    );
}

#[test]
fn a_huge_file_is_refused() {
    let refused = refused_from_git(|work| {
        let file = fs::File::create(work.join("evil/blob.bin")).unwrap();
        file.set_len(17 * 1024 * 1024).unwrap();
    });
    assert!(
        matches!(&refused, InstallError::Unsafe { skill, source: ManifestError::FileTooLarge { path, .. } }
            if skill == "evil" && path.ends_with("blob.bin")),
        "{refused:?}"
    );
}

#[test]
fn a_case_collision_is_refused() {
    let refused = refused_from_git(|work| {
        write(work, "evil/notes.md", "a");
        write(work, "evil/NOTES.md", "b");
    });
    assert!(
        matches!(&refused, InstallError::Refused { skill, reason }
            if skill == "evil" && reason.contains("NOTES.md, notes.md differ only in case")),
        "{refused:?}"
    );
}

#[test]
fn an_abbreviated_commit_is_locked_as_the_full_one() {
    let temp = tempfile::tempdir().unwrap();
    let work = temp.path().join("work");
    let v1 = two_versions(&work);
    let url = format!("file://{}", work.display());
    let installer = scoped(temp.path());

    let source = Source::parse(&format!("{url}@{}", &v1[..7])).unwrap();
    let prepared = installer.prepare(source, &only("alpha")).unwrap();
    assert_eq!(prepared.commit.as_deref(), Some(v1.as_str()));
    installer.install(&prepared, false).unwrap();
    assert!(installed_alpha(&installer).contains("Version one."));
    let entry = &installer.lock().unwrap().skills["alpha"];
    assert_eq!(entry.reference.as_deref(), Some(&v1[..7]));
    assert_eq!(entry.commit.as_deref(), Some(v1.as_str()));

    // An abbreviation of no commit is refused, saying so.
    let source = Source::parse(&format!("{url}@abcdef1")).unwrap();
    let unknown = installer.prepare(source, &only("beta")).unwrap_err();
    assert!(
        unknown
            .to_string()
            .contains("no branch, tag or single commit of its branches and tags is named abcdef1"),
        "{unknown}"
    );
}

#[test]
fn a_lock_entry_whose_digest_is_not_its_file_list_is_refused() {
    let temp = tempfile::tempdir().unwrap();
    let source = temp.path().join("source");
    two_skills(&source);
    let installer = scoped(temp.path());
    let prepared = installer.prepare(local(&source), &only("alpha")).unwrap();
    installer.install(&prepared, false).unwrap();
    // The file list loses a file; the digest still names the installed tree.
    let mut lock: serde_json::Value =
        serde_json::from_slice(&fs::read(installer.lock_path()).unwrap()).unwrap();
    lock["skills"]["alpha"]["files"]
        .as_array_mut()
        .unwrap()
        .retain(|entry| entry["path"] != "scripts/run.py");
    fs::write(installer.lock_path(), serde_json::to_vec(&lock).unwrap()).unwrap();
    fs::remove_dir_all(installer.skills_dir().join("alpha")).unwrap();

    let refusals = [
        installer.verify(&[]).unwrap_err(),
        installer.plan_locked().unwrap_err(),
    ];
    for refused in refusals {
        assert!(
            matches!(&refused, InstallError::Lock { reason, .. }
                if reason.contains("skill alpha: its digest is not the digest of its file list")),
            "{refused:?}"
        );
    }
    assert!(!installer.skills_dir().join("alpha").exists());
}
