//! Servers, clients and skill trees for the tests: all in process, HTTP only on 127.0.0.1.
#![allow(dead_code, unreachable_pub)]

use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

use base64::Engine;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CacheScope, ErrorData, GetSkillRequestParams, GetSkillResult, ListResourcesResult,
    ListSkillsResult, PaginatedRequestParams, ProtocolVersion, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, ResourceContents, ServerCapabilities, ServerConfig,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, RequestContext, RoleClient, RoleServer, RunningService,
    ServiceExt,
};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{IntoTransport, StreamableHttpServerConfig, StreamableHttpService};
use skillful_mcp::final_form::{self, CacheHint, SkillEntry, SkillsPage};

/// The URIs a server was asked to read, in order.
pub type ReadLog = Arc<Mutex<Vec<String>>>;

/// Wraps a server and records every `resources/read`.
#[derive(Debug, Clone)]
pub struct Recording<S> {
    pub inner: S,
    pub reads: ReadLog,
}

impl<S> Recording<S> {
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            reads: Arc::default(),
        }
    }

    pub fn reads(&self) -> Vec<String> {
        self.reads.lock().unwrap().clone()
    }
}

impl<S: ServerHandler> ServerHandler for Recording<S> {
    fn get_info(&self) -> ServerConfig {
        self.inner.get_info()
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.inner.list_resources(request, context).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.reads.lock().unwrap().push(request.uri.clone());
        self.inner.read_resource(request, context).await
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        self.inner.list_skills(request, context).await
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        self.inner.get_skill(request, context).await
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        self.inner.read_resource_directory(request, context).await
    }
}

/// A server of the draft form only, as Microsoft Agent Framework's servers are: `inner`
/// without the Skills extension in its capabilities.
#[derive(Debug, Clone)]
pub struct DraftOnly<S>(pub S);

impl<S: ServerHandler> ServerHandler for DraftOnly<S> {
    fn get_info(&self) -> ServerConfig {
        let mut info = self.0.get_info();
        info.capabilities.extensions = None;
        info
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.0.list_resources(request, context).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.0.read_resource(request, context).await
    }
}

/// A server that serves exactly the resources it is given (which the test may change).
#[derive(Debug, Clone, Default)]
pub struct Fixture {
    pub resources: Arc<Mutex<HashMap<String, ResourceContents>>>,
}

impl Fixture {
    pub fn text(&self, uri: &str, text: &str) {
        self.resources
            .lock()
            .unwrap()
            .insert(uri.into(), ResourceContents::text(text, uri));
    }

    pub fn blob(&self, uri: &str, bytes: &[u8], mime: Option<&str>) {
        let mut blob =
            ResourceContents::blob(base64::engine::general_purpose::STANDARD.encode(bytes), uri);
        if let Some(mime) = mime {
            blob = blob.with_mime_type(mime);
        }
        self.resources.lock().unwrap().insert(uri.into(), blob);
    }

    pub fn remove(&self, uri: &str) {
        self.resources.lock().unwrap().remove(uri);
    }
}

impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_resources().build())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let found = self.resources.lock().unwrap().get(&request.uri).cloned();
        match found {
            Some(contents) => Ok(ReadResourceResult::new(vec![contents]).into()),
            None => Err(ErrorData::resource_not_found(request.uri, None)),
        }
    }
}

/// A client connected to `server` over an in-memory pipe (what stdio carries, without a
/// process).
pub async fn piped<S: ServerHandler>(server: S) -> RunningService<RoleClient, ()> {
    let (server_end, client_end) = tokio::io::duplex(4 * 1024 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_end)
        .await
        .expect("the MCP handshake succeeds")
}

/// Serves `server` over streamable HTTP on 127.0.0.1 (a free port); returns its URL.
pub async fn http<S: ServerHandler + Clone + Send + Sync + 'static>(server: S) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}

/// Writes `files` (relative path, content) below `root`.
pub fn write_tree(root: &Path, files: &[(&str, &[u8])]) {
    for (name, content) in files {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
}

/// A `SKILL.md` for `name`.
pub fn skill_md(name: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: The {name} skill.\n---\n{body}\n")
}

/// Every path below `root`, relative, `/`-separated, directories ending in `/`.
pub fn tree(root: &Path) -> BTreeSet<String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if entry.file_type().unwrap().is_dir() {
                out.insert(format!("{relative}/"));
                walk(root, &path, out);
            } else {
                out.insert(relative);
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(root, root, &mut out);
    out
}

/// A zip of `files` (deflated).
pub fn zip(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, content) in files {
        writer.start_file(*name, options).unwrap();
        writer.write_all(content).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

/// One entry of a hand-made tar: any name, any type.
pub struct TarEntry<'a> {
    pub name: &'a str,
    pub kind: tar::EntryType,
    pub content: &'a [u8],
    pub link: &'a str,
}

impl<'a> TarEntry<'a> {
    pub fn file(name: &'a str, content: &'a [u8]) -> Self {
        Self {
            name,
            kind: tar::EntryType::Regular,
            content,
            link: "",
        }
    }
}

/// A tar.gz of `entries`, names written raw (no checks), as a hostile archive would be.
pub fn tar_gz(entries: &[TarEntry<'_>]) -> Vec<u8> {
    let encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut builder = tar::Builder::new(encoder);
    for entry in entries {
        let mut header = tar::Header::new_old();
        let old = header.as_old_mut();
        old.name[..entry.name.len()].copy_from_slice(entry.name.as_bytes());
        old.linkname[..entry.link.len()].copy_from_slice(entry.link.as_bytes());
        header.set_entry_type(entry.kind);
        header.set_mode(0o644);
        header.set_size(entry.content.len() as u64);
        header.set_cksum();
        builder.append(&header, entry.content).unwrap();
    }
    builder.into_inner().unwrap().finish().unwrap()
}

/// The protocol era a client opens its session in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Era {
    /// An `initialize` session (2025-11-25).
    Legacy,
    /// The stateless 2026-07-28 revision, opened with `server/discover`.
    Modern,
}

/// A client over `transport`, its session opened in `era`.
pub async fn client_in<T, E, A>(transport: T, era: Era) -> RunningService<RoleClient, ()>
where
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    match era {
        Era::Legacy => ().serve(transport).await.unwrap(),
        Era::Modern => ()
            .serve_with_lifecycle(
                transport,
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            )
            .await
            .unwrap(),
    }
}

/// Why running `script` with `arguments` was refused as not runnable.
///
/// # Panics
/// When it ran, or failed for another reason.
pub async fn refusal(
    script: &dyn skillful_core::SkillScript,
    arguments: serde_json::Value,
) -> String {
    match script.run(arguments).await {
        Err(skillful_core::SkillError::NotRunnable { reason, .. }) => reason,
        other => panic!("not refused as not runnable: {other:?}"),
    }
}

/// Whether `python3` with PyYAML can run the Python peers (`tests/python`); prints why not when
/// it cannot.
pub fn python_ready() -> bool {
    skillful_test_support::python_imports("yaml", "pip install pyyaml")
}

/// The skills the tests serve from the Python peers, five: two named `refunds` at different
/// paths (the billing one's `SKILL.md` is `billing_refunds`, with a supporting file), a skill with
/// templates, a binary file and a nested skill; `more` files besides.
pub fn python_skills(billing_refunds: &[u8], more: &[(&str, &[u8])]) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let files: &[(&str, &[u8])] = &[
        (
            "git-workflow/SKILL.md",
            b"---\nname: git-workflow\ndescription: Follow the team's Git conventions.\n---\nBranch from main.\n",
        ),
        ("acme/billing/refunds/SKILL.md", billing_refunds),
        ("acme/billing/refunds/examples/email.md", b"Dear customer,\n"),
        (
            "acme/support/refunds/SKILL.md",
            b"---\nname: refunds\ndescription: Refunds as support handles them.\n---\nAsk support.\n",
        ),
        (
            "pdf-processing/SKILL.md",
            b"---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents.\n---\nPick a template in templates/.\n",
        ),
        ("pdf-processing/templates/invoice.md", b"Invoice\n"),
        ("pdf-processing/templates/logo.bin", &[0, 1, 0xfa, 0xfb, 0xff]),
        (
            "pdf-processing/forms/fill-form/SKILL.md",
            b"---\nname: fill-form\ndescription: Fill a PDF form.\n---\nA nested skill.\n",
        ),
    ];
    write_tree(root.path(), files);
    write_tree(root.path(), more);
    root
}

/// The URIs of `skills`, in order.
pub fn uris(skills: &[SkillEntry]) -> Vec<&str> {
    skills.iter().map(|skill| skill.uri.as_str()).collect()
}

/// Every page of the `skills/list` of `client` (served as `label`), read one after the other,
/// each of two entries at most and with the caching hints of `era`: `ttl_ms` and a public scope
/// in the 2026 era, none before it.
pub async fn pages_of_two(
    client: &RunningService<RoleClient, ()>,
    label: &str,
    era: Era,
    ttl_ms: u64,
) -> Vec<SkillsPage> {
    let mut pages = Vec::new();
    let mut cursor = None;
    loop {
        let page = final_form::list_skills(client.peer(), label, cursor)
            .await
            .unwrap();
        assert!(page.skills.len() <= 2);
        if era == Era::Modern {
            assert_eq!(page.cache.ttl_ms, Some(ttl_ms));
            assert_eq!(page.cache.cache_scope, Some(CacheScope::Public));
        } else {
            assert_eq!(page.cache, CacheHint::default());
        }
        cursor = page.next_cursor.clone();
        pages.push(page);
        if cursor.is_none() {
            return pages;
        }
    }
}

/// Reads the resource `name` of `skill`, which must list it.
pub async fn read(
    skill: &Arc<dyn skillful_core::Skill>,
    name: &str,
) -> Result<skillful_core::ResourceContent, skillful_core::SkillError> {
    skill.resource(name).unwrap().read().await
}
