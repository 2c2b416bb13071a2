//! [`SkillsMcpServer`]: a skills directory served over MCP as `skill://` resources.

use std::sync::Arc;

use base64::Engine;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    ErrorData, Implementation, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, SKILL_MD, ServerCapabilities, ServerConfig, sha256_digest,
};
use rmcp::service::{RequestContext, RoleServer, ServiceExt};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use skillful_core::{ResourceContent, Skill};
use skillful_discovery::{FileSkill, FileSkillsSource};

use crate::index::{ARCHIVE_TYPE, INDEX_URI, IndexEntry, SKILL_MD_TYPE, SkillIndex};

/// The path the HTTP server answers MCP requests on.
pub const HTTP_PATH: &str = "/mcp";

const SCHEME: &str = "skill://";

/// Why serving stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The client's handshake failed.
    #[error("the MCP handshake failed: {0}")]
    Handshake(String),
    /// The connection or the listener failed.
    #[error("serving MCP failed: {0}")]
    Io(#[from] std::io::Error),
    /// The session ended abnormally.
    #[error("the MCP session ended abnormally: {0}")]
    Session(String),
}

/// Serves the skills a [`FileSkillsSource`] finds as MCP resources (SEP-2640, the index form
/// Microsoft Agent Framework reads):
///
/// - `skill://index.json`: every skill with its name, description, URL and `digest`
///   (`sha256:` of the bytes the URL serves): a `skill-md` entry at `skill://NAME/SKILL.md`,
///   or with [`SkillsMcpServer::with_archives`] an `archive` entry at `skill://NAME.tar.gz`;
/// - `skill://NAME/SKILL.md`: the skill's `SKILL.md`, as it is on disk;
/// - `skill://NAME/RESOURCE`: each resource discovery admitted (`references/FAQ.md`), as text,
///   or as a blob when it is not UTF-8;
/// - `skill://NAME.tar.gz` (with archives): a tar.gz of exactly the files discovery admitted
///   (`SKILL.md`, resources, scripts), the same bytes for the same files.
///
/// Nothing else is ever read: every request is answered through the skills' own API, which
/// re-checks that each file is inside its skill and reached without a symbolic link. The
/// directory is walked afresh for each request, so edits show at once.
///
/// # Example
/// ```no_run
/// use skillful_discovery::FileSkillsSource;
/// use skillful_mcp::SkillsMcpServer;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let skills = FileSkillsSource::builder().root("skills").build()?;
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8000").await?;
/// SkillsMcpServer::new(skills).serve_http(listener).await?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct SkillsMcpServer {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    source: FileSkillsSource,
    archives: bool,
}

/// What a `skill://` URI asks for.
enum Target<'a> {
    Index,
    Archive(&'a str),
    File { skill: &'a str, file: &'a str },
}

impl<'a> Target<'a> {
    fn parse(uri: &'a str) -> Option<Self> {
        let rest = uri.strip_prefix(SCHEME)?;
        if rest == "index.json" {
            return Some(Target::Index);
        }
        if let Some(name) = rest.strip_suffix(".tar.gz")
            && !name.contains('/')
        {
            return Some(Target::Archive(name));
        }
        let (skill, file) = rest.split_once('/')?;
        Some(Target::File { skill, file })
    }
}

fn skill_md_uri(name: &str) -> String {
    format!("{SCHEME}{name}/{SKILL_MD}")
}

fn archive_uri(name: &str) -> String {
    format!("{SCHEME}{name}.tar.gz")
}

/// The MIME type served for a file name.
fn mime_type(name: &str) -> &'static str {
    let extension = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match extension.as_deref() {
        Some("md") => "text/markdown",
        Some("json") => "application/json",
        Some("yaml" | "yml") => "application/yaml",
        Some("csv") => "text/csv",
        Some("xml") => "application/xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("pdf") => "application/pdf",
        Some("txt" | "py" | "sh" | "js") => "text/plain",
        _ => "application/octet-stream",
    }
}

fn not_found(uri: &str, why: &str) -> ErrorData {
    ErrorData::resource_not_found(format!("{uri}: {why}"), None)
}

fn internal(uri: &str, error: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(format!("{uri}: {error}"), None)
}

impl SkillsMcpServer {
    /// A server for the skills `source` finds, each as a `skill-md` entry.
    pub fn new(source: FileSkillsSource) -> Self {
        Self {
            inner: Arc::new(Inner {
                source,
                archives: false,
            }),
        }
    }

    /// Lists each skill as an `archive` entry (a tar.gz) instead of a `skill-md` entry; its
    /// files stay readable one by one.
    pub fn with_archives(self, archives: bool) -> Self {
        Self {
            inner: Arc::new(Inner {
                source: self.inner.source.clone(),
                archives,
            }),
        }
    }

    async fn skills(&self) -> Vec<Arc<FileSkill>> {
        self.inner.source.discover().await.skills
    }

    async fn skill(&self, name: &str) -> Option<Arc<FileSkill>> {
        self.skills()
            .await
            .into_iter()
            .find(|skill| skill.frontmatter().name == name)
    }

    /// The index as it is now, with digests of what each URL serves.
    ///
    /// A skill whose `SKILL.md` cannot be read now is left out, with a warning.
    pub async fn index(&self) -> SkillIndex {
        let mut entries = Vec::new();
        for skill in self.skills().await {
            let name = &skill.frontmatter().name;
            let description = &skill.frontmatter().description;
            let entry = if self.inner.archives {
                archive(&skill).await.map(|bytes| {
                    IndexEntry::new(name, ARCHIVE_TYPE, description, archive_uri(name))
                        .with_digest(sha256_digest(&bytes))
                })
            } else {
                skill.read_file(SKILL_MD).await.map(|bytes| {
                    IndexEntry::new(name, SKILL_MD_TYPE, description, skill_md_uri(name))
                        .with_digest(sha256_digest(&bytes))
                })
            };
            match entry {
                Ok(entry) => entries.push(entry),
                Err(error) => tracing::warn!(skill = %name, "skill left out of the index: {error}"),
            }
        }
        SkillIndex::new(entries)
    }

    /// Serves one client over this process's stdin and stdout until it disconnects.
    ///
    /// # Errors
    /// [`ServeError`] when the handshake fails or the session ends abnormally.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        self.serve(rmcp::transport::stdio()).await
    }

    /// Serves one client over any rmcp transport (a duplex pipe in tests, a socket) until it
    /// disconnects.
    ///
    /// # Errors
    /// [`ServeError`] when the handshake fails or the session ends abnormally.
    pub async fn serve<T, E, A>(self, transport: T) -> Result<(), ServeError>
    where
        T: rmcp::transport::IntoTransport<RoleServer, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let running = ServiceExt::<RoleServer>::serve(self, transport)
            .await
            .map_err(|error| ServeError::Handshake(error.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|error| ServeError::Session(error.to_string()))?;
        Ok(())
    }

    /// The streamable HTTP service at [`HTTP_PATH`], as an axum router. It accepts only
    /// loopback `Host` headers (`localhost`, `127.0.0.1`, `::1`), against DNS rebinding.
    pub fn router(self) -> axum::Router {
        let service = StreamableHttpService::new(
            move || Ok(self.clone()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        axum::Router::new().nest_service(HTTP_PATH, service)
    }

    /// Serves streamable HTTP on `listener` (bind it to `127.0.0.1`) until the process ends.
    ///
    /// # Errors
    /// [`ServeError::Io`] when the listener fails.
    pub async fn serve_http(self, listener: tokio::net::TcpListener) -> Result<(), ServeError> {
        axum::serve(listener, self.router()).await?;
        Ok(())
    }

    async fn read(&self, uri: &str) -> Result<ResourceContents, ErrorData> {
        let Some(target) = Target::parse(uri) else {
            return Err(not_found(uri, "not a skill:// resource of this server"));
        };
        match target {
            Target::Index => Ok(ResourceContents::text(self.index().await.to_json(), uri)
                .with_mime_type("application/json")),
            Target::Archive(name) => {
                if !self.inner.archives {
                    return Err(not_found(uri, "this server does not serve archives"));
                }
                let skill = self
                    .skill(name)
                    .await
                    .ok_or_else(|| not_found(uri, "no such skill"))?;
                let bytes = archive(&skill).await.map_err(|e| internal(uri, e))?;
                Ok(blob(bytes, uri, "application/gzip"))
            }
            Target::File { skill, file } => {
                let skill = self
                    .skill(skill)
                    .await
                    .ok_or_else(|| not_found(uri, "no such skill"))?;
                self.read_file(&skill, file, uri).await
            }
        }
    }

    /// `SKILL.md` or one of the skill's resources (by its name, or its name percent-decoded).
    async fn read_file(
        &self,
        skill: &FileSkill,
        file: &str,
        uri: &str,
    ) -> Result<ResourceContents, ErrorData> {
        if file == SKILL_MD {
            let bytes = skill
                .read_file(SKILL_MD)
                .await
                .map_err(|e| internal(uri, e))?;
            return Ok(match String::from_utf8(bytes) {
                Ok(text) => ResourceContents::text(text, uri).with_mime_type("text/markdown"),
                Err(error) => blob(error.into_bytes(), uri, "text/markdown"),
            });
        }
        let decoded = percent_encoding::percent_decode_str(file).decode_utf8_lossy();
        let resource = skill
            .resource(file)
            .or_else(|| skill.resource(&decoded))
            .ok_or_else(|| not_found(uri, "the skill has no such resource"))?;
        let mime = mime_type(resource.name());
        match resource.read().await.map_err(|e| internal(uri, e))? {
            ResourceContent::Text(text) => {
                Ok(ResourceContents::text(text, uri).with_mime_type(mime))
            }
            ResourceContent::Binary { bytes, .. } => Ok(blob(bytes, uri, mime)),
        }
    }
}

fn blob(bytes: Vec<u8>, uri: &str, mime: &str) -> ResourceContents {
    ResourceContents::blob(base64::engine::general_purpose::STANDARD.encode(bytes), uri)
        .with_mime_type(mime)
}

/// The tar.gz of every file discovery admitted for `skill`.
async fn archive(skill: &FileSkill) -> Result<Vec<u8>, skillful_core::SkillError> {
    let mut files = Vec::new();
    for name in skill.file_names() {
        files.push((name.to_owned(), skill.read_file(name).await?));
    }
    tokio::task::spawn_blocking(move || tar_gz(&files))
        .await
        .map_err(|error| skillful_core::SkillError::Other(error.to_string()))?
        .map_err(|error| {
            skillful_core::SkillError::Other(format!("cannot build the archive: {error}"))
        })
}

/// A gzip-compressed tar of `files` (`/`-separated relative names and their bytes), the same
/// bytes for the same files: no timestamps, owners or modes of the machine that built it.
fn tar_gz(files: &[(String, Vec<u8>)]) -> std::io::Result<Vec<u8>> {
    let encoder = flate2::GzBuilder::new().write(Vec::new(), flate2::Compression::default());
    let mut builder = tar::Builder::new(encoder);
    builder.mode(tar::HeaderMode::Deterministic);
    for (name, bytes) in files {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Regular);
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(0);
        builder.append_data(&mut header, name, bytes.as_slice())?;
    }
    builder.into_inner()?.finish()
}

impl ServerHandler for SkillsMcpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_resources().build())
            .with_server_info(Implementation::new("skillful", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "Agent Skills as resources: read {INDEX_URI} for the skills, then skill://NAME/SKILL.md and the resources it names."
            ))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let mut resources =
            vec![Resource::new(INDEX_URI, "index.json").with_mime_type("application/json")];
        for skill in self.skills().await {
            let name = &skill.frontmatter().name;
            resources.push(
                Resource::new(skill_md_uri(name), format!("{name}/{SKILL_MD}"))
                    .with_description(skill.frontmatter().description.clone())
                    .with_mime_type("text/markdown"),
            );
            for resource in skill.resources() {
                let file = resource.name();
                resources.push(
                    Resource::new(format!("{SCHEME}{name}/{file}"), format!("{name}/{file}"))
                        .with_mime_type(mime_type(file)),
                );
            }
            if self.inner.archives {
                resources.push(
                    Resource::new(archive_uri(name), format!("{name}.tar.gz"))
                        .with_mime_type("application/gzip"),
                );
            }
        }
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let contents = self.read(&request.uri).await?;
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

#[cfg(all(test, feature = "client"))]
mod tests {
    use std::fs;

    use super::*;
    use crate::archive::{ArchiveFormat, ArchiveLimits, extract};

    #[test]
    fn tar_gz_round_trips_and_is_deterministic() {
        let files = vec![
            ("SKILL.md".to_owned(), b"---\nname: a\n---\n".to_vec()),
            ("references/r.md".to_owned(), b"r".to_vec()),
        ];
        let bytes = tar_gz(&files).unwrap();
        assert_eq!(bytes, tar_gz(&files).unwrap());
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a");
        let count = extract(
            &bytes,
            ArchiveFormat::TarGz,
            &target,
            &ArchiveLimits::default(),
        )
        .unwrap();
        assert_eq!(count, 2);
        assert_eq!(fs::read(target.join("references/r.md")).unwrap(), b"r");
    }
}
