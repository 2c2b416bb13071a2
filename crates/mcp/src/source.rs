//! [`McpSkillsSource`]: the skills an MCP server lists in `skill://index.json`.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rmcp::service::{RoleClient, RunningService};
use skillful_core::{
    ResourceContent, Skill, SkillError, SkillFrontmatter, SkillsSource, SourceContext,
};
use skillful_discovery::{FileSkillsSource, FileSkillsSourceBuilder};
use skillful_frontmatter::{FrontmatterLoader, ValidationMode};

use crate::archive::ArchiveLimits;
use crate::connection::{Connection, McpEndpoint};
use crate::error::McpSkillsError;
use crate::extract::ArchiveStore;
use crate::index::{ARCHIVE_TYPE, INDEX_URI, IndexEntry, SKILL_MD_TYPE, SkillIndex};
use crate::skill::McpSkill;

/// How long a handshake or one request may take by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

type DiscoveryFactory = Arc<dyn Fn() -> FileSkillsSourceBuilder + Send + Sync>;

/// Configures an [`McpSkillsSource`].
pub struct McpSkillsSourceBuilder {
    connection: Connection,
    extraction_dir: Option<PathBuf>,
    limits: ArchiveLimits,
    discovery: DiscoveryFactory,
}

impl fmt::Debug for McpSkillsSourceBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpSkillsSourceBuilder")
            .field("connection", &self.connection)
            .field("extraction_dir", &self.extraction_dir)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl McpSkillsSourceBuilder {
    /// Where archive skills are unpacked. Each source uses its own subdirectory, named by a hash
    /// of its server's command line or URL, and treats it as its own: what the server no longer
    /// lists is removed from it. Default: `skillful-mcp` in the system's temporary directory.
    pub fn extraction_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.extraction_dir = Some(dir.into());
        self
    }

    /// Lets a server started as a command ([`McpEndpoint::Stdio`]) inherit the host's variable
    /// `name` too. Such a server is someone else's program: it gets only the environment scripts
    /// get ([`skillful_scripts::DEFAULT_ALLOWED_ENV`]) and the variables named here, never the
    /// host's secrets. No effect on other servers.
    pub fn allow_env(mut self, name: impl Into<String>) -> Self {
        self.connection.allow_env(name.into());
        self
    }

    /// The limits on each archive (default: [`ArchiveLimits::default`]).
    pub fn archive_limits(mut self, limits: ArchiveLimits) -> Self {
        self.limits = limits;
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

    /// The source.
    pub fn build(self) -> McpSkillsSource {
        let base = self
            .extraction_dir
            .unwrap_or_else(|| std::env::temp_dir().join("skillful-mcp"));
        let archives = ArchiveStore::new(&base, self.connection.server(), self.limits);
        McpSkillsSource {
            connection: Arc::new(self.connection),
            archives,
            discovery: self.discovery,
        }
    }
}

/// The skills an MCP server offers through `skill://index.json` (SEP-2640, as Microsoft Agent
/// Framework reads it).
///
/// Every [`McpSkillsSource::load`] reads the index afresh (put a cache in front of the source,
/// e.g. `SkillsSourceBuilder::cache`, to read it once):
///
/// - no index (the server answers the read with an error): no skills, logged at debug level;
///   an index that is not JSON: no skills, with a warning. Comments and trailing commas are
///   accepted;
/// - an entry of an unknown `type` is skipped (debug); one whose name or description breaks the
///   specification, or that repeats a name, is skipped with a warning;
/// - `skill-md` entries become [`McpSkill`]s, whose `SKILL.md` and resources are read when
///   first asked for;
/// - `archive` entries are downloaded, checked (size, `sha256:` digest when given, format) and
///   unpacked within [`ArchiveLimits`] into the extraction directory, then loaded as file skills
///   whose scripts never run. An archive that fails a check is skipped with a warning and
///   leaves nothing on disk.
///
/// A connection failure is an error ([`McpSkillsError`]); the next call connects afresh.
///
/// # Example
/// ```no_run
/// use skillful_core::Skill;
/// use skillful_mcp::{McpEndpoint, McpSkillsSource};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let source = McpSkillsSource::builder(McpEndpoint::http("http://127.0.0.1:8000/mcp")).build();
/// for skill in source.load().await? {
///     println!("{}: {}", skill.frontmatter().name, skill.frontmatter().description);
/// }
/// # Ok(())
/// # }
/// ```
pub struct McpSkillsSource {
    connection: Arc<Connection>,
    archives: ArchiveStore,
    discovery: DiscoveryFactory,
}

impl fmt::Debug for McpSkillsSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpSkillsSource")
            .field("connection", &self.connection)
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
    /// in messages and picks its extraction subdirectory. After a transport failure it stays
    /// broken: it is not the source's to remake.
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
            extraction_dir: None,
            limits: ArchiveLimits::default(),
            discovery: Arc::new(FileSkillsSource::builder),
        }
    }

    /// The directory this source unpacks archive skills into (its own subdirectory of the
    /// extraction directory).
    pub fn archive_dir(&self) -> &Path {
        self.archives.dir()
    }

    /// Reads the index and loads the skills it lists, in its order.
    ///
    /// # Errors
    /// [`McpSkillsError::Connect`] or [`McpSkillsError::Transport`] when the server cannot be
    /// reached; [`McpSkillsError::ExtractionDir`] when archives cannot be unpacked.
    pub async fn load(&self) -> Result<Vec<Arc<dyn Skill>>, McpSkillsError> {
        let entries = self.index_entries().await?;
        let archives: Vec<IndexEntry> = entries
            .iter()
            .filter(|(entry, _)| entry.kind == ARCHIVE_TYPE)
            .map(|(entry, _)| entry.clone())
            .collect();
        let mut extracted = self
            .archives
            .refresh(&archives, &self.connection, (self.discovery)())
            .await?;
        let skills = entries
            .into_iter()
            .filter_map(|(entry, frontmatter)| {
                if entry.kind == SKILL_MD_TYPE {
                    Some(Arc::new(McpSkill::new(
                        frontmatter,
                        entry.url,
                        self.connection.clone(),
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
        let server = self.connection.server();
        let text = match self.connection.read(INDEX_URI).await {
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
            let frontmatter = match checked_frontmatter(&entry) {
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

/// The entry's name and description checked as the specification's reference validator
/// checks a `SKILL.md` (strictly, as the reference does for index entries).
fn checked_frontmatter(entry: &IndexEntry) -> Result<SkillFrontmatter, String> {
    let quoted = |text: &str| serde_json::to_string(text).unwrap_or_default();
    let text = format!(
        "---\nname: {}\ndescription: {}\n---\n",
        quoted(&entry.name),
        quoted(&entry.description)
    );
    FrontmatterLoader::new(ValidationMode::Strict)
        .load(&text, Some(&entry.name))
        .map(|loaded| loaded.frontmatter)
        .map_err(|diagnostics| {
            diagnostics
                .iter()
                .filter(|d| d.is_error())
                .map(|d| d.message.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        })
}

#[async_trait]
impl SkillsSource for McpSkillsSource {
    async fn skills(&self, _context: &SourceContext) -> Result<Vec<Arc<dyn Skill>>, SkillError> {
        self.load()
            .await
            .map_err(|error| SkillError::Other(error.to_string()))
    }
}
