//! Our server and our client, in one process: over an in-memory pipe and over HTTP on 127.0.0.1.

mod common;

use std::path::Path;
use std::sync::Arc;

use common::{Recording, http, piped, skill_md, write_tree};
use skillful_core::{ResourceContent, SkillError, SkillsSource, SourceContext};
use skillful_discovery::FileSkillsSource;
use skillful_mcp::{
    ARCHIVE_TYPE, INDEX_URI, McpEndpoint, McpSkillsError, McpSkillsSource, SKILL_MD_TYPE,
    SkillsMcpServer,
};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe";

/// Two skills: one with a text reference, a binary asset and a script, one bare.
fn skills_tree(root: &Path) {
    let converter = skill_md("unit-converter", "Use the table in references/table.md.");
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

/// Reads through the client: index, SKILL.md only when loaded (once), text and binary resources.
async fn check_skill_md_round_trip(source: &McpSkillsSource, reads: &Recording<SkillsMcpServer>) {
    let skills = source.load().await.unwrap();
    let mut listed: Vec<_> = skills
        .iter()
        .map(|s| s.frontmatter().name.clone())
        .collect();
    listed.sort();
    assert_eq!(listed, ["glossary", "unit-converter"]);
    assert_eq!(reads.reads(), [INDEX_URI], "discovery reads the index only");

    let converter = skills
        .iter()
        .find(|s| s.frontmatter().name == "unit-converter")
        .unwrap();
    assert_eq!(
        converter.frontmatter().description,
        "The unit-converter skill."
    );
    assert_eq!(converter.origin().kind, skillful_core::OriginKind::Mcp);
    assert_eq!(
        converter.origin().location.as_deref(),
        Some("skill://unit-converter/SKILL.md")
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
    let logo = converter
        .resource("assets/logo.png")
        .unwrap()
        .read()
        .await
        .unwrap();
    assert_eq!(
        logo,
        ResourceContent::Binary {
            bytes: PNG.to_vec(),
            mime_type: Some("image/png".into())
        }
    );
    assert!(
        converter.scripts().is_empty(),
        "skill-md skills have no scripts"
    );

    // Files discovery did not admit are not served.
    for name in ["notes.bin", "scripts/convert.py", "SKILL.md.bak"] {
        let error = converter.resource(name).unwrap().read().await.unwrap_err();
        assert!(
            error.to_string().contains("no such resource"),
            "{name}: {error}"
        );
    }
}

#[tokio::test]
async fn skill_md_round_trip_over_a_pipe() {
    let root = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let recording = Recording::new(server(root.path()));
    let client = piped(recording.clone()).await;
    let source = McpSkillsSource::builder_for_client(client, "pipe").build();
    check_skill_md_round_trip(&source, &recording).await;
}

#[tokio::test]
async fn skill_md_round_trip_over_http() {
    let root = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let recording = Recording::new(server(root.path()));
    let url = http(recording.clone()).await;
    let source = McpSkillsSource::builder(McpEndpoint::http(url)).build();
    check_skill_md_round_trip(&source, &recording).await;
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

    let url = http(server).await;
    let source = McpSkillsSource::builder(McpEndpoint::http(url))
        .extraction_dir(extraction.path())
        .archive_discovery(|| FileSkillsSource::builder().resource_extensions([".md", ".png"]))
        .build();
    let skills = source.load().await.unwrap();
    let converter = skills
        .iter()
        .find(|s| s.frontmatter().name == "unit-converter")
        .unwrap();
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
        converter
            .resource("assets/logo.png")
            .unwrap()
            .read()
            .await
            .unwrap(),
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
    let refused = script.run(serde_json::json!([])).await.unwrap_err();
    assert!(
        matches!(&refused, SkillError::NotRunnable { reason, .. } if reason.contains("not allowed to run")),
        "{refused}"
    );
}

#[tokio::test]
async fn a_server_without_an_index_offers_no_skills() {
    let client = piped(common::Fixture::default()).await;
    let source = McpSkillsSource::builder_for_client(client, "empty").build();
    assert!(source.load().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_failed_connection_is_a_typed_error_and_the_next_call_reconnects() {
    let root = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    // A port nothing listens on yet.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let source = Arc::new(
        McpSkillsSource::builder(McpEndpoint::http(format!("http://{address}/mcp"))).build(),
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
async fn a_stdio_server_that_cannot_start_is_a_typed_error() {
    let endpoint = McpEndpoint::stdio("/nonexistent/skills-server", ["serve"]);
    let source = McpSkillsSource::builder(endpoint).build();
    let error = source.load().await.unwrap_err();
    assert!(
        matches!(&error, McpSkillsError::Connect { server, .. } if server.contains("/nonexistent/skills-server")),
        "{error}"
    );
}
