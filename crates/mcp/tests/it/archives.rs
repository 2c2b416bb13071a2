//! Archive entries: formats, limits, digests, hostile archives and resource names, pruning and
//! concurrent refreshes. Every refusal leaves nothing outside (or partial inside) the
//! extraction directory: the whole temporary tree is compared after each one.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use common::{Fixture, Recording, TarEntry, piped, skill_md, tar_gz, tree, zip};
use skillful_core::Skill;
use skillful_mcp::{ArchiveLimits, McpSkillsSource};

/// An index listing `entries` of (name, type, url, digest).
fn index(entries: &[(&str, &str, &str, Option<&str>)]) -> String {
    let skills: Vec<_> = entries
        .iter()
        .map(|(name, kind, url, digest)| {
            let mut entry = serde_json::json!({
                "name": name, "type": kind, "description": format!("The {name} skill."), "url": url,
            });
            if let Some(digest) = digest {
                entry["digest"] = (*digest).into();
            }
            entry
        })
        .collect();
    serde_json::json!({ "skills": skills }).to_string()
}

/// A source over `fixture`, extracting below `base/deep/extract` so that any escape would
/// still land inside `base`.
async fn source(fixture: &Fixture, base: &Path, limits: ArchiveLimits) -> McpSkillsSource {
    McpSkillsSource::builder_for_client(piped(fixture.clone()).await, "fixture")
        .extraction_dir(base.join("deep").join("extract"))
        .archive_limits(limits)
        .build()
}

fn names(skills: &[std::sync::Arc<dyn Skill>]) -> Vec<String> {
    skills
        .iter()
        .map(|s| s.frontmatter().name.clone())
        .collect()
}

/// The tree below `base` that one good skill called `good` leaves, with `extra` paths of it.
fn good_tree(source: &McpSkillsSource, base: &Path, extra: &[&str]) -> BTreeSet<String> {
    let dir = source
        .archive_dir()
        .strip_prefix(base)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/");
    let mut expected: BTreeSet<String> = ["deep/", "deep/extract/"].map(String::from).into();
    expected.insert(format!("{dir}/"));
    for path in ["good/", "good/SKILL.md"].iter().chain(extra) {
        expected.insert(format!("{dir}/{path}"));
    }
    expected
}

#[tokio::test]
async fn zip_and_tar_gz_archives_load_by_magic_mime_or_suffix() {
    let fixture = Fixture::default();
    let md = |name| skill_md(name, "Body.");
    let (a, b, c, d) = (md("by-zip"), md("by-tar"), md("by-mime"), md("by-suffix"));
    fixture.blob("skill://by-zip", &zip(&[("SKILL.md", a.as_bytes())]), None);
    fixture.blob(
        "skill://by-tar",
        &tar_gz(&[TarEntry::file("SKILL.md", b.as_bytes())]),
        None,
    );
    // Magic bytes decide first; a wrong MIME type does not matter.
    let zipped_c = zip(&[("by-mime/SKILL.md", c.as_bytes())]);
    fixture.blob("skill://by-mime", &zipped_c, Some("application/gzip"));
    fixture.blob(
        "skill://by-suffix.zip",
        &zip(&[("SKILL.md", d.as_bytes())]),
        Some("application/octet-stream"),
    );
    fixture.blob(
        "skill://rar",
        b"Rar!\x1a\x07\x00",
        Some("application/x-rar"),
    );
    fixture.text(
        "skill://index.json",
        &index(&[
            ("by-zip", "archive", "skill://by-zip", None),
            ("by-tar", "archive", "skill://by-tar", None),
            ("by-mime", "archive", "skill://by-mime", None),
            ("by-suffix", "archive", "skill://by-suffix.zip", None),
            ("rar", "archive", "skill://rar", None),
            ("future", "plugin", "skill://future", None),
        ]),
    );
    let base = tempfile::tempdir().unwrap();
    let source = source(&fixture, base.path(), ArchiveLimits::default()).await;
    let skills = source.load().await.unwrap();
    assert_eq!(names(&skills), ["by-zip", "by-tar", "by-mime", "by-suffix"]);
    assert!(skills[2].document().await.unwrap().body.contains("Body."));
}

#[test]
fn archive_formats_fall_back_from_magic_to_mime_to_suffix() {
    use skillful_mcp::ArchiveFormat::{TarGz, Zip};
    let detect = skillful_mcp::ArchiveFormat::detect;
    assert_eq!(
        detect(b"\x1f\x8b\x08", Some("application/zip"), "x.zip"),
        Some(TarGz)
    );
    assert_eq!(detect(b"PK\x05\x06", None, "x"), Some(Zip));
    assert_eq!(
        detect(b"????", Some("application/x-zip-compressed"), "x"),
        Some(Zip)
    );
    assert_eq!(
        detect(b"????", Some("application/x-gzip"), "x"),
        Some(TarGz)
    );
    assert_eq!(detect(b"????", None, "skill://x.tar.gz"), Some(TarGz));
    assert_eq!(detect(b"????", None, "skill://x.tar"), None);
    assert_eq!(detect(b"", None, "skill://x"), None);
}

/// Each hostile archive is refused (its skill skipped) beside one good archive, and afterwards
/// the temporary tree holds exactly the good skill.
#[tokio::test]
async fn hostile_archives_are_refused_and_leave_nothing_behind() {
    let mds: std::collections::HashMap<&str, String> = [
        "good",
        "slip",
        "slip-case",
        "backslash",
        "absolute",
        "drive",
        "drive-backslash",
        "truncated",
        "truncated-zip",
    ]
    .into_iter()
    .map(|name| (name, skill_md(name, "")))
    .collect();
    let md = |name: &str| mds[name].as_bytes();
    let good_md = skill_md("good", "Fine.");
    let good = zip(&[("SKILL.md", good_md.as_bytes())]);
    let bomb_md = skill_md("bomb", "");
    let zeros = vec![0u8; 2 * 1024 * 1024];
    let many: Vec<(String, Vec<u8>)> = (0..21)
        .map(|i| (format!("references/{i}.md"), b"x".to_vec()))
        .collect();
    let mut many_files: Vec<(&str, &[u8])> =
        vec![("SKILL.md", b"---\nname: many\ndescription: d\n---\n")];
    many_files.extend(many.iter().map(|(n, c)| (n.as_str(), c.as_slice())));
    let truncated = {
        let full = tar_gz(&[
            TarEntry::file("SKILL.md", md("truncated")),
            TarEntry::file("references/big.md", &[b'a'; 64 * 1024]),
        ]);
        full[..full.len() / 2].to_vec()
    };
    let truncated_zip = {
        let full = zip(&[("SKILL.md", md("truncated-zip"))]);
        full[..full.len() - 10].to_vec()
    };
    let hostile: Vec<(&str, Vec<u8>)> = vec![
        (
            "bomb",
            zip(&[
                ("SKILL.md", bomb_md.as_bytes()),
                ("references/zeros.md", &zeros),
            ]),
        ),
        (
            "bomb-tar",
            tar_gz(&[
                TarEntry::file("SKILL.md", skill_md("bomb-tar", "").as_bytes()),
                TarEntry::file("references/zeros.md", &zeros),
            ]),
        ),
        ("many", zip(&many_files)),
        (
            "slip",
            zip(&[("SKILL.md", md("slip")), ("../../escaped.md", b"x")]),
        ),
        (
            "slip-tar",
            tar_gz(&[
                TarEntry::file("SKILL.md", skill_md("slip-tar", "").as_bytes()),
                TarEntry::file("references/../../../escaped.md", b"x"),
            ]),
        ),
        (
            "slip-case",
            zip(&[
                ("SKILL.md", md("slip-case")),
                ("References/../../Escaped.MD", b"x"),
            ]),
        ),
        (
            "backslash",
            zip(&[("SKILL.md", md("backslash")), ("..\\..\\escaped.md", b"x")]),
        ),
        (
            "absolute",
            zip(&[
                ("SKILL.md", md("absolute")),
                ("/tmp/skillful-mcp-escaped.md", b"x"),
            ]),
        ),
        (
            "absolute-tar",
            tar_gz(&[
                TarEntry::file("SKILL.md", skill_md("absolute-tar", "").as_bytes()),
                TarEntry::file("/tmp/skillful-mcp-escaped.md", b"x"),
            ]),
        ),
        (
            "drive",
            zip(&[("SKILL.md", md("drive")), ("C:/escaped.md", b"x")]),
        ),
        (
            "drive-backslash",
            zip(&[
                ("SKILL.md", md("drive-backslash")),
                ("c:\\escaped.md", b"x"),
            ]),
        ),
        ("truncated", truncated),
        ("truncated-zip", truncated_zip),
        ("not-an-archive", b"just some text".to_vec()),
    ];

    let fixture = Fixture::default();
    let mut entries = vec![("good".to_owned(), "skill://good.zip".to_owned(), None)];
    fixture.blob("skill://good.zip", &good, None);
    for (name, bytes) in &hostile {
        let url = format!("skill://{name}.zip");
        fixture.blob(&url, bytes, None);
        entries.push(((*name).to_owned(), url, None));
    }
    // A valid archive whose digest is wrong, and one whose digest is malformed.
    let digest_md = skill_md("wrong-digest", "");
    let digested = zip(&[("SKILL.md", digest_md.as_bytes())]);
    fixture.blob("skill://wrong-digest.zip", &digested, None);
    let wrong = rmcp::model::sha256_digest(b"something else");
    entries.push((
        "wrong-digest".into(),
        "skill://wrong-digest.zip".into(),
        Some(wrong),
    ));
    fixture.blob("skill://bad-digest.zip", &digested, None);
    entries.push((
        "bad-digest".into(),
        "skill://bad-digest.zip".into(),
        Some("md5:abc".into()),
    ));
    let listed: Vec<_> = entries
        .iter()
        .map(|(n, u, d)| (n.as_str(), "archive", u.as_str(), d.as_deref()))
        .collect();
    fixture.text("skill://index.json", &index(&listed));

    let base = tempfile::tempdir().unwrap();
    let source = source(&fixture, base.path(), ArchiveLimits::default()).await;
    let skills = source.load().await.unwrap();
    assert_eq!(names(&skills), ["good"]);
    assert_eq!(tree(base.path()), good_tree(&source, base.path(), &[]));
    assert!(!Path::new("/tmp/skillful-mcp-escaped.md").exists());
}

/// Serves `bytes` as the archive of `good` at `url`: it loads, and only its SKILL.md is on disk.
async fn loads_just_the_good_skill(url: &str, bytes: &[u8]) {
    let fixture = Fixture::default();
    fixture.blob(url, bytes, None);
    fixture.text(
        "skill://index.json",
        &index(&[("good", "archive", url, None)]),
    );
    let base = tempfile::tempdir().unwrap();
    let source = source(&fixture, base.path(), ArchiveLimits::default()).await;
    assert_eq!(names(&source.load().await.unwrap()), ["good"]);
    assert_eq!(tree(base.path()), good_tree(&source, base.path(), &[]));
}

/// Links, devices and FIFOs in a tar are skipped; the rest of the archive loads.
#[tokio::test]
async fn tar_links_and_devices_are_skipped() {
    let md = skill_md("good", "Fine.");
    let mut entries = vec![TarEntry::file("SKILL.md", md.as_bytes())];
    for (name, kind) in [
        ("references/passwd.md", tar::EntryType::Symlink),
        ("references/hard.md", tar::EntryType::Link),
        ("references/tty.md", tar::EntryType::Char),
        ("references/disk.md", tar::EntryType::Block),
        ("references/pipe.md", tar::EntryType::Fifo),
    ] {
        entries.push(TarEntry {
            name,
            kind,
            content: b"",
            link: "/etc/passwd",
        });
    }
    loads_just_the_good_skill("skill://good.tgz", &tar_gz(&entries)).await;
}

#[tokio::test]
async fn zip_symlinks_are_skipped() {
    let md = skill_md("good", "Fine.");
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    writer.start_file("SKILL.md", options).unwrap();
    std::io::Write::write_all(&mut writer, md.as_bytes()).unwrap();
    writer
        .add_symlink("references/passwd.md", "/etc/passwd", options)
        .unwrap();
    let bytes = writer.finish().unwrap().into_inner();
    loads_just_the_good_skill("skill://good.zip", &bytes).await;
}

#[tokio::test]
async fn limits_are_configurable_and_counted_from_bytes_written() {
    let md = skill_md("good", "Fine.");
    let bytes = zip(&[
        ("SKILL.md", md.as_bytes()),
        ("references/r.md", &[b'r'; 4000]),
    ]);
    let fixture = Fixture::default();
    fixture.blob("skill://good.zip", &bytes, None);
    fixture.text(
        "skill://index.json",
        &index(&[("good", "archive", "skill://good.zip", None)]),
    );
    let base = tempfile::tempdir().unwrap();
    let tight = |max_files, max_uncompressed_bytes, max_download_bytes| ArchiveLimits {
        max_download_bytes,
        max_files,
        max_uncompressed_bytes,
        ..ArchiveLimits::default()
    };
    let total = (md.len() + 4000) as u64;
    for (limits, loads) in [
        (tight(2, total, bytes.len() as u64), true),
        (tight(1, total, bytes.len() as u64), false),
        (tight(2, total - 1, bytes.len() as u64), false),
        (tight(2, total, bytes.len() as u64 - 1), false),
    ] {
        let source = source(&fixture, base.path(), limits).await;
        let loaded = source.load().await.unwrap();
        assert_eq!(loaded.len(), usize::from(loads), "{limits:?}");
        let expected = if loads {
            good_tree(
                &source,
                base.path(),
                &["good/references/", "good/references/r.md"],
            )
        } else {
            let mut only_dirs = good_tree(&source, base.path(), &[]);
            only_dirs.retain(|p| !p.contains("good"));
            only_dirs
        };
        assert_eq!(tree(base.path()), expected, "{limits:?}");
    }
}

#[tokio::test]
async fn a_matching_digest_is_accepted() {
    let md = skill_md("good", "Fine.");
    let bytes = zip(&[("SKILL.md", md.as_bytes())]);
    let digest = rmcp::model::sha256_digest(&bytes);
    let fixture = Fixture::default();
    fixture.blob("skill://good.zip", &bytes, None);
    fixture.text(
        "skill://index.json",
        &index(&[("good", "archive", "skill://good.zip", Some(&digest))]),
    );
    let base = tempfile::tempdir().unwrap();
    let source = source(&fixture, base.path(), ArchiveLimits::default()).await;
    assert_eq!(names(&source.load().await.unwrap()), ["good"]);
}

/// Unpacked skills the index stops listing are removed; two sources never share a directory;
/// concurrent refreshes of the same directory leave it consistent.
#[tokio::test]
async fn stale_skills_are_pruned_sources_are_separate_and_refreshes_may_overlap() {
    let fixture = Fixture::default();
    for name in ["one", "two"] {
        let md = skill_md(name, "Body.");
        fixture.blob(
            &format!("skill://{name}.zip"),
            &zip(&[("SKILL.md", md.as_bytes())]),
            None,
        );
    }
    let both = index(&[
        ("one", "archive", "skill://one.zip", None),
        ("two", "archive", "skill://two.zip", None),
    ]);
    fixture.text("skill://index.json", &both);
    let base = tempfile::tempdir().unwrap();
    let first = source(&fixture, base.path(), ArchiveLimits::default()).await;
    let other = McpSkillsSource::builder_for_client(piped(fixture.clone()).await, "another server")
        .extraction_dir(base.path().join("deep").join("extract"))
        .build();
    assert_ne!(first.archive_dir(), other.archive_dir());

    let (a, b, c) = tokio::join!(first.load(), first.load(), other.load());
    for loaded in [a, b, c] {
        assert_eq!(names(&loaded.unwrap()), ["one", "two"]);
    }
    let twin = source(&fixture, base.path(), ArchiveLimits::default()).await;
    assert_eq!(twin.archive_dir(), first.archive_dir());
    let (a, b) = tokio::join!(first.load(), twin.load());
    assert_eq!(names(&a.unwrap()), ["one", "two"]);
    assert_eq!(names(&b.unwrap()), ["one", "two"]);

    fixture.text(
        "skill://index.json",
        &index(&[("two", "archive", "skill://two.zip", None)]),
    );
    assert_eq!(names(&first.load().await.unwrap()), ["two"]);
    let kept = tree(first.archive_dir());
    assert_eq!(
        kept.into_iter().collect::<Vec<_>>(),
        ["two/", "two/SKILL.md"]
    );
    // The other source still has both.
    assert_eq!(tree(other.archive_dir()).len(), 4);

    fixture.remove("skill://index.json");
    assert!(first.load().await.unwrap().is_empty());
    assert!(tree(first.archive_dir()).is_empty());
}

/// Names that could leave the skill are refused before any request is sent.
#[tokio::test]
async fn hostile_resource_names_are_refused_without_a_request() {
    let fixture = Fixture::default();
    fixture.text(
        "skill://index.json",
        &index(&[("docs", "skill-md", "skill://docs/SKILL.md", None)]),
    );
    fixture.text(
        "skill://docs/SKILL.md",
        &skill_md("docs", "Read references/a.md."),
    );
    fixture.text("skill://docs/references/a.md", "A");
    let recording = Recording::new(fixture);
    let source =
        McpSkillsSource::builder_for_client(piped(recording.clone()).await, "docs").build();
    let skills = source.load().await.unwrap();
    let docs = &skills[0];
    assert_eq!(
        docs.listed_digest(),
        None,
        "the index entry gives no digest"
    );
    for name in [
        "../x",
        "%2e%2e/x",
        "%252e%252e/x",
        "/etc/passwd",
        "a\\b",
        "http://evil/x",
        "references/../../x",
        "",
    ] {
        assert!(docs.resource(name).is_none(), "{name:?}");
    }
    let a = common::read(docs, "references/a.md").await.unwrap();
    assert_eq!(a, skillful_core::ResourceContent::Text("A".into()));
    assert_eq!(
        recording.reads(),
        ["skill://index.json", "skill://docs/references/a.md"]
    );
}

/// Entries with bad names or descriptions, repeated names, malformed fields and unknown types
/// are skipped; the rest load. Comments and trailing commas are accepted.
#[tokio::test]
async fn bad_index_entries_are_skipped() {
    let fixture = Fixture::default();
    let long = "x".repeat(1025);
    fixture.text(
        "skill://index.json",
        &format!(
            r#"{{
  // SEP-2640 discovery index
  "$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
  "skills": [
    {{"name": "ok", "type": "skill-md", "description": "Fine.", "url": "skill://ok/SKILL.md"}},
    {{"name": "BadName", "type": "skill-md", "description": "d", "url": "skill://b/SKILL.md"}},
    {{"name": "-lead", "type": "skill-md", "description": "d", "url": "skill://c/SKILL.md"}},
    {{"name": "../up", "type": "archive", "description": "d", "url": "skill://d.zip"}},
    {{"name": "empty", "type": "skill-md", "description": "", "url": "skill://e/SKILL.md"}},
    {{"name": "long", "type": "skill-md", "description": "{long}", "url": "skill://f/SKILL.md"}},
    {{"name": "ok", "type": "skill-md", "description": "Again.", "url": "skill://g/SKILL.md"}},
    {{"name": "no-url", "type": "skill-md", "description": "d"}},
    {{"name": "other", "type": "plugin", "description": "d", "url": "x"}},
    42,
  ],
}}"#
        ),
    );
    let client = piped(fixture).await;
    let source = McpSkillsSource::builder_for_client(client, "bad").build();
    let skills = source.load().await.unwrap();
    assert_eq!(names(&skills), ["ok"]);
    assert_eq!(skills[0].frontmatter().description, "Fine.");
}

/// An archive whose SKILL.md names another skill, or has none, is skipped and removed.
#[tokio::test]
async fn an_archive_must_hold_the_skill_the_index_names() {
    let other = skill_md("other", "");
    let fixture = Fixture::default();
    fixture.blob(
        "skill://good.zip",
        &zip(&[("SKILL.md", other.as_bytes())]),
        None,
    );
    fixture.blob("skill://bare.zip", &zip(&[("README.md", b"hi")]), None);
    fixture.text(
        "skill://index.json",
        &index(&[
            ("good", "archive", "skill://good.zip", None),
            ("bare", "archive", "skill://bare.zip", None),
        ]),
    );
    let base = tempfile::tempdir().unwrap();
    let source = source(&fixture, base.path(), ArchiveLimits::default()).await;
    assert!(source.load().await.unwrap().is_empty());
    assert!(tree(source.archive_dir()).is_empty());
}

/// The warnings logged while `work` runs on this thread, without colours.
async fn warnings_of<T>(work: impl std::future::Future<Output = T>) -> (T, String) {
    #[derive(Clone, Default)]
    struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .with_max_level(tracing::Level::WARN)
        .finish();
    let guard = tracing::subscriber::set_default(subscriber);
    let result = work.await;
    drop(guard);
    let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    (result, text)
}

/// An index of archive skills `names`, each a zip of its `SKILL.md` and `extra` bytes.
fn archive_fixture(names: &[String], extra: usize) -> Fixture {
    let fixture = Fixture::default();
    let mut entries = Vec::new();
    for name in names {
        let md = skill_md(name, "Body.");
        let padding = vec![b'p'; extra];
        let bytes = zip(&[("SKILL.md", md.as_bytes()), ("references/pad.md", &padding)]);
        let url = format!("skill://{name}.zip");
        fixture.blob(&url, &bytes, None);
        entries.push((name.clone(), url));
    }
    let listed: Vec<(&str, &str, &str, Option<&str>)> = entries
        .iter()
        .map(|(name, url)| (name.as_str(), "archive", url.as_str(), None))
        .collect();
    fixture.text("skill://index.json", &index(&listed));
    fixture
}

#[tokio::test]
async fn past_the_archive_count_the_rest_is_refused_with_a_warning_and_the_others_load() {
    let all: Vec<String> = (1..=21).map(|n| format!("skill-{n:02}")).collect();
    let fixture = archive_fixture(&all, 10);
    let base = tempfile::tempdir().unwrap();
    let source = source(&fixture, base.path(), ArchiveLimits::default()).await;
    let (loaded, warnings) = warnings_of(source.load()).await;
    let mut loaded = names(&loaded.unwrap());
    loaded.sort();
    assert_eq!(loaded, all[..20], "the first 20 archives are served");
    let refused: Vec<&str> = warnings
        .lines()
        .filter(|l| l.contains("skill-21"))
        .collect();
    assert_eq!(refused.len(), 1, "{warnings}");
    for expected in [
        "fixture",
        "more than 20 archives",
        "ArchiveLimits::max_archives",
    ] {
        assert!(refused[0].contains(expected), "{expected}: {warnings}");
    }
    assert!(!source.archive_dir().join("skill-21").exists());

    // Raised, the 21st loads too.
    let raised = ArchiveLimits {
        max_archives: 21,
        ..ArchiveLimits::default()
    };
    let source = self::source(&fixture, base.path(), raised).await;
    assert_eq!(source.load().await.unwrap().len(), 21);
}

#[tokio::test]
async fn archives_over_the_byte_caps_are_refused_naming_the_cap() {
    let listed_names: Vec<String> = ["big", "small-a", "small-b", "small-c"]
        .map(String::from)
        .to_vec();
    // Each small archive unpacks to its SKILL.md and 6000 bytes; `big` to 50,000.
    let fixture = Fixture::default();
    let mut listed = Vec::new();
    for name in &listed_names {
        let md = skill_md(name, "Body.");
        let padding = vec![b'p'; if name == "big" { 50_000 } else { 6000 }];
        let bytes = zip(&[("SKILL.md", md.as_bytes()), ("references/pad.md", &padding)]);
        fixture.blob(&format!("skill://{name}.zip"), &bytes, None);
        listed.push(name.clone());
    }
    let urls: Vec<String> = listed.iter().map(|n| format!("skill://{n}.zip")).collect();
    let entries: Vec<(&str, &str, &str, Option<&str>)> = listed
        .iter()
        .zip(&urls)
        .map(|(name, url)| (name.as_str(), "archive", url.as_str(), None))
        .collect();
    fixture.text("skill://index.json", &index(&entries));
    let base = tempfile::tempdir().unwrap();
    let limits = ArchiveLimits {
        max_uncompressed_bytes: 10_000,
        max_download_bytes: 1024 * 1024,
        // Room for two small archives, not three.
        max_total_bytes: 16_000,
        ..ArchiveLimits::default()
    };
    let source = source(&fixture, base.path(), limits).await;
    let (loaded, warnings) = warnings_of(source.load()).await;
    assert_eq!(names(&loaded.unwrap()), ["small-a", "small-b"]);
    let line = |name: &str| {
        warnings
            .lines()
            .find(|line| line.contains(&format!("skill={name}")))
            .unwrap_or_else(|| panic!("no warning for {name}: {warnings}"))
            .to_owned()
    };
    let big = line("big");
    assert!(
        big.contains("fixture") && big.contains("more than 10000 bytes"),
        "{big}"
    );
    assert!(
        big.contains("ArchiveLimits::max_uncompressed_bytes"),
        "{big}"
    );
    let third = line("small-c");
    assert!(third.contains("more than 16000 bytes in all"), "{third}");
    assert!(third.contains("ArchiveLimits::max_total_bytes"), "{third}");
    for refused in ["big", "small-c"] {
        assert!(!source.archive_dir().join(refused).exists(), "{refused}");
    }
}

#[cfg(unix)]
#[tokio::test]
async fn unpacked_archives_are_readable_by_the_user_only() {
    use std::os::unix::fs::PermissionsExt;
    let fixture = archive_fixture(&["private".to_owned()], 10);
    let base = tempfile::tempdir().unwrap();
    let source = source(&fixture, base.path(), ArchiveLimits::default()).await;
    assert_eq!(source.load().await.unwrap().len(), 1);
    let skill = source.archive_dir().join("private");
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(source.archive_dir()), 0o700);
    assert_eq!(mode(&skill), 0o700);
    assert_eq!(mode(&skill.join("references")), 0o700);
    assert_eq!(mode(&skill.join("SKILL.md")), 0o600);
    assert_eq!(mode(&skill.join("references/pad.md")), 0o600);
}
