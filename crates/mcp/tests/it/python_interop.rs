//! Our client against a server written with the Python MCP SDK (`pip install mcp`), over stdio.

use crate::common;

use skillful_core::ResourceContent;
use skillful_mcp::{McpEndpoint, McpSkillsSource};

const SERVER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/python_skills_server.py"
);

#[tokio::test]
async fn our_client_reads_skill_md_and_archive_entries_from_a_python_server() {
    if !skillful_test_support::python_imports("mcp", "pip install mcp") {
        return;
    }
    let extraction = tempfile::tempdir().unwrap();
    let source = McpSkillsSource::builder(McpEndpoint::stdio("python3", [SERVER]))
        .extraction_dir(extraction.path())
        .build();
    let skills = source
        .load()
        .await
        .expect("python3 with the `mcp` package runs the fixture server (pip install mcp)");
    let names: Vec<_> = skills
        .iter()
        .map(|s| s.frontmatter().name.as_str())
        .collect();
    assert_eq!(
        names,
        ["py-notes", "py-archive"],
        "the unknown entry type is skipped"
    );

    let notes = &skills[0];
    assert_eq!(
        notes.frontmatter().description,
        "Notes served by a Python MCP server."
    );
    assert!(
        notes
            .document()
            .await
            .unwrap()
            .body
            .contains("Read references/guide.md first.")
    );
    let guide = common::read(notes, "references/guide.md").await.unwrap();
    assert_eq!(
        guide,
        ResourceContent::Text("The guide, from Python.\n".into())
    );
    let data = common::read(notes, "assets/data.bin").await.unwrap();
    assert_eq!(
        data,
        ResourceContent::Binary {
            bytes: vec![0, 1, 2, 250, 251, 252, 253, 254, 255],
            mime_type: Some("application/octet-stream".into())
        }
    );
    assert!(notes.resource("../py-archive.zip").is_none());
    let missing = common::read(notes, "references/missing.md").await;
    assert!(missing.unwrap_err().to_string().contains("missing.md"));

    let archive = &skills[1];
    assert!(
        archive
            .document()
            .await
            .unwrap()
            .body
            .contains("Everything is in references/.")
    );
    let facts = common::read(archive, "references/facts.md").await.unwrap();
    assert_eq!(facts, ResourceContent::Text("Zip from Python.\n".into()));
    assert!(archive.origin().to_string().contains("py-archive"));
}
