//! [`McpSkillsSource`]: the skills an MCP server lists, in the Skills extension's final form
//! (`skills/list`) or, from a server that does not declare it, in `skill://index.json`.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rmcp::service::{RoleClient, RunningService};
use skillful_core::validate::{ValidationMode, validate_fields};
use skillful_core::{
    Diagnostic, Mapping, ResourceContent, Skill, SkillError, SkillFrontmatter, SkillsSource,
    SourceContext, Value,
};
use skillful_discovery::{FileSkillsSource, FileSkillsSourceBuilder, SharedScriptRunner};

use crate::archive::ArchiveLimits;
use crate::cache::DEFAULT_CACHE_MAX_BYTES;
use crate::connection::{Connection, McpEndpoint};
use crate::error::McpSkillsError;
use crate::extract::ArchiveStore;
use crate::final_form::{
    ListingLimits, SkillEntry, disambiguated_names, list_all_skills, skills_extension,
};
use crate::index::{ARCHIVE_TYPE, INDEX_URI, IndexEntry, SKILL_MD_TYPE, SkillIndex};
use crate::skill::{Approval, McpSkill, Remote, SkillApproval};

/// How long a handshake or one request may take by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

type DiscoveryFactory = Arc<dyn Fn() -> FileSkillsSourceBuilder + Send + Sync>;

/// Configures an [`McpSkillsSource`].
pub struct McpSkillsSourceBuilder {
    connection: Connection,
    label: Option<String>,
    cache_dir: Option<PathBuf>,
    cache_max_bytes: u64,
    extraction_dir: Option<PathBuf>,
    limits: ArchiveLimits,
    listing: ListingLimits,
    discovery: DiscoveryFactory,
    approval: Option<Approval>,
    runner: Option<SharedScriptRunner>,
}

impl fmt::Debug for McpSkillsSourceBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpSkillsSourceBuilder")
            .field("connection", &self.connection)
            .field("label", &self.label)
            .field("cache_dir", &self.cache_dir)
            .field("cache_max_bytes", &self.cache_max_bytes)
            .field("extraction_dir", &self.extraction_dir)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl McpSkillsSourceBuilder {
    /// The host's name for the server (default: its command line or URL): every skill's origin
    /// carries it ([`skillful_core::SkillOrigin::label`], with the skill's `SKILL.md` URI as
    /// location), and errors name the server by it. The server's own name is never used.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// The directory content fetched from the server is kept in: verified files
    /// (`files/<server>/`), unpacked archive skills (`archives/<server>/`, unless
    /// [`McpSkillsSourceBuilder::extraction_dir`] says otherwise) and the files of approved
    /// script runs (`runs/`). Each directory is created private to this user (mode 0700) and
    /// refused when it is a symbolic link or another user's. Keep it outside every skill root.
    ///
    /// Default: `mcp` in this user's cache directory ([`skillful_state::Dirs::cache`], e.g.
    /// `~/.cache/skillful/mcp`); without one, nothing is kept on disk (and archives are unpacked
    /// below the system's temporary directory).
    pub fn cache_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cache_dir = Some(dir.into());
        self
    }

    /// How many bytes the verified files in the cache directory (`files/`, of every server
    /// together) may take (default [`DEFAULT_CACHE_MAX_BYTES`], 256 MiB). Past it, the least
    /// recently used files are removed after each file is cached (and fetched again when next
    /// needed). Only files this cache wrote, in directories it created and checked, are ever
    /// removed. Unpacked archives are bounded by [`ArchiveLimits`] instead.
    pub fn cache_max_bytes(mut self, max_bytes: u64) -> Self {
        self.cache_max_bytes = max_bytes;
        self
    }

    /// Where archive skills are unpacked. Each source uses its own subdirectory, named by a hash
    /// of its server's command line or URL, and treats it as its own: what the server no longer
    /// lists is removed from it. Default: `archives` in the cache directory
    /// ([`McpSkillsSourceBuilder::cache_dir`]).
    pub fn extraction_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.extraction_dir = Some(dir.into());
        self
    }

    /// Lets a server started as a command ([`McpEndpoint::Stdio`]) inherit the host's variable
    /// `name` too. Such a server is someone else's program: it gets only the environment scripts
    /// get ([`skillful_process::DEFAULT_ALLOWED_ENV`]) and the variables named here, never the
    /// host's secrets. No effect on other servers.
    pub fn allow_env(mut self, name: impl Into<String>) -> Self {
        self.connection.allow_env(name.into());
        self
    }

    /// The limits on each archive and on the archives of the server in one load: files and bytes
    /// per archive, at most 20 archives and 32 MiB unpacked per load by default
    /// ([`ArchiveLimits::default`]). Unpacked files are readable by this user only (0600 in
    /// 0700 directories).
    pub fn archive_limits(mut self, limits: ArchiveLimits) -> Self {
        self.limits = limits;
        self
    }

    /// How much of a `skills/list` listing is followed (default: [`ListingLimits::default`]).
    pub fn listing_limits(mut self, limits: ListingLimits) -> Self {
        self.listing = limits;
        self
    }

    /// How unpacked archives are searched for resources (extensions, depth, validation). Roots
    /// and scripts are set by the source: an archive's scripts never run.
    pub fn archive_discovery(
        mut self,
        builder: impl Fn() -> FileSkillsSourceBuilder + Send + Sync + 'static,
    ) -> Self {
        self.discovery = Arc::new(builder);
        self
    }

    /// Whether the user approved a skill of this server (asked each time a script would run
    /// and whenever the skill's frontmatter is read): until `approve` says yes for a skill, its
    /// scripts do not run ([`SkillError::NotRunnable`]) and its `allowed-tools` are left out of
    /// its frontmatter. The host asks the user after showing the skill's origin, and answers
    /// for that skill only; an answer kept between runs should be bound to
    /// [`SkillApproval::manifest_digest`]. Default: nothing is approved.
    pub fn approve(
        mut self,
        approve: impl Fn(&SkillApproval<'_>) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.approval = Some(Arc::new(approve));
        self
    }

    /// What runs the scripts of approved skills (such as `skillful-scripts`' process runner);
    /// without one, no script runs even when approved.
    pub fn script_runner(mut self, runner: SharedScriptRunner) -> Self {
        self.runner = Some(runner);
        self
    }

    /// The source.
    pub fn build(self) -> McpSkillsSource {
        let cache_dir = self.cache_dir.or_else(|| {
            skillful_state::Dirs::per_user()
                .ok()
                .map(|dirs| dirs.cache().join("mcp"))
        });
        let extraction_base = self
            .extraction_dir
            .or_else(|| cache_dir.as_ref().map(|dir| dir.join("archives")))
            .unwrap_or_else(|| std::env::temp_dir().join("skillful-mcp"));
        let label = self
            .label
            .unwrap_or_else(|| self.connection.server().to_owned());
        let archives = ArchiveStore::new(
            &extraction_base,
            self.connection.server(),
            &label,
            self.limits,
        );
        let connection = Arc::new(self.connection);
        let remote = Remote::new(
            connection,
            label,
            cache_dir,
            self.cache_max_bytes,
            self.approval,
            self.runner,
        );
        McpSkillsSource {
            remote: Arc::new(remote),
            archives,
            listing: self.listing,
            discovery: self.discovery,
        }
    }
}

/// The skills an MCP server offers.
///
/// Every [`McpSkillsSource::load`] lists them afresh (put a cache in front of the source, e.g.
/// `skillful_inline::SkillsSourceBuilder::cache`, to list them once):
///
/// **A server that declares the Skills extension** (`io.modelcontextprotocol/skills`) is read
/// in its final form: `skills/list`, followed page by page within [`ListingLimits`]. Listing
/// fetches no file: each entry becomes an [`McpSkill`] whose `SKILL.md` and files are fetched
/// when first used and verified against the entry first (see [`McpSkill`]). An entry the
/// specification forbids loading (a malformed manifest, a URI that does not end in its name, over
/// the limits) is skipped with a warning, as is one whose frontmatter the validator rejects
/// (leniently, as for files). Two entries with the same name are both kept: each is listed
/// under the shortest tail of its path that tells it apart (`billing/refunds`,
/// `support/refunds`), never dropped.
///
/// **Any other server** is read through its draft index, `skill://index.json` (as Microsoft
/// Agent Framework reads it):
///
/// - no index (the server answers the read with an error): no skills, logged at debug level;
///   an index that is not JSON: no skills, with a warning. Comments and trailing commas are
///   accepted;
/// - an entry of an unknown `type` is skipped (debug); one whose name or description breaks the
///   specification (checked strictly, by the workspace's validator), or that repeats a name,
///   is skipped with a warning;
/// - `skill-md` entries become [`McpSkill`]s, whose `SKILL.md` and resources are read when
///   first asked for;
/// - `archive` entries are downloaded, checked (size, `sha256:` digest when given, format) and
///   unpacked within [`ArchiveLimits`] into the extraction directory, then loaded as file skills
///   whose scripts never run. An archive that fails a check is skipped with a warning and
///   leaves nothing on disk.
///
/// Every skill's origin is [`skillful_core::OriginKind::Mcp`] with the source's label
/// ([`McpSkillsSourceBuilder::label`]) and the skill's `SKILL.md` URI. A connection failure is an
/// error ([`McpSkillsError`]); the next call connects afresh.
///
/// # Example
/// ```no_run
/// use skillful_core::Skill;
/// use skillful_mcp::{McpEndpoint, McpSkillsSource};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let source = McpSkillsSource::builder(McpEndpoint::http("http://127.0.0.1:8000/mcp"))
///     .label("docs")
///     .build();
/// for skill in source.load().await? {
///     println!("{} ({}): {}", skill.frontmatter().name, skill.origin(), skill.frontmatter().description);
/// }
/// # Ok(())
/// # }
/// ```
pub struct McpSkillsSource {
    remote: Arc<Remote>,
    archives: ArchiveStore,
    listing: ListingLimits,
    discovery: DiscoveryFactory,
}

impl fmt::Debug for McpSkillsSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpSkillsSource")
            .field("remote", &self.remote)
            .field("archives", &self.archives)
            .finish_non_exhaustive()
    }
}

impl McpSkillsSource {
    /// A builder for the server at `endpoint`, connected when first used (with
    /// [`DEFAULT_TIMEOUT`] for the handshake and each request).
    pub fn builder(endpoint: McpEndpoint) -> McpSkillsSourceBuilder {
        Self::builder_with_timeout(endpoint, DEFAULT_TIMEOUT)
    }

    /// [`McpSkillsSource::builder`] with another timeout for the handshake and each request.
    pub fn builder_with_timeout(
        endpoint: McpEndpoint,
        timeout: Duration,
    ) -> McpSkillsSourceBuilder {
        Self::builder_over(Connection::lazy(endpoint, timeout))
    }

    /// A builder over a client the caller has connected (any rmcp transport); `server` names it
    /// in messages (it is the default label) and picks its cache and extraction subdirectories.
    /// After a transport failure it stays broken: it is not the source's to remake.
    pub fn builder_for_client(
        client: RunningService<RoleClient, ()>,
        server: impl Into<String>,
    ) -> McpSkillsSourceBuilder {
        Self::builder_over(Connection::established(
            client,
            server.into(),
            DEFAULT_TIMEOUT,
        ))
    }

    fn builder_over(connection: Connection) -> McpSkillsSourceBuilder {
        McpSkillsSourceBuilder {
            connection,
            label: None,
            cache_dir: None,
            cache_max_bytes: DEFAULT_CACHE_MAX_BYTES,
            extraction_dir: None,
            limits: ArchiveLimits::default(),
            listing: ListingLimits::default(),
            discovery: Arc::new(FileSkillsSource::builder),
            approval: None,
            runner: None,
        }
    }

    /// The host's label for the server.
    pub fn label(&self) -> &str {
        &self.remote.label
    }

    /// The directory this source unpacks archive skills into (its own subdirectory of the
    /// extraction directory).
    pub fn archive_dir(&self) -> &Path {
        self.archives.dir()
    }

    /// Lists the server's skills: by `skills/list` when it declares the Skills extension, else
    /// from its draft index, in the server's order.
    ///
    /// # Errors
    /// [`McpSkillsError::Connect`] or [`McpSkillsError::Transport`] when the server cannot be
    /// reached; [`McpSkillsError::Protocol`] when `skills/list` fails;
    /// [`McpSkillsError::CacheDir`] or [`McpSkillsError::ExtractionDir`] when the cache cannot
    /// be used.
    pub async fn load(&self) -> Result<Vec<Arc<dyn Skill>>, McpSkillsError> {
        self.remote.cache().await?;
        let label = self.remote.label.as_str();
        let listing = self.listing;
        let listed = self
            .remote
            .connection
            .request("skills/list", |peer| async move {
                if skills_extension(&peer).is_none() {
                    return Ok(None);
                }
                list_all_skills(&peer, label, listing).await.map(Some)
            })
            .await?;
        match listed {
            Some(page) => {
                for rejected in &page.rejected {
                    let uri = rejected.uri.as_deref().unwrap_or("(no uri)");
                    tracing::warn!(server = %label, %uri, "skill skipped: {}", rejected.problem);
                }
                Ok(self.listed_skills(page.skills))
            }
            None => self.indexed_skills().await,
        }
    }

    /// The skills of `skills/list` entries, each validated and under a name that no other
    /// entry of the listing has.
    fn listed_skills(&self, entries: Vec<SkillEntry>) -> Vec<Arc<dyn Skill>> {
        let label = &self.remote.label;
        let names = disambiguated_names(&entries);
        let mut skills = Vec::with_capacity(entries.len());
        for (entry, listed_name) in entries.into_iter().zip(names) {
            let validated = match entry_frontmatter(&entry) {
                Ok(validated) => validated,
                Err(message) => {
                    tracing::warn!(server = %label, uri = %entry.uri, "skill skipped: {message}");
                    continue;
                }
            };
            let (mut frontmatter, diagnostics) = validated;
            frontmatter.name = listed_name;
            skills.push(Arc::new(McpSkill::listed(
                entry,
                frontmatter,
                diagnostics,
                self.remote.clone(),
            )) as Arc<dyn Skill>);
        }
        skills
    }

    /// The skills of the draft index: `skill-md` entries and unpacked archives, in its order.
    async fn indexed_skills(&self) -> Result<Vec<Arc<dyn Skill>>, McpSkillsError> {
        let entries = self.index_entries().await?;
        let archives: Vec<IndexEntry> = entries
            .iter()
            .filter(|(entry, _)| entry.kind == ARCHIVE_TYPE)
            .map(|(entry, _)| entry.clone())
            .collect();
        let mut extracted = self
            .archives
            .refresh(&archives, &self.remote.connection, (self.discovery)())
            .await?;
        let skills = entries
            .into_iter()
            .filter_map(|(entry, frontmatter)| {
                if entry.kind == SKILL_MD_TYPE {
                    Some(Arc::new(McpSkill::indexed(
                        frontmatter,
                        entry.url,
                        entry.digest,
                        self.remote.clone(),
                    )) as Arc<dyn Skill>)
                } else {
                    extracted.remove(&entry.name)
                }
            })
            .collect();
        Ok(skills)
    }

    /// The usable entries of the index (known type, valid name and description, first of their
    /// name) with their frontmatter; none when there is no usable index.
    async fn index_entries(&self) -> Result<Vec<(IndexEntry, SkillFrontmatter)>, McpSkillsError> {
        let server = self.remote.label.as_str();
        let text = match self.remote.connection.read(INDEX_URI).await {
            Ok(fetched) => match fetched.content {
                ResourceContent::Text(text) => text,
                ResourceContent::Binary { .. } => {
                    tracing::debug!(%server, "{INDEX_URI} holds no text: no skills");
                    return Ok(Vec::new());
                }
            },
            Err(error @ (McpSkillsError::Server { .. } | McpSkillsError::Content { .. })) => {
                tracing::debug!(%server, "no {INDEX_URI}: {error}");
                return Ok(Vec::new());
            }
            Err(error) => return Err(error),
        };
        let index = match SkillIndex::parse(&text) {
            Ok(index) => index,
            Err(error) => {
                tracing::warn!(%server, "{INDEX_URI} is not a skills index, so no skills are loaded from it: {error}");
                return Ok(Vec::new());
            }
        };
        let mut names = HashSet::new();
        let mut usable = Vec::new();
        for entry in index.entries() {
            let entry = match entry {
                Ok(entry) => entry,
                Err(message) => {
                    tracing::warn!(%server, "skill skipped: {message}");
                    continue;
                }
            };
            if entry.kind != SKILL_MD_TYPE && entry.kind != ARCHIVE_TYPE {
                tracing::debug!(%server, skill = %entry.name, "skill skipped: unsupported type '{}'", entry.kind);
                continue;
            }
            let frontmatter = match index_frontmatter(&entry) {
                Ok(frontmatter) => frontmatter,
                Err(message) => {
                    tracing::warn!(%server, skill = %entry.name, "skill skipped: {message}");
                    continue;
                }
            };
            if !names.insert(entry.name.clone()) {
                tracing::warn!(%server, skill = %entry.name, "skill skipped: the index lists this name more than once; the first entry is used");
                continue;
            }
            usable.push((entry, frontmatter));
        }
        Ok(usable)
    }
}

/// The errors among `diagnostics`, joined.
fn errors(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.message.as_str())
        .collect::<Vec<_>>()
        .join("; ")
}

/// An index entry's name and description checked strictly, as the specification's reference
/// validator checks a `SKILL.md` (and as it checks index entries).
fn index_frontmatter(entry: &IndexEntry) -> Result<SkillFrontmatter, String> {
    let mut fields = Mapping::new();
    fields.insert("name".into(), Value::String(entry.name.clone()));
    fields.insert(
        "description".into(),
        Value::String(entry.description.clone()),
    );
    validate_fields(&fields, Some(&entry.name), ValidationMode::Strict)
        .map(|validated| validated.frontmatter)
        .map_err(|diagnostics| errors(&diagnostics))
}

/// A listed entry's frontmatter (JSON, as the server sent it) checked by the workspace's
/// validator, leniently as file skills are: the skill and its warnings, or why it is rejected.
fn entry_frontmatter(entry: &SkillEntry) -> Result<(SkillFrontmatter, Vec<Diagnostic>), String> {
    let fields: Mapping = serde_json::to_value(&entry.frontmatter)
        .and_then(serde_json::from_value)
        .map_err(|error| format!("its frontmatter cannot be read: {error}"))?;
    let name = entry.frontmatter.name.as_str();
    validate_fields(&fields, Some(name), ValidationMode::Lenient)
        .map(|validated| (validated.frontmatter, validated.diagnostics))
        .map_err(|diagnostics| errors(&diagnostics))
}

#[async_trait]
impl SkillsSource for McpSkillsSource {
    async fn skills(&self, _context: &SourceContext) -> Result<Vec<Arc<dyn Skill>>, SkillError> {
        self.load()
            .await
            .map_err(|error| SkillError::Other(error.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::final_form::parse_entry;

    fn entry(frontmatter: serde_json::Value) -> SkillEntry {
        parse_entry(json!({
            "uri": "skill://pdf/SKILL.md",
            "frontmatter": frontmatter,
            "resources": "dynamic"
        }))
        .unwrap()
    }

    #[test]
    fn listed_frontmatter_keeps_its_types_through_the_validator() {
        let (frontmatter, diagnostics) = entry_frontmatter(&entry(json!({
            "name": "pdf",
            "description": "PDFs.",
            "allowed-tools": ["Read", "Bash(python3:*)"],
            "metadata": {"version": 2.1, "beta": true},
            "owner": {"team": "docs"}
        })))
        .unwrap();
        assert_eq!(frontmatter.name, "pdf");
        assert_eq!(
            frontmatter.allowed_tools.as_deref(),
            Some(&["Read".to_owned(), "Bash(python3:*)".to_owned()][..])
        );
        assert_eq!(frontmatter.metadata["version"], "2.1");
        assert_eq!(frontmatter.metadata["beta"], "true");
        let mut team = Mapping::new();
        team.insert("team".into(), Value::String("docs".into()));
        assert_eq!(frontmatter.extra["owner"], Value::Mapping(team));
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        assert_eq!(diagnostics[0].field, "owner");
    }

    #[test]
    fn listed_frontmatter_the_validator_rejects_is_refused_with_its_reason() {
        let long = "x".repeat(2000);
        let accepted = entry_frontmatter(&entry(json!({"name": "pdf", "description": long})));
        assert!(accepted.is_ok(), "lenient: a long description warns");
        let rejected =
            entry_frontmatter(&entry(json!({"name": "pdf", "description": "   "}))).unwrap_err();
        assert!(rejected.contains("description is required"), "{rejected}");
    }

    #[test]
    fn index_entries_are_checked_strictly() {
        let entry = IndexEntry::new("Bad_Name", SKILL_MD_TYPE, "Fine.", "skill://x/SKILL.md");
        assert!(index_frontmatter(&entry).is_err());
        let entry = IndexEntry::new("good", SKILL_MD_TYPE, "Fine.", "skill://good/SKILL.md");
        assert_eq!(index_frontmatter(&entry).unwrap().description, "Fine.");
    }

    #[test]
    fn tag_characters_in_an_mcp_description_are_reported_by_the_one_validator() {
        // "Ignore" in Unicode tag characters after the visible text.
        let hidden = "Fills PDFs.\u{e0049}\u{e0067}\u{e006e}\u{e006f}\u{e0072}\u{e0065}";
        let (_, diagnostics) =
            entry_frontmatter(&entry(json!({"name": "pdf", "description": hidden}))).unwrap();
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        assert_eq!(diagnostics[0].field, "description");
        assert!(
            diagnostics[0].message.contains("\\u{e0049}"),
            "{diagnostics:?}"
        );
        let entry = IndexEntry::new("pdf", SKILL_MD_TYPE, hidden, "skill://pdf/SKILL.md");
        let rejected = index_frontmatter(&entry).unwrap_err();
        assert!(rejected.contains("invisible character"), "{rejected}");
    }
}
