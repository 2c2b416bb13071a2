//! An [`Installer`] over a scope of its own in a temporary directory, with skills taken from a
//! local directory or a git repository made for the test.

use std::fs;
use std::path::Path;
use std::process::Command;

use skillful_core::RiskTier;
use skillful_install::{InstallError, Installer, Selection, Source, Verified};

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

fn only(name: &str) -> Selection {
    Selection {
        skills: vec![name.to_owned()],
        path: None,
    }
}

fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=test",
            "-c",
            "user.email=test@example.invalid",
        ])
        .args(args)
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
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
    let installer = Installer::new(temp.path().join("scope/skills"));

    let prepared = installer
        .prepare(
            Source::parse(source.to_str().unwrap()).unwrap(),
            &only("alpha"),
        )
        .unwrap();
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
    assert!(
        fs::read_to_string(installer.skills_dir().join("alpha/SKILL.md"))
            .unwrap()
            .contains("Version one.")
    );
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
    fs::create_dir_all(&work).unwrap();
    git(&work, &["init", "--quiet", "--initial-branch=main"]);
    two_skills(&work);
    let v1 = commit(&work, "one");
    git(&work, &["tag", "v1"]);
    write(
        &work,
        "skills/alpha/SKILL.md",
        &skill_md("alpha", "Version two.\n"),
    );
    commit(&work, "two");
    let url = format!("file://{}", work.display());
    let installer = Installer::new(temp.path().join("scope/skills"));

    let prepared = installer
        .prepare(Source::parse(&format!("{url}@v1")).unwrap(), &only("alpha"))
        .unwrap();
    assert_eq!(prepared.commit.as_deref(), Some(v1.as_str()));
    installer.install(&prepared, false).unwrap();

    // The tag's files, not the branch's newer ones; the lock says where they came from.
    assert!(
        fs::read_to_string(installer.skills_dir().join("alpha/SKILL.md"))
            .unwrap()
            .contains("Version one.")
    );
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
    let installer = Installer::new(temp.path().join("scope/skills"));

    let refused = installer.prepare(
        Source::parse(source.to_str().unwrap()).unwrap(),
        &only("alpha"),
    );
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
    let installer = Installer::new(temp.path().join("scope/skills"));

    let missing = installer.prepare(
        Source::parse(source.to_str().unwrap()).unwrap(),
        &only("gamma"),
    );
    assert!(
        matches!(missing, Err(InstallError::NoSkills { .. })),
        "{missing:?}"
    );
}
