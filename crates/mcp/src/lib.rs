//! Agent Skills over the Model Context Protocol, on the official Rust SDK `rmcp`, in both forms of
//! the Skills extension: the final form (`io.modelcontextprotocol/skills`: `skills/list`,
//! `skills/get`, `resources/directory/read`; [`final_form`]) and the draft form
//! (`skill://index.json`, SEP-2640, as Microsoft Agent Framework reads it; archives).
//!
//! Two sides:
//!
//! - [`McpSkillsSource`] is a [`skillful_core::SkillsSource`] over an MCP server, reached as a
//!   child process over stdio or over streamable HTTP ([`McpEndpoint`]). From a server that
//!   declares the final form it lists entries with `skills/list` and turns each into an
//!   [`McpSkill`] whose files are fetched when used and verified against the entry; otherwise it
//!   reads `skill://index.json`: `skill-md` entries become [`McpSkill`]s, and `archive` entries
//!   (zip or tar.gz) are checked, unpacked within [`ArchiveLimits`] and loaded as file skills
//!   whose scripts never run.
//! - [`SkillsMcpServer`] serves what a [`skillful_discovery::FileSkillsSource`] finds in both
//!   forms, over stdio or streamable HTTP; `skills serve` is this server.
//!
//! # Layout: by side
//! The modules are laid out by side, with the protocol formats both sides share beside them:
//! - the client side (feature `client`): `source.rs` (the source and its builder),
//!   `connection.rs` (endpoints, reconnecting), `skill.rs` (an MCP skill and its approval),
//!   `cache.rs` (verified files on disk), `archive.rs` and `extract.rs` (draft archives),
//!   `error.rs`;
//! - the server side (feature `server`): `server.rs` and `server/` (`catalog.rs` the snapshot
//!   and digests, `draft.rs` the draft form's resources, `http.rs` the accept loop, `auth.rs`);
//! - shared by both: the formats (`index.rs` the draft's index, [`final_form`] the final form's
//!   entries, verification and cursor paging, whose `client.rs` holds the client's calls),
//!   `token.rs` (the bearer token either side uses) and `mime.rs`.
//!
//! A new protocol era gets its format module beside `index.rs` and `final_form/`; its client and
//! server code go to their sides.
//!
//! Each side is a cargo feature, both on by default: `client` (the source; reqwest, rustls, zip)
//! and `server` (the server; axum), so a program links only the side it uses.
//!
//! This crate owns the MCP side of skills: the index format, resource URIs, archive checks and
//! extraction. It does not walk directories or parse `SKILL.md` (that is `skillful-discovery` and
//! `skillful-frontmatter`), and knows nothing of prompts, tools or the provider.
//!
//! # Example
//! A server and a client in one process, over an in-memory pipe:
//! ```
//! use skillful_core::Skill;
//! use skillful_discovery::FileSkillsSource;
//! use skillful_mcp::{McpSkillsSource, SkillsMcpServer};
//! use rmcp::ServiceExt;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! # let root = tempfile::tempdir().unwrap();
//! # let skill = root.path().join("unit-converter");
//! # std::fs::create_dir_all(&skill).unwrap();
//! # std::fs::write(skill.join("SKILL.md"), "---\nname: unit-converter\ndescription: Converts units.\n---\nUse the table.\n").unwrap();
//! let (server_end, client_end) = tokio::io::duplex(64 * 1024);
//! let files = FileSkillsSource::builder().root(root.path()).build().unwrap();
//! tokio::spawn(SkillsMcpServer::new(files).serve(server_end));
//!
//! let client = ().serve(client_end).await.unwrap();
//! let source = McpSkillsSource::builder_for_client(client, "in-process").build();
//! let skills = source.load().await.unwrap();
//! assert_eq!(skills[0].frontmatter().name, "unit-converter");
//! assert!(skills[0].document().await.unwrap().body.contains("Use the table."));
//! # }
//! ```

#![forbid(unsafe_code)]

#[cfg(feature = "client")]
mod archive;
#[cfg(feature = "client")]
mod cache;
#[cfg(feature = "client")]
mod connection;
#[cfg(feature = "client")]
mod error;
#[cfg(feature = "client")]
mod extract;
pub mod final_form;
mod index;
#[cfg(any(feature = "client", feature = "server"))]
mod mime;
#[cfg(feature = "server")]
mod server;
#[cfg(feature = "client")]
mod skill;
#[cfg(feature = "client")]
mod source;
mod token;

#[cfg(feature = "client")]
pub use archive::{ArchiveError, ArchiveFormat, ArchiveLimits};
#[cfg(feature = "client")]
#[cfg(feature = "client")]
pub use cache::DEFAULT_CACHE_MAX_BYTES;
#[cfg(feature = "client")]
pub use connection::McpEndpoint;
#[cfg(feature = "client")]
pub use error::McpSkillsError;
pub use index::{ARCHIVE_TYPE, INDEX_SCHEMA, INDEX_URI, IndexEntry, SKILL_MD_TYPE, SkillIndex};
#[cfg(feature = "server")]
pub use server::{
    DEFAULT_AUDITED_PER_MINUTE, DEFAULT_PAGE_SIZE, DEFAULT_RESCAN_INTERVAL, HTTP_PATH, HttpLimits,
    ServeError, SkillsMcpServer,
};
#[cfg(feature = "client")]
pub use skill::{McpSkill, SkillApproval};
#[cfg(feature = "client")]
pub use source::{DEFAULT_TIMEOUT, McpSkillsSource, McpSkillsSourceBuilder};
pub use token::{BearerToken, MIN_TOKEN_BYTES, TokenError};
