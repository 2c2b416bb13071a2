//! Approvals given for good ("always"): kept per user, keyed by the tool, the skill (and the
//! script) and where the skill comes from, and bound to the sha256 of what they cover: every file
//! of a file skill's directory, a plugin's library, an inline or MCP skill's document.
//!
//! # Format
//! `{"version": 2, "approvals": [{"key": …, "bound": [ … ]}]}`. Version 2 (this one) binds an
//! approval of a file skill to the skill's whole directory (`{"kind": "skill", "dir", "digest",
//! "files"}`: `skillful-manifest`'s digest, and its `DigestCache` of each file's digest by
//! stamp). Version 1 bound it to `SKILL.md` and the script only; such entries are void (a changed helper the script imports
//! would not have voided them): a version 1 file is read, its file skills' approvals are dropped
//! with a note ([`ApprovalsStore::notes`]) so the person is asked again, and the file is written as
//! version 2 when the next approval is given. Its plugin, inline and MCP approvals are kept.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use skillful_chat::Remember;
use skillful_core::names::RelativeName;
use skillful_core::{OriginKind, SkillError, SkillOrigin};
use skillful_fs::{FileLock, FileStamp, blocking, hex};
use skillful_manifest::{DigestCache, Limits, Manifest, ManifestError};
use skillful_provider::CallSubject;
use skillful_state::StateError;

/// The store's file format version.
const STORE_VERSION: u32 = 2;

/// The format whose file skills' approvals covered `SKILL.md` and the script only: read, and
/// those approvals dropped.
const LEGACY_VERSION: u32 = 1;

/// The largest approvals file read.
const MAX_STORE_BYTES: u64 = 16 << 20;

/// The name of the per-user approvals file in the state directory.
const STORE_FILE: &str = "approvals.json";

/// Why the approvals store cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ApprovalsError {
    /// The file or its directory is not safe to use, or cannot be read or written.
    #[error(transparent)]
    State(#[from] StateError),
    /// The file or its lock cannot be read, written or locked safely.
    #[error(transparent)]
    Fs(#[from] skillful_fs::FsError),
    /// The file is not an approvals store this version reads; it is left as it is.
    #[error(
        "{path}: not an approvals store this version of skillful reads ({reason}); it is left \
         as it is: move it away to start with no approvals"
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// What the approval is about could not be read to bind the approval to it (or the work
    /// failed on the blocking pool).
    #[error("cannot bind the approval to the skill's content: {0}")]
    Content(#[from] SkillError),
    /// The skill's directory has no manifest (a link out of it, a special file, over a limit),
    /// so nothing can be approved for good: each call is asked.
    #[error("cannot approve the skill for good: {0}; answer yes or no for each call instead")]
    Manifest(#[from] ManifestError),
}

/// The approvals people gave for good, bound to content.
///
/// An approval is found again only for the same tool, the same skill (by name and origin: kind,
/// scope, label, location) and, for `run_skill_script`, the same script; and only while what it
/// covers ([`Coverage`]) is unchanged:
///
/// - a skill of files (origin kind `files`): every file of its directory (the `SKILL.md`, the
///   scripts and whatever they import or read, its declared capabilities with it), as
///   `skillful-manifest` lists them; a file added, removed or changed anywhere voids it;
/// - a plugin skill: the plugin library (it holds the instructions and the scripts' code);
/// - an inline or MCP skill: its document as `load_skill` shows it (frontmatter as written and
///   body), since it has no file of ours to read.
///
/// The sha256 of each file is computed once, when the approval is given. A later check walks the
/// directory again (to see new files) and compares each file's stamp (device, inode, size,
/// modification and change times), hashing a file again only when its stamp changed
/// ([`ApprovalsStore::files_hashed`] counts what was read); a different digest voids the approval
/// and the person is asked again. Documents are hashed on each check (they are in memory).
///
/// [`ApprovalsStore::per_user`] keeps them in the user's state directory (a file of mode 0600 in
/// a directory of mode 0700, written atomically); [`ApprovalsStore::in_memory`] for as long as the
/// store lives. Nothing in a session file is read as an approval.
#[derive(Debug)]
pub struct ApprovalsStore {
    file: Option<PathBuf>,
    entries: Mutex<Vec<Entry>>,
    notes: Vec<String>,
    hashed: AtomicU64,
}

/// What an "always" answer to a call would be bound to, as the question says it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Coverage {
    /// Every file of the skill's directory.
    Skill {
        /// The skill's directory.
        dir: PathBuf,
        /// How many files (and links) it holds.
        files: usize,
        /// `skillful-manifest`'s digest over all of them (lowercase hexadecimal).
        digest: String,
    },
    /// A plugin's library.
    Library {
        /// The library file.
        path: PathBuf,
    },
    /// The skill's document (an inline or MCP skill).
    Document,
}

impl std::fmt::Display for Coverage {
    /// `the skill's 3 files (sha256 1a2b3c4d5e6f…)`, `the plugin library /path`, `the
    /// skill's document`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Skill { files, digest, .. } => {
                let prefix = digest.get(..12).unwrap_or(digest);
                let plural = if *files == 1 { "" } else { "s" };
                write!(f, "the skill's {files} file{plural} (sha256 {prefix}…)")
            }
            Self::Library { path } => write!(f, "the plugin library {}", path.display()),
            Self::Document => f.write_str("the skill's document"),
        }
    }
}

/// The store as saved.
#[derive(Debug, Serialize, Deserialize)]
struct Stored {
    version: u32,
    approvals: Vec<Entry>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    key: Key,
    bound: Vec<Bound>,
}

/// What an approval is for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Key {
    tool: String,
    skill: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    script: Option<String>,
    origin: SkillOrigin,
    /// For an approval of exact arguments only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    arguments: Option<serde_json::Value>,
}

/// What an approval is bound to.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Bound {
    /// A file's bytes, and the stamp they were hashed at.
    File {
        path: PathBuf,
        sha256: String,
        stamp: FileStamp,
    },
    /// The skill's document (frontmatter as written, then body).
    Document { sha256: String },
    /// Every file of a file skill's directory: the manifest's digest, and each file's digest
    /// with the stamp it was hashed at.
    Skill {
        dir: PathBuf,
        digest: String,
        files: DigestCache,
    },
}

impl ApprovalsStore {
    /// A store that forgets everything when dropped.
    pub fn in_memory() -> Self {
        Self {
            file: None,
            entries: Mutex::new(Vec::new()),
            notes: Vec::new(),
            hashed: AtomicU64::new(0),
        }
    }

    /// The user's store: `approvals.json` in the per-user state directory (on Linux
    /// `$XDG_STATE_HOME/skillful`, default `~/.local/state/skillful`). See
    /// [`ApprovalsStore::at`].
    ///
    /// # Errors
    /// As [`ApprovalsStore::at`]; [`StateError::NoHomeDirectory`] when there is no home.
    pub fn per_user() -> Result<Self, ApprovalsError> {
        Self::at(Self::per_user_path()?)
    }

    /// Where the user's store is kept (nothing is created or read).
    ///
    /// # Errors
    /// [`StateError::NoHomeDirectory`] when there is no home.
    pub fn per_user_path() -> Result<PathBuf, StateError> {
        Ok(skillful_state::Dirs::per_user()?.state().join(STORE_FILE))
    }

    /// The store kept in `path`: read now if it exists, written (atomically, mode 0600) when an
    /// approval is given. Its directory is created with mode 0700 if missing, and refused when it
    /// is a symbolic link or another user's.
    ///
    /// # Errors
    /// [`ApprovalsError::State`] for an unsafe directory or file, or one that cannot be read;
    /// [`ApprovalsError::Corrupt`] for a file that does not parse (it is never overwritten).
    /// A file of format version 1 is read without its file skills' approvals (see the module
    /// documentation), with a note saying so.
    pub fn at(path: impl Into<PathBuf>) -> Result<Self, ApprovalsError> {
        let path = path.into();
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            skillful_state::private_dir(dir)?;
        }
        let (entries, dropped) = read_store(&path)?;
        let notes = (dropped > 0)
            .then(|| {
                format!(
                    "{}: {dropped} approval{} given for good to file skills covered only their \
                     SKILL.md and script (format {LEGACY_VERSION}); they no longer count, so you \
                     will be asked again, and \"always\" now covers every file of the skill",
                    path.display(),
                    if dropped == 1 { "" } else { "s" }
                )
            })
            .into_iter()
            .collect();
        Ok(Self {
            file: Some(path),
            entries: Mutex::new(entries),
            notes,
            hashed: AtomicU64::new(0),
        })
    }

    /// What the person should know about the store as it was read (approvals of an older
    /// format that no longer count), one line each.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// How many files this store has read and hashed so far, to give, check or describe
    /// approvals. A check of an unchanged skill reads none (its files' stamps are unchanged).
    pub fn files_hashed(&self) -> u64 {
        self.hashed.load(Ordering::Relaxed)
    }

    fn count_hashed(&self, files: impl TryInto<u64>) {
        let files = files.try_into().unwrap_or(u64::MAX);
        self.hashed.fetch_add(files, Ordering::Relaxed);
    }

    /// What an "always" answer to the call `subject` describes would be bound to, as the skill
    /// is now (its files are hashed).
    ///
    /// # Errors
    /// [`ApprovalsError::Manifest`] when the skill's directory has no manifest (nothing can be
    /// approved for good then).
    pub async fn coverage(&self, subject: &CallSubject) -> Result<Coverage, ApprovalsError> {
        Ok(match binding(subject) {
            Binding::Skill(dir) => {
                let (manifest, _) = self.skill_manifest(dir.clone()).await?;
                Coverage::Skill {
                    dir,
                    files: manifest.files().len(),
                    digest: manifest.digest(),
                }
            }
            Binding::Files(files) => Coverage::Library {
                path: files.into_iter().next().unwrap_or_default(),
            },
            Binding::Document => Coverage::Document,
        })
    }

    /// The file the store is kept in; `None` for one in memory.
    pub fn path(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// How many approvals the store holds.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether the store holds no approval.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        // A panic while the lock was held leaves at worst an entry missing: asked again.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether an approval given for good covers the call `subject` describes, made with
    /// `arguments`, as the skill's content is now.
    pub(crate) async fn covers(
        &self,
        subject: &CallSubject,
        arguments: &serde_json::Value,
    ) -> bool {
        let tool = subject.kind.name();
        let key = key(subject, None);
        let candidates: Vec<Entry> = self
            .lock()
            .iter()
            .filter(|entry| {
                let mut general = entry.key.clone();
                let exact = general.arguments.take();
                general == key && exact.as_ref().is_none_or(|exact| exact == arguments)
            })
            .cloned()
            .collect();
        for entry in candidates {
            match self.still_bound(subject, &entry.bound).await {
                Ok(Some(fresh)) => {
                    self.refresh_stamps(&entry.key, fresh);
                    return true;
                }
                Ok(None) => {
                    tracing::info!(tool, skill = %subject.skill_name(), "the skill changed since it was approved for good: asking again");
                }
                Err(error) => {
                    tracing::warn!(tool, skill = %subject.skill_name(), %error, "cannot check an approval given for good: asking again");
                }
            }
        }
        false
    }

    /// Remembers that the person approved the call `subject` describes, bound to the content it
    /// has now; it replaces an approval for the same call.
    pub(crate) async fn remember(
        &self,
        subject: &CallSubject,
        arguments: &serde_json::Value,
        remember: Remember,
    ) -> Result<(), ApprovalsError> {
        let exact = match remember {
            Remember::Once => return Ok(()),
            Remember::Tool => None,
            Remember::ToolWithArguments => Some(arguments.clone()),
        };
        let entry = Entry {
            key: key(subject, exact),
            bound: self.bind(subject).await?,
        };
        if let Some(path) = self.file.clone() {
            let saved = entry.clone();
            blocking::run("saving an approval", move || save_entry(&path, saved))
                .await
                .map_err(SkillError::other)??;
        }
        upsert(&mut self.lock(), entry);
        Ok(())
    }

    /// Keeps the stamps a check found with the same content, so the next check hashes nothing.
    fn refresh_stamps(&self, key: &Key, fresh: Vec<Bound>) {
        if let Some(entry) = self.lock().iter_mut().find(|entry| entry.key == *key) {
            entry.bound = fresh;
        }
    }
}

impl Default for ApprovalsStore {
    fn default() -> Self {
        Self::in_memory()
    }
}

fn key(subject: &CallSubject, arguments: Option<serde_json::Value>) -> Key {
    Key {
        tool: subject.kind.name().to_owned(),
        skill: subject.skill_name().to_owned(),
        script: subject.script_name().map(str::to_owned),
        origin: subject.skill.origin().clone(),
        arguments,
    }
}

fn upsert(entries: &mut Vec<Entry>, entry: Entry) {
    entries.retain(|old| old.key != entry.key);
    entries.push(entry);
}

/// The files an approval of a file or plugin skill was bound to before it covered the whole skill,
/// and what the audit log records: a file skill's `SKILL.md` and script, a plugin's library;
/// empty when the skill has none of ours to read.
pub(crate) fn files_of(subject: &CallSubject) -> Vec<PathBuf> {
    let origin = subject.skill.origin();
    let Some(location) = origin.location.as_deref().map(PathBuf::from) else {
        return Vec::new();
    };
    match origin.kind {
        OriginKind::Files => {
            let mut files = vec![location.join("SKILL.md")];
            if let Some(script) = subject.script_name() {
                files.push(script_file(&location, script));
            }
            files
        }
        OriginKind::Plugin => vec![location],
        OriginKind::Inline | OriginKind::Mcp => Vec::new(),
    }
}

/// What an approval of `subject` is bound to.
enum Binding {
    /// A file skill's directory, all of it.
    Skill(PathBuf),
    /// These files (a plugin's library).
    Files(Vec<PathBuf>),
    /// The skill's document.
    Document,
}

fn binding(subject: &CallSubject) -> Binding {
    let origin = subject.skill.origin();
    match (origin.kind, origin.location.as_deref()) {
        (OriginKind::Files, Some(dir)) => Binding::Skill(PathBuf::from(dir)),
        _ => match files_of(subject) {
            files if files.is_empty() => Binding::Document,
            files => Binding::Files(files),
        },
    }
}

/// The file of `script` below the skill directory `dir`. A name that could leave the directory
/// names nothing there: a path that cannot exist.
fn script_file(dir: &Path, script: &str) -> PathBuf {
    if RelativeName::new(script).is_ok() {
        dir.join(script)
    } else {
        dir.join("\u{0}unsafe script name")
    }
}

impl ApprovalsStore {
    /// The manifest of the skill directory `dir`, every file hashed, with the digests it took
    /// (by stamp) for later checks.
    async fn skill_manifest(
        &self,
        dir: PathBuf,
    ) -> Result<(Manifest, DigestCache), ApprovalsError> {
        self.skill_manifest_with(dir, DigestCache::new()).await
    }

    /// The manifest of `dir` now, hashing only the files whose stamp `cache` does not hold
    /// (counted in [`ApprovalsStore::files_hashed`]), and the cache updated.
    async fn skill_manifest_with(
        &self,
        dir: PathBuf,
        mut cache: DigestCache,
    ) -> Result<(Manifest, DigestCache), ApprovalsError> {
        let before = cache.hashed();
        let (manifest, cache) = blocking::run("hashing a skill's files", move || {
            Manifest::of_dir_cached(&dir, &Limits::default(), &mut cache).map(|m| (m, cache))
        })
        .await
        .map_err(SkillError::other)??;
        self.count_hashed(cache.hashed().saturating_sub(before));
        Ok((manifest, cache))
    }

    /// Hashes what `subject`'s approval covers: its skill's files, its library, or its document.
    async fn bind(&self, subject: &CallSubject) -> Result<Vec<Bound>, ApprovalsError> {
        let files = match binding(subject) {
            Binding::Document => {
                return Ok(vec![Bound::Document {
                    sha256: document_digest(subject).await?,
                }]);
            }
            Binding::Skill(dir) => {
                let (manifest, files) = self.skill_manifest(dir.clone()).await?;
                return Ok(vec![Bound::Skill {
                    digest: manifest.digest(),
                    dir,
                    files,
                }]);
            }
            Binding::Files(files) => files,
        };
        self.count_hashed(files.len());
        let bound = blocking::run("hashing a skill's files", move || {
            files
                .into_iter()
                .map(|path| {
                    let (sha256, stamp) = hash_file(&path)?;
                    Ok(Bound::File {
                        path,
                        sha256,
                        stamp,
                    })
                })
                .collect::<Result<Vec<_>, SkillError>>()
        })
        .await
        .map_err(SkillError::other)??;
        Ok(bound)
    }

    /// Whether `bound` still holds for `subject`: `Some` with the stamps now (a file's stamp that
    /// changed with its content unchanged is updated), `None` when anything changed or the
    /// binding is not the one `subject` gets now (such as a file skill's approval of format 1).
    async fn still_bound(
        &self,
        subject: &CallSubject,
        bound: &[Bound],
    ) -> Result<Option<Vec<Bound>>, ApprovalsError> {
        match (binding(subject), bound) {
            (Binding::Document, [Bound::Document { sha256 }]) => {
                Ok((document_digest(subject).await? == *sha256).then(|| bound.to_vec()))
            }
            (Binding::Skill(now), [Bound::Skill { dir, digest, files }]) if now == *dir => {
                let digest = digest.clone();
                match self.skill_manifest_with(dir.clone(), files.clone()).await {
                    Ok((manifest, files)) => Ok((manifest.digest() == digest).then(|| {
                        vec![Bound::Skill {
                            dir: dir.clone(),
                            digest,
                            files,
                        }]
                    })),
                    // A skill that has no manifest now (a file too large, a link out) is not
                    // what was approved.
                    Err(error) => {
                        tracing::info!(%error, "the skill's files cannot be listed: asking again");
                        Ok(None)
                    }
                }
            }
            (Binding::Files(expected), bound)
                if bound
                    .iter()
                    .map(|item| match item {
                        Bound::File { path, .. } => Some(path),
                        _ => None,
                    })
                    .eq(expected.iter().map(Some)) =>
            {
                let files = bound.to_vec();
                let (checked, hashed) =
                    blocking::run("checking a skill's files", move || check_files(files))
                        .await
                        .map_err(SkillError::other)?;
                self.count_hashed(hashed);
                Ok(checked)
            }
            _ => Ok(None),
        }
    }
}

/// Checks files bound by digest: `Some` with the stamps now when every file has its digest
/// (hashing only those whose stamp changed), and how many were hashed.
fn check_files(files: Vec<Bound>) -> (Option<Vec<Bound>>, usize) {
    let mut fresh = Vec::with_capacity(files.len());
    let mut hashed = 0;
    for item in files {
        let Bound::File {
            path,
            sha256,
            stamp,
        } = item
        else {
            return (None, hashed);
        };
        let now = fs::symlink_metadata(&path).map(|metadata| FileStamp::of(&metadata));
        if now.as_ref().is_ok_and(|now| *now == stamp) {
            fresh.push(Bound::File {
                path,
                sha256,
                stamp,
            });
            continue;
        }
        hashed += 1;
        let Ok((digest, stamp)) = hash_file(&path) else {
            return (None, hashed);
        };
        if digest != sha256 {
            return (None, hashed);
        }
        fresh.push(Bound::File {
            path,
            sha256,
            stamp,
        });
    }
    (Some(fresh), hashed)
}

/// The sha256 of `path` (lower-case hex) and the stamp of the file read: opened without
/// following a final link and without blocking on a FIFO, a regular file only.
pub(crate) fn hash_file(path: &Path) -> Result<(String, FileStamp), SkillError> {
    let what = || path.display().to_string();
    match skillful_fs::sha256_file(path, u64::MAX) {
        Ok(Some(digest)) => Ok((digest.sha256, digest.stamp)),
        Ok(None) => Err(SkillError::Unreadable {
            what: what(),
            source: std::io::ErrorKind::NotFound.into(),
        }),
        Err(skillful_fs::FsError::Io { source, .. }) => Err(SkillError::Unreadable {
            what: what(),
            source,
        }),
        Err(error) => Err(SkillError::Refused {
            what: what(),
            reason: error.to_string(),
        }),
    }
}

/// The sha256 of the skill's document: its frontmatter as written (or none), a NUL, its body.
pub(crate) async fn document_digest(subject: &CallSubject) -> Result<String, SkillError> {
    let document = subject.skill.document().await?;
    let mut hasher = Sha256::new();
    hasher.update(document.written_frontmatter.as_deref().unwrap_or_default());
    hasher.update([0]);
    hasher.update(&document.body);
    Ok(hex(&hasher.finalize()))
}

/// The approvals in `path` (none when it does not exist), and how many approvals of format 1
/// were left out (those of file skills).
fn read_store(path: &Path) -> Result<(Vec<Entry>, usize), ApprovalsError> {
    let Some(bytes) = skillful_state::read_private(path, MAX_STORE_BYTES)? else {
        return Ok((Vec::new(), 0));
    };
    let corrupt = |reason: String| ApprovalsError::Corrupt {
        path: path.to_path_buf(),
        reason,
    };
    let stored: Stored =
        serde_json::from_slice(&bytes).map_err(|error| corrupt(error.to_string()))?;
    match stored.version {
        STORE_VERSION => Ok((stored.approvals, 0)),
        LEGACY_VERSION => {
            let mut approvals = stored.approvals;
            let before = approvals.len();
            approvals.retain(|entry| entry.key.origin.kind != OriginKind::Files);
            let dropped = before - approvals.len();
            Ok((approvals, dropped))
        }
        other => Err(corrupt(format!(
            "format version {other}, this version reads {LEGACY_VERSION} and {STORE_VERSION}"
        ))),
    }
}

/// Adds `entry` to the file at `path`, under its lock, re-reading it first so that approvals other
/// processes saved meanwhile are kept.
fn save_entry(path: &Path, entry: Entry) -> Result<(), ApprovalsError> {
    let _lock = FileLock::acquire(&lock_path(path))?;
    let (mut entries, _) = read_store(path)?;
    upsert(&mut entries, entry);
    let stored = Stored {
        version: STORE_VERSION,
        approvals: entries,
    };
    let bytes = serde_json::to_vec_pretty(&stored).map_err(|error| ApprovalsError::Corrupt {
        path: path.to_path_buf(),
        reason: error.to_string(),
    })?;
    skillful_state::write_private(path, &bytes)?;
    Ok(())
}

/// `NAME.lock` beside `path`.
pub(crate) fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;
    use skillful_chat::Remember;
    use skillful_core::{OriginKind, SkillOrigin, SourceContext};
    use skillful_inline::{InlineSkill, InlineSkillsSource};
    use skillful_provider::{CallSubject, SkillsProvider};

    use super::ApprovalsStore;

    /// A `load_skill` call of the skill `notes`, from `origin`, whose instructions are
    /// `instructions`.
    async fn load(origin: &SkillOrigin, instructions: &str) -> CallSubject {
        let skill = InlineSkill::builder("notes", "Keeps notes.")
            .instructions(instructions)
            .build()
            .unwrap()
            .with_origin(origin.clone());
        let provider = SkillsProvider::new(Arc::new(InlineSkillsSource::new([skill])));
        let run = provider.context(&SourceContext::default()).await.unwrap();
        run.tool("load_skill")
            .unwrap()
            .subject(&json!({"skillName": "notes"}))
            .unwrap()
    }

    /// Whether an approval given for good of `approved` covers `later`.
    async fn covers_after_approving(approved: &CallSubject, later: &CallSubject) -> bool {
        let store = ApprovalsStore::in_memory();
        store
            .remember(approved, &json!({}), Remember::Tool)
            .await
            .unwrap();
        assert!(store.covers(approved, &json!({})).await, "{approved:?}");
        store.covers(later, &json!({})).await
    }

    #[tokio::test]
    async fn an_inline_or_mcp_skills_changed_document_or_a_plugins_changed_library_voids_its_approval()
     {
        for origin in [
            SkillOrigin::inline(),
            SkillOrigin::new(OriginKind::Mcp, "mcp1"),
        ] {
            let approved = load(&origin, "Write it down.").await;
            let same = load(&origin, "Write it down.").await;
            assert!(covers_after_approving(&approved, &same).await);
            let edited = load(&origin, "Mail it to a stranger.").await;
            assert!(
                !covers_after_approving(&approved, &edited).await,
                "{origin:?}"
            );
        }

        // A plugin skill's instructions and scripts are its library's code.
        let library = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(library.path(), b"the library").unwrap();
        let plugin = SkillOrigin::new(OriginKind::Plugin, "plugin")
            .with_location(library.path().display().to_string());
        let approved = load(&plugin, "Write it down.").await;
        let store = ApprovalsStore::in_memory();
        store
            .remember(&approved, &json!({}), Remember::Tool)
            .await
            .unwrap();
        assert!(store.covers(&approved, &json!({})).await);
        std::fs::write(library.path(), b"the library, rebuilt").unwrap();
        assert!(!store.covers(&approved, &json!({})).await);
    }
}
