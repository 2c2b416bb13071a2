//! The final form of the Skills extension against a second, independent implementation: a
//! server and a client written in plain Python from the spec's text
//! (`tests/python/final_form_*.py`), spoken to over stdio. Our client (`final_form`) against the
//! Python server in both protocol eras, including a tampered digest, a lying frontmatter,
//! same-named skills, an invalid entry and a listing of several pages; and the Python client
//! against the Python server, so that the checker itself is known to catch what it must.
//!
//! Every test is skipped, saying why, when `python3` with PyYAML is missing (CI installs both).

use crate::common::{self, Era};

use std::path::{Path, PathBuf};
use std::process::Stdio;

use rmcp::service::{ClientCacheConfig, RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use skillful_mcp::final_form::{
    self, FinalFormError, Integrity, ListingLimits, Manifest, SkillEntry, VerificationError,
    disambiguated_names, sha256_digest,
};

const PYTHON_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python");
const SERVER_LABEL: &str = "py";

fn script(name: &str) -> PathBuf {
    Path::new(PYTHON_DIR).join(name)
}

/// The Python peers' skills ([`common::python_skills`]), the billing `refunds` with a license
/// and typed metadata, and one more template a level down.
fn skills_tree() -> tempfile::TempDir {
    common::python_skills(
        b"---\nname: refunds\ndescription: Process refunds.\nlicense: Apache-2.0\nmetadata:\n  version: 2.1\n  tags: [billing, money]\n  beta: true\n---\nSee examples/email.md.\n",
        &[("pdf-processing/templates/regional/eu-invoice.md", b"EU invoice\n")],
    )
}

const ALL_SKILLS: [&str; 5] = [
    "skill://acme/billing/refunds/SKILL.md",
    "skill://acme/support/refunds/SKILL.md",
    "skill://git-workflow/SKILL.md",
    "skill://pdf-processing/SKILL.md",
    "skill://pdf-processing/forms/fill-form/SKILL.md",
];

async fn connect(root: &Path, era: Era, flags: &[&str]) -> RunningService<RoleClient, ()> {
    let mut command = tokio::process::Command::new("python3");
    command
        .arg(script("final_form_server.py"))
        .arg(root)
        .args(["--page-size", "2"])
        .args(flags);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    common::client_in(transport, era).await
}

async fn entry(client: &RunningService<RoleClient, ()>, uri: &str) -> SkillEntry {
    final_form::get_skill(client.peer(), SERVER_LABEL, uri)
        .await
        .unwrap()
        .0
}

#[tokio::test]
async fn a_listing_of_several_pages_is_read_page_by_page_in_both_eras() {
    if !common::python_ready() {
        return;
    }
    let root = skills_tree();
    for era in [Era::Legacy, Era::Modern] {
        let client = connect(root.path(), era, &[]).await;
        let declared = final_form::skills_extension(client.peer()).expect("declared");
        assert!(declared.directory_read);

        let pages = common::pages_of_two(&client, SERVER_LABEL, era, 300_000).await;
        assert_eq!(pages.len(), 3);
        assert!(pages.iter().all(|page| page.rejected.is_empty()));
        let listed: Vec<SkillEntry> = pages.into_iter().flat_map(|page| page.skills).collect();
        assert_eq!(common::uris(&listed), ALL_SKILLS);

        let all =
            final_form::list_all_skills(client.peer(), SERVER_LABEL, ListingLimits::default())
                .await
                .unwrap();
        assert_eq!(all.skills, listed);
        assert_eq!(all.next_cursor, None);

        let refunds = &all.skills[0];
        assert_eq!(refunds.frontmatter.extra["metadata"]["version"], 2.1);
        assert_eq!(refunds.frontmatter.extra["metadata"]["beta"], true);
        let Manifest::Files(files) = &all.skills[3].resources else {
            panic!("pdf-processing has a manifest");
        };
        assert!(
            files
                .iter()
                .any(|file| file.uri == "skill://pdf-processing/forms/fill-form/SKILL.md"),
            "the nested skill's files are in the enclosing manifest"
        );
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn a_listing_longer_than_the_limits_is_cut_off() {
    if !common::python_ready() {
        return;
    }
    let root = skills_tree();
    let client = connect(root.path(), Era::Legacy, &[]).await;
    let error =
        final_form::list_all_skills(client.peer(), SERVER_LABEL, ListingLimits::new(2, 100))
            .await
            .unwrap_err();
    assert!(
        matches!(
            error,
            FinalFormError::ListingTooLong {
                pages: 2,
                entries: 4,
                ..
            }
        ),
        "{error}"
    );
    let error = final_form::list_all_skills(client.peer(), SERVER_LABEL, ListingLimits::new(10, 3))
        .await
        .unwrap_err();
    assert!(
        matches!(error, FinalFormError::ListingTooLong { .. }),
        "{error}"
    );
}

#[tokio::test]
async fn every_listed_file_reads_back_verified() {
    if !common::python_ready() {
        return;
    }
    let root = skills_tree();
    for era in [Era::Legacy, Era::Modern] {
        let client = connect(root.path(), era, &[]).await;
        let all =
            final_form::list_all_skills(client.peer(), SERVER_LABEL, ListingLimits::default())
                .await
                .unwrap();
        let mut read = 0;
        for skill in &all.skills {
            let Manifest::Files(files) = &skill.resources else {
                panic!("{} has a manifest", skill.uri);
            };
            for file in files {
                let fetched =
                    final_form::read_skill_file(client.peer(), SERVER_LABEL, skill, &file.uri)
                        .await
                        .unwrap();
                assert_eq!(fetched.integrity, Integrity::Verified, "{}", file.uri);
                assert_eq!(
                    fetched.text,
                    !file.uri.ends_with(".bin"),
                    "{}: text for UTF-8, a blob otherwise",
                    file.uri
                );
                read += 1;
            }
            let skill_md =
                final_form::read_skill_file(client.peer(), SERVER_LABEL, skill, &skill.uri)
                    .await
                    .unwrap();
            let (text, _) =
                final_form::verify_skill_md(SERVER_LABEL, skill, &skill_md.bytes).unwrap();
            assert!(text.starts_with("---\nname: "));
        }
        assert_eq!(read, 10, "nine files, the nested SKILL.md in two manifests");
        let logo = final_form::read_skill_file(
            client.peer(),
            SERVER_LABEL,
            &all.skills[3],
            "skill://pdf-processing/templates/logo.bin",
        )
        .await
        .unwrap();
        assert_eq!(logo.bytes, [0, 1, 0xfa, 0xfb, 0xff]);
    }
}

#[tokio::test]
async fn a_tampered_digest_is_detected_and_the_content_withheld() {
    if !common::python_ready() {
        return;
    }
    let root = skills_tree();
    let email = "skill://acme/billing/refunds/examples/email.md";
    let client = connect(root.path(), Era::Legacy, &["--tamper-digest", email]).await;
    let refunds = entry(&client, "skill://acme/billing/refunds/SKILL.md").await;
    let error = final_form::read_skill_file(client.peer(), SERVER_LABEL, &refunds, email)
        .await
        .unwrap_err();
    let FinalFormError::Verification(VerificationError::Digest {
        server,
        uri,
        expected,
        actual,
    }) = &error
    else {
        panic!("{error}");
    };
    assert_eq!((server.as_str(), uri.as_str()), (SERVER_LABEL, email));
    assert_eq!(actual, &sha256_digest(b"Dear customer,\n"));
    assert_ne!(expected, actual);
    let message = error.to_string();
    assert!(
        message.contains(SERVER_LABEL) && message.contains(email) && message.contains(expected)
    );

    // The skill's other file is untouched.
    let skill_md = final_form::read_skill_file(client.peer(), SERVER_LABEL, &refunds, &refunds.uri)
        .await
        .unwrap();
    assert_eq!(skill_md.integrity, Integrity::Verified);
}

#[tokio::test]
async fn content_rotated_after_a_verified_read_fails_verification() {
    if !common::python_ready() {
        return;
    }
    let root = skills_tree();
    let email = "skill://acme/billing/refunds/examples/email.md";
    let client = connect(root.path(), Era::Modern, &["--rotate", email]).await;
    // rmcp keeps `resources/read` answers for their ttlMs; a host verifying every read turns
    // that cache off (it would hand back the first answer, hiding the rotation).
    client
        .peer()
        .set_response_cache_config(ClientCacheConfig::disabled())
        .await;
    let refunds = entry(&client, "skill://acme/billing/refunds/SKILL.md").await;
    let first = final_form::read_skill_file(client.peer(), SERVER_LABEL, &refunds, email)
        .await
        .unwrap();
    assert_eq!(first.bytes, b"Dear customer,\n");
    let second = final_form::read_skill_file(client.peer(), SERVER_LABEL, &refunds, email)
        .await
        .unwrap_err();
    assert!(
        matches!(
            second,
            FinalFormError::Verification(VerificationError::Digest { .. })
        ),
        "{second}"
    );
}

#[tokio::test]
async fn a_lying_frontmatter_is_detected_though_the_digest_matches() {
    if !common::python_ready() {
        return;
    }
    let root = skills_tree();
    let client = connect(
        root.path(),
        Era::Modern,
        &["--lie-frontmatter", "git-workflow"],
    )
    .await;
    let all = final_form::list_all_skills(client.peer(), SERVER_LABEL, ListingLimits::default())
        .await
        .unwrap();
    let git = all
        .skills
        .iter()
        .find(|skill| skill.frontmatter.name == "git-workflow")
        .unwrap();
    assert_eq!(git.frontmatter.description, "A harmless helper.");
    let fetched = final_form::read_skill_file(client.peer(), SERVER_LABEL, git, &git.uri)
        .await
        .unwrap();
    assert_eq!(fetched.integrity, Integrity::Verified);
    let error = final_form::verify_skill_md(SERVER_LABEL, git, &fetched.bytes).unwrap_err();
    assert_eq!(
        error,
        VerificationError::Frontmatter {
            server: SERVER_LABEL.into(),
            uri: "skill://git-workflow/SKILL.md".into(),
            field: "description".into()
        }
    );
}

#[tokio::test]
async fn same_named_skills_are_all_listed_and_told_apart() {
    if !common::python_ready() {
        return;
    }
    let root = skills_tree();
    let client = connect(root.path(), Era::Legacy, &["--mirror-under", "mirror"]).await;
    let all = final_form::list_all_skills(client.peer(), SERVER_LABEL, ListingLimits::default())
        .await
        .unwrap();
    assert_eq!(all.skills.len(), 10, "nothing is dropped");
    let names = disambiguated_names(&all.skills);
    let unique: std::collections::HashSet<&String> = names.iter().collect();
    assert_eq!(unique.len(), 10, "{names:?}");
    assert!(
        names.contains(&"mirror/acme/billing/refunds".to_owned()),
        "{names:?}"
    );
    assert!(
        names.contains(&"mirror/acme/support/refunds".to_owned()),
        "{names:?}"
    );
    assert!(
        names.contains(&"skill://acme/billing/refunds/SKILL.md".to_owned()),
        "a path that is the tail of another's is named by its URI: {names:?}"
    );
}

#[tokio::test]
async fn an_invalid_entry_is_rejected_without_losing_its_page() {
    if !common::python_ready() {
        return;
    }
    let root = skills_tree();
    let client = connect(root.path(), Era::Legacy, &["--invalid-entry"]).await;
    let page = final_form::list_skills(client.peer(), SERVER_LABEL, None)
        .await
        .unwrap();
    assert_eq!(common::uris(&page.skills), &ALL_SKILLS[..2]);
    assert_eq!(page.rejected.len(), 1);
    assert_eq!(
        page.rejected[0].uri.as_deref(),
        Some("skill://broken/SKILL.md")
    );
    assert!(page.next_cursor.is_some());
}

#[tokio::test]
async fn skills_get_answers_unlisted_skills_and_refuses_every_other_uri() {
    if !common::python_ready() {
        return;
    }
    let root = skills_tree();
    let client = connect(root.path(), Era::Modern, &["--unlisted", "git-workflow"]).await;
    let all = final_form::list_all_skills(client.peer(), SERVER_LABEL, ListingLimits::default())
        .await
        .unwrap();
    assert!(!common::uris(&all.skills).contains(&"skill://git-workflow/SKILL.md"));

    let (git, cache) =
        final_form::get_skill(client.peer(), SERVER_LABEL, "skill://git-workflow/SKILL.md")
            .await
            .unwrap();
    assert_eq!(git.frontmatter.name, "git-workflow");
    assert_eq!(cache.ttl_ms, Some(300_000));

    for uri in [
        "skill://pdf-processing",
        "skill://pdf-processing/templates/invoice.md",
        "skill://no-such-skill/SKILL.md",
    ] {
        let error = final_form::get_skill(client.peer(), SERVER_LABEL, uri)
            .await
            .unwrap_err();
        assert!(
            matches!(&error, FinalFormError::NotASkill { uri: asked, .. } if asked == uri),
            "{uri}: {error}"
        );
    }
}

#[tokio::test]
async fn a_dynamic_skill_reads_unverified_and_only_inside_its_root() {
    if !common::python_ready() {
        return;
    }
    let root = skills_tree();
    let client = connect(root.path(), Era::Legacy, &["--dynamic", "pdf-processing"]).await;
    let pdf = entry(&client, "skill://pdf-processing/SKILL.md").await;
    assert_eq!(pdf.resources, Manifest::Dynamic);
    let invoice = final_form::read_skill_file(
        client.peer(),
        SERVER_LABEL,
        &pdf,
        "skill://pdf-processing/templates/invoice.md",
    )
    .await
    .unwrap();
    assert_eq!(invoice.integrity, Integrity::Unverifiable);
    assert_eq!(invoice.bytes, b"Invoice\n");
    let outside = final_form::read_skill_file(
        client.peer(),
        SERVER_LABEL,
        &pdf,
        "skill://git-workflow/SKILL.md",
    )
    .await
    .unwrap_err();
    assert!(
        matches!(
            outside,
            FinalFormError::Verification(VerificationError::Unlisted { .. })
        ),
        "{outside}"
    );
}

#[tokio::test]
async fn a_file_missing_from_the_manifest_is_refused() {
    if !common::python_ready() {
        return;
    }
    let root = skills_tree();
    let client = connect(root.path(), Era::Legacy, &[]).await;
    let pdf = entry(&client, "skill://pdf-processing/SKILL.md").await;
    let other = entry(&client, "skill://git-workflow/SKILL.md").await;
    for (skill, uri) in [
        (&pdf, "skill://pdf-processing/templates/credit-note.md"),
        (&other, "skill://pdf-processing/templates/invoice.md"),
    ] {
        let error = final_form::read_skill_file(client.peer(), SERVER_LABEL, skill, uri)
            .await
            .unwrap_err();
        assert!(
            matches!(
                error,
                FinalFormError::Verification(VerificationError::Unlisted { .. })
            ),
            "{uri}: {error}"
        );
    }
}

#[tokio::test]
async fn directories_list_their_direct_children() {
    if !common::python_ready() {
        return;
    }
    let root = skills_tree();
    let client = connect(root.path(), Era::Modern, &[]).await;
    let templates = final_form::read_directory(
        client.peer(),
        SERVER_LABEL,
        "skill://pdf-processing/templates",
        None,
    )
    .await
    .unwrap();
    let mut children: Vec<(String, bool)> = templates
        .resources
        .iter()
        .map(|child| (child.uri.clone(), child.is_directory()))
        .collect();
    let mut cursor = templates.next_cursor;
    while let Some(next) = cursor {
        let page = final_form::read_directory(
            client.peer(),
            SERVER_LABEL,
            "skill://pdf-processing/templates",
            Some(next),
        )
        .await
        .unwrap();
        children.extend(
            page.resources
                .iter()
                .map(|child| (child.uri.clone(), child.is_directory())),
        );
        cursor = page.next_cursor;
    }
    assert_eq!(
        children,
        [
            (
                "skill://pdf-processing/templates/invoice.md".to_owned(),
                false
            ),
            (
                "skill://pdf-processing/templates/logo.bin".to_owned(),
                false
            ),
            ("skill://pdf-processing/templates/regional".to_owned(), true),
        ]
    );
    let error = final_form::read_directory(
        client.peer(),
        SERVER_LABEL,
        "skill://pdf-processing/SKILL.md",
        None,
    )
    .await
    .unwrap_err();
    assert!(
        matches!(error, FinalFormError::NotADirectory { .. }),
        "{error}"
    );

    let without = connect(root.path(), Era::Legacy, &["--no-directory-read"]).await;
    let error =
        final_form::read_directory(without.peer(), SERVER_LABEL, "skill://pdf-processing", None)
            .await
            .unwrap_err();
    assert!(
        matches!(error, FinalFormError::DirectoryReadNotDeclared { .. }),
        "{error}"
    );
}

#[tokio::test]
async fn a_server_without_the_extension_gets_no_skills_requests() {
    if !common::python_ready() {
        return;
    }
    let root = skills_tree();
    let client = connect(root.path(), Era::Legacy, &["--no-extension"]).await;
    assert_eq!(final_form::skills_extension(client.peer()), None);
    let error = final_form::list_skills(client.peer(), SERVER_LABEL, None)
        .await
        .unwrap_err();
    assert!(
        matches!(error, FinalFormError::NotDeclared { .. }),
        "{error}"
    );
    let error = final_form::get_skill(client.peer(), SERVER_LABEL, ALL_SKILLS[0])
        .await
        .unwrap_err();
    assert!(
        matches!(error, FinalFormError::NotDeclared { .. }),
        "{error}"
    );
}

/// Runs the Python client against the Python server started with `flags`; its exit code and
/// JSON report.
fn python_client(root: &Path, era: &str, flags: &[&str]) -> (i32, serde_json::Value) {
    let output = std::process::Command::new("python3")
        .arg(script("final_form_client.py"))
        .args(["--era", era, "--"])
        .arg("python3")
        .arg(script("final_form_server.py"))
        .arg(root)
        .args(["--page-size", "2"])
        .args(flags)
        .stderr(Stdio::null())
        .output()
        .unwrap();
    let report = serde_json::from_slice(&output.stdout).unwrap();
    (output.status.code().unwrap_or(-1), report)
}

#[test]
fn the_python_client_passes_the_python_server_and_catches_its_lies() {
    if !common::python_ready() {
        return;
    }
    let root = skills_tree();
    for era in ["legacy", "modern", "auto"] {
        let (code, report) = python_client(root.path(), era, &[]);
        assert_eq!(code, 0, "{era}: {report:#}");
        assert_eq!(report["pages"], 3);
        assert_eq!(report["skills"].as_array().unwrap().len(), 5);
        assert_eq!(
            report["collisions"]["refunds"],
            serde_json::json!(["billing/refunds", "support/refunds"])
        );
    }
    for (flags, expected) in [
        (
            &[
                "--tamper-digest",
                "skill://pdf-processing/templates/invoice.md",
            ][..],
            "digest",
        ),
        (&["--lie-frontmatter", "refunds"][..], "frontmatter differs"),
        (&["--invalid-entry"][..], "neither a list nor"),
        (&["--no-extension"][..], "does not declare"),
    ] {
        let (code, report) = python_client(root.path(), "auto", flags);
        assert_eq!(code, 1, "{flags:?}: {report:#}");
        let violations = report["violations"].to_string();
        assert!(violations.contains(expected), "{flags:?}: {violations}");
    }
}
