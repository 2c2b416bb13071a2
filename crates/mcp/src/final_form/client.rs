//! The host's requests: whether a server declares the extension, `skills/list` (a page, or every
//! page within limits), `skills/get`, verified `resources/read` of a skill's files and
//! `resources/directory/read`.

use std::collections::HashSet;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rmcp::model::{
    CacheScope, ClientRequest, CustomResult, GetSkillRequest, GetSkillRequestParams,
    ListSkillsRequest, PaginatedRequestParams, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult, ReadResourceRequestParams, ResourceContents, ServerResult, Skill,
    SkillResources, SkillsCapability,
};
use rmcp::service::{Peer, RoleClient, ServiceError};
use serde_json::Value;

use super::entry::{EntryProblem, RejectedEntry, check_entry, manifest_file, parse_entry};
use super::verify::{Integrity, VerificationError, verify_file};
use skillful_core::text::one_line;

/// Why a request of the extension failed. Every variant names the server by the host's label
/// for it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FinalFormError {
    /// The server does not declare `io.modelcontextprotocol/skills`, so `skills/*` may not be
    /// sent to it.
    #[error(
        "MCP server {server} does not declare the skills extension (io.modelcontextprotocol/skills); read skill://index.json instead"
    )]
    NotDeclared {
        /// The server's label.
        server: String,
    },
    /// The server does not declare `directoryRead`, so `resources/directory/read` may not be
    /// sent to it.
    #[error(
        "MCP server {server} does not declare directoryRead; list a skill's files from its manifest instead"
    )]
    DirectoryReadNotDeclared {
        /// The server's label.
        server: String,
    },
    /// `skills/get` answered `-32602`: the server serves no skill at that URI (a skill root, a
    /// supporting file, an unlisted nested `SKILL.md` and an unknown URI all land here).
    #[error("MCP server {server} serves no skill at {uri}: {message}")]
    NotASkill {
        /// The server's label.
        server: String,
        /// The URI asked for.
        uri: String,
        /// The server's message.
        message: String,
    },
    /// `resources/directory/read` answered `-32602`: no directory at that URI.
    #[error("MCP server {server} has no directory at {uri}: {message}")]
    NotADirectory {
        /// The server's label.
        server: String,
        /// The URI asked for.
        uri: String,
        /// The server's message.
        message: String,
    },
    /// `skills/get` answered with an entry the spec forbids loading.
    #[error("MCP server {server} sent an invalid entry for {uri}: {problem}")]
    InvalidEntry {
        /// The server's label.
        server: String,
        /// The URI asked for.
        uri: String,
        /// What is wrong with the entry.
        problem: EntryProblem,
    },
    /// The server answered with a JSON-RPC error.
    #[error("MCP server {server} refused {method} of {target}: {message} (code {code})")]
    Refused {
        /// The server's label.
        server: String,
        /// The method.
        method: &'static str,
        /// The URI or cursor asked for.
        target: String,
        /// The JSON-RPC error code.
        code: i32,
        /// The server's message.
        message: String,
    },
    /// The connection failed during the request (closed, not sent, cancelled).
    #[error("MCP server {server} failed during {method}: {message}")]
    Transport {
        /// The server's label.
        server: String,
        /// The method.
        method: &'static str,
        /// What went wrong.
        message: String,
    },
    /// The server answered with something that is not a result of the method.
    #[error("MCP server {server} answered {method} with an unusable result: {message}")]
    Malformed {
        /// The server's label.
        server: String,
        /// The method.
        method: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// The listing did not end within the host's limits.
    #[error(
        "MCP server {server} was still listing skills after {pages} pages and {entries} entries; the listing was cut off"
    )]
    ListingTooLong {
        /// The server's label.
        server: String,
        /// Pages read.
        pages: usize,
        /// Entries read.
        entries: usize,
    },
    /// Content was read but failed verification against the held entry; it is not returned.
    #[error(transparent)]
    Verification(#[from] VerificationError),
}

/// The server's caching hints for a result (SEP-2549). Servers on protocol revision 2026-07-28
/// must send both; older ones send neither. Freshness only: never an integrity property.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CacheHint {
    /// How long the result may be treated as fresh, in milliseconds.
    pub ttl_ms: Option<u64>,
    /// Who may cache it.
    pub cache_scope: Option<CacheScope>,
}

impl CacheHint {
    /// The hint of a result combined from this one's and `other`'s: the shorter freshness and
    /// the narrower scope; unknown when either is unknown.
    fn merge(self, other: CacheHint) -> CacheHint {
        CacheHint {
            ttl_ms: self.ttl_ms.zip(other.ttl_ms).map(|(a, b)| a.min(b)),
            cache_scope: match (self.cache_scope, other.cache_scope) {
                (Some(CacheScope::Private), _) | (_, Some(CacheScope::Private)) => {
                    Some(CacheScope::Private)
                }
                (Some(CacheScope::Public), Some(CacheScope::Public)) => Some(CacheScope::Public),
                _ => None,
            },
        }
    }
}

/// One page of `skills/list` (or, from [`list_all_skills`], all of them).
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct SkillsPage {
    /// The entries that may be loaded, in the server's order.
    pub skills: Vec<Skill>,
    /// The entries that may not, each with its reason; a host should tell the user.
    pub rejected: Vec<RejectedEntry>,
    /// The cursor of the next page; `None` on the last page.
    pub next_cursor: Option<String>,
    /// The server's caching hints.
    pub cache: CacheHint,
}

/// How much of a listing a host follows before it stops: the spec bounds neither the pages nor
/// the entries of `skills/list`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListingLimits {
    /// Most pages to request.
    pub max_pages: usize,
    /// Most entries to accept.
    pub max_entries: usize,
}

impl ListingLimits {
    /// Limits of `max_pages` pages and `max_entries` entries.
    pub fn new(max_pages: usize, max_entries: usize) -> Self {
        Self {
            max_pages,
            max_entries,
        }
    }
}

/// 1,000 pages and 10,000 entries: far beyond a skill catalog a model can use, well short of
/// exhausting the host.
pub const DEFAULT_LISTING_LIMITS: ListingLimits = ListingLimits {
    max_pages: 1_000,
    max_entries: 10_000,
};

impl Default for ListingLimits {
    fn default() -> Self {
        DEFAULT_LISTING_LIMITS
    }
}

/// A file of a skill, read and checked against the held entry.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadFile {
    /// The raw bytes (those the digest covers).
    pub bytes: Vec<u8>,
    /// Whether the server sent them as text (`text`) rather than as a `blob`.
    pub text: bool,
    /// The MIME type the server gave.
    pub mime_type: Option<String>,
    /// How far the bytes were checked.
    pub integrity: Integrity,
}

/// The settings of the skills extension the connected server declared (in its `initialize`
/// result or `server/discover` result), or `None` when it declared none.
///
/// ```
/// use skillful_mcp::final_form::SkillsCapability;
/// use rmcp::model::InitializeResult;
///
/// let result: InitializeResult = serde_json::from_value(serde_json::json!({
///     "protocolVersion": "2025-11-25",
///     "capabilities": {
///         "resources": {},
///         "extensions": {"io.modelcontextprotocol/skills": {"directoryRead": true}}
///     },
///     "serverInfo": {"name": "docs", "version": "1.0.0"}
/// }))
/// .unwrap();
/// // The same lookup `skills_extension` makes on a connected peer:
/// let skills: Option<SkillsCapability> = result.capabilities.skills();
/// assert!(skills.is_some_and(|skills| skills.directory_read));
/// ```
pub fn skills_extension(peer: &Peer<RoleClient>) -> Option<SkillsCapability> {
    peer.peer_info().and_then(|info| info.capabilities.skills())
}

/// One page of `skills/list`: the page after `cursor`, or the first.
///
/// Each entry is checked with [`check_entry`]; an invalid one goes to
/// [`SkillsPage::rejected`] without failing the page, as does an entry whose URI an earlier one
/// of the page had.
///
/// # Errors
/// [`FinalFormError::NotDeclared`] (nothing is sent), `Refused` for a JSON-RPC error (an
/// expired cursor among them), `Malformed` for a result that is not a listing, `Transport`.
pub async fn list_skills(
    peer: &Peer<RoleClient>,
    server: &str,
    cursor: Option<String>,
) -> Result<SkillsPage, FinalFormError> {
    const METHOD: &str = "skills/list";
    if skills_extension(peer).is_none() {
        return Err(FinalFormError::NotDeclared {
            server: server.to_owned(),
        });
    }
    let target = cursor.as_deref().map_or_else(
        || "the first page".to_owned(),
        |cursor| format!("cursor {cursor:?}"),
    );
    let request =
        ListSkillsRequest::with_param(PaginatedRequestParams::default().with_cursor(cursor));
    let result = send(
        peer,
        server,
        METHOD,
        &target,
        ClientRequest::ListSkillsRequest(request),
    )
    .await?;
    let malformed = |message: String| FinalFormError::Malformed {
        server: server.to_owned(),
        method: METHOD,
        message,
    };
    let mut page = match result {
        ServerResult::ListSkillsResult(result) => {
            if result
                .result_type
                .as_ref()
                .is_some_and(|kind| !kind.is_complete())
            {
                return Err(malformed("its resultType is not \"complete\"".into()));
            }
            let mut page = SkillsPage {
                next_cursor: result.next_cursor,
                cache: CacheHint {
                    ttl_ms: result.ttl_ms,
                    cache_scope: result.cache_scope,
                },
                ..SkillsPage::default()
            };
            for skill in result.skills {
                match check_entry(&skill) {
                    Ok(()) => page.skills.push(skill),
                    Err(problem) => page.rejected.push(RejectedEntry {
                        uri: Some(one_line(&skill.uri).into_owned()),
                        problem,
                    }),
                }
            }
            page
        }
        // rmcp falls back to a raw result when any entry fails its typed model: read the
        // entries one by one so that only the bad ones are lost.
        ServerResult::CustomResult(CustomResult(value)) => {
            lenient_page(value).map_err(malformed)?
        }
        _ => return Err(malformed("it is not a skills/list result".into())),
    };
    reject_repeated_uris(&mut page, &mut HashSet::new());
    Ok(page)
}

/// Every page of `skills/list`, following `nextCursor` from the first page within `limits`.
/// Entries are checked as [`list_skills`] checks them; one whose URI an earlier page listed is
/// rejected. The cache hint is the shortest and narrowest of the pages'.
///
/// # Errors
/// What [`list_skills`] returns for any page, and [`FinalFormError::ListingTooLong`] when the
/// listing goes past `limits` or a page sends back a cursor it was given before.
pub async fn list_all_skills(
    peer: &Peer<RoleClient>,
    server: &str,
    limits: ListingLimits,
) -> Result<SkillsPage, FinalFormError> {
    let mut all = SkillsPage::default();
    let mut seen_uris = HashSet::new();
    let mut seen_cursors = HashSet::new();
    let mut cursor = None;
    let mut pages = 0;
    let too_long = |pages, entries| FinalFormError::ListingTooLong {
        server: server.to_owned(),
        pages,
        entries,
    };
    loop {
        if pages == limits.max_pages {
            return Err(too_long(pages, all.skills.len() + all.rejected.len()));
        }
        let mut page = list_skills(peer, server, cursor).await?;
        all.cache = if pages == 0 {
            page.cache
        } else {
            all.cache.merge(page.cache)
        };
        pages += 1;
        reject_repeated_uris(&mut page, &mut seen_uris);
        all.skills.append(&mut page.skills);
        all.rejected.append(&mut page.rejected);
        let entries = all.skills.len() + all.rejected.len();
        if entries > limits.max_entries {
            return Err(too_long(pages, entries));
        }
        match page.next_cursor {
            Some(next) if !seen_cursors.insert(next.clone()) => {
                return Err(too_long(pages, entries));
            }
            Some(next) => cursor = Some(next),
            None => return Ok(all),
        }
    }
}

/// `skills/get`: the current entry of the skill whose `SKILL.md` is at `uri`, whether or not
/// the server lists it, with the server's caching hints.
///
/// # Errors
/// [`FinalFormError::NotDeclared`] (nothing is sent), `NotASkill` for `-32602`, `InvalidEntry`
/// for an entry the spec forbids loading, `Malformed` for an answer about another URI or one
/// that is no `skills/get` result, `Refused` for other JSON-RPC errors, `Transport`.
pub async fn get_skill(
    peer: &Peer<RoleClient>,
    server: &str,
    uri: &str,
) -> Result<(Skill, CacheHint), FinalFormError> {
    const METHOD: &str = "skills/get";
    if skills_extension(peer).is_none() {
        return Err(FinalFormError::NotDeclared {
            server: server.to_owned(),
        });
    }
    let request = GetSkillRequest::new(GetSkillRequestParams::new(uri));
    let result = match send(
        peer,
        server,
        METHOD,
        uri,
        ClientRequest::GetSkillRequest(request),
    )
    .await
    {
        Err(FinalFormError::Refused {
            code: -32602,
            message,
            ..
        }) => {
            return Err(FinalFormError::NotASkill {
                server: server.to_owned(),
                uri: one_line(uri).into_owned(),
                message,
            });
        }
        other => other?,
    };
    let malformed = |message: String| FinalFormError::Malformed {
        server: server.to_owned(),
        method: METHOD,
        message,
    };
    let invalid = |problem| FinalFormError::InvalidEntry {
        server: server.to_owned(),
        uri: one_line(uri).into_owned(),
        problem,
    };
    let (skill, cache) = match result {
        ServerResult::GetSkillResult(result) => {
            if result
                .result_type
                .as_ref()
                .is_some_and(|kind| !kind.is_complete())
            {
                return Err(malformed("its resultType is not \"complete\"".into()));
            }
            check_entry(&result.skill).map_err(invalid)?;
            let cache = CacheHint {
                ttl_ms: result.ttl_ms,
                cache_scope: result.cache_scope,
            };
            (result.skill, cache)
        }
        ServerResult::CustomResult(CustomResult(mut value)) => {
            check_result_type(&value).map_err(malformed)?;
            let cache = cache_hint(&value);
            let entry = value
                .get_mut("skill")
                .map(Value::take)
                .ok_or_else(|| malformed("it has no `skill`".into()))?;
            let skill = parse_entry(entry).map_err(|rejected| invalid(rejected.problem))?;
            (skill, cache)
        }
        _ => return Err(malformed("it is not a skills/get result".into())),
    };
    if skill.uri != uri {
        return Err(malformed(format!(
            "it is the entry of {}, not of the skill asked for",
            one_line(&skill.uri).into_owned()
        )));
    }
    Ok((skill, cache))
}

/// Reads one file of the skill `skill` (the held entry) with `resources/read` and verifies it
/// with [`verify_file`]. A file the manifest does not list is refused before anything is sent.
/// Text comes back as its UTF-8 bytes, a blob decoded; a blob whose length cannot match the
/// listed size is refused before it is decoded.
///
/// # Errors
/// [`FinalFormError::Verification`] (unlisted, size, digest, or not exactly one content for the
/// URI), `Refused` (`-32602`: the server no longer serves the file), `Transport`.
pub async fn read_skill_file(
    peer: &Peer<RoleClient>,
    server: &str,
    skill: &Skill,
    uri: &str,
) -> Result<ReadFile, FinalFormError> {
    const METHOD: &str = "resources/read";
    // An unlisted file is refused before it is asked for.
    let listed = match &skill.resources {
        SkillResources::Files(_) => {
            let file = manifest_file(skill, uri).ok_or_else(|| VerificationError::Unlisted {
                server: server.to_owned(),
                skill: skill.uri.clone(),
                uri: one_line(uri).into_owned(),
            })?;
            Some(file.size)
        }
        // Only where the file lies can be checked before reading it.
        _ => {
            verify_file(server, skill, uri, &[])?;
            None
        }
    };
    let result = match peer
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
    {
        Ok(result) => result,
        Err(error) => return Err(service_error(error, server, METHOD, uri)),
    };
    let contents = |message: &str| VerificationError::Contents {
        server: server.to_owned(),
        uri: one_line(uri).into_owned(),
        message: message.to_owned(),
    };
    let mut matching = result.contents.into_iter().filter(|part| match part {
        ResourceContents::TextResourceContents { uri: part, .. }
        | ResourceContents::BlobResourceContents { uri: part, .. } => part == uri,
        _ => false,
    });
    let (Some(part), None) = (matching.next(), matching.next()) else {
        return Err(contents("it must hold exactly one content for the URI").into());
    };
    let (bytes, text, mime_type) = match part {
        ResourceContents::TextResourceContents {
            text, mime_type, ..
        } => (text.into_bytes(), true, mime_type),
        ResourceContents::BlobResourceContents {
            blob, mime_type, ..
        } => {
            if let Some(expected) = listed
                && let Some(actual) = decoded_len(&blob)
                && actual != expected
            {
                return Err(VerificationError::Size {
                    server: server.to_owned(),
                    uri: one_line(uri).into_owned(),
                    expected,
                    actual,
                }
                .into());
            }
            let bytes = STANDARD
                .decode(blob.trim())
                .map_err(|_| contents("the blob is not base64"))?;
            (bytes, false, mime_type)
        }
        _ => return Err(contents("the content is neither text nor a blob").into()),
    };
    let integrity = verify_file(server, skill, uri, &bytes)?;
    Ok(ReadFile {
        bytes,
        text,
        mime_type,
        integrity,
    })
}

/// One page of `resources/directory/read`: the direct children of the directory at `uri`
/// (`skill://pdf/templates`, no trailing slash). Children whose URI does not lie directly under
/// `uri` are dropped with a warning: a listing never extends what may be read (only the held
/// manifest does).
///
/// # Errors
/// [`FinalFormError::DirectoryReadNotDeclared`] (nothing is sent), `NotADirectory` for
/// `-32602`, `Refused`, `Malformed`, `Transport`.
pub async fn read_directory(
    peer: &Peer<RoleClient>,
    server: &str,
    uri: &str,
    cursor: Option<String>,
) -> Result<ReadResourceDirectoryResult, FinalFormError> {
    const METHOD: &str = "resources/directory/read";
    if !skills_extension(peer).is_some_and(|skills| skills.directory_read) {
        return Err(FinalFormError::DirectoryReadNotDeclared {
            server: server.to_owned(),
        });
    }
    let mut params = ReadResourceDirectoryRequestParams::new(uri);
    if let Some(cursor) = cursor {
        params = params.with_cursor(cursor);
    }
    let mut result = match peer.read_resource_directory(params).await {
        Ok(result) => result,
        Err(error) => {
            return Err(match service_error(error, server, METHOD, uri) {
                FinalFormError::Refused {
                    code: -32602,
                    message,
                    ..
                } => FinalFormError::NotADirectory {
                    server: server.to_owned(),
                    uri: one_line(uri).into_owned(),
                    message,
                },
                other => other,
            });
        }
    };
    let prefix = format!("{uri}/");
    result.resources.retain(|child| {
        let direct = child
            .uri
            .strip_prefix(&prefix)
            .is_some_and(|name| !name.is_empty() && !name.contains('/'));
        if !direct {
            tracing::warn!(
                server,
                directory = %one_line(uri),
                child = %one_line(&child.uri),
                "dropping a directory child outside the directory"
            );
        }
        direct
    });
    Ok(result)
}

async fn send(
    peer: &Peer<RoleClient>,
    server: &str,
    method: &'static str,
    target: &str,
    request: ClientRequest,
) -> Result<ServerResult, FinalFormError> {
    peer.send_request(request)
        .await
        .map_err(|error| service_error(error, server, method, target))
}

fn service_error(
    error: ServiceError,
    server: &str,
    method: &'static str,
    target: &str,
) -> FinalFormError {
    match error {
        ServiceError::McpError(error) => FinalFormError::Refused {
            server: server.to_owned(),
            method,
            target: one_line(target).into_owned(),
            code: error.code.0,
            message: one_line(&error.message).into_owned(),
        },
        ServiceError::UnexpectedResponse => FinalFormError::Malformed {
            server: server.to_owned(),
            method,
            message: "the answer is not a result of this method".into(),
        },
        other => FinalFormError::Transport {
            server: server.to_owned(),
            method,
            message: one_line(&other.to_string()).into_owned(),
        },
    }
}

/// A listing page read entry by entry.
fn lenient_page(mut value: Value) -> Result<SkillsPage, String> {
    check_result_type(&value)?;
    let cache = cache_hint(&value);
    let next_cursor = match value.get("nextCursor") {
        None | Some(Value::Null) => None,
        Some(Value::String(cursor)) => Some(cursor.clone()),
        Some(_) => return Err("its nextCursor is not a string".into()),
    };
    let Some(Value::Array(entries)) = value.get_mut("skills").map(Value::take) else {
        return Err("it has no `skills` list".into());
    };
    let mut page = SkillsPage {
        next_cursor,
        cache,
        ..SkillsPage::default()
    };
    for entry in entries {
        match parse_entry(entry) {
            Ok(skill) => page.skills.push(skill),
            Err(rejected) => page.rejected.push(rejected),
        }
    }
    Ok(page)
}

fn check_result_type(value: &Value) -> Result<(), String> {
    match value.get("resultType") {
        None => Ok(()),
        Some(Value::String(kind)) if kind == "complete" => Ok(()),
        Some(_) => Err("its resultType is not \"complete\"".into()),
    }
}

/// The caching hints of a raw result; a negative `ttlMs` counts as 0, as the caching spec says.
fn cache_hint(value: &Value) -> CacheHint {
    CacheHint {
        ttl_ms: value.get("ttlMs").and_then(|ttl| {
            ttl.as_u64()
                .or_else(|| ttl.as_i64().map(|_| 0))
                .or_else(|| {
                    ttl.as_f64()
                        .map(|ttl| if ttl > 0.0 { ttl as u64 } else { 0 })
                })
        }),
        cache_scope: value
            .get("cacheScope")
            .and_then(|scope| serde_json::from_value(scope.clone()).ok()),
    }
}

/// Moves entries whose URI `seen` already holds to the rejected ones, and records the others.
fn reject_repeated_uris(page: &mut SkillsPage, seen: &mut HashSet<String>) {
    let skills = std::mem::take(&mut page.skills);
    for skill in skills {
        if seen.insert(skill.uri.clone()) {
            page.skills.push(skill);
        } else {
            page.rejected.push(RejectedEntry {
                uri: Some(one_line(&skill.uri).into_owned()),
                problem: EntryProblem::Duplicate,
            });
        }
    }
}

/// The length of the bytes a well-formed, unwrapped base64 text decodes to; `None` for any
/// other text, which the decoder then judges.
fn decoded_len(blob: &str) -> Option<u64> {
    let blob = blob.trim();
    if !blob.len().is_multiple_of(4) {
        return None;
    }
    let padding = blob.bytes().rev().take_while(|&b| b == b'=').count();
    if padding > 2 {
        return None;
    }
    u64::try_from(blob.len() / 4 * 3 - padding).ok()
}

#[cfg(test)]
mod tests {
    use rmcp::model::sha256_digest;
    use serde_json::json;

    use super::*;

    #[test]
    fn a_page_with_a_bad_entry_keeps_the_good_ones() {
        let good = json!({
            "uri": "skill://git-workflow/SKILL.md",
            "frontmatter": {"name": "git-workflow", "description": "Git conventions."},
            "resources": [{"uri": "skill://git-workflow/SKILL.md", "digest": sha256_digest(b"x"), "size": 1}]
        });
        let bad = json!({
            "uri": "skill://broken/SKILL.md",
            "frontmatter": {"name": "broken", "description": "No manifest."},
            "resources": "static"
        });
        let result = json!({
            "resultType": "complete",
            "skills": [bad, good],
            "nextCursor": "abc",
            "ttlMs": 300000,
            "cacheScope": "public"
        });
        // This is what rmcp hands over for such a page: not a ListSkillsResult.
        let parsed: ServerResult = serde_json::from_value(result.clone()).unwrap();
        assert!(
            matches!(parsed, ServerResult::CustomResult(_)),
            "{parsed:?}"
        );

        let page = lenient_page(result).unwrap();
        assert_eq!(page.skills.len(), 1);
        assert_eq!(page.skills[0].frontmatter.name, "git-workflow");
        assert_eq!(page.rejected.len(), 1);
        assert_eq!(
            page.rejected[0].uri.as_deref(),
            Some("skill://broken/SKILL.md")
        );
        assert_eq!(page.next_cursor.as_deref(), Some("abc"));
        assert_eq!(
            page.cache,
            CacheHint {
                ttl_ms: Some(300_000),
                cache_scope: Some(CacheScope::Public)
            }
        );
    }

    #[test]
    fn a_conforming_page_is_a_typed_listing() {
        let result = json!({
            "skills": [{
                "uri": "skill://reports/daily/SKILL.md",
                "frontmatter": {"name": "daily", "description": "Live."},
                "resources": "dynamic"
            }]
        });
        let parsed: ServerResult = serde_json::from_value(result).unwrap();
        assert!(
            matches!(parsed, ServerResult::ListSkillsResult(_)),
            "{parsed:?}"
        );
    }

    #[test]
    fn pages_that_are_no_listing_are_malformed() {
        for result in [
            json!({"skill": []}),
            json!({"skills": {}}),
            json!({"skills": [], "nextCursor": 4}),
            json!({"skills": [], "resultType": "input_required"}),
        ] {
            assert!(lenient_page(result.clone()).is_err(), "{result}");
        }
    }

    #[test]
    fn legacy_pages_have_no_cache_hint_and_negative_ttls_count_as_zero() {
        assert_eq!(cache_hint(&json!({"skills": []})), CacheHint::default());
        assert_eq!(
            cache_hint(&json!({"ttlMs": -5, "cacheScope": "shared"})),
            CacheHint {
                ttl_ms: Some(0),
                cache_scope: None
            }
        );
    }

    #[test]
    fn merged_hints_are_the_shortest_and_narrowest() {
        let public = |ttl| CacheHint {
            ttl_ms: Some(ttl),
            cache_scope: Some(CacheScope::Public),
        };
        let private = CacheHint {
            ttl_ms: Some(10),
            cache_scope: Some(CacheScope::Private),
        };
        assert_eq!(public(100).merge(public(50)), public(50));
        assert_eq!(public(100).merge(private), private);
        assert_eq!(
            public(100).merge(CacheHint::default()),
            CacheHint::default()
        );
    }

    #[test]
    fn repeated_uris_are_rejected_not_dropped() {
        let skill: Skill = serde_json::from_value(json!({
            "uri": "skill://a/SKILL.md",
            "frontmatter": {"name": "a", "description": "b"},
            "resources": "dynamic"
        }))
        .unwrap();
        let mut page = SkillsPage {
            skills: vec![skill.clone(), skill],
            ..SkillsPage::default()
        };
        reject_repeated_uris(&mut page, &mut HashSet::new());
        assert_eq!(page.skills.len(), 1);
        assert_eq!(page.rejected[0].problem, EntryProblem::Duplicate);
    }

    #[test]
    fn decoded_lengths_of_base64() {
        for bytes in [
            &b""[..],
            b"a",
            b"ab",
            b"abc",
            b"abcd",
            &[0u8, 255, 7, 9, 1][..],
        ] {
            let blob = STANDARD.encode(bytes);
            assert_eq!(decoded_len(&blob), Some(bytes.len() as u64), "{blob}");
        }
        assert_eq!(decoded_len("abc"), None);
        assert_eq!(decoded_len("a==="), None);
    }
}
