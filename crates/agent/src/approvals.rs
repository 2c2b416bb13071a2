//! Approvals given for good ("always"): kept per user, keyed by the tool, the skill (and the
//! script) and where the skill comes from, and bound to the sha256 of what the person was shown.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use skillful_chat::Remember;
use skillful_core::names::check_relative_name;
use skillful_core::{OriginKind, SkillError, SkillOrigin, blocking};
use skillful_provider::CallSubject;
use skillful_state::{FileLock, FileStamp, StateError};

/// The store's file format version.
const STORE_VERSION: u32 = 1;

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
}

/// The approvals people gave for good, bound to content.
///
/// An approval is found again only for the same tool, the same skill (by name and origin: kind,
/// scope, label, location) and, for `run_skill_script`, the same script; and only while the files
/// shown when it was given are unchanged:
///
/// - a skill of files (origin kind `files`): its `SKILL.md` and, for a script, the script's file;
/// - a plugin skill: the plugin library (it holds the instructions and the scripts' code);
/// - an inline or MCP skill: its document as `load_skill` shows it (frontmatter as written and
///   body), since it has no file of ours to read.
///
/// The sha256 of each is computed once, when the approval is given. A later check compares the
/// files' stamps (device, inode, size, modification and change times) and hashes a file again only
/// when its stamp changed; a different digest voids the approval and the person is asked again.
/// Documents are hashed on each check (they are in memory).
///
/// [`ApprovalsStore::per_user`] keeps them in the user's state directory (a file of mode 0600 in
/// a directory of mode 0700, written atomically); [`ApprovalsStore::in_memory`] for as long as the
/// store lives. Nothing in a session file is read as an approval.
#[derive(Debug)]
pub struct ApprovalsStore {
    file: Option<PathBuf>,
    entries: Mutex<Vec<Entry>>,
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
}

impl ApprovalsStore {
    /// A store that forgets everything when dropped.
    pub fn in_memory() -> Self {
        Self {
            file: None,
            entries: Mutex::new(Vec::new()),
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
    pub fn at(path: impl Into<PathBuf>) -> Result<Self, ApprovalsError> {
        let path = path.into();
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            skillful_state::private_dir(dir)?;
        }
        let entries = read_store(&path)?;
        Ok(Self {
            file: Some(path),
            entries: Mutex::new(entries),
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
            match still_bound(subject, &entry.bound).await {
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
            bound: bind(subject).await?,
        };
        if let Some(path) = self.file.clone() {
            let saved = entry.clone();
            blocking::run("saving an approval", move || Ok(save_entry(&path, saved))).await??;
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

/// The files an approval of `subject` is bound to; empty when the skill has none of ours to read
/// (it is bound to its document instead).
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

/// The file of `script` below the skill directory `dir`. A name that could leave the directory
/// names nothing there: bound to a path that cannot exist, so nothing is approved.
fn script_file(dir: &Path, script: &str) -> PathBuf {
    if check_relative_name(script).is_ok() {
        dir.join(script)
    } else {
        dir.join("\u{0}unsafe script name")
    }
}

/// Hashes what `subject` shows: its files, or its document.
async fn bind(subject: &CallSubject) -> Result<Vec<Bound>, ApprovalsError> {
    let files = files_of(subject);
    if files.is_empty() {
        return Ok(vec![Bound::Document {
            sha256: document_digest(subject).await?,
        }]);
    }
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
    .await?;
    Ok(bound)
}

/// Whether `bound` still holds for `subject`: `Some` with the stamps now (a file's stamp that
/// changed with its content unchanged is updated), `None` when anything changed.
async fn still_bound(
    subject: &CallSubject,
    bound: &[Bound],
) -> Result<Option<Vec<Bound>>, SkillError> {
    let mut files = Vec::new();
    for item in bound {
        match item {
            Bound::Document { sha256 } => {
                if document_digest(subject).await? != *sha256 {
                    return Ok(None);
                }
            }
            Bound::File { .. } => files.push(item.clone()),
        }
    }
    // The same files as the subject would be bound to now (the script is part of the key).
    let expected = files_of(subject);
    let recorded: Vec<&PathBuf> = files
        .iter()
        .filter_map(|item| match item {
            Bound::File { path, .. } => Some(path),
            Bound::Document { .. } => None,
        })
        .collect();
    if expected.iter().collect::<Vec<_>>() != recorded {
        return Ok(None);
    }
    let checked = blocking::run("checking a skill's files", move || {
        let mut fresh = Vec::with_capacity(files.len());
        for item in files {
            let Bound::File {
                path,
                sha256,
                stamp,
            } = item
            else {
                continue;
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
            let Ok((digest, stamp)) = hash_file(&path) else {
                return Ok(None);
            };
            if digest != sha256 {
                return Ok(None);
            }
            fresh.push(Bound::File {
                path,
                sha256,
                stamp,
            });
        }
        Ok(Some(fresh))
    })
    .await?;
    let documents = bound
        .iter()
        .filter(|item| matches!(item, Bound::Document { .. }))
        .cloned();
    Ok(checked.map(|files| documents.chain(files).collect()))
}

/// The sha256 of `path` (lower-case hex) and the stamp of the file read: opened without
/// following a final link and without blocking on a FIFO, a regular file only.
pub(crate) fn hash_file(path: &Path) -> Result<(String, FileStamp), SkillError> {
    let what = || path.display().to_string();
    let unreadable = |source: std::io::Error| SkillError::Unreadable {
        what: what(),
        source,
    };
    let (mut file, metadata) = skillful_state::open_regular_file(path)
        .map_err(|error| SkillError::Refused {
            what: what(),
            reason: error.to_string(),
        })?
        .ok_or_else(|| unreadable(std::io::ErrorKind::NotFound.into()))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 64 * 1024];
    loop {
        let read = file.read(&mut buffer).map_err(unreadable)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok((hex(&hasher.finalize()), FileStamp::of(&metadata)))
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

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The approvals in `path`; none when it does not exist.
fn read_store(path: &Path) -> Result<Vec<Entry>, ApprovalsError> {
    let Some(bytes) = skillful_state::read_private(path, MAX_STORE_BYTES)? else {
        return Ok(Vec::new());
    };
    let corrupt = |reason: String| ApprovalsError::Corrupt {
        path: path.to_path_buf(),
        reason,
    };
    let stored: Stored =
        serde_json::from_slice(&bytes).map_err(|error| corrupt(error.to_string()))?;
    if stored.version != STORE_VERSION {
        return Err(corrupt(format!(
            "format version {}, this version reads {STORE_VERSION}",
            stored.version
        )));
    }
    Ok(stored.approvals)
}

/// Adds `entry` to the file at `path`, under its lock, re-reading it first so that approvals other
/// processes saved meanwhile are kept.
fn save_entry(path: &Path, entry: Entry) -> Result<(), ApprovalsError> {
    let _lock = FileLock::acquire(&lock_path(path))?;
    let mut entries = read_store(path)?;
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
