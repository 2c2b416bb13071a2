//! Our client (`McpSkillsSource`) against a second, independent implementation of the final
//! form: the Python server of `tests/python/final_form_server.py`, written from the spec's text,
//! over stdio. A listing of several pages, same-named skills, a tampered digest, a lying
//! frontmatter, an invalid entry, a dynamic skill, and a server without the extension.
//!
//! Every test is skipped, saying why, when `python3` with PyYAML is missing (CI installs both).

use crate::common;

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use skillful_core::{OriginKind, ResourceContent, Skill, SkillError};
use skillful_mcp::{McpEndpoint, McpSkillsSource};

const SERVER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/python/final_form_server.py"
);
const LABEL: &str = "py";

/// The Python peer's skills ([`common::python_skills`]), the billing `refunds` with a typed
/// `version`.
fn skills_tree() -> tempfile::TempDir {
    common::python_skills(
        b"---\nname: refunds\ndescription: Process refunds.\nmetadata:\n  version: 2.1\n---\nSee examples/email.md.\n",
        &[],
    )
}

/// Our source for the Python server serving `root` in pages of two, misbehaving as `flags` say.
fn source(root: &Path, cache: &Path, flags: &[&str]) -> McpSkillsSource {
    let mut args = vec![
        SERVER.to_owned(),
        root.to_str().unwrap().to_owned(),
        "--page-size".into(),
        "2".into(),
    ];
    args.extend(flags.iter().map(|flag| (*flag).to_owned()));
    McpSkillsSource::builder(McpEndpoint::stdio("python3", args))
        .label(LABEL)
        .cache_dir(cache)
        .build()
}

fn named<'a>(skills: &'a [Arc<dyn Skill>], name: &str) -> &'a Arc<dyn Skill> {
    skills
        .iter()
        .find(|skill| skill.frontmatter().name == name)
        .unwrap_or_else(|| panic!("no skill {name}"))
}

#[tokio::test]
async fn a_listing_of_three_pages_loads_every_skill_lazily_and_verified() {
    if !common::python_ready() {
        return;
    }
    let (root, cache) = (skills_tree(), tempfile::tempdir().unwrap());
    let skills = source(root.path(), cache.path(), &[]).load().await.unwrap();
    let names: Vec<&str> = skills
        .iter()
        .map(|s| s.frontmatter().name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "billing/refunds",
            "support/refunds",
            "git-workflow",
            "pdf-processing",
            "fill-form"
        ],
        "two pages of two and one of one; the same-named skills told apart by their paths"
    );
    assert!(
        common_files(cache.path()).is_empty(),
        "listing fetches no file"
    );
    for skill in &skills {
        let origin = skill.origin();
        assert_eq!(
            (origin.kind, origin.label.as_str()),
            (OriginKind::Mcp, LABEL)
        );
        let document = skill.document().await.unwrap();
        assert!(!document.body.is_empty(), "{}", skill.frontmatter().name);
    }
    let refunds = named(&skills, "billing/refunds");
    assert_eq!(
        refunds.origin().location.as_deref(),
        Some("skill://acme/billing/refunds/SKILL.md")
    );
    assert_eq!(
        refunds.frontmatter().metadata["version"],
        "2.1",
        "the typed 2.1 of the listing, validated like a file's"
    );
    let email = refunds.resource("examples/email.md").unwrap();
    assert_eq!(
        email.read().await.unwrap(),
        ResourceContent::Text("Dear customer,\n".into())
    );

    // The nested SKILL.md is supporting content of the skill that holds it.
    let pdf = named(&skills, "pdf-processing");
    let resources: Vec<String> = pdf
        .resources()
        .iter()
        .map(|r| r.name().to_owned())
        .collect();
    assert_eq!(
        resources,
        [
            "forms/fill-form/SKILL.md",
            "templates/invoice.md",
            "templates/logo.bin"
        ]
    );
    let logo = common::read(pdf, "templates/logo.bin").await.unwrap();
    assert_eq!(
        logo,
        ResourceContent::Binary {
            bytes: vec![0, 1, 0xfa, 0xfb, 0xff],
            mime_type: Some("application/octet-stream".into())
        }
    );
    assert_eq!(
        common_files(cache.path()).len(),
        7,
        "each verified file kept once per URI: five SKILL.md (the nested one serves both its \
         skills), the email and the logo"
    );
}

/// The files kept in the cache (each server's directory holds them and a `server` file).
fn common_files(cache: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(servers) = std::fs::read_dir(cache.join("files")) else {
        return found;
    };
    for server in servers {
        for file in std::fs::read_dir(server.unwrap().path()).unwrap() {
            let name = file.unwrap().file_name().to_string_lossy().into_owned();
            if name != "server" {
                found.push(name);
            }
        }
    }
    found
}

#[tokio::test]
async fn a_tampered_digest_withholds_the_file_and_names_server_uri_and_digests() {
    if !common::python_ready() {
        return;
    }
    let (root, cache) = (skills_tree(), tempfile::tempdir().unwrap());
    let email = "skill://acme/billing/refunds/examples/email.md";
    let skills = source(root.path(), cache.path(), &["--tamper-digest", email])
        .load()
        .await
        .unwrap();
    let refunds = named(&skills, "billing/refunds");
    let error = common::read(refunds, "examples/email.md")
        .await
        .unwrap_err();
    let SkillError::Mismatch { what, detail } = &error else {
        panic!("{error:?}");
    };
    assert!(what.contains(email) && what.contains(LABEL), "{what}");
    let actual = skillful_mcp::final_form::sha256_digest(b"Dear customer,\n");
    assert!(
        detail.contains(&actual) && detail.contains("manifest lists sha256:"),
        "{detail}"
    );
    assert!(!error.to_string().contains("Dear customer"), "{error}");
    assert!(
        common_files(cache.path()).is_empty(),
        "nothing unverified is kept"
    );
    // The rest of the skill is fine.
    assert!(refunds.document().await.is_ok());
}

#[tokio::test]
async fn a_lying_frontmatter_keeps_the_skill_from_loading() {
    if !common::python_ready() {
        return;
    }
    let (root, cache) = (skills_tree(), tempfile::tempdir().unwrap());
    let skills = source(
        root.path(),
        cache.path(),
        &["--lie-frontmatter", "git-workflow"],
    )
    .load()
    .await
    .unwrap();
    let git = named(&skills, "git-workflow");
    assert_ne!(
        git.frontmatter().description,
        "Follow the team's Git conventions."
    );
    let error = git.document().await.unwrap_err();
    let message = error.to_string();
    assert!(matches!(error, SkillError::Mismatch { .. }), "{error:?}");
    assert!(
        message.contains("`description`") && message.contains(LABEL),
        "{message}"
    );
    assert!(
        !message.contains("Branch from main"),
        "the body is never shown"
    );
}

#[tokio::test]
async fn same_named_skills_of_one_server_are_all_kept_under_distinct_names() {
    if !common::python_ready() {
        return;
    }
    let (root, cache) = (skills_tree(), tempfile::tempdir().unwrap());
    let skills = source(root.path(), cache.path(), &["--mirror-under", "mirror"])
        .load()
        .await
        .unwrap();
    assert_eq!(skills.len(), 10);
    let names: HashSet<&str> = skills
        .iter()
        .map(|s| s.frontmatter().name.as_str())
        .collect();
    assert_eq!(names.len(), 10, "{names:?}");
    assert!(names.contains("mirror/git-workflow"), "{names:?}");
    let locations: HashSet<_> = skills
        .iter()
        .map(|s| s.origin().location.clone().unwrap())
        .collect();
    assert_eq!(locations.len(), 10);
    // Each loads its own SKILL.md.
    let mirrored = named(&skills, "mirror/git-workflow");
    assert!(
        mirrored
            .document()
            .await
            .unwrap()
            .body
            .contains("Branch from main")
    );
}

#[tokio::test]
async fn an_invalid_entry_is_skipped_and_its_page_kept() {
    if !common::python_ready() {
        return;
    }
    let (root, cache) = (skills_tree(), tempfile::tempdir().unwrap());
    let skills = source(root.path(), cache.path(), &["--invalid-entry"])
        .load()
        .await
        .unwrap();
    assert_eq!(skills.len(), 5);
}

#[tokio::test]
async fn a_dynamic_skill_loads_unverified_and_reads_only_inside_its_root() {
    if !common::python_ready() {
        return;
    }
    let (root, cache) = (skills_tree(), tempfile::tempdir().unwrap());
    let skills = source(root.path(), cache.path(), &["--dynamic", "pdf-processing"])
        .load()
        .await
        .unwrap();
    let pdf = named(&skills, "pdf-processing");
    assert!(pdf.resources().is_empty() && pdf.scripts().is_empty());
    assert_eq!(pdf.listed_digest(), None, "a dynamic skill lists no digest");
    assert!(
        pdf.document()
            .await
            .unwrap()
            .body
            .contains("Pick a template")
    );
    let invoice = common::read(pdf, "templates/invoice.md").await;
    assert_eq!(invoice.unwrap(), ResourceContent::Text("Invoice\n".into()));
    assert!(pdf.resource("../git-workflow/SKILL.md").is_none());
    assert!(
        common_files(cache.path()).is_empty(),
        "unverifiable content is not kept"
    );
}

#[tokio::test]
async fn a_server_without_the_extension_is_read_through_its_index() {
    if !common::python_ready() {
        return;
    }
    let (root, cache) = (skills_tree(), tempfile::tempdir().unwrap());
    // The Python server has no draft index: without the extension, it offers no skills, and
    // no skills/* request is sent (it would answer one).
    let skills = source(root.path(), cache.path(), &["--no-extension"])
        .load()
        .await
        .unwrap();
    assert!(skills.is_empty());
}
