//! [`SkillsMcpServer`]: a skills directory served over MCP, in the Skills extension's final form
//! (`skills/list`, `skills/get`, `resources/directory/read`) and in the draft form
//! (`skill://index.json`, archives) side by side.

mod audit;
mod auth;
mod catalog;
mod draft;
mod error;
mod http;
mod spans;
mod target;

pub use self::error::ServeError;
pub use self::http::HttpLimits;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::num::{NonZeroU32, NonZeroUsize};
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CacheScope, DIRECTORY_MIME_TYPE, ErrorData, GetSkillRequestParams, GetSkillResult,
    Implementation, ListResourcesResult, ListSkillsResult, PaginatedRequestParams, ProtocolVersion,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, SKILL_MD,
    ServerCapabilities, ServerConfig, SubscriptionFilter,
};
use rmcp::service::{
    NotificationContext, Peer, RequestContext, RoleServer, ServiceExt, SubscriptionContext,
};
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use skillful_audit::AuditSettings;
use skillful_core::Skill as _;
use skillful_discovery::FileSkillsSource;
use skillful_watch::{Reload, WatchedSource};
use tokio::sync::watch;

use self::audit::{Answer, Audit};
use self::catalog::{Catalog, SCHEME, Served, Skills, Snapshot, file_uri};
use self::draft::{archive, archive_uri};
use self::target::Target;
use crate::BearerToken;
use crate::final_form::{CursorKey, Page, page_after};
use crate::index::{ARCHIVE_TYPE, INDEX_URI, IndexEntry, SKILL_MD_TYPE, SkillIndex};
use crate::mime::mime_type;

/// The path the HTTP server answers MCP requests on.
pub const HTTP_PATH: &str = "/mcp";

/// How many requests naming a skill one client is answered a minute while the server audits:
/// ten a second on average, far above what a model reading skills asks for, and a bound on how
/// fast one client can grow (and rotate) the log.
pub const DEFAULT_AUDITED_PER_MINUTE: NonZeroU32 = NonZeroU32::new(600).expect("600 is not zero");

/// How many entries a page of `skills/list` or `resources/directory/read` holds by default.
pub const DEFAULT_PAGE_SIZE: NonZeroUsize = NonZeroUsize::new(50).expect("50 is not zero");

/// How long the server answers from one discovery of its roots by default before it walks them
/// again (file contents are checked on every listing regardless; see
/// [`SkillsMcpServer::with_rescan_interval`]).
pub const DEFAULT_RESCAN_INTERVAL: Duration = Duration::from_secs(1);

/// How often the task announcing reloads to an `initialize` session checks that its client
/// is still connected (it also stops at the first reload after the client left).
const CLIENT_GONE_CHECK: Duration = Duration::from_secs(30);

/// The `Origin`s a server without a bearer token answers: pages served from this machine.
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// Serves the skills a [`FileSkillsSource`] finds over MCP, in both forms of the Skills
/// extension and both protocol eras (an `initialize` session, 2025-11-25, and the stateless
/// 2026-07-28 revision with `server/discover`).
///
/// **The final form** (`io.modelcontextprotocol/skills`, declared with `directoryRead`):
///
/// - `skills/list`: every skill whose entry meets the final form's rules, in URI order, in
///   pages of [`DEFAULT_PAGE_SIZE`] (the cursor is the last URI of the previous page, signed). An entry
///   is `uri` (`skill://NAME/SKILL.md`), `frontmatter` (the `SKILL.md` frontmatter as written,
///   every key with the type YAML gives it) and `resources`: the manifest of every file the
///   server answers for (`SKILL.md`, resources and scripts), each with the `sha256:` digest and
///   size of exactly the bytes `resources/read` returns. A skill whose name breaks the naming
///   rules (loaded leniently) or that is over the limits is left out of it;
/// - `skills/get`: the entry of a listed skill, its files checked again now; anything else
///   (an unknown URI, a skill's root, a supporting file, a nested `SKILL.md`) is `-32602`;
/// - `resources/directory/read`: the direct children of a listed skill's root or of one of its
///   directories; a file or an unknown URI is `-32602`;
/// - results of 2026-07-28 requests carry `ttlMs` (the rescan interval) and `cacheScope`
///   `public` (the files are the same for everyone).
///
/// **The draft form** (what Microsoft Agent Framework reads):
///
/// - `skill://index.json`: every skill with its name, description, URL and `digest`: a
///   `skill-md` entry at `skill://NAME/SKILL.md`, or with [`SkillsMcpServer::with_archives`] an
///   `archive` entry at `skill://NAME.tar.gz` (a tar.gz of exactly the files discovery
///   admitted, the same bytes for the same files).
///
/// Files are read as they are on disk, text when they are UTF-8 and a blob otherwise, at
/// `skill://NAME/FILE` (each segment percent-encoded; the unencoded name is accepted too).
/// Nothing else is ever read: every file is read through the skill's own API, which re-checks
/// that it lies inside its skill and is reached without a symbolic link. An unknown resource is
/// `-32602`.
///
/// The roots are walked again at most once per rescan interval
/// ([`DEFAULT_RESCAN_INTERVAL`]); or, served from a [`WatchedSource`]
/// ([`SkillsMcpServer::watched`]), only after the watcher reported a change, and then every
/// connected client is sent `notifications/resources/list_changed` (the Skills extension
/// defines no list-changed notification of its own; its listing is `resources` too). Each file's
/// digest is computed once per version of the file (device, inode, size, modification and
/// change time) and kept. Cursors are signed ([`CursorKey`]): one this server did not issue is
/// `-32602`.
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
    catalog: Arc<Catalog>,
    settings: Settings,
    /// How many audited requests each client made in the current minute.
    quota: audit::Quota,
}

/// How the server answers, apart from where its skills come from.
#[derive(Debug, Clone)]
struct Settings {
    archives: bool,
    page_size: NonZeroUsize,
    token: Option<BearerToken>,
    http: HttpLimits,
    /// What its listing cursors are signed with.
    cursors: CursorKey,
    /// Where its skill calls are recorded, if anywhere.
    audit: Option<AuditSettings>,
    /// How many requests naming a skill one client (an HTTP session, or the stdio peer) may
    /// make a minute while they are recorded.
    audit_per_minute: NonZeroU32,
}

/// An unknown resource, skill or directory: `-32602`, as the final form and the 2026-07-28
/// revision answer it (2025-11-25 clients accept it too).
fn not_served(uri: &str, why: &str) -> ErrorData {
    ErrorData::invalid_params(format!("{uri}: {why}"), None)
}

fn internal(uri: &str, error: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(format!("{uri}: {error}"), None)
}

/// A result that carries caching hints (`ttlMs`, `cacheScope`) for the clients that read them:
/// rmcp gives each such result its own builder methods, with no trait in common.
trait Cacheable {
    fn with_hint(self, ttl: u64, scope: CacheScope) -> Self;
}

/// Each result sets its hints by the same two builder methods, so one body serves them all.
macro_rules! cacheable {
    ($($result:ty),*) => {$(
        impl Cacheable for $result {
            fn with_hint(self, ttl: u64, scope: CacheScope) -> Self {
                self.with_ttl_ms(ttl).with_cache_scope(scope)
            }
        }
    )*};
}

cacheable!(
    ListResourcesResult,
    ReadResourceResult,
    ListSkillsResult,
    GetSkillResult
);

/// Whether the request is of the 2026-07-28 revision or later, whose cacheable results carry
/// `ttlMs` and `cacheScope`.
fn is_modern(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

impl SkillsMcpServer {
    /// A server for the skills `source` finds, each as a `skill-md` entry of the index.
    pub fn new(source: FileSkillsSource) -> Self {
        Self::with(Skills::Rescanned(source), DEFAULT_RESCAN_INTERVAL)
    }

    /// A server for the skills of a watched source: the roots are not walked for requests;
    /// a request made after the watcher reported a change waits for that reload, and each
    /// reload that changed the skills is announced to every connected client with
    /// `notifications/resources/list_changed` (to `initialize` sessions, and to 2026-07-28
    /// clients listening with `subscriptions/listen`).
    pub fn watched(source: Arc<WatchedSource>) -> Self {
        Self::with(Skills::Watched(source), DEFAULT_RESCAN_INTERVAL)
    }

    fn with(skills: Skills, rescan: Duration) -> Self {
        Self {
            inner: Arc::new(Inner {
                catalog: Arc::new(Catalog::new(skills, rescan)),
                settings: Settings {
                    archives: false,
                    page_size: DEFAULT_PAGE_SIZE,
                    token: None,
                    http: HttpLimits::default(),
                    cursors: CursorKey::random(),
                    audit: None,
                    audit_per_minute: DEFAULT_AUDITED_PER_MINUTE,
                },
                quota: audit::Quota::default(),
            }),
        }
    }

    /// The same server with `change` made to its settings.
    fn configured(self, change: impl FnOnce(&mut Settings)) -> Self {
        let mut settings = self.inner.settings.clone();
        change(&mut settings);
        Self {
            inner: Arc::new(Inner {
                catalog: Arc::clone(&self.inner.catalog),
                settings,
                quota: audit::Quota::default(),
            }),
        }
    }

    /// Lists each skill of the draft index as an `archive` entry (a tar.gz) instead of a
    /// `skill-md` entry; its files stay readable one by one, and the final form is unchanged.
    pub fn with_archives(self, archives: bool) -> Self {
        self.configured(|settings| settings.archives = archives)
    }

    /// Records every request that names a skill (`resources/read` of one of its files or its
    /// archive, `skills/get`, answered or failed) as one `tool_call` record of `settings`' sink,
    /// written before the answer goes back: the method as `tool`, the request's id as
    /// `call_id`, the HTTP session (`Mcp-Session-Id`) as `session`, the actor `client`, the
    /// skill with its `SKILL.md` digest, the file read as `resource`, the URI as the arguments
    /// (left out when `settings` redact), the duration and the digest of what was sent. A
    /// record that cannot be written is a warning; the request is answered regardless.
    ///
    /// What one client may append is bounded: each text it chooses is cut to
    /// [`skillful_audit::MAX_FIELD_CHARS`], and it is answered (and recorded) at most
    /// [`with_audit_quota`](Self::with_audit_quota) requests naming a skill a minute; past that
    /// a request is refused unanswered (`too many skill requests`) and not recorded.
    pub fn with_audit(self, settings: AuditSettings) -> Self {
        self.configured(|server| server.audit = Some(settings))
    }

    /// How many requests naming a skill one client (an HTTP session, or the peer of a stdio
    /// or in-process server) is answered a minute while the server audits (default
    /// [`DEFAULT_AUDITED_PER_MINUTE`]).
    pub fn with_audit_quota(self, per_minute: NonZeroU32) -> Self {
        self.configured(|settings| settings.audit_per_minute = per_minute)
    }

    /// How many entries a page of `skills/list` and `resources/directory/read` holds (default
    /// [`DEFAULT_PAGE_SIZE`]).
    pub fn with_page_size(self, page_size: NonZeroUsize) -> Self {
        self.configured(|settings| settings.page_size = page_size)
    }

    /// How long one discovery of the roots (and the listing built from it) is answered from
    /// (default [`DEFAULT_RESCAN_INTERVAL`]): a skill added, removed or edited shows in
    /// `skills/list` within it. `skills/get` checks the skill's files again when asked (that is
    /// how a client refreshes one skill), and `resources/read` always reads the file as it is.
    /// `Duration::ZERO` walks the roots for every request. A [watched](Self::watched) server
    /// is never rescanned: the interval is only the results' `ttlMs` hint.
    pub fn with_rescan_interval(self, interval: Duration) -> Self {
        Self {
            inner: Arc::new(Inner {
                catalog: Arc::new(Catalog::new(self.inner.catalog.skills().clone(), interval)),
                settings: self.inner.settings.clone(),
                quota: audit::Quota::default(),
            }),
        }
    }

    /// Requires every HTTP request to carry `Authorization: Bearer <token>` (compared in
    /// constant time); any other request is answered 401 with `WWW-Authenticate: Bearer`. This
    /// is what lets [`SkillsMcpServer::serve_http`] serve an address other hosts can reach, and
    /// it then accepts any `Host` header (the token, not the host name, keeps other web pages
    /// out). It is required on loopback too once given. No effect on stdio.
    pub fn with_bearer_token(self, token: BearerToken) -> Self {
        self.configured(|settings| settings.token = Some(token))
    }

    /// The bounds of HTTP serving (default [`HttpLimits::default`]): connections at once,
    /// sessions at once in all and per peer, how long a session may stay idle, and the
    /// header-read timeout (also the idle keep-alive of a connection).
    pub fn with_http_limits(self, limits: HttpLimits) -> Self {
        self.configured(|settings| settings.http = limits)
    }

    /// Whether [`SkillsMcpServer::serve_http`] would serve a listener bound to `addr`: a
    /// loopback address always, any other only with a bearer token
    /// ([`SkillsMcpServer::with_bearer_token`]). Check before binding to fail early.
    ///
    /// # Errors
    /// [`ServeError::TokenRequired`] for an address other hosts can reach, without a token.
    pub fn check_http_address(&self, addr: SocketAddr) -> Result<(), ServeError> {
        auth::check_exposure(addr, self.inner.settings.token.as_ref())
    }

    async fn snapshot(&self) -> Arc<Snapshot> {
        self.inner.catalog.snapshot().await
    }

    /// Answers a request for `uri` by `method` with what `answer` gives, audited (see
    /// [`Audit::audited`]).
    async fn audited<T>(
        &self,
        call: (&'static str, &str),
        context: &RequestContext<RoleServer>,
        answer: impl Future<Output = Result<T, ErrorData>>,
        sent: impl for<'t> FnOnce(&'t T) -> Answer<'t>,
    ) -> Result<T, ErrorData> {
        let audit = Audit {
            settings: self.inner.settings.audit.as_ref(),
            per_minute: self.inner.settings.audit_per_minute,
            quota: &self.inner.quota,
        };
        let skill = async |name: &str, file: Option<&str>| self.audited_skill(name, file).await;
        audit.audited(call, context, answer, sent, skill).await
    }

    /// The audit record's reference to the skill `name` and the path of its `file`, as served
    /// now.
    async fn audited_skill(
        &self,
        name: &str,
        file: Option<&str>,
    ) -> Option<(skillful_audit::SkillRef, Option<String>)> {
        // The snapshot the request was just answered from (or a newer one): waiting for another
        // reload would double the request's time under churn.
        let snapshot = match self.inner.catalog.current() {
            Some(current) => current,
            None => self.snapshot().await,
        };
        let served = snapshot.skill(name)?;
        let origin = served.skill.origin();
        let digest = self
            .inner
            .catalog
            .skill_md_digest(&served.skill)
            .await
            .ok()
            .map(|digest| digest.trim_start_matches("sha256:").to_owned());
        let skill = skillful_audit::SkillRef {
            name: served.name().to_owned(),
            origin: origin.kind.to_string(),
            scope: origin.scope.to_string(),
            location: origin.location.clone(),
            digest,
        };
        let resource = file.and_then(|file| served.file(file)).map(str::to_owned);
        Some((skill, resource))
    }

    /// The draft index as it is now, with digests of what each URL serves.
    ///
    /// A skill whose `SKILL.md` (or archive) cannot be read now is left out, with a warning.
    pub async fn index(&self) -> SkillIndex {
        let snapshot = self.snapshot().await;
        let mut entries = Vec::new();
        for served in &snapshot.skills {
            let skill = &served.skill;
            let name = served.name();
            let description = skill.description();
            let entry = if self.inner.settings.archives {
                archive(skill).await.map(|bytes| {
                    IndexEntry::new(name, ARCHIVE_TYPE, description, archive_uri(name))
                        .with_digest(crate::final_form::sha256_digest(&bytes))
                })
            } else {
                self.inner
                    .catalog
                    .skill_md_digest(skill)
                    .await
                    .map(|digest| {
                        IndexEntry::new(name, SKILL_MD_TYPE, description, served.uri.clone())
                            .with_digest(digest)
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
    /// disconnects. The client may open an `initialize` session or speak the stateless
    /// 2026-07-28 revision.
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

    /// The streamable HTTP service at [`HTTP_PATH`], as an axum router. Without a bearer token
    /// it accepts only loopback `Host` headers (`localhost`, `127.0.0.1`, `::1`), against DNS
    /// rebinding, and only requests without an `Origin` or with a loopback one (`http://` or
    /// `https://` `localhost`, `127.0.0.1`, `[::1]`, any port; others are answered 403), so
    /// other web pages cannot use it; with a token ([`SkillsMcpServer::with_bearer_token`]) it
    /// answers only requests that carry it, whatever their `Host` and `Origin`. `initialize`
    /// sessions (2025-11-25 and older) are kept per client, at most
    /// [`HttpLimits::max_sessions`]; 2026-07-28 requests are answered statelessly, with a
    /// JSON body. The limits per peer and on connections need [`SkillsMcpServer::serve_http`].
    pub fn router(self) -> axum::Router {
        let token = self.inner.settings.token.clone();
        let config = StreamableHttpServerConfig::default().with_json_response(true);
        let config = match token {
            Some(_) => config.disable_allowed_hosts(),
            None => config.with_allowed_origins(LOOPBACK_ORIGINS),
        };
        let sessions = http::BoundedSessions::new(&self.inner.settings.http);
        let service =
            StreamableHttpService::new(move || Ok(self.clone()), Arc::new(sessions), config);
        let router = axum::Router::new().nest_service(HTTP_PATH, service);
        match token {
            Some(token) => router.layer(axum::middleware::from_fn_with_state(
                token,
                auth::require_token,
            )),
            None => router,
        }
    }

    /// Serves streamable HTTP ([`SkillsMcpServer::router`]) on `listener` until the process
    /// ends, under the server's [`HttpLimits`]: a connection over the limit is answered 503, a
    /// session over the limit (in all or for its peer's address) too, and a connection that
    /// takes longer than the header-read timeout to send its headers, or stays idle that long
    /// between requests, is closed. A listener on a loopback address is served as it is; one
    /// other hosts can reach only with a bearer token ([`SkillsMcpServer::with_bearer_token`]).
    ///
    /// # Errors
    /// [`ServeError::TokenRequired`] (before anything is served) for a listener other hosts can
    /// reach, without a token; [`ServeError::Io`] when its address cannot be read.
    pub async fn serve_http(self, listener: tokio::net::TcpListener) -> Result<(), ServeError> {
        self.check_http_address(listener.local_addr()?)?;
        let limits = self.inner.settings.http;
        http::serve(listener, self.router(), limits).await;
        Ok(())
    }

    /// The announcements of reloads, when the skills are watched.
    fn reloads(&self) -> Option<watch::Receiver<Reload>> {
        match self.inner.catalog.skills() {
            Skills::Watched(watched) => Some(watched.reloads()),
            Skills::Rescanned(_) => None,
        }
    }

    /// The page of `items` (each named by `key`, in its order) after `cursor`, in pages of the
    /// configured size; a cursor this server did not issue is invalid params.
    fn page<'a, T>(
        &self,
        items: &'a [T],
        key: impl Fn(&T) -> &str,
        cursor: Option<&str>,
    ) -> Result<Page<'a, T>, ErrorData> {
        page_after(
            items,
            key,
            cursor,
            self.inner.settings.page_size,
            &self.inner.settings.cursors,
        )
        .map_err(|error| ErrorData::invalid_params(error.to_string(), None))
    }

    /// `result` with the caching hints (the rescan interval, for everyone) when the request is of
    /// a revision that reads them; older clients get it as it is.
    fn hinted<R: Cacheable>(&self, context: &RequestContext<RoleServer>, result: R) -> R {
        if !is_modern(context) {
            return result;
        }
        let ttl = u64::try_from(self.inner.catalog.rescan().as_millis()).unwrap_or(u64::MAX);
        result.with_hint(ttl, CacheScope::Public)
    }

    async fn read(&self, uri: &str) -> Result<ResourceContents, ErrorData> {
        let Some(target) = Target::parse(uri) else {
            return Err(not_served(uri, "not a skill:// resource of this server"));
        };
        match target {
            Target::Index => Ok(ResourceContents::text(self.index().await.to_json(), uri)
                .with_mime_type("application/json")),
            Target::Archive(name) => {
                if !self.inner.settings.archives {
                    return Err(not_served(uri, "this server does not serve archives"));
                }
                let snapshot = self.snapshot().await;
                let served = snapshot
                    .skill(name)
                    .ok_or_else(|| not_served(uri, "no such skill"))?;
                let bytes = archive(&served.skill).await.map_err(|e| internal(uri, e))?;
                Ok(blob(bytes, uri, "application/gzip"))
            }
            Target::File { skill, file } => {
                let snapshot = self.snapshot().await;
                let served = snapshot
                    .skill(skill)
                    .ok_or_else(|| not_served(uri, "no such skill"))?;
                let name = served
                    .file(file)
                    .ok_or_else(|| not_served(uri, "the skill has no such resource"))?;
                let bytes = served
                    .skill
                    .read_file(name)
                    .await
                    .map_err(|e| internal(uri, e))?;
                let mime = mime_type(name);
                // The bytes as they are: what the manifest's digest covers.
                Ok(match String::from_utf8(bytes) {
                    Ok(text) => ResourceContents::text(text, uri).with_mime_type(mime),
                    Err(error) => blob(error.into_bytes(), uri, mime),
                })
            }
        }
    }

    /// The final-form entry of the listed skill whose `SKILL.md` is at `uri`, its files checked
    /// again now: `skills/get` is how a client refreshes one skill's digests.
    async fn skill_entry(&self, uri: &str) -> Result<rmcp::model::Skill, ErrorData> {
        let snapshot = self.snapshot().await;
        let served = snapshot.listed_skill(uri).ok_or_else(|| {
            ErrorData::invalid_params(format!("No skill is served at {uri}"), None)
        })?;
        let listed = self
            .inner
            .catalog
            .listed(&served.skill, &served.uri, &served.names)
            .await
            .map_err(|reason| internal(uri, reason))?;
        Ok(listed.entry)
    }

    /// The direct children of the directory at `uri` of a listed skill (its root
    /// `skill://NAME`, or a directory below it), sorted by URI.
    fn directory(snapshot: &Snapshot, uri: &str) -> Result<Vec<Resource>, ErrorData> {
        let unknown = || not_served(uri, "no directory of a listed skill is served there");
        let rest = uri.strip_prefix(SCHEME).ok_or_else(unknown)?;
        let (skill, dir) = rest.split_once('/').unwrap_or((rest, ""));
        let served = snapshot.skill(skill).ok_or_else(unknown)?;
        let listed = served.entry.as_ref().map_err(|_| unknown())?;
        let dir = percent_encoding::percent_decode_str(dir.trim_end_matches('/'))
            .decode_utf8_lossy()
            .into_owned();
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        let mut children = BTreeMap::new();
        for file in &listed.files {
            let Some(below) = file.name.strip_prefix(&prefix) else {
                continue;
            };
            let child = match below.split_once('/') {
                None => Resource::new(file.uri.clone(), below)
                    .with_mime_type(mime_type(below))
                    .with_size(file.size),
                Some((subdirectory, _)) => Resource::new(
                    file_uri(served.name(), &format!("{prefix}{subdirectory}")),
                    subdirectory,
                )
                .with_mime_type(DIRECTORY_MIME_TYPE),
            };
            children.entry(child.uri.clone()).or_insert(child);
        }
        if children.is_empty() && !dir.is_empty() {
            return Err(if served.file(&dir).is_some() {
                not_served(uri, "it is a file, not a directory resource")
            } else {
                unknown()
            });
        }
        Ok(children.into_values().collect())
    }

    /// The resources of one skill for `resources/list`: its `SKILL.md` with the skill's name
    /// and description, then every other file it serves.
    fn resources_of(served: &Served, archives: bool) -> Vec<Resource> {
        let name = served.name();
        let sizes: Option<BTreeMap<&str, u64>> = served.entry.as_ref().ok().map(|listed| {
            listed
                .files
                .iter()
                .map(|file| (file.name.as_str(), file.size))
                .collect()
        });
        let size = |file: &str| sizes.as_ref().and_then(|sizes| sizes.get(file).copied());
        let mut resources = Vec::with_capacity(served.names.len() + 1);
        for file in served.served_names() {
            let resource = if file == SKILL_MD {
                Resource::new(served.uri.clone(), name)
                    .with_description(served.skill.description().to_owned())
                    .with_mime_type("text/markdown")
            } else {
                Resource::new(file_uri(name, file), format!("{name}/{file}"))
                    .with_mime_type(mime_type(file))
            };
            resources.push(match size(file) {
                Some(size) => resource.with_size(size),
                None => resource,
            });
        }
        if archives {
            resources.push(
                Resource::new(archive_uri(name), format!("{name}.tar.gz"))
                    .with_mime_type("application/gzip"),
            );
        }
        resources
    }
}

/// Sends `notifications/resources/list_changed` to `peer` after every reload announced on
/// `reloads`, until the client is gone.
async fn announce_reloads(mut reloads: watch::Receiver<Reload>, peer: Peer<RoleServer>) {
    loop {
        tokio::select! {
            changed = reloads.changed() => {
                if changed.is_err() {
                    return;
                }
            }
            () = tokio::time::sleep(CLIENT_GONE_CHECK) => {
                if peer.is_transport_closed() {
                    return;
                }
                continue;
            }
        }
        if let Err(error) = peer.notify_resource_list_changed().await {
            tracing::debug!("a client left before it was told that the skills changed: {error}");
            return;
        }
    }
}

fn blob(bytes: Vec<u8>, uri: &str, mime: &str) -> ResourceContents {
    ResourceContents::blob(base64::engine::general_purpose::STANDARD.encode(bytes), uri)
        .with_mime_type(mime)
}

impl ServerHandler for SkillsMcpServer {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder()
            .enable_resources()
            .enable_skills_with_directory_read()
            .build();
        if let (Skills::Watched(_), Some(resources)) =
            (self.inner.catalog.skills(), capabilities.resources.as_mut())
        {
            resources.list_changed = Some(true);
        }
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("skillful", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "Agent Skills: skills/list for the skills (or read {INDEX_URI}), then resources/read of skill://NAME/SKILL.md and the files its manifest lists."
            ))
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if let Some(reloads) = self.reloads() {
            tokio::spawn(announce_reloads(reloads, context.peer));
        }
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.reloads()?;
        Some(
            SubscriptionFilter::builder()
                .resources_list_changed()
                .build(),
        )
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let Some(mut reloads) = self.reloads() else {
            context.cancelled().await;
            return Ok(());
        };
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                changed = reloads.changed() => {
                    if changed.is_err() {
                        return Ok(());
                    }
                }
            }
            if let Err(error) = context.sink().notify_resource_list_changed().await {
                tracing::debug!(
                    "a listener left before it was told that the skills changed: {error}"
                );
                return Ok(());
            }
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let span = spans::request("resources/list", None, &context);
        spans::traced(span, async {
            let snapshot = self.snapshot().await;
            let mut resources =
                vec![Resource::new(INDEX_URI, "index.json").with_mime_type("application/json")];
            for served in &snapshot.skills {
                resources.extend(Self::resources_of(served, self.inner.settings.archives));
            }
            let result = ListResourcesResult::with_all_items(resources);
            Ok(self.hinted(&context, result))
        })
        .await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let span = spans::request("resources/read", Some(&request.uri), &context);
        spans::traced(span, async {
            let read = self.read(&request.uri);
            let contents = self
                .audited(
                    ("resources/read", &request.uri),
                    &context,
                    read,
                    |contents| Answer::Contents(contents),
                )
                .await?;
            let result = ReadResourceResult::new(vec![contents]);
            Ok(self.hinted(&context, result).into())
        })
        .await
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let span = spans::request("skills/list", None, &context);
        spans::traced(span, async {
            let snapshot = self.snapshot().await;
            let cursor = request.and_then(|request| request.cursor);
            let page = self.page(&snapshot.entries, |entry| &entry.uri, cursor.as_deref())?;
            let mut result = ListSkillsResult::with_all_items(page.items.to_vec());
            result.next_cursor = page.next_cursor;
            Ok(self.hinted(&context, result))
        })
        .await
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        let span = spans::request("skills/get", Some(&request.uri), &context);
        spans::traced(span, async {
            let uri = request.uri;
            let entry = self.skill_entry(&uri);
            let entry = self
                .audited(("skills/get", &uri), &context, entry, |entry| {
                    Answer::Entry(entry)
                })
                .await?;
            let result = GetSkillResult::new(entry);
            Ok(self.hinted(&context, result))
        })
        .await
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        let span = spans::request("resources/directory/read", Some(&request.uri), &context);
        spans::traced(span, async {
            let snapshot = self.snapshot().await;
            let children = Self::directory(&snapshot, &request.uri)?;
            let page = self.page(&children, |child| &child.uri, request.cursor.as_deref())?;
            let mut result = ReadResourceDirectoryResult::with_all_items(page.items.to_vec());
            result.next_cursor = page.next_cursor;
            Ok(result)
        })
        .await
    }
}
