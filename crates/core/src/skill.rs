use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use crate::capability::Capabilities;
use crate::diagnostic::Diagnostic;
use crate::error::SkillError;
use crate::frontmatter::SkillFrontmatter;
use crate::origin::{Scope, SkillOrigin};
use crate::risk::{DeclaredRisk, RiskTier};

/// How long a script (a file's process, an inline closure, a plugin call) may run by default.
pub const DEFAULT_SCRIPT_TIMEOUT: Duration = Duration::from_secs(30);

/// A skill's instructions as data: its `SKILL.md` split at the frontmatter. The provider renders
/// what `load_skill` shows from it, the same way for every source.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkillDocument {
    /// The frontmatter exactly as written between the `---` lines (without them), for a skill
    /// that has a `SKILL.md`; `None` for a skill built in code, whose frontmatter is data only.
    pub written_frontmatter: Option<String>,
    /// The instructions: the Markdown after the frontmatter.
    pub body: String,
}

impl SkillDocument {
    /// The document of a `SKILL.md`, its frontmatter as written.
    pub fn written(frontmatter: impl Into<String>, body: impl Into<String>) -> Self {
        Self {
            written_frontmatter: Some(frontmatter.into()),
            body: body.into(),
        }
    }

    /// The document of a skill built in code: instructions only.
    pub fn instructions(body: impl Into<String>) -> Self {
        Self {
            written_frontmatter: None,
            body: body.into(),
        }
    }
}

/// A skill: frontmatter for the catalog, a document for `load_skill`, and the resources and
/// scripts the model may use.
///
/// Implementations are cheap to list and lazy to read: `frontmatter` is known up front, while
/// `document` and every resource read may do I/O. Sources return data; they never render
/// model text.
#[async_trait]
pub trait Skill: Send + Sync + fmt::Debug {
    /// The skill's frontmatter.
    fn frontmatter(&self) -> &SkillFrontmatter;

    /// Where the skill comes from.
    fn origin(&self) -> &SkillOrigin;

    /// The skill's name: its frontmatter's `name`.
    ///
    /// Catalogs, search and lookups read only the name and the description of every skill; a
    /// source that keeps its skills compact answers these without building the whole
    /// [`Skill::frontmatter`].
    fn name(&self) -> &str {
        &self.frontmatter().name
    }

    /// The skill's description: its frontmatter's `description`.
    fn description(&self) -> &str {
        &self.frontmatter().description
    }

    /// Who put the skill where it was found: its origin's [`Scope`].
    fn scope(&self) -> Scope {
        self.origin().scope
    }

    /// The skill's instructions, read (or fetched) now.
    ///
    /// # Errors
    /// The skill's text cannot be read, is unsafe to read, or is not what was listed.
    async fn document(&self) -> Result<SkillDocument, SkillError>;

    /// The resources the skill advertises, in a stable order.
    fn resources(&self) -> Vec<Arc<dyn SkillResource>>;

    /// The scripts the skill advertises, in a stable order.
    fn scripts(&self) -> Vec<Arc<dyn SkillScript>>;

    /// The resource called exactly `name`, if the skill has one.
    ///
    /// The default looks among [`Skill::resources`]; sources whose resources are not all known in
    /// advance resolve other names here (callers check names with
    /// [`RelativeName`](crate::names::RelativeName) first).
    fn resource(&self, name: &str) -> Option<Arc<dyn SkillResource>> {
        self.resources().into_iter().find(|r| r.name() == name)
    }

    /// The script called exactly `name`, if the skill has one.
    fn script(&self, name: &str) -> Option<Arc<dyn SkillScript>> {
        self.scripts().into_iter().find(|s| s.name() == name)
    }

    /// The risk tier the skill declares for all its scripts, if it declares one: by default its
    /// `metadata` key `risk` (see [`DeclaredRisk`](crate::DeclaredRisk)); `None` when absent or
    /// not a tier. The catalog shows it.
    fn risk_tier(&self) -> Option<RiskTier> {
        DeclaredRisk::from_metadata(&self.frontmatter().metadata)
            .0
            .skill()
    }

    /// What the skill declares its scripts need (network, writes): by default read from its
    /// `metadata` (see [`Capabilities`]); nothing when the declaration cannot be read (sources
    /// report that as a diagnostic). Shown to the person approving a call and to the model; it
    /// never widens a script's sandbox beyond its risk tier.
    fn capabilities(&self) -> Capabilities {
        Capabilities::from_metadata(self.name(), &self.frontmatter().metadata).unwrap_or_default()
    }

    /// What the skill says of its own life (version, owner, domain, triggers, anti-triggers):
    /// by default read from its `metadata` (see [`Lifecycle`](crate::Lifecycle)), each key that
    /// cannot be read left empty (file sources report it as a diagnostic).
    fn lifecycle(&self) -> crate::Lifecycle {
        crate::Lifecycle::from_metadata(self.name(), &self.frontmatter().metadata).0
    }

    /// Which of its scripts the skill says run long (see [`LongRunning`](crate::LongRunning)):
    /// by default read from its `metadata`; nothing when the declaration cannot be read (file
    /// sources report it as a diagnostic).
    fn long_running(&self) -> crate::LongRunning {
        crate::LongRunning::from_metadata(self.name(), &self.frontmatter().metadata)
            .unwrap_or_default()
    }

    /// The warnings found while loading the skill (its frontmatter, its risk tiers, files that
    /// were skipped); none by default.
    fn diagnostics(&self) -> &[Diagnostic] {
        &[]
    }

    /// The digest of the skill's `SKILL.md` (`sha256:` and 64 lowercase hex digits) as its source
    /// vouched for it when listing the skill, before reading it (such as a manifest a server
    /// sent); `None` when the source listed none, which is the default. A source that gives one
    /// never returns a [`Skill::document`] whose bytes do not match it.
    fn listed_digest(&self) -> Option<&str> {
        None
    }
}

/// What reading a resource gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceContent {
    /// UTF-8 text.
    Text(String),
    /// Bytes, with their MIME type when known.
    Binary {
        /// The raw bytes.
        bytes: Vec<u8>,
        /// The MIME type, e.g. `image/png`.
        mime_type: Option<String>,
    },
}

impl ResourceContent {
    /// The raw bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        match self {
            ResourceContent::Text(text) => text.into_bytes(),
            ResourceContent::Binary { bytes, .. } => bytes,
        }
    }
}

/// A window of a resource's bytes: what [`SkillResource::read_range`] returns.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceRange {
    /// The bytes from `offset`, at most as many as were asked for.
    pub bytes: Vec<u8>,
    /// Where the window starts, in bytes.
    pub offset: u64,
    /// The resource's whole length, in bytes.
    pub total: u64,
    /// The MIME type, when known.
    pub mime_type: Option<String>,
    /// The source says the resource is binary ([`ResourceContent::Binary`]); when `false`, its
    /// bytes are text if they are UTF-8.
    pub binary: bool,
}

impl ResourceRange {
    /// The window of `bytes` read from `offset` of a resource of `total` bytes, text if its bytes
    /// are UTF-8.
    pub fn new(bytes: Vec<u8>, offset: u64, total: u64, mime_type: Option<String>) -> Self {
        Self {
            bytes,
            offset,
            total,
            mime_type,
            binary: false,
        }
    }

    /// The window `offset..offset + max_len` of `content` (clamped to its end).
    pub fn of(content: ResourceContent, offset: u64, max_len: u64) -> Self {
        let (mime_type, binary) = match &content {
            ResourceContent::Binary { mime_type, .. } => (mime_type.clone(), true),
            ResourceContent::Text(_) => (None, false),
        };
        let mut bytes = content.into_bytes();
        let total = bytes.len() as u64;
        let start = usize::try_from(offset.min(total)).unwrap_or(usize::MAX);
        let end = usize::try_from(offset.saturating_add(max_len).min(total)).unwrap_or(usize::MAX);
        bytes.truncate(end);
        bytes.drain(..start);
        Self {
            bytes,
            offset: offset.min(total),
            total,
            mime_type,
            binary,
        }
    }
}

/// A piece of supplementary content of a skill: a reference document, a template, dynamic data.
#[async_trait]
pub trait SkillResource: Send + Sync + fmt::Debug {
    /// The name the model uses to read it (`references/FAQ.md`).
    fn name(&self) -> &str;

    /// What the resource holds, if said.
    fn description(&self) -> Option<&str> {
        None
    }

    /// Reads the resource afresh, whole.
    ///
    /// # Errors
    /// It cannot be read, is unsafe to read, is too large, or is not what was listed.
    async fn read(&self) -> Result<ResourceContent, SkillError>;

    /// Reads at most `max_len` bytes from `offset`. The default reads the whole resource and
    /// keeps the window; sources whose resources can be large (files) read only the window.
    ///
    /// # Errors
    /// As [`SkillResource::read`].
    async fn read_range(&self, offset: u64, max_len: u64) -> Result<ResourceRange, SkillError> {
        Ok(ResourceRange::of(self.read().await?, offset, max_len))
    }
}

/// Something a skill can run on the model's request.
#[async_trait]
pub trait SkillScript: Send + Sync + fmt::Debug {
    /// The name the model uses to run it (`scripts/convert.py`).
    fn name(&self) -> &str;

    /// What the script does, if said.
    fn description(&self) -> Option<&str> {
        None
    }

    /// The JSON schema of the arguments the script takes.
    fn parameters_schema(&self) -> Option<&serde_json::Value> {
        None
    }

    /// How much harm running the script can do; approval policies decide by it.
    /// Scripts that declare nothing are [`RiskTier::SCRIPT_DEFAULT`].
    fn risk_tier(&self) -> RiskTier {
        RiskTier::SCRIPT_DEFAULT
    }

    /// The line saying what will confine the script when it runs, as its runner tells it (the
    /// sandbox profile of its tier: `read — writes only in $TMPDIR, no network`, or that it is
    /// not isolated), for the person approving a call; `None` (the default) when the source
    /// does not know.
    fn sandbox_profile(&self) -> Option<String> {
        None
    }

    /// How long a call of the script may take before it is stopped: its runner's or author's
    /// limit; `None` (the default) for [`DEFAULT_SCRIPT_TIMEOUT`]. The limit is enforced in one
    /// place for every kind of script, where the provider runs `run_skill_script`
    /// (`skillful_provider::run_script`), with one error, [`SkillError::ScriptTimedOut`].
    fn timeout(&self) -> Option<Duration> {
        None
    }

    /// Runs the script with the model's arguments and returns what the model is shown. The
    /// timeout is not this method's: callers go through `skillful_provider::run_script`.
    ///
    /// # Errors
    /// The arguments do not fit, the script may not run here, it failed or timed out.
    async fn run(&self, arguments: serde_json::Value) -> Result<String, SkillError>;

    /// [`SkillScript::run`] under `monitor`: what the script writes is shown to it as it is
    /// written (a file script's standard output and error, chunk by chunk), its exit code when
    /// it ends, and when the monitor asks the script to stop, it is stopped (a file script with
    /// every process it started) and the call is [`SkillError::ScriptCancelled`]. The result is
    /// [`run`](SkillScript::run)'s. The default runs the script unmonitored: a script that
    /// writes nothing as it goes (an inline closure, an MCP call) has nothing to show, and the
    /// caller stops it by dropping the call.
    ///
    /// # Errors
    /// As [`SkillScript::run`]; [`SkillError::ScriptCancelled`] when stopped by the monitor.
    async fn run_monitored(
        &self,
        arguments: serde_json::Value,
        monitor: Arc<dyn ScriptMonitor>,
    ) -> Result<String, SkillError> {
        let _ = monitor;
        self.run(arguments).await
    }
}

/// Which output stream of a running script a chunk comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputStream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// A future that ends when a running script is asked to stop.
pub type StopRequest = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

/// Watches one run of a script ([`SkillScript::run_monitored`]) and may ask it to stop.
///
/// [`output`](Self::output) is called on the task reading the script's output, chunk by chunk
/// (a chunk may hold part of a line, or several), and must return quickly: whatever it keeps it
/// bounds itself.
pub trait ScriptMonitor: Send + Sync {
    /// `chunk` was written to `stream`.
    fn output(&self, stream: OutputStream, chunk: &[u8]);

    /// The script's process ended with `code` (`None`: ended by a signal).
    fn exited(&self, code: Option<i32>) {
        let _ = code;
    }

    /// Ends when the run is to be stopped; the default never does.
    fn stop_requested(&self) -> StopRequest {
        Box::pin(std::future::pending())
    }
}
