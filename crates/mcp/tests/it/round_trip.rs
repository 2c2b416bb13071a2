//! Our server and our client, in one process: over an in-memory pipe and over HTTP on 127.0.0.1.
//! The final form (our server declares the Skills extension) and the draft form (the same
//! server without the declaration, as Microsoft Agent Framework's servers are).

use crate::common;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use common::{DraftOnly, Recording, http, piped, skill_md, write_tree};
use skillful_core::{OriginKind, ResourceContent, Skill, SkillError, SkillsSource, SourceContext};
use skillful_discovery::FileSkillsSource;
use skillful_mcp::{
    ARCHIVE_TYPE, BearerToken, HTTP_PATH, INDEX_URI, McpEndpoint, McpSkillsError, McpSkillsSource,
    SKILL_MD_TYPE, SkillsMcpServer,
};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe";

/// Two skills: one with a text reference, a binary asset and a script, one bare.
fn converter_md() -> String {
    skill_md("unit-converter", "Use the table in references/table.md.")
}

fn converter_digest() -> String {
    rmcp::model::sha256_digest(converter_md().as_bytes())
}

fn skills_tree(root: &Path) {
    let converter = converter_md();
    let glossary = skill_md("glossary", "Look words up.");
    write_tree(
        root,
        &[
            ("unit-converter/SKILL.md", converter.as_bytes()),
            ("unit-converter/references/table.md", b"1 in = 2.54 cm\n"),
            ("unit-converter/assets/logo.png", PNG),
            ("unit-converter/scripts/convert.py", b"print('hi')\n"),
            ("unit-converter/notes.bin", b"not admitted"),
            ("glossary/SKILL.md", glossary.as_bytes()),
        ],
    );
}

fn server(root: &Path) -> SkillsMcpServer {
    let files = FileSkillsSource::builder()
        .root(root)
        .resource_extensions([".md", ".png"])
        .build()
        .unwrap();
    SkillsMcpServer::new(files)
}

async fn names(source: &McpSkillsSource) -> Vec<String> {
    source
        .load()
        .await
        .unwrap()
        .iter()
        .map(|s| s.frontmatter().name.clone())
        .collect()
}

fn find<'a>(skills: &'a [Arc<dyn Skill>], name: &str) -> &'a Arc<dyn Skill> {
    skills
        .iter()
        .find(|s| s.frontmatter().name == name)
        .unwrap_or_else(|| panic!("no skill {name}"))
}

fn names_of<T: ?Sized, F: Fn(&T) -> &str>(items: &[Arc<T>], name: F) -> Vec<String> {
    items.iter().map(|item| name(item).to_owned()).collect()
}

/// The final form through the client: the listing fetches nothing; SKILL.md is fetched once
/// when loaded; every file of the manifest (resources and scripts) is there, each read verified.
async fn check_final_form_round_trip(
    source: &McpSkillsSource,
    reads: &Recording<SkillsMcpServer>,
    label: &str,
) {
    let skills = source.load().await.unwrap();
    let mut listed = names_of(&skills, |s| s.frontmatter().name.as_str());
    listed.sort();
    assert_eq!(listed, ["glossary", "unit-converter"]);
    assert!(reads.reads().is_empty(), "listing fetches no file");

    let converter = find(&skills, "unit-converter");
    assert_eq!(
        converter.frontmatter().description,
        "The unit-converter skill."
    );
    assert_eq!(
        converter.listed_digest(),
        Some(converter_digest().as_str()),
        "the manifest's SKILL.md digest"
    );
    let origin = converter.origin();
    assert_eq!(origin.kind, OriginKind::Mcp);
    assert_eq!(origin.label, label);
    assert_eq!(
        origin.location.as_deref(),
        Some("skill://unit-converter/SKILL.md")
    );
    assert_eq!(
        names_of(&converter.resources(), |r| r.name()),
        ["assets/logo.png", "references/table.md"]
    );
    assert_eq!(
        names_of(&converter.scripts(), |s| s.name()),
        ["scripts/convert.py"]
    );

    let document = converter.document().await.unwrap();
    assert!(
        document
            .written_frontmatter
            .unwrap()
            .starts_with("name: unit-converter\n")
    );
    assert!(document.body.contains("Use the table"));
    converter.document().await.unwrap();
    assert_eq!(
        reads.reads(),
        ["skill://unit-converter/SKILL.md"],
        "SKILL.md is fetched on first load, then kept"
    );

    let table = converter.resource("references/table.md").unwrap();
    assert_eq!(
        table.read().await.unwrap(),
        ResourceContent::Text("1 in = 2.54 cm\n".into())
    );
    let logo = common::read(converter, "assets/logo.png").await.unwrap();
    assert_eq!(
        logo,
        ResourceContent::Binary {
            bytes: PNG.to_vec(),
            mime_type: Some("image/png".into())
        }
    );
    // Files the server does not serve are not in the manifest: nothing is asked for them.
    for name in [
        "notes.bin",
        "scripts/convert.py",
        "SKILL.md.bak",
        "../glossary/SKILL.md",
    ] {
        assert!(converter.resource(name).is_none(), "{name}");
    }
    assert_eq!(reads.reads().len(), 3, "{:?}", reads.reads());

    // The scripts of an MCP skill never run unless the host approves it.
    let script = converter.script("scripts/convert.py").unwrap();
    let reason = common::refusal(&*script, serde_json::json!([])).await;
    assert!(reason.contains("approves"), "{reason}");
    assert_eq!(reads.reads().len(), 3, "a refused script fetches nothing");
}

#[tokio::test]
async fn final_form_round_trip_over_a_pipe() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let recording = Recording::new(server(root.path()));
    let client = piped(recording.clone()).await;
    let source = McpSkillsSource::builder_for_client(client, "pipe")
        .cache_dir(cache.path())
        .build();
    check_final_form_round_trip(&source, &recording, "pipe").await;
}

#[tokio::test]
async fn final_form_round_trip_over_http() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let recording = Recording::new(server(root.path()));
    let url = http(recording.clone()).await;
    let source = McpSkillsSource::builder(McpEndpoint::http(url))
        .label("docs")
        .cache_dir(cache.path())
        .build();
    check_final_form_round_trip(&source, &recording, "docs").await;
}

/// The draft form through the client: the index only at listing, SKILL.md once, resources
/// resolved against the skill's root.
async fn check_draft_form_round_trip(source: &McpSkillsSource, reads: &Recording<SkillsMcpServer>) {
    let skills = source.load().await.unwrap();
    let mut listed = names_of(&skills, |s| s.frontmatter().name.as_str());
    listed.sort();
    assert_eq!(listed, ["glossary", "unit-converter"]);
    assert_eq!(reads.reads(), [INDEX_URI], "discovery reads the index only");

    let converter = find(&skills, "unit-converter");
    assert_eq!(converter.origin().kind, OriginKind::Mcp);
    assert_eq!(
        converter.listed_digest(),
        Some(converter_digest().as_str()),
        "the index entry's digest"
    );
    assert_eq!(
        converter.origin().location.as_deref(),
        Some("skill://unit-converter/SKILL.md")
    );
    let document = converter.document().await.unwrap();
    assert!(document.body.contains("Use the table"));
    converter.document().await.unwrap();
    let skill_md_reads = reads
        .reads()
        .iter()
        .filter(|uri| uri.as_str() == "skill://unit-converter/SKILL.md")
        .count();
    assert_eq!(
        skill_md_reads, 1,
        "SKILL.md is read on first load, then kept"
    );
    let table = converter.resource("references/table.md").unwrap();
    assert_eq!(
        table.read().await.unwrap(),
        ResourceContent::Text("1 in = 2.54 cm\n".into())
    );
    assert!(
        converter.scripts().is_empty(),
        "skill-md skills have no scripts"
    );
    // Scripts are served now (as the final form lists them); files discovery did not admit
    // are not.
    let script = converter.resource("scripts/convert.py").unwrap();
    assert_eq!(
        script.read().await.unwrap(),
        ResourceContent::Text("print('hi')\n".into())
    );
    for name in ["notes.bin", "SKILL.md.bak"] {
        let error = common::read(converter, name).await.unwrap_err();
        assert!(
            error.to_string().contains("no such resource"),
            "{name}: {error}"
        );
    }
}

#[tokio::test]
async fn draft_form_round_trip_over_a_pipe() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let recording = Recording::new(server(root.path()));
    let client = piped(DraftOnly(recording.clone())).await;
    let source = McpSkillsSource::builder_for_client(client, "pipe")
        .cache_dir(cache.path())
        .build();
    check_draft_form_round_trip(&source, &recording).await;
}

#[tokio::test]
async fn the_index_carries_digests_of_what_each_url_serves() {
    let root = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let index = server(root.path()).index().await;
    let entries: Vec<_> = index.entries().map(Result::unwrap).collect();
    assert_eq!(entries.len(), 2);
    for entry in &entries {
        assert_eq!(entry.kind, SKILL_MD_TYPE);
        let on_disk = std::fs::read(root.path().join(&entry.name).join("SKILL.md")).unwrap();
        assert_eq!(
            entry.digest.as_deref(),
            Some(rmcp::model::sha256_digest(&on_disk).as_str())
        );
        assert_eq!(entry.url, format!("skill://{}/SKILL.md", entry.name));
    }
}

#[tokio::test]
async fn archive_entries_round_trip_as_file_skills_whose_scripts_never_run() {
    let root = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let extraction = tempfile::tempdir().unwrap();
    let server = server(root.path()).with_archives(true);
    let index = server.index().await;
    assert!(index.entries().all(|e| e.unwrap().kind == ARCHIVE_TYPE));

    let url = http(DraftOnly(server)).await;
    let source = McpSkillsSource::builder(McpEndpoint::http(url))
        .cache_dir(extraction.path().join("cache"))
        .extraction_dir(extraction.path().join("archives"))
        .archive_discovery(|| FileSkillsSource::builder().resource_extensions([".md", ".png"]))
        .build();
    let skills = source.load().await.unwrap();
    let converter = find(&skills, "unit-converter");
    assert!(
        converter.origin().location.as_deref().unwrap().starts_with(
            &source
                .archive_dir()
                .canonicalize()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        )
    );
    assert!(
        converter
            .document()
            .await
            .unwrap()
            .body
            .contains("Use the table")
    );
    assert_eq!(
        common::read(converter, "assets/logo.png").await.unwrap(),
        ResourceContent::Binary {
            bytes: PNG.to_vec(),
            mime_type: None
        }
    );
    // Exactly the admitted files travelled: not notes.bin.
    let unpacked = common::tree(&source.archive_dir().join("unit-converter"));
    assert_eq!(
        unpacked.into_iter().collect::<Vec<_>>(),
        [
            "SKILL.md",
            "assets/",
            "assets/logo.png",
            "references/",
            "references/table.md",
            "scripts/",
            "scripts/convert.py"
        ]
    );
    let script = converter.script("scripts/convert.py").unwrap();
    let reason = common::refusal(&*script, serde_json::json!([])).await;
    assert!(reason.contains("not allowed to run"), "{reason}");
}

#[tokio::test]
async fn a_server_without_an_index_offers_no_skills() {
    let cache = tempfile::tempdir().unwrap();
    let client = piped(common::Fixture::default()).await;
    let source = McpSkillsSource::builder_for_client(client, "empty")
        .cache_dir(cache.path())
        .build();
    assert!(source.load().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_failed_connection_is_a_typed_error_and_the_next_call_reconnects() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    // A port nothing listens on yet.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let source = Arc::new(
        McpSkillsSource::builder(McpEndpoint::http(format!("http://{address}/mcp")))
            .cache_dir(cache.path())
            .build(),
    );
    let error = source.load().await.unwrap_err();
    assert!(matches!(error, McpSkillsError::Connect { .. }), "{error}");
    let through_trait = source.skills(&SourceContext::default()).await.unwrap_err();
    assert!(through_trait.to_string().contains(&address.to_string()));

    let listener = tokio::net::TcpListener::bind(address).await.unwrap();
    tokio::spawn(server(root.path()).serve_http(listener));
    assert_eq!(names(&source).await.len(), 2);
}

#[tokio::test]
async fn a_server_that_requires_a_bearer_token_is_read_with_it_and_refuses_without() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let token = BearerToken::new("correct-horse-battery-staple").unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}{HTTP_PATH}", listener.local_addr().unwrap());
    tokio::spawn(
        server(root.path())
            .with_bearer_token(token.clone())
            .serve_http(listener),
    );

    let with_token = McpSkillsSource::builder(McpEndpoint::http_with_bearer_token(&url, token))
        .cache_dir(cache.path())
        .build();
    let mut found = names(&with_token).await;
    found.sort();
    assert_eq!(found, ["glossary", "unit-converter"]);
    let skills = with_token.load().await.unwrap();
    let converter = find(&skills, "unit-converter");
    assert!(
        converter
            .document()
            .await
            .unwrap()
            .body
            .contains("references/table.md")
    );

    let wrong = BearerToken::new("correct-horse-battery-stapler").unwrap();
    for (endpoint, why) in [
        (
            McpEndpoint::http(&url),
            "requires a bearer token and none was sent",
        ),
        (
            McpEndpoint::http_with_bearer_token(&url, wrong),
            "refused the bearer token sent",
        ),
    ] {
        let source = McpSkillsSource::builder(endpoint)
            .cache_dir(cache.path())
            .build();
        let error = source.load().await.unwrap_err();
        assert!(
            matches!(&error, McpSkillsError::Connect { server, .. } if *server == url),
            "{error}"
        );
        assert!(error.to_string().contains(why), "{error}");
        assert!(!error.to_string().contains("horse"), "{error}");
    }
}

#[tokio::test]
async fn a_stdio_server_that_cannot_start_is_a_typed_error() {
    let cache = tempfile::tempdir().unwrap();
    let endpoint = McpEndpoint::stdio("/nonexistent/skills-server", ["serve"]);
    let source = McpSkillsSource::builder(endpoint)
        .cache_dir(cache.path())
        .build();
    let error = source.load().await.unwrap_err();
    assert!(
        matches!(&error, McpSkillsError::Connect { server, .. } if server.contains("/nonexistent/skills-server")),
        "{error}"
    );
}

#[tokio::test]
async fn verified_files_are_kept_in_the_cache_and_checked_again_on_every_use() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let recording = Recording::new(server(root.path()).with_rescan_interval(Duration::ZERO));
    let url = http(recording.clone()).await;
    let source = || {
        McpSkillsSource::builder(McpEndpoint::http(url.clone()))
            .cache_dir(cache.path())
            .build()
    };
    let read_table = |skills: Vec<Arc<dyn Skill>>| async move {
        let converter = find(&skills, "unit-converter");
        converter.document().await.unwrap();
        common::read(converter, "references/table.md")
            .await
            .unwrap()
    };

    let first = read_table(source().load().await.unwrap()).await;
    assert_eq!(first, ResourceContent::Text("1 in = 2.54 cm\n".into()));
    assert_eq!(recording.reads().len(), 2);

    // Another run: the same manifest, so the cached files are used (after checking them).
    let again = read_table(source().load().await.unwrap()).await;
    assert_eq!(again, first);
    assert_eq!(recording.reads().len(), 2, "{:?}", recording.reads());

    // The table changes on the server: the new listing's digest no longer matches the cached
    // bytes, so they are fetched afresh.
    std::fs::write(
        root.path().join("unit-converter/references/table.md"),
        "1 ft = 30.48 cm\n",
    )
    .unwrap();
    let changed = read_table(source().load().await.unwrap()).await;
    assert_eq!(changed, ResourceContent::Text("1 ft = 30.48 cm\n".into()));
    assert_eq!(
        recording.reads().last().unwrap(),
        "skill://unit-converter/references/table.md"
    );
    assert_eq!(recording.reads().len(), 3);

    // Everything kept lies in the cache directory given, never below the skills root.
    let kept = common::tree(cache.path());
    assert!(
        kept.iter().any(|path| path.starts_with("files/")),
        "{kept:?}"
    );
}

#[tokio::test]
async fn a_file_changed_after_listing_is_refused_naming_server_uri_and_digests() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let url = http(server(root.path()).with_rescan_interval(Duration::ZERO)).await;
    let source = McpSkillsSource::builder(McpEndpoint::http(url))
        .label("docs")
        .cache_dir(cache.path())
        .build();
    let skills = source.load().await.unwrap();
    let converter = find(&skills, "unit-converter");
    let listed = rmcp::model::sha256_digest(b"1 in = 2.54 cm\n");
    let served = rmcp::model::sha256_digest(b"1 in = 9.99 cm\n");
    std::fs::write(
        root.path().join("unit-converter/references/table.md"),
        "1 in = 9.99 cm\n",
    )
    .unwrap();
    let error = common::read(converter, "references/table.md")
        .await
        .unwrap_err();
    let SkillError::Mismatch { what, detail } = &error else {
        panic!("not a mismatch: {error:?}");
    };
    assert!(
        what.contains("skill://unit-converter/references/table.md") && what.contains("docs"),
        "{what}"
    );
    assert!(
        detail.contains(&listed) && detail.contains(&served) && detail.contains("docs"),
        "{detail}"
    );
    assert!(!detail.contains("9.99 cm"), "the content never shows");

    // A SKILL.md changed after listing is not loaded either.
    std::fs::write(
        root.path().join("unit-converter/SKILL.md"),
        skill_md("unit-converter", "Ignore the table."),
    )
    .unwrap();
    let error = converter.document().await.unwrap_err();
    assert!(matches!(error, SkillError::Mismatch { .. }), "{error:?}");
    assert!(!error.to_string().contains("Ignore the table"), "{error}");
}
