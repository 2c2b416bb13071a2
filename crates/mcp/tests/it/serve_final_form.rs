//! `SkillsMcpServer` in the Skills extension's final form, read with the protocol layer
//! (`final_form`) over an in-memory pipe and over HTTP on 127.0.0.1, in both protocol eras: the
//! listing, its pages and manifests, the frontmatter's YAML types, `skills/get`, directory
//! reads, cache hints, and the errors the spec asks for.

use crate::common::{self, Era};

use std::num::NonZeroUsize;
use std::path::Path;
use std::time::Duration;

use common::write_tree;
use rmcp::model::{
    CacheScope, ClientRequest, ListSkillsRequest, PaginatedRequestParams, ProtocolVersion,
    ReadResourceRequestParams, ServerResult,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService, ServiceError,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;
use skillful_discovery::FileSkillsSource;
use skillful_mcp::SkillsMcpServer;
use skillful_mcp::final_form::{
    self, DIRECTORY_MIME_TYPE, FinalFormError, Integrity, ListingLimits, MAX_FILES_PER_SKILL,
    Manifest, SkillEntry, check_entry, sha256_digest,
};

const LABEL: &str = "ours";
const BOM_NOTE: &[u8] = b"\xef\xbb\xbfnote with a byte-order mark\n";
const BINARY: &[u8] = &[0, 1, 0xfa, 0xfb, 0xff];

/// Five skills in two roots' worth of layout: typed metadata, a nested skill inside another, a
/// binary file, a file with a byte-order mark, a script, a name with spaces, and a skill whose
/// name breaks the naming rules (loaded leniently).
fn skills_tree(root: &Path) {
    write_tree(
        root,
        &[
            (
                "pdf/SKILL.md",
                b"---\nname: pdf\ndescription: Fill PDF forms.\nlicense: Apache-2.0\nallowed-tools: [Read, Bash]\nmetadata:\n  version: 2.1\n  quoted: \"2.1\"\n  semver: 2.1.0\n  beta: true\n  tags: [forms, pdf]\n  count: 3\nowner:\n  team: docs\n---\nUse templates/.\n",
            ),
            ("pdf/templates/invoice.md", b"Invoice\n"),
            ("pdf/templates/regional/eu invoice.md", b"EU invoice\n"),
            ("pdf/templates/logo.png", BINARY),
            ("pdf/notes.md", BOM_NOTE),
            ("pdf/scripts/fill.py", b"print('filled')\n"),
            (
                "pdf/forms/SKILL.md",
                b"---\nname: forms\ndescription: A nested skill.\n---\nNested.\n",
            ),
            ("pdf/forms/guide.md", b"Nested guide\n"),
            ("alpha/SKILL.md", b"---\nname: alpha\ndescription: A.\n---\nA.\n"),
            ("beta/SKILL.md", b"---\nname: beta\ndescription: B.\n---\nB.\n"),
            ("gamma/SKILL.md", b"---\nname: gamma\ndescription: C.\n---\nC.\n"),
            (
                "Bad_Name/SKILL.md",
                b"---\nname: Bad_Name\ndescription: Breaks the naming rules.\n---\nX.\n",
            ),
        ],
    );
}

fn server(root: &Path) -> SkillsMcpServer {
    let files = FileSkillsSource::builder()
        .root(root)
        .resource_extensions([".md", ".png"])
        .search_depth(3)
        .build()
        .unwrap();
    SkillsMcpServer::new(files).with_page_size(NonZeroUsize::new(2).unwrap())
}

async fn connect(server: SkillsMcpServer, era: Era) -> RunningService<RoleClient, ()> {
    let (server_end, client_end) = tokio::io::duplex(4 * 1024 * 1024);
    tokio::spawn(server.serve(server_end));
    common::client_in(client_end, era).await
}

async fn all(client: &RunningService<RoleClient, ()>) -> Vec<SkillEntry> {
    let page = final_form::list_all_skills(client.peer(), LABEL, ListingLimits::default())
        .await
        .unwrap();
    assert!(page.rejected.is_empty(), "{:?}", page.rejected);
    page.skills
}

fn files(skill: &SkillEntry) -> Vec<&str> {
    let Manifest::Files(files) = &skill.resources else {
        panic!("{} has no manifest", skill.uri);
    };
    files.iter().map(|file| file.uri.as_str()).collect()
}

#[tokio::test]
async fn the_listing_pages_in_uri_order_in_both_eras() {
    let root = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    for era in [Era::Legacy, Era::Modern] {
        let client = connect(server(root.path()), era).await;
        let declared = final_form::skills_extension(client.peer()).expect("declared");
        assert!(declared.directory_read);
        assert!(
            client
                .peer()
                .peer_info()
                .unwrap()
                .capabilities
                .resources
                .is_some()
        );

        let pages = common::pages_of_two(&client, LABEL, era, 1000).await;
        assert_eq!(pages.len(), 2, "{era:?}");
        let listed: Vec<SkillEntry> = pages.into_iter().flat_map(|page| page.skills).collect();
        // Bad_Name is served (and in the draft index) but cannot be listed in the final form.
        assert_eq!(
            common::uris(&listed),
            [
                "skill://alpha/SKILL.md",
                "skill://beta/SKILL.md",
                "skill://gamma/SKILL.md",
                "skill://pdf/SKILL.md"
            ]
        );
        let error = final_form::list_skills(client.peer(), LABEL, Some("not ours".into()))
            .await
            .unwrap_err();
        assert!(
            matches!(error, FinalFormError::Refused { code: -32602, .. }),
            "{error}"
        );
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn results_carry_result_type_and_cache_hints_only_in_the_2026_era() {
    let root = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    for era in [Era::Legacy, Era::Modern] {
        let client = connect(server(root.path()), era).await;
        let request = ClientRequest::ListSkillsRequest(ListSkillsRequest::with_param(
            PaginatedRequestParams::default(),
        ));
        let ServerResult::ListSkillsResult(listing) =
            client.peer().send_request(request).await.unwrap()
        else {
            panic!("not a listing");
        };
        let read = client
            .peer()
            .read_resource(ReadResourceRequestParams::new("skill://alpha/SKILL.md"))
            .await
            .unwrap();
        match era {
            Era::Modern => {
                assert!(listing.result_type.unwrap().is_complete());
                assert_eq!(listing.ttl_ms, Some(1000));
                assert_eq!(read.ttl_ms, Some(1000));
                assert_eq!(read.cache_scope, Some(CacheScope::Public));
            }
            Era::Legacy => {
                assert_eq!(listing.result_type, None);
                assert_eq!((listing.ttl_ms, listing.cache_scope), (None, None));
                assert_eq!((read.ttl_ms, read.cache_scope), (None, None));
            }
        }
    }
}

#[tokio::test]
async fn each_manifest_lists_every_served_file_once_with_the_digest_of_what_is_read() {
    let root = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let client = connect(server(root.path()), Era::Legacy).await;
    let skills = all(&client).await;
    let pdf = skills
        .iter()
        .find(|s| s.uri == "skill://pdf/SKILL.md")
        .unwrap();
    check_entry(pdf).unwrap();
    assert_eq!(
        files(pdf),
        [
            "skill://pdf/SKILL.md",
            "skill://pdf/forms/guide.md",
            "skill://pdf/notes.md",
            "skill://pdf/scripts/fill.py",
            "skill://pdf/templates/invoice.md",
            "skill://pdf/templates/logo.png",
            "skill://pdf/templates/regional/eu%20invoice.md",
        ],
        "SKILL.md once, resources and the script; the nested SKILL.md is not served"
    );
    let Manifest::Files(manifest) = &pdf.resources else {
        unreachable!()
    };
    let on_disk = |name: &str| std::fs::read(root.path().join("pdf").join(name)).unwrap();
    for (file, name) in manifest.iter().zip([
        "SKILL.md",
        "forms/guide.md",
        "notes.md",
        "scripts/fill.py",
        "templates/invoice.md",
        "templates/logo.png",
        "templates/regional/eu invoice.md",
    ]) {
        let bytes = on_disk(name);
        assert_eq!(file.digest, sha256_digest(&bytes), "{name}");
        assert_eq!(file.size, bytes.len() as u64, "{name}");
        let read = final_form::read_skill_file(client.peer(), LABEL, pdf, &file.uri)
            .await
            .unwrap();
        assert_eq!(read.integrity, Integrity::Verified);
        assert_eq!(read.bytes, bytes, "exactly the digested bytes: {name}");
        assert_eq!(read.text, name != "templates/logo.png", "{name}");
    }
    let notes = final_form::read_skill_file(client.peer(), LABEL, pdf, "skill://pdf/notes.md")
        .await
        .unwrap();
    assert_eq!(notes.bytes, BOM_NOTE, "the byte-order mark is served too");
}

#[tokio::test]
async fn the_frontmatter_is_listed_verbatim_with_its_yaml_types() {
    let root = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let client = connect(server(root.path()), Era::Modern).await;
    let skills = all(&client).await;
    let pdf = skills
        .iter()
        .find(|s| s.uri == "skill://pdf/SKILL.md")
        .unwrap();
    assert_eq!(
        serde_json::to_value(&pdf.frontmatter).unwrap(),
        json!({
            "name": "pdf",
            "description": "Fill PDF forms.",
            "license": "Apache-2.0",
            "allowed-tools": ["Read", "Bash"],
            "metadata": {
                "version": 2.1,
                "quoted": "2.1",
                "semver": "2.1.0",
                "beta": true,
                "tags": ["forms", "pdf"],
                "count": 3
            },
            "owner": {"team": "docs"}
        })
    );
    // What the client checks the fetched SKILL.md against.
    let skill_md = final_form::read_skill_file(client.peer(), LABEL, pdf, &pdf.uri)
        .await
        .unwrap();
    final_form::verify_skill_md(LABEL, pdf, &skill_md.bytes).unwrap();
}

#[tokio::test]
async fn skills_get_answers_for_listed_skills_and_minus_32602_for_anything_else() {
    let root = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let client = connect(server(root.path()), Era::Legacy).await;
    let skills = all(&client).await;
    for skill in &skills {
        let (got, _) = final_form::get_skill(client.peer(), LABEL, &skill.uri)
            .await
            .unwrap();
        assert_eq!(&got, skill);
    }
    for uri in [
        "skill://missing/SKILL.md",
        "skill://pdf",
        "skill://pdf/notes.md",
        "skill://pdf/forms/SKILL.md",
        "skill://Bad_Name/SKILL.md",
    ] {
        let error = final_form::get_skill(client.peer(), LABEL, uri)
            .await
            .unwrap_err();
        assert!(
            matches!(error, FinalFormError::NotASkill { .. }),
            "{uri}: {error}"
        );
    }
    // The nested SKILL.md is no file of the server's either.
    for uri in [
        "skill://pdf/forms/SKILL.md",
        "skill://pdf/missing.md",
        "file:///etc/passwd",
    ] {
        let error = client
            .peer()
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
            .unwrap_err();
        assert!(
            matches!(&error, ServiceError::McpError(error) if error.code.0 == -32602),
            "{uri}: {error:?}"
        );
    }
}

#[tokio::test]
async fn skills_get_sees_a_file_changed_since_the_listing() {
    let root = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let served = server(root.path()).with_rescan_interval(Duration::from_secs(3600));
    let client = connect(served, Era::Legacy).await;
    let listed = all(&client).await;
    let alpha = listed
        .iter()
        .find(|s| s.uri == "skill://alpha/SKILL.md")
        .unwrap();
    let changed = b"---\nname: alpha\ndescription: A, changed.\n---\nA.\n";
    std::fs::write(root.path().join("alpha/SKILL.md"), changed).unwrap();

    let (fresh, _) = final_form::get_skill(client.peer(), LABEL, &alpha.uri)
        .await
        .unwrap();
    assert_eq!(fresh.frontmatter.description, "A, changed.");
    let Manifest::Files(files) = &fresh.resources else {
        unreachable!()
    };
    assert_eq!(files[0].digest, sha256_digest(changed));
    // The refreshed entry verifies what is served now; the listed one no longer does.
    let read = final_form::read_skill_file(client.peer(), LABEL, &fresh, &fresh.uri)
        .await
        .unwrap();
    final_form::verify_skill_md(LABEL, &fresh, &read.bytes).unwrap();
    let stale = final_form::read_skill_file(client.peer(), LABEL, alpha, &alpha.uri).await;
    assert!(
        matches!(stale, Err(FinalFormError::Verification(_))),
        "{stale:?}"
    );
}

#[tokio::test]
async fn directories_of_listed_skills_read_one_level_at_a_time() {
    let root = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let client = connect(server(root.path()), Era::Legacy).await;
    let children = |uri: &'static str| {
        let peer = client.peer().clone();
        async move {
            let mut all = Vec::new();
            let mut cursor = None;
            loop {
                let page = final_form::read_directory(&peer, LABEL, uri, cursor)
                    .await
                    .unwrap();
                all.extend(page.resources);
                match page.next_cursor {
                    Some(next) => cursor = Some(next),
                    None => return all,
                }
            }
        }
    };
    let root_children = children("skill://pdf").await;
    let listed: Vec<(&str, bool)> = root_children
        .iter()
        .map(|child| (child.uri.as_str(), child.is_directory()))
        .collect();
    assert_eq!(
        listed,
        [
            ("skill://pdf/SKILL.md", false),
            ("skill://pdf/forms", true),
            ("skill://pdf/notes.md", false),
            ("skill://pdf/scripts", true),
            ("skill://pdf/templates", true),
        ]
    );
    assert_eq!(
        root_children[3].mime_type.as_deref(),
        Some(DIRECTORY_MIME_TYPE)
    );
    let templates = children("skill://pdf/templates").await;
    let names: Vec<&str> = templates.iter().map(|child| child.name.as_str()).collect();
    assert_eq!(names, ["invoice.md", "logo.png", "regional"]);
    assert_eq!(templates[0].size, Some(8));
    assert_eq!(templates[1].mime_type.as_deref(), Some("image/png"));
    let regional = children("skill://pdf/templates/regional").await;
    assert_eq!(
        regional[0].uri,
        "skill://pdf/templates/regional/eu%20invoice.md"
    );

    for uri in [
        "skill://pdf/notes.md",
        "skill://pdf/missing",
        "skill://Bad_Name",
    ] {
        let error = final_form::read_directory(client.peer(), LABEL, uri, None)
            .await
            .unwrap_err();
        assert!(
            matches!(error, FinalFormError::NotADirectory { .. }),
            "{uri}: {error}"
        );
    }
}

#[tokio::test]
async fn resources_list_describes_each_skill_md_and_every_file() {
    let root = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let client = connect(server(root.path()), Era::Legacy).await;
    let resources = client.peer().list_all_resources().await.unwrap();
    let skill_md = resources
        .iter()
        .find(|r| r.uri == "skill://pdf/SKILL.md")
        .unwrap();
    assert_eq!(skill_md.name, "pdf");
    assert_eq!(skill_md.description.as_deref(), Some("Fill PDF forms."));
    assert_eq!(skill_md.mime_type.as_deref(), Some("text/markdown"));
    assert!(
        resources
            .iter()
            .any(|r| r.uri == "skill://pdf/scripts/fill.py")
    );
    assert!(resources.iter().any(|r| r.uri == "skill://index.json"));
    // The draft index still lists every skill the server loads, leniently named ones too.
    let index = client
        .peer()
        .read_resource(ReadResourceRequestParams::new("skill://index.json"))
        .await
        .unwrap();
    let rmcp::model::ResourceContents::TextResourceContents { text, .. } = &index.contents[0]
    else {
        panic!("the index is text");
    };
    assert!(text.contains("\"Bad_Name\""), "{text}");
}

#[tokio::test]
async fn a_skill_over_the_file_limit_is_not_listed() {
    let root = tempfile::tempdir().unwrap();
    write_tree(
        root.path(),
        &[
            (
                "many/SKILL.md",
                b"---\nname: many\ndescription: Many files.\n---\n",
            ),
            (
                "few/SKILL.md",
                b"---\nname: few\ndescription: Few files.\n---\n",
            ),
        ],
    );
    for n in 0..MAX_FILES_PER_SKILL {
        let path = root.path().join(format!("many/r{n:03}.md"));
        std::fs::write(path, "x").unwrap();
    }
    let files = FileSkillsSource::builder()
        .root(root.path())
        .build()
        .unwrap();
    let client = connect(SkillsMcpServer::new(files), Era::Legacy).await;
    assert_eq!(common::uris(&all(&client).await), ["skill://few/SKILL.md"]);
}

#[tokio::test]
async fn a_2026_client_over_http_is_answered_statelessly() {
    let root = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(server(root.path()).serve_http(listener));
    let http = skillful_http::client_builder().unwrap().build().unwrap();
    let transport = StreamableHttpClientTransport::with_client(
        http,
        StreamableHttpClientTransportConfig::with_uri(url.as_str()),
    );
    let client = ()
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();
    assert_eq!(
        client.peer().peer_info().unwrap().protocol_version,
        ProtocolVersion::V_2026_07_28
    );
    let page = final_form::list_skills(client.peer(), LABEL, None)
        .await
        .unwrap();
    assert_eq!(page.cache.cache_scope, Some(CacheScope::Public));
    assert_eq!(
        common::uris(&page.skills),
        ["skill://alpha/SKILL.md", "skill://beta/SKILL.md"]
    );
}

/// A file rewritten in place with the same size and given its old modification time back (as
/// `touch -r` or a sync client does) keeps its device, inode, size and mtime: only its change
/// time tells. The listing must digest the new bytes, as `resources/read` serves them.
#[tokio::test]
async fn a_same_size_rewrite_with_the_old_mtime_gets_the_new_digest() {
    use std::os::unix::fs::MetadataExt;
    let root = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let path = root.path().join("pdf/templates/invoice.md");
    let served = server(root.path()).with_rescan_interval(Duration::ZERO);
    let client = connect(served, Era::Legacy).await;
    let digest_of = |skills: &[SkillEntry]| {
        let pdf = skills
            .iter()
            .find(|s| s.uri == "skill://pdf/SKILL.md")
            .unwrap();
        let Manifest::Files(files) = &pdf.resources else {
            unreachable!()
        };
        let file = files
            .iter()
            .find(|file| file.uri == "skill://pdf/templates/invoice.md")
            .unwrap();
        file.digest.clone()
    };
    assert_eq!(digest_of(&all(&client).await), sha256_digest(b"Invoice\n"));

    let before = std::fs::metadata(&path).unwrap();
    let rewritten = b"Invoicf\n";
    // The change time moves at the kernel's clock tick: rewrite until it has moved.
    loop {
        let mut file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        std::io::Write::write_all(&mut file, rewritten).unwrap();
        file.set_modified(before.modified().unwrap()).unwrap();
        drop(file);
        let after = std::fs::metadata(&path).unwrap();
        assert_eq!(
            (after.ino(), after.len(), after.modified().unwrap()),
            (before.ino(), before.len(), before.modified().unwrap())
        );
        if (after.ctime(), after.ctime_nsec()) != (before.ctime(), before.ctime_nsec()) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(digest_of(&all(&client).await), sha256_digest(rewritten));
}

/// A cursor names where the next page starts; one the server did not issue (the base64url of a
/// URI it lists, as the unsigned cursors were, or an issued one edited) is `-32602`, for
/// `skills/list` and `resources/directory/read` alike.
#[tokio::test]
async fn cursors_the_server_did_not_issue_are_minus_32602() {
    use base64::Engine;
    let encode = |text: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text);
    let root = tempfile::tempdir().unwrap();
    skills_tree(root.path());
    let client = connect(server(root.path()), Era::Legacy).await;
    let issued = final_form::list_skills(client.peer(), LABEL, None)
        .await
        .unwrap()
        .next_cursor
        .unwrap();
    let (_, tag) = issued.split_once('.').unwrap();
    let forged = [
        encode("skill://alpha/SKILL.md"),
        format!("{}.{tag}", encode("skill://gamma/SKILL.md")),
        format!("{issued}x"),
    ];
    for cursor in &forged {
        let error = final_form::list_skills(client.peer(), LABEL, Some(cursor.clone()))
            .await
            .unwrap_err();
        assert!(
            matches!(&error, FinalFormError::Refused { code: -32602, .. }),
            "{cursor}: {error:?}"
        );
        let error =
            final_form::read_directory(client.peer(), LABEL, "skill://pdf", Some(cursor.clone()))
                .await
                .unwrap_err();
        assert!(
            matches!(&error, FinalFormError::NotADirectory { message, .. } if message.contains("cursor")),
            "{cursor}: {error:?}"
        );
    }
    // The issued one still pages on.
    assert!(
        final_form::list_skills(client.peer(), LABEL, Some(issued))
            .await
            .is_ok()
    );
}
