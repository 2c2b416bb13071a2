//! Skills of an MCP server: listed in the final form (`skills/list`, every file in a manifest
//! and verified before use) or in the draft index (`skill-md` entries), their content fetched
//! when first asked for.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use percent_encoding::percent_decode_str;
use skillful_core::names::RelativeName;
use skillful_core::{
    Diagnostic, OriginKind, ResourceContent, Skill, SkillDocument, SkillError, SkillFrontmatter,
    SkillOrigin, SkillResource, SkillScript,
};
use skillful_discovery::{FileScriptRequest, SharedScriptRunner};
use skillful_frontmatter::{ParseOptions, parse};
use skillful_fs::blocking;
use tokio::sync::OnceCell;

use crate::cache::{FileCache, hashed};
use crate::connection::Connection;
use crate::error::McpSkillsError;
use crate::final_form::{
    FinalFormError, Integrity, MAX_BYTES_PER_SKILL, Manifest, SkillEntry, manifest_file,
    read_skill_file, resolve_relative, sha256_digest, verify_skill_md,
};
use crate::mime::mime_type;

/// Where scripts run by approval are unpacked: tells the directories of this process apart.
static RUNS: AtomicU64 = AtomicU64::new(0);

/// The directory of scripts in a skill: its files under it are the skill's scripts.
const SCRIPTS_DIR: &str = "scripts/";

/// What a host is asked when an MCP skill would act on this machine: run one of its scripts, or
/// have its `allowed-tools` honoured. The host answers for this skill only, after showing the
/// user where it comes from; until it says yes, the skill's scripts do not run and its
/// `allowed-tools` are ignored.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct SkillApproval<'a> {
    /// The skill's name as listed (disambiguated within its server, see
    /// [`McpSkillsSource`](crate::McpSkillsSource)).
    pub name: &'a str,
    /// Where it comes from: the server's label and the skill's `SKILL.md` URI.
    pub origin: &'a SkillOrigin,
    /// The digest of its whole manifest ([`McpSkill::manifest_digest`]): an approval kept for
    /// later should be bound to it, so that a changed skill is asked about again. `None` for a
    /// skill whose content cannot be bound (`"dynamic"`, or listed in the draft index).
    pub manifest_digest: Option<&'a str>,
}

/// The host's answer to a [`SkillApproval`].
pub(crate) type Approval = Arc<dyn Fn(&SkillApproval<'_>) -> bool + Send + Sync>;

/// The server, as the skills of one source reach it.
pub(crate) struct Remote {
    pub(crate) connection: Arc<Connection>,
    /// The host's name for the server, in origins and messages.
    pub(crate) label: String,
    /// Where verified files, unpacked archives and approved runs are kept (this user's cache).
    pub(crate) cache_base: Option<PathBuf>,
    /// The most bytes the verified files of every server may take in the cache.
    cache_max_bytes: u64,
    cache: OnceCell<Option<FileCache>>,
    pub(crate) approval: Option<Approval>,
    pub(crate) runner: Option<SharedScriptRunner>,
}

impl fmt::Debug for Remote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Remote")
            .field("label", &self.label)
            .field("cache_base", &self.cache_base)
            .field("approval", &self.approval.is_some())
            .finish_non_exhaustive()
    }
}

impl Remote {
    pub(crate) fn new(
        connection: Arc<Connection>,
        label: String,
        cache_base: Option<PathBuf>,
        cache_max_bytes: u64,
        approval: Option<Approval>,
        runner: Option<SharedScriptRunner>,
    ) -> Self {
        Self {
            connection,
            label,
            cache_base,
            cache_max_bytes,
            cache: OnceCell::new(),
            approval,
            runner,
        }
    }

    /// The disk cache of this server's verified files, opened on first use; `None` without a
    /// cache directory.
    ///
    /// # Errors
    /// [`McpSkillsError::CacheDir`] when the directory is not safe to use.
    pub(crate) async fn cache(&self) -> Result<Option<&FileCache>, McpSkillsError> {
        let cache = self
            .cache
            .get_or_try_init(|| async {
                match &self.cache_base {
                    Some(base) => FileCache::open(
                        base.join("files"),
                        self.connection.server(),
                        self.cache_max_bytes,
                    )
                    .await
                    .map(Some),
                    None => Ok(None),
                }
            })
            .await?;
        Ok(cache.as_ref())
    }

    /// The file `uri` of the held entry `entry`, verified against it: from the disk cache
    /// while the cached bytes still match the manifest, else read from the server (and cached
    /// when verified).
    async fn read_verified(
        &self,
        entry: &SkillEntry,
        uri: &str,
    ) -> Result<(Vec<u8>, Integrity), McpSkillsError> {
        let cache = self.cache().await?;
        if let (Some(cache), Some(file)) = (cache, manifest_file(entry, uri))
            && let Some(bytes) = cache.get(uri, file).await
        {
            return Ok((bytes, Integrity::Verified));
        }
        let label = &self.label;
        let read = self
            .connection
            .request(uri, |peer| async move {
                read_skill_file(&peer, label, entry, uri).await
            })
            .await?;
        if read.integrity == Integrity::Verified
            && let Some(cache) = cache
        {
            cache.put(uri, read.bytes.clone()).await;
        }
        Ok((read.bytes, read.integrity))
    }
}

/// A failure of a skill's operation, for the provider: content that failed verification is a
/// [`SkillError::Mismatch`] naming the server, the URI and what differed.
fn skill_error(error: McpSkillsError, uri: &str, label: &str) -> SkillError {
    match error {
        McpSkillsError::Protocol(FinalFormError::Verification(error)) => SkillError::Mismatch {
            what: format!("{uri} from MCP server {label}"),
            detail: error.to_string(),
        },
        other => SkillError::Other(other.to_string()),
    }
}

/// The digest of a whole manifest: `sha256:` of its lines `URI DIGEST\n` in URI order. Equal
/// digests mean the same files with the same content.
fn manifest_digest(entry: &SkillEntry) -> Option<String> {
    let Manifest::Files(files) = &entry.resources else {
        return None;
    };
    let mut lines: Vec<String> = files
        .iter()
        .map(|file| format!("{} {}\n", file.uri, file.digest))
        .collect();
    lines.sort();
    Some(sha256_digest(lines.concat().as_bytes()))
}

/// What a listed skill's files and scripts share.
#[derive(Debug)]
struct Held {
    /// The entry the skill was listed with: every read is checked against it.
    entry: SkillEntry,
    /// Its listed name (disambiguated within the server).
    name: String,
    origin: SkillOrigin,
    manifest_digest: Option<String>,
    remote: Arc<Remote>,
}

impl Held {
    fn approved(&self) -> bool {
        self.remote.approval.as_ref().is_some_and(|approve| {
            approve(&SkillApproval {
                name: &self.name,
                origin: &self.origin,
                manifest_digest: self.manifest_digest.as_deref(),
            })
        })
    }

    /// The URI where the skill's files lie (its `SKILL.md` URI without `SKILL.md`).
    fn root(&self) -> &str {
        self.entry
            .uri
            .strip_suffix(rmcp::model::SKILL_MD)
            .unwrap_or(&self.entry.uri)
    }

    /// The name of a listed file relative to the skill (`references/FAQ.md`), percent-decoded.
    fn relative_name(&self, uri: &str) -> Option<String> {
        let relative = uri.strip_prefix(self.root())?;
        Some(
            percent_decode_str(relative)
                .decode_utf8_lossy()
                .into_owned(),
        )
    }

    async fn read(&self, uri: &str) -> Result<Vec<u8>, SkillError> {
        self.remote
            .read_verified(&self.entry, uri)
            .await
            .map(|(bytes, _)| bytes)
            .map_err(|error| skill_error(error, uri, &self.remote.label))
    }
}

/// How a skill was listed.
#[derive(Debug)]
enum Listing {
    /// By `skills/list`, with a manifest.
    Entry(Arc<Held>),
    /// By the draft index: a `skill-md` entry, with the digest of its `SKILL.md` when given.
    Index {
        skill_md_uri: String,
        root_uri: String,
        digest: Option<String>,
    },
}

/// A skill whose `SKILL.md` and files live on an MCP server.
///
/// **Listed by `skills/list`** (the final form): its frontmatter is the listing's, validated
/// like any skill's; its resources and scripts are the files of its manifest (scripts: the
/// files under `scripts/`); nothing is fetched until [`Skill::document`] or a resource is read.
/// Every file is checked against the listed entry before it is used: it must be listed, and
/// have the listed size and `sha256` digest; the `SKILL.md`'s frontmatter must also equal the
/// listing's, field by field. Content that fails is never returned: the error is a
/// [`SkillError::Mismatch`] naming the server, the URI and what differs (the expected and
/// actual digests, or the field). Verified files are kept in this user's cache between runs and
/// checked again on every use.
///
/// Its scripts do not run and its `allowed-tools` are left out of its frontmatter until the
/// host approves this skill ([`McpSkillsSourceBuilder::approve`](crate::McpSkillsSourceBuilder::approve)).
/// An approved script runs with the source's runner, in a fresh private directory holding the
/// skill's verified files, removed afterwards.
///
/// **Listed by the draft index** (`skill://index.json`): its frontmatter is the index's name and
/// description; `SKILL.md` is read on the first [`Skill::document`] (checked against the
/// index's digest when it gives one); [`Skill::resource`] resolves a relative name against the
/// skill's root URI and refuses absolute names, URIs, `..` segments, backslashes and control
/// characters, also when percent-encoded, before any request is sent. It has no scripts.
pub struct McpSkill {
    frontmatter: SkillFrontmatter,
    /// The frontmatter without `allowed-tools`, shown until the skill is approved (when it has
    /// some).
    unapproved: Option<SkillFrontmatter>,
    origin: SkillOrigin,
    listing: Listing,
    remote: Arc<Remote>,
    document: OnceCell<SkillDocument>,
    resources: Vec<Arc<dyn SkillResource>>,
    scripts: Vec<Arc<dyn SkillScript>>,
    diagnostics: Vec<Diagnostic>,
}

impl fmt::Debug for McpSkill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpSkill")
            .field("name", &self.frontmatter.name)
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

impl McpSkill {
    /// A skill listed by `skills/list` with `entry`; `frontmatter` is the entry's, validated,
    /// under the name the source lists it by.
    pub(crate) fn listed(
        entry: SkillEntry,
        frontmatter: SkillFrontmatter,
        diagnostics: Vec<Diagnostic>,
        remote: Arc<Remote>,
    ) -> Self {
        let origin = SkillOrigin::new(OriginKind::Mcp, remote.label.clone())
            .with_location(entry.uri.clone());
        let held = Arc::new(Held {
            manifest_digest: manifest_digest(&entry),
            name: frontmatter.name.clone(),
            origin: origin.clone(),
            entry,
            remote: remote.clone(),
        });
        let mut resources: Vec<Arc<dyn SkillResource>> = Vec::new();
        let mut scripts: Vec<Arc<dyn SkillScript>> = Vec::new();
        if let Manifest::Files(files) = &held.entry.resources {
            for file in files {
                if file.uri == held.entry.uri {
                    continue;
                }
                let Some(name) = held.relative_name(&file.uri) else {
                    continue;
                };
                if name.starts_with(SCRIPTS_DIR) {
                    scripts.push(Arc::new(McpScript {
                        name,
                        held: held.clone(),
                    }));
                } else {
                    resources.push(Arc::new(McpResource {
                        name,
                        uri: file.uri.clone(),
                        from: ReadFrom::Entry(held.clone()),
                    }));
                }
            }
        }
        let unapproved = frontmatter.allowed_tools.as_ref().map(|_| {
            let mut without = frontmatter.clone();
            without.allowed_tools = None;
            without
        });
        Self {
            frontmatter,
            unapproved,
            origin,
            listing: Listing::Entry(held),
            remote,
            document: OnceCell::new(),
            resources,
            scripts,
            diagnostics,
        }
    }

    /// A skill of a `skill-md` entry of the draft index.
    pub(crate) fn indexed(
        frontmatter: SkillFrontmatter,
        skill_md_uri: String,
        digest: Option<String>,
        remote: Arc<Remote>,
    ) -> Self {
        let root_uri = match skill_md_uri.strip_suffix(rmcp::model::SKILL_MD) {
            Some(root) => root.to_owned(),
            None if skill_md_uri.ends_with('/') => skill_md_uri.clone(),
            None => format!("{skill_md_uri}/"),
        };
        let origin = SkillOrigin::new(OriginKind::Mcp, remote.label.clone())
            .with_location(skill_md_uri.clone());
        Self {
            frontmatter,
            unapproved: None,
            origin,
            listing: Listing::Index {
                skill_md_uri,
                root_uri,
                digest,
            },
            remote,
            document: OnceCell::new(),
            resources: Vec::new(),
            scripts: Vec::new(),
            diagnostics: Vec::new(),
        }
    }

    /// The URI of the skill's `SKILL.md`.
    pub fn skill_md_uri(&self) -> &str {
        match &self.listing {
            Listing::Entry(held) => &held.entry.uri,
            Listing::Index { skill_md_uri, .. } => skill_md_uri,
        }
    }

    /// The URI the skill's files lie under (ends with `/`).
    pub fn root_uri(&self) -> &str {
        match &self.listing {
            Listing::Entry(held) => held.root(),
            Listing::Index { root_uri, .. } => root_uri,
        }
    }

    /// The host's label for the server the skill comes from.
    pub fn label(&self) -> &str {
        &self.remote.label
    }

    /// The entry the skill was listed with by `skills/list` (its frontmatter and manifest), or
    /// `None` for a skill of the draft index.
    pub fn entry(&self) -> Option<&SkillEntry> {
        match &self.listing {
            Listing::Entry(held) => Some(&held.entry),
            Listing::Index { .. } => None,
        }
    }

    /// The digest of the skill's whole manifest: `sha256:` of its lines `URI DIGEST\n` in URI
    /// order, so equal digests mean the same files with the same content. `None` for a
    /// `"dynamic"` skill and a skill of the draft index, whose content cannot be bound.
    pub fn manifest_digest(&self) -> Option<&str> {
        match &self.listing {
            Listing::Entry(held) => held.manifest_digest.as_deref(),
            Listing::Index { .. } => None,
        }
    }

    /// Whether the host approved this skill (see [`SkillApproval`]).
    pub fn is_approved(&self) -> bool {
        match &self.listing {
            Listing::Entry(held) => held.approved(),
            Listing::Index { .. } => false,
        }
    }

    async fn fetch_entry_document(&self, held: &Held) -> Result<SkillDocument, SkillError> {
        let uri = &held.entry.uri;
        let label = &self.remote.label;
        let bytes = held.read(uri).await?;
        let (text, _) = verify_skill_md(label, &held.entry, &bytes).map_err(|error| {
            skill_error(
                McpSkillsError::Protocol(FinalFormError::Verification(error)),
                uri,
                label,
            )
        })?;
        split(&text, uri, label)
    }

    async fn fetch_index_document(
        &self,
        uri: &str,
        digest: Option<&str>,
    ) -> Result<SkillDocument, SkillError> {
        let label = &self.remote.label;
        let fetched = self
            .remote
            .connection
            .read(uri)
            .await
            .map_err(|error| skill_error(error, uri, label))?;
        let what = format!("{uri} from MCP server {label}");
        let text = match fetched.content {
            ResourceContent::Text(text) if !text.is_empty() => text,
            _ => {
                return Err(SkillError::Refused {
                    what,
                    reason: "the server sent no text".into(),
                });
            }
        };
        if let Some(expected) = digest.filter(|digest| crate::final_form::is_sha256_digest(digest))
        {
            let actual = sha256_digest(text.as_bytes());
            if actual != expected {
                return Err(SkillError::Mismatch {
                    what,
                    detail: format!(
                        "the index lists digest {expected}, the server sent content with digest {actual}; the content is not used"
                    ),
                });
            }
        }
        split(&text, uri, label)
    }
}

/// A fetched `SKILL.md` split at its frontmatter.
fn split(text: &str, uri: &str, label: &str) -> Result<SkillDocument, SkillError> {
    let options = ParseOptions::default()
        .with_max_file_bytes(usize::try_from(MAX_BYTES_PER_SKILL).unwrap_or(usize::MAX));
    let document = parse(text, &options).map_err(|error| SkillError::Refused {
        what: format!("{uri} from MCP server {label}"),
        reason: format!("it is not a SKILL.md: {error}"),
    })?;
    Ok(SkillDocument::written(
        document.frontmatter_text(),
        document.body(),
    ))
}

#[async_trait]
impl Skill for McpSkill {
    /// The frontmatter as listed; without `allowed-tools` until the host approves the skill.
    fn frontmatter(&self) -> &SkillFrontmatter {
        match &self.unapproved {
            Some(unapproved) if !self.is_approved() => unapproved,
            _ => &self.frontmatter,
        }
    }

    fn origin(&self) -> &SkillOrigin {
        &self.origin
    }

    /// The `SKILL.md` the server sends, verified (see [`McpSkill`]) and split at its
    /// frontmatter; fetched once and then kept.
    async fn document(&self) -> Result<SkillDocument, SkillError> {
        self.document
            .get_or_try_init(|| async {
                match &self.listing {
                    Listing::Entry(held) => self.fetch_entry_document(held).await,
                    Listing::Index {
                        skill_md_uri,
                        digest,
                        ..
                    } => {
                        self.fetch_index_document(skill_md_uri, digest.as_deref())
                            .await
                    }
                }
            })
            .await
            .cloned()
    }

    fn resources(&self) -> Vec<Arc<dyn SkillResource>> {
        self.resources.clone()
    }

    fn scripts(&self) -> Vec<Arc<dyn SkillScript>> {
        self.scripts.clone()
    }

    /// The resource called `name`: a file of the manifest (not a script), or for a `"dynamic"`
    /// skill and a skill of the draft index, `name` resolved against the skill's root URI.
    /// `None` (with a warning) for a name that could leave the skill. Nothing is sent until it
    /// is read.
    fn resource(&self, name: &str) -> Option<Arc<dyn SkillResource>> {
        if let Err(refused) = RelativeName::new(name) {
            tracing::warn!(skill = %self.frontmatter.name, "resource name refused: {refused}");
            return None;
        }
        match &self.listing {
            Listing::Entry(held) => match held.entry.resources {
                Manifest::Files(_) => self.resources.iter().find(|r| r.name() == name).cloned(),
                _ => {
                    let uri = resolve_relative(&held.entry, name).ok()?;
                    Some(Arc::new(McpResource {
                        name: name.to_owned(),
                        uri,
                        from: ReadFrom::Entry(held.clone()),
                    }))
                }
            },
            Listing::Index { root_uri, .. } => Some(Arc::new(McpResource {
                name: name.to_owned(),
                uri: format!("{root_uri}{name}"),
                from: ReadFrom::Index(self.remote.clone()),
            })),
        }
    }

    fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The `SKILL.md` digest of the `skills/list` manifest, or of the draft index entry;
    /// `None` for a `"dynamic"` skill and an index entry without a digest.
    fn listed_digest(&self) -> Option<&str> {
        match &self.listing {
            Listing::Entry(held) => {
                manifest_file(&held.entry, &held.entry.uri).map(|file| file.digest.as_str())
            }
            Listing::Index { digest, .. } => digest
                .as_deref()
                .filter(|digest| crate::final_form::is_sha256_digest(digest)),
        }
    }
}

/// How a resource is read.
#[derive(Debug)]
enum ReadFrom {
    /// Verified against the held entry.
    Entry(Arc<Held>),
    /// As the server sends it (the draft index has no manifest).
    Index(Arc<Remote>),
}

/// A file of an [`McpSkill`], read from the server (or the cache) on every
/// [`SkillResource::read`].
#[derive(Debug)]
struct McpResource {
    name: String,
    uri: String,
    from: ReadFrom,
}

/// Verified bytes as a resource's content: text when they are UTF-8, else bytes with the MIME
/// type their name gives.
fn content(bytes: Vec<u8>, name: &str) -> ResourceContent {
    match String::from_utf8(bytes) {
        Ok(text) => ResourceContent::Text(text),
        Err(error) => ResourceContent::Binary {
            bytes: error.into_bytes(),
            mime_type: Some(mime_type(name).to_owned()),
        },
    }
}

#[async_trait]
impl SkillResource for McpResource {
    fn name(&self) -> &str {
        &self.name
    }

    async fn read(&self) -> Result<ResourceContent, SkillError> {
        match &self.from {
            ReadFrom::Entry(held) => Ok(content(held.read(&self.uri).await?, &self.name)),
            ReadFrom::Index(remote) => remote
                .connection
                .read(&self.uri)
                .await
                .map(|fetched| fetched.content)
                .map_err(|error| skill_error(error, &self.uri, &remote.label)),
        }
    }
}

/// A script of a listed [`McpSkill`]: a file under `scripts/` of its manifest.
#[derive(Debug)]
struct McpScript {
    name: String,
    held: Arc<Held>,
}

impl McpScript {
    fn not_runnable(&self, reason: String) -> SkillError {
        SkillError::NotRunnable {
            script: self.name.clone(),
            reason,
        }
    }

    /// Writes the skill's verified files into a fresh private directory; returns it
    /// (canonical).
    async fn unpack(&self, base: &Path) -> Result<PathBuf, SkillError> {
        let held = &self.held;
        let Manifest::Files(files) = &held.entry.resources else {
            return Err(self.not_runnable(
                "its files are generated by the server (\"dynamic\"), so they cannot be checked before they run".into(),
            ));
        };
        let mut unpacked = Vec::with_capacity(files.len());
        for file in files {
            let name = held
                .relative_name(&file.uri)
                .filter(|name| RelativeName::new(name).is_ok())
                .ok_or_else(|| SkillError::Refused {
                    what: file.uri.clone(),
                    reason: "it is not a file inside the skill".into(),
                })?;
            unpacked.push((name, held.read(&file.uri).await?));
        }
        let runs = base.join("runs");
        let run = runs.join(format!(
            "{}-{}-{}",
            hashed(held.remote.connection.server(), 16),
            std::process::id(),
            RUNS.fetch_add(1, Ordering::Relaxed)
        ));
        blocking::run("unpacking an MCP skill to run a script", move || {
            write_skill(&runs, &run, &unpacked).map_err(|error| SkillError::Unreadable {
                what: run.display().to_string(),
                source: error,
            })
        })
        .await
        .map_err(SkillError::other)?
    }
}

/// Creates `run` (private, inside the private `runs`) holding `files`; returns it canonical.
fn write_skill(runs: &Path, run: &Path, files: &[(String, Vec<u8>)]) -> std::io::Result<PathBuf> {
    skillful_state::private_dir(runs).map_err(std::io::Error::other)?;
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(run)?;
    for (name, bytes) in files {
        let path = name
            .split('/')
            .fold(run.to_path_buf(), |path, part| path.join(part));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, bytes)?;
    }
    dunce::canonicalize(run)
}

#[async_trait]
impl SkillScript for McpScript {
    fn name(&self) -> &str {
        &self.name
    }

    /// Refused ([`SkillError::NotRunnable`]) until the host approves the skill; then run with
    /// the source's runner in a fresh private directory holding the skill's verified files.
    async fn run(&self, arguments: serde_json::Value) -> Result<String, SkillError> {
        let held = &self.held;
        if !held.approved() {
            return Err(self.not_runnable(format!(
                "skill '{}' comes from MCP server {} ({}); its scripts run on this machine only after the user approves this skill. Read its files instead, or ask the user to approve it",
                held.name,
                held.remote.label,
                held.entry.uri
            )));
        }
        let Some(runner) = &held.remote.runner else {
            return Err(self.not_runnable(
                "no script runner is configured for MCP skills; give the source one (McpSkillsSourceBuilder::script_runner)".into(),
            ));
        };
        let Some(base) = &held.remote.cache_base else {
            return Err(self.not_runnable(
                "there is no private directory to put the skill's files in (no per-user cache directory); give the source one (McpSkillsSourceBuilder::cache_dir)".into(),
            ));
        };
        let dir = self.unpack(base).await?;
        let script_path = self
            .name
            .split('/')
            .fold(dir.clone(), |path, part| path.join(part));
        let result = runner
            .run(FileScriptRequest::new(
                held.name.as_str(),
                dir.as_path(),
                self.name.as_str(),
                script_path,
                arguments,
            ))
            .await;
        let removed = dir.clone();
        let _ = blocking::run("removing an approved run's files", move || {
            std::fs::remove_dir_all(&removed).map_err(|source| SkillError::Unreadable {
                what: removed.display().to_string(),
                source,
            })
        })
        .await
        .map_err(SkillError::other)
        .and_then(std::convert::identity)
        .inspect_err(|error| tracing::warn!("{error}"));
        result
    }
}
