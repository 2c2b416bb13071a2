//! A huge resource does not take the server down: a sparse 100 GiB file is never read whole,
//! is left out of its skill's manifest, is refused when asked for, and the server answers the
//! next request. One client does not grow the audit log without bound: past its quota a minute,
//! its requests are refused and not recorded.

#![cfg(unix)]

use crate::common;

use common::{piped, skill_md, write_tree};
use rmcp::model::ReadResourceRequestParams;
use rmcp::service::ServiceError;
use skillful_core::ResourceContent;
use skillful_discovery::FileSkillsSource;
use skillful_mcp::{McpSkillsSource, SkillsMcpServer};

/// A root with the skill `notes` and its `references/small.md`, and the files `more` besides.
fn notes_root(more: &[(&str, &[u8])]) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let notes = skill_md("notes", "Read references/small.md.");
    write_tree(
        root.path(),
        &[
            ("notes/SKILL.md", notes.as_bytes()),
            ("notes/references/small.md", b"small\n"),
        ],
    );
    write_tree(root.path(), more);
    root
}

#[tokio::test]
async fn a_sparse_100_gib_resource_is_an_error_and_the_server_answers_the_next_request() {
    let root = notes_root(&[("notes/references/huge.md", b"")]);
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
    let server = SkillsMcpServer::new(files);
    let cache = tempfile::tempdir().unwrap();
    let source = McpSkillsSource::builder_for_client(piped(server.clone()).await, "in-memory")
        .cache_dir(cache.path())
        .build();
    let skills = source.load().await.unwrap();
    let notes = &skills[0];

    // It cannot be read whole, so it is not served: the manifest leaves it out.
    let resources: Vec<_> = notes
        .resources()
        .iter()
        .map(|r| r.name().to_owned())
        .collect();
    assert_eq!(resources, ["references/small.md"]);
    assert!(notes.resource("references/huge.md").is_none());

    // Asked for anyway, it is refused without being read, and the server answers the next
    // request.
    let raw = piped(server).await;
    let huge = raw
        .peer()
        .read_resource(ReadResourceRequestParams::new(
            "skill://notes/references/huge.md",
        ))
        .await
        .unwrap_err();
    assert!(
        matches!(&huge, ServiceError::McpError(error) if error.code.0 == -32602),
        "{huge:?}"
    );
    let small = common::read(notes, "references/small.md").await;
    assert_eq!(small.unwrap(), ResourceContent::Text("small\n".into()));
}

#[tokio::test]
async fn a_client_past_its_audit_quota_is_refused_and_not_recorded() {
    let root = notes_root(&[]);
    let files = FileSkillsSource::builder()
        .root(root.path())
        .build()
        .unwrap();
    let log = tempfile::tempdir().unwrap();
    let sink = skillful_audit::FileAuditSink::at(log.path().join("audit")).unwrap();
    let server = SkillsMcpServer::new(files)
        .with_audit(skillful_audit::AuditSettings::new(
            std::sync::Arc::new(sink),
            "test",
        ))
        .with_audit_quota(std::num::NonZeroU32::new(3).unwrap());
    let client = piped(server).await;
    let read = async |uri: &str| {
        client
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
    };
    // Listings name no skill: neither counted nor recorded.
    read("skill://index.json").await.unwrap();
    for _ in 0..3 {
        read("skill://notes/references/small.md").await.unwrap();
    }
    let refused = read("skill://notes/SKILL.md").await.unwrap_err();
    let ServiceError::McpError(error) = refused else {
        panic!("{refused:?}");
    };
    assert!(
        error.message.contains("too many skill requests")
            && error.message.contains("at most 3 a minute"),
        "{error:?}"
    );
    let records = skillful_audit::AuditLog::at(log.path().join("audit"))
        .records()
        .unwrap();
    assert_eq!(records.len(), 3, "{records:#?}");
}
