//! The Skills extension in its final form (`io.modelcontextprotocol/skills`, the stable page of
//! `modelcontextprotocol/ext-skills`): the client side of `skills/list`, `skills/get` and
//! `resources/directory/read`, the checks a host must make before skill content reaches a model,
//! and the cursor paging a server needs.
//!
//! The wire types are `rmcp`'s (rmcp 3.11 implements the extension): [`SkillEntry`] and its
//! [`Manifest`] of [`ManifestFile`]s, [`ListSkillsResult`], [`GetSkillResult`],
//! [`SkillsCapability`]. This module adds what a host needs on top of them:
//!
//! - a lenient, bounded listing ([`list_skills`], [`list_all_skills`]): one invalid entry is
//!   rejected with its reason ([`RejectedEntry`]) instead of failing the page, entries are checked
//!   against every rule the spec puts on them ([`check_entry`]), and a server that never stops
//!   paging is cut off ([`ListingLimits`]);
//! - [`get_skill`], which tells an unknown skill (`-32602`, [`FinalFormError::NotASkill`]) from
//!   other failures and refuses an answer about another skill;
//! - verification against the held entry: [`verify_file`] (listed, size, then digest),
//!   [`verify_skill_md`] (that, then the fetched frontmatter field by field against the
//!   entry's), and [`read_skill_file`], which reads and verifies in one call;
//! - naming: [`skill_path`] and [`disambiguated_names`] (same-named skills of one listing told
//!   apart by their path segments, never dropped);
//! - [`page_after`], the server's deterministic cursor paging.
//!
//! It knows the protocol, not skills as the provider sees them: turning entries into
//! [`skillful_core::Skill`]s, caching, approval and origin naming across servers are the caller's.
//! Requests carry no timeout of their own; the caller bounds them.

#[cfg(feature = "client")]
mod client;
mod entry;
mod paging;
mod verify;

#[cfg(feature = "client")]
pub use client::{
    CacheHint, DEFAULT_LISTING_LIMITS, FinalFormError, ListingLimits, ReadFile, SkillsPage,
    get_skill, list_all_skills, list_skills, read_directory, read_skill_file, skills_extension,
};
pub use entry::{
    EntryProblem, RejectedEntry, check_entry, disambiguated_names, manifest_file, parse_entry,
    resolve_relative, skill_path,
};
pub use paging::{CursorKey, InvalidCursor, Page, page_after};
pub use verify::{
    Integrity, VerificationError, compare_frontmatter, fetched_frontmatter, verify_file,
    verify_skill_md,
};

pub use rmcp::model::{
    DIRECTORY_MIME_TYPE, GetSkillResult, ListSkillsResult, ReadResourceDirectoryResult,
    SKILLS_EXTENSION_ID, Skill as SkillEntry, SkillFrontmatter as EntryFrontmatter,
    SkillResource as ManifestFile, SkillResources as Manifest, SkillsCapability, is_sha256_digest,
    sha256_digest,
};

/// Most entries a skill's manifest may have for every conforming host to accept it (`SKILL.md`
/// included).
pub const MAX_FILES_PER_SKILL: usize = 512;

/// Largest sum of `size` over a skill's manifest every conforming host accepts: 16 MiB.
pub const MAX_BYTES_PER_SKILL: u64 = 16 * 1024 * 1024;

#[cfg(test)]
mod tests {
    use rmcp::model::{
        CacheScope, ClientJsonRpcMessage, ClientRequest, GetSkillRequest, GetSkillRequestParams,
        ListSkillsRequest, PaginatedRequestParams, ReadResourceDirectoryRequest,
        ReadResourceDirectoryRequestParams, RequestId, ServerCapabilities, ServerResult,
    };
    use serde_json::{Value, json};

    use super::*;

    fn request(request: ClientRequest) -> Value {
        let message = ClientJsonRpcMessage::request(request, RequestId::Number(4));
        serde_json::to_value(message).unwrap()
    }

    #[test]
    fn requests_are_written_as_the_spec_shows_them() {
        assert_eq!(
            request(ClientRequest::ListSkillsRequest(
                ListSkillsRequest::with_param(PaginatedRequestParams::default())
            )),
            json!({"jsonrpc": "2.0", "id": 4, "method": "skills/list", "params": {}})
        );
        assert_eq!(
            request(ClientRequest::ListSkillsRequest(
                ListSkillsRequest::with_param(
                    PaginatedRequestParams::default().with_cursor(Some("c2".into()))
                )
            )),
            json!({"jsonrpc": "2.0", "id": 4, "method": "skills/list", "params": {"cursor": "c2"}})
        );
        assert_eq!(
            request(ClientRequest::GetSkillRequest(GetSkillRequest::new(
                GetSkillRequestParams::new("skill://pdf-processing/SKILL.md")
            ))),
            json!({"jsonrpc": "2.0", "id": 4, "method": "skills/get", "params": {"uri": "skill://pdf-processing/SKILL.md"}})
        );
        assert_eq!(
            request(ClientRequest::ReadResourceDirectoryRequest(
                ReadResourceDirectoryRequest::new(
                    ReadResourceDirectoryRequestParams::new("skill://pdf-processing/templates")
                        .with_cursor("p2")
                )
            )),
            json!({"jsonrpc": "2.0", "id": 4, "method": "resources/directory/read", "params": {"uri": "skill://pdf-processing/templates", "cursor": "p2"}})
        );
    }

    /// The listing of the spec's `skills/list` example, with real digests.
    fn spec_listing() -> Value {
        let skill_md = b"---\nname: git-workflow\ndescription: Follow this team's Git conventions for branching and commits\n---\n";
        json!({
            "resultType": "complete",
            "skills": [
                {
                    "uri": "skill://git-workflow/SKILL.md",
                    "frontmatter": {"name": "git-workflow", "description": "Follow this team's Git conventions for branching and commits"},
                    "resources": [{"uri": "skill://git-workflow/SKILL.md", "digest": sha256_digest(skill_md), "size": skill_md.len()}]
                },
                {
                    "uri": "skill://acme/billing/refunds/SKILL.md",
                    "frontmatter": {"name": "refunds", "description": "Process customer refund requests per company policy", "license": "Apache-2.0", "metadata": {"version": 2.1, "tags": ["billing"]}},
                    "resources": [
                        {"uri": "skill://acme/billing/refunds/SKILL.md", "digest": sha256_digest(b"a"), "size": 1},
                        {"uri": "skill://acme/billing/refunds/examples/email.md", "digest": sha256_digest(b"bc"), "size": 2}
                    ]
                },
                {
                    "uri": "skill://reports/daily/SKILL.md",
                    "frontmatter": {"name": "daily", "description": "Assemble today's operational report from live data"},
                    "resources": "dynamic"
                }
            ],
            "nextCursor": "next",
            "ttlMs": 300000,
            "cacheScope": "public"
        })
    }

    #[test]
    fn the_spec_listing_reads_and_writes_back_unchanged() {
        let ServerResult::ListSkillsResult(listing) =
            serde_json::from_value(spec_listing()).unwrap()
        else {
            panic!("not read as a listing");
        };
        assert_eq!(listing.skills.len(), 3);
        assert_eq!(listing.next_cursor.as_deref(), Some("next"));
        assert_eq!(listing.ttl_ms, Some(300_000));
        assert_eq!(listing.cache_scope, Some(CacheScope::Public));
        let refunds = &listing.skills[1];
        assert_eq!(refunds.frontmatter.extra["license"], "Apache-2.0");
        assert_eq!(refunds.frontmatter.extra["metadata"]["version"], 2.1);
        let Manifest::Files(files) = &refunds.resources else {
            panic!("refunds has a manifest");
        };
        assert_eq!(files[1].size, 2);
        assert_eq!(listing.skills[2].resources, Manifest::Dynamic);
        for skill in &listing.skills {
            check_entry(skill).unwrap();
        }
        assert_eq!(serde_json::to_value(&listing).unwrap(), spec_listing());
    }

    #[test]
    fn a_legacy_listing_has_no_result_type_or_cache_hints() {
        let mut legacy = spec_listing();
        for key in ["resultType", "ttlMs", "cacheScope", "nextCursor"] {
            legacy.as_object_mut().unwrap().remove(key);
        }
        let ServerResult::ListSkillsResult(listing) =
            serde_json::from_value(legacy.clone()).unwrap()
        else {
            panic!("not read as a listing");
        };
        assert_eq!(
            (listing.result_type, listing.ttl_ms, listing.cache_scope),
            (None, None, None)
        );
        assert_eq!(listing.next_cursor, None);
    }

    #[test]
    fn the_spec_get_result_reads_as_one_entry() {
        let entry = spec_listing()["skills"][1].clone();
        let result = json!({"resultType": "complete", "skill": entry, "ttlMs": 300000, "cacheScope": "private"});
        let ServerResult::GetSkillResult(got) = serde_json::from_value(result.clone()).unwrap()
        else {
            panic!("not read as a skills/get result");
        };
        assert_eq!(got.skill.uri, "skill://acme/billing/refunds/SKILL.md");
        assert_eq!(got.cache_scope, Some(CacheScope::Private));
        assert_eq!(serde_json::to_value(&got).unwrap(), result);
    }

    #[test]
    fn the_spec_directory_result_reads_as_resources() {
        let result = json!({
            "resultType": "complete",
            "resources": [
                {"uri": "skill://pdf-processing/templates/invoice.md", "name": "invoice.md", "mimeType": "text/markdown"},
                {"uri": "skill://pdf-processing/templates/regional", "name": "regional", "mimeType": DIRECTORY_MIME_TYPE}
            ]
        });
        let directory: ReadResourceDirectoryResult = serde_json::from_value(result).unwrap();
        assert!(!directory.resources[0].is_directory());
        assert!(directory.resources[1].is_directory());
    }

    #[test]
    fn the_declaration_is_read_from_capabilities() {
        let declared: ServerCapabilities = serde_json::from_value(json!({
            "resources": {},
            "extensions": {SKILLS_EXTENSION_ID: {"directoryRead": true}}
        }))
        .unwrap();
        assert_eq!(
            declared.skills(),
            Some(SkillsCapability::new().with_directory_read())
        );
        let plain: ServerCapabilities =
            serde_json::from_value(json!({"extensions": {SKILLS_EXTENSION_ID: {}}})).unwrap();
        assert_eq!(plain.skills(), Some(SkillsCapability::new()));
        let none: ServerCapabilities = serde_json::from_value(json!({"resources": {}})).unwrap();
        assert_eq!(none.skills(), None);
        assert_eq!(
            serde_json::to_value(
                ServerCapabilities::builder()
                    .enable_resources()
                    .enable_skills_with_directory_read()
                    .build()
            )
            .unwrap(),
            json!({"resources": {}, "extensions": {SKILLS_EXTENSION_ID: {"directoryRead": true}}})
        );
    }
}
