//! `FileSkill::file_names` and `FileSkill::read_file`: exactly the files discovery admitted,
//! as they are on disk, re-checked at read time.

use crate::common;

use common::Tree;
use skillful_core::SkillError;
use skillful_discovery::FileSkillsSource;

#[tokio::test]
async fn only_admitted_files_are_named_and_read_raw() {
    let tree = Tree::new();
    tree.write(
        "notes/SKILL.md",
        "\u{feff}---\nname: notes\ndescription: Notes.\n---\nBody.\n",
    );
    tree.write("notes/references/a.md", "a");
    tree.write("notes/scripts/run.py", "print(1)");
    tree.write("notes/secret.bin", "not admitted");
    let source = FileSkillsSource::builder()
        .root(&tree.root)
        .build()
        .unwrap();
    let found = source.discover().await;
    let notes = &found.skills[0];
    assert_eq!(
        notes.file_names(),
        ["SKILL.md", "references/a.md", "scripts/run.py"]
    );
    let skill_md = notes.read_file("SKILL.md").await.unwrap();
    assert!(skill_md.starts_with("\u{feff}---\nname: notes".as_bytes()));
    assert_eq!(
        notes.read_file("scripts/run.py").await.unwrap(),
        b"print(1)"
    );
    for name in ["secret.bin", "../notes/SKILL.md", "references"] {
        let refused = notes.read_file(name).await.unwrap_err();
        assert!(
            matches!(refused, SkillError::Refused { .. }),
            "{name}: {refused}"
        );
    }

    // Replaced by a link after discovery: refused at read time.
    std::fs::remove_file(tree.root.join("notes/references/a.md")).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/etc/hostname", tree.root.join("notes/references/a.md"))
            .unwrap();
        let linked = notes.read_file("references/a.md").await.unwrap_err();
        assert!(matches!(linked, SkillError::Refused { .. }), "{linked}");
    }
}
