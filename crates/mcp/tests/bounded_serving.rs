//! A huge resource does not take the server down: a sparse 100 GiB file is refused with an
//! error (it is never read whole), and the server answers the next request.

#![cfg(unix)]

mod common;

use common::{piped, skill_md, write_tree};
use skillful_core::{ResourceContent, SkillError};
use skillful_discovery::FileSkillsSource;
use skillful_mcp::{McpSkillsSource, SkillsMcpServer};

#[tokio::test]
async fn a_sparse_100_gib_resource_is_an_error_and_the_server_answers_the_next_request() {
    let root = tempfile::tempdir().unwrap();
    let notes = skill_md("notes", "Read references/small.md.");
    write_tree(
        root.path(),
        &[
            ("notes/SKILL.md", notes.as_bytes()),
            ("notes/references/small.md", b"small\n"),
            ("notes/references/huge.md", b""),
        ],
    );
    std::fs::OpenOptions::new()
        .write(true)
        .open(root.path().join("notes/references/huge.md"))
        .unwrap()
        .set_len(100 * 1024 * 1024 * 1024)
        .unwrap();
    let files = FileSkillsSource::builder()
        .root(root.path())
        .build()
        .unwrap();
    let client = piped(SkillsMcpServer::new(files)).await;
    let source = McpSkillsSource::builder_for_client(client, "in-memory").build();
    let skills = source.load().await.unwrap();
    let notes = &skills[0];

    let huge = notes.resource("references/huge.md").unwrap().read().await;
    let error = huge.unwrap_err();
    assert!(
        matches!(&error, SkillError::Other(_) | SkillError::Unreadable { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("over the limit"), "{error}");

    let small = notes.resource("references/small.md").unwrap().read().await;
    assert_eq!(small.unwrap(), ResourceContent::Text("small\n".into()));
}
