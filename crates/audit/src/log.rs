//! The file sink: one JSON line per record in the user's private state directory, hash-chained,
//! flushed to disk per record (at once, or by a later sync), rotated by size; reading and
//! verifying it.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

use serde_json::Value;
use skillful_fs::{FileLock, FileStamp};
use skillful_state::private_dir;

use crate::canonical::json_digest;
use crate::error::AuditError;
use crate::record::{Actor, AuditEvent, AuditRecord, EventKind, current_user};
use crate::time::format_time;
use skillful_fs::sha256_hex;

/// The file records are appended to.
const CURRENT: &str = "audit.jsonl";
/// The lock file serialising writers (processes and threads).
const LOCK: &str = "audit.lock";
/// The default size past which the current file is rotated.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 8 << 20;
/// The default number of rotated files kept.
pub const DEFAULT_MAX_FILES: usize = 16;
/// Arguments larger than this (as JSON) are kept as a digest only.
pub const MAX_ARGS_BYTES: usize = 16 << 10;
/// Reasons are cut to this many characters.
const MAX_REASON_CHARS: usize = 1024;
/// Any other text of a record (a session or call id a client chose, a name) longer than this
/// many characters keeps this many and the digest of the whole: one client's long ids cannot
/// rotate everyone's history away.
pub const MAX_FIELD_CHARS: usize = 200;
/// Where the last rotation left the chain: the number and digest of the newest record it
/// removed, so that [`AuditLog::verify`] tells records rotated away from records deleted.
const ANCHOR: &str = "rotation-anchor.json";

/// Where audit records go. The file sink ([`FileAuditSink`]) is the one `skills` uses; a host can
/// send them elsewhere (a SIEM, a database) with its own.
pub trait AuditSink: Send + Sync + std::fmt::Debug {
    /// Appends one record of `event`. It is durable (on the disk) when this returns.
    ///
    /// # Errors
    /// The record could not be written; the caller reports it (the run goes on).
    fn record(&self, event: AuditEvent) -> Result<(), AuditError>;

    /// Appends one record of `event` so that it outlives the host's process (a `kill -9` right
    /// after loses nothing) but not yet the machine: it is on the disk once a later
    /// [`AuditSink::sync`] returns. For a host that must not wait for the disk where it
    /// audits (an agent's tool call), and syncs off that path.
    ///
    /// The default is [`AuditSink::record`], for a sink whose records are durable at once.
    ///
    /// # Errors
    /// As [`AuditSink::record`].
    fn append(&self, event: AuditEvent) -> Result<(), AuditError> {
        self.record(event)
    }

    /// Puts on the disk every record whose [`AuditSink::append`] returned before this call. The
    /// default has nothing to do.
    ///
    /// # Errors
    /// The records could not be flushed; they may be lost if the machine stops.
    fn sync(&self) -> Result<(), AuditError> {
        Ok(())
    }
}

/// The end of the chain: the last record's number and digest, and where the file ended.
#[derive(Debug, Clone)]
struct Head {
    next_seq: u64,
    prev: Option<String>,
    /// The current file's stamp when the head was read (or last written by this log), to tell
    /// whether another process wrote it since.
    file: FileStamp,
}

/// The current file as opened: its stamp and its length.
#[derive(Debug, Clone, Copy)]
struct Opened {
    stamp: FileStamp,
    len: u64,
}

/// The audit log in a directory: `audit.jsonl`, then rotated files `audit-NNNNNNNNNNNN.jsonl`
/// (named by the number of the first record after them), every file mode 0600 in a directory of
/// mode 0700.
///
/// Each record carries `prev`, the sha256 of the previous record's canonical JSON, and `seq`,
/// its number; the chain runs across rotated files. Writers (threads and processes) take a lock
/// and append one line with one `write`; [`AuditSink::record`] then flushes it to disk
/// (`fdatasync`) before returning, [`AuditSink::append`] leaves that to the next
/// [`AuditSink::sync`] (which never holds up a writer). A file is flushed before it is rotated.
/// A line cut short by a crash is found by the next writer, cut off and replaced by a
/// [`EventKind::TornTail`] record (with a warning); [`AuditLog::verify`] reports one it finds.
#[derive(Debug)]
pub struct FileAuditSink {
    dir: PathBuf,
    max_file_bytes: u64,
    max_files: usize,
    head: Mutex<Option<Head>>,
    /// The file the last [`AuditSink::append`] wrote to, until a sync flushes it.
    unsynced: Mutex<Option<Written>>,
    /// Held while syncing: a sync returns only once the one before it has flushed.
    syncing: Mutex<()>,
}

/// A file a record was appended to, not yet flushed to disk.
#[derive(Debug)]
struct Written {
    file: File,
    path: PathBuf,
}

impl Written {
    /// Flushes the file's records to disk.
    fn sync(&self) -> Result<(), AuditError> {
        self.file
            .sync_data()
            .map_err(|error| AuditError::io(&self.path, error))
    }
}

impl FileAuditSink {
    /// The user's log: `audit/` in the per-user state directory (on Linux
    /// `$XDG_STATE_HOME/skillful/audit`, default `~/.local/state/skillful/audit`).
    ///
    /// # Errors
    /// As [`FileAuditSink::at`]; no home directory.
    pub fn per_user() -> Result<Self, AuditError> {
        Self::per_user_log(UserLog::Agent)
    }

    /// One of the user's logs ([`UserLog`]): `audit/` or `audit-serve/` in the per-user state
    /// directory.
    ///
    /// # Errors
    /// As [`FileAuditSink::at`]; no home directory.
    pub fn per_user_log(log: UserLog) -> Result<Self, AuditError> {
        Self::at(user_dir(log)?)
    }

    /// The log in `dir`, created (mode 0700) if missing; refused when it is a symbolic link or
    /// another user's.
    ///
    /// # Errors
    /// [`AuditError::State`] for an unsafe directory.
    pub fn at(dir: impl Into<PathBuf>) -> Result<Self, AuditError> {
        let dir = dir.into();
        private_dir(&dir)?;
        Ok(Self {
            dir,
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            max_files: DEFAULT_MAX_FILES,
            head: Mutex::new(None),
            unsynced: Mutex::new(None),
            syncing: Mutex::new(()),
        })
    }

    /// Rotates the current file once it would grow past `bytes`, keeping `files` rotated files
    /// (the oldest are deleted).
    #[must_use]
    pub fn rotate_at(mut self, bytes: u64, files: usize) -> Self {
        self.max_file_bytes = bytes.max(1);
        self.max_files = files;
        self
    }

    /// The log's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Appends one record of `event` stamped `time` instead of now: for events recorded after
    /// they happened (brought over from another log, or replayed in order). Times must not go
    /// back from the last record's: [`AuditLog::verify`] reports a record whose time does.
    ///
    /// # Errors
    /// As [`AuditSink::record`].
    pub fn record_at(&self, event: AuditEvent, time: SystemTime) -> Result<(), AuditError> {
        self.write(event, Some(time))?.sync()
    }

    /// Appends `event` stamped `time`, or the time it is written (read under the lock, so that
    /// writers in several processes never write times out of order); the record is not flushed
    /// to disk yet.
    fn write(&self, event: AuditEvent, time: Option<SystemTime>) -> Result<Written, AuditError> {
        let _lock = FileLock::acquire(&self.dir.join(LOCK))?;
        let mut cached = self.head.lock().unwrap_or_else(PoisonError::into_inner);
        let path = self.dir.join(CURRENT);
        let mut file = open_append(&path)?;
        let identity = identity_of(&file, &path)?;
        let mut head = match cached.take() {
            Some(head) if head.file == identity.stamp => head,
            _ => self.read_head(&mut file, &path, identity, time)?,
        };
        let record = AuditRecord {
            seq: head.next_seq,
            time: format_time(time.unwrap_or_else(SystemTime::now)),
            prev: head.prev.take(),
            event: bounded(event),
        };
        let value = serde_json::to_value(&record).map_err(|error| AuditError::Corrupt {
            path: path.clone(),
            line: 0,
            reason: error.to_string(),
        })?;
        let mut line = value.to_string();
        line.push('\n');
        if identity.len > 0 && identity.len + line.len() as u64 > self.max_file_bytes {
            // Records appended but not synced yet go to the disk before their file is renamed:
            // a later sync flushes the new file only.
            file.sync_data()
                .map_err(|error| AuditError::io(&path, error))?;
            drop(file);
            self.rotate(&path, record.seq)?;
            file = open_append(&path)?;
        }
        file.write_all(line.as_bytes())
            .map_err(|error| AuditError::io(&path, error))?;
        *cached = Some(Head {
            next_seq: record.seq + 1,
            prev: Some(json_digest(&value)),
            file: identity_of(&file, &path)?.stamp,
        });
        Ok(Written { file, path })
    }

    /// The chain's end, read from the files; a torn last line is cut off and recorded.
    fn read_head(
        &self,
        file: &mut File,
        path: &Path,
        identity: Opened,
        stamp: Option<SystemTime>,
    ) -> Result<Head, AuditError> {
        let (complete, torn) = tail(file, path, identity.len)?;
        if let Some(torn) = torn {
            tracing::warn!(
                "{}: the last line is torn ({} bytes, a crash while writing); it is cut off and \
                 recorded as a torn_tail record",
                path.display(),
                torn.len()
            );
            file.set_len(identity.len - torn.len() as u64)
                .and_then(|()| file.sync_data())
                .map_err(|error| AuditError::io(path, error))?;
            let head = self.head_after(complete, path, identity_of(file, path)?)?;
            let mut event =
                AuditEvent::new(EventKind::TornTail, current_user(), "", Actor::Runtime);
            event.reason = Some(format!(
                "{} bytes cut off the end of {CURRENT}, sha256 {}",
                torn.len(),
                sha256_hex(&torn)
            ));
            let record = AuditRecord {
                seq: head.next_seq,
                // Not after the record that follows it.
                time: format_time(stamp.unwrap_or_else(SystemTime::now)),
                prev: head.prev,
                event,
            };
            let value = serde_json::to_value(&record).unwrap_or(Value::Null);
            let mut line = value.to_string();
            line.push('\n');
            file.write_all(line.as_bytes())
                .and_then(|()| file.sync_data())
                .map_err(|error| AuditError::io(path, error))?;
            return Ok(Head {
                next_seq: record.seq + 1,
                prev: Some(json_digest(&value)),
                file: identity_of(file, path)?.stamp,
            });
        }
        self.head_after(complete, path, identity)
    }

    /// The head after the last complete line `last` of the current file (or, when it has none,
    /// of the newest rotated file, or, when every file is gone, of the last rotation's anchor).
    fn head_after(
        &self,
        last: Option<Vec<u8>>,
        path: &Path,
        identity: Opened,
    ) -> Result<Head, AuditError> {
        let end = match last {
            Some(line) => Some(record_end(&line, path)?),
            None => match rotated_files(&self.dir)?.pop() {
                Some(rotated) => last_record(&rotated)?,
                None => read_anchor(&self.dir)?.map(|anchor| (anchor.seq, anchor.digest)),
            },
        };
        Ok(match end {
            Some((seq, digest)) => Head {
                next_seq: seq + 1,
                prev: Some(digest),
                file: identity.stamp,
            },
            None => Head {
                next_seq: 0,
                prev: None,
                file: identity.stamp,
            },
        })
    }

    /// Renames the current file to `audit-{next}.jsonl` and deletes the oldest rotated files
    /// past the limit.
    fn rotate(&self, path: &Path, next: u64) -> Result<(), AuditError> {
        let rotated = self.dir.join(format!("audit-{next:012}.jsonl"));
        fs::rename(path, &rotated).map_err(|error| AuditError::io(&rotated, error))?;
        let files = rotated_files(&self.dir)?;
        let excess = files.len().saturating_sub(self.max_files);
        if excess == 0 {
            return Ok(());
        }
        // The anchor first: a crash before the files go leaves an anchor of records still
        // here, which verifies; never files gone without one.
        if let Some((seq, digest)) = last_record(&files[excess - 1])? {
            let anchor = serde_json::json!({"seq": seq, "digest": digest});
            let path = self.dir.join(ANCHOR);
            skillful_state::write_private(&path, anchor.to_string().as_bytes())?;
        }
        for old in &files[..excess] {
            fs::remove_file(old).map_err(|error| AuditError::io(old, error))?;
        }
        Ok(())
    }
}

impl AuditSink for FileAuditSink {
    fn record(&self, event: AuditEvent) -> Result<(), AuditError> {
        self.write(event, None)?.sync()
    }

    fn append(&self, event: AuditEvent) -> Result<(), AuditError> {
        let written = self.write(event, None)?;
        // Any earlier file left here holds records of the same file (one sync flushes them
        // all) or of a rotated one (flushed before it was rotated).
        *self.unsynced.lock().unwrap_or_else(PoisonError::into_inner) = Some(written);
        Ok(())
    }

    fn sync(&self) -> Result<(), AuditError> {
        let _turn = self.syncing.lock().unwrap_or_else(PoisonError::into_inner);
        let written = self
            .unsynced
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        written.map_or(Ok(()), |written| written.sync())
    }
}

/// The user's audit directory.
/// Which of the user's audit logs: the agent's, where `run`, `chat` and `eval` record, or
/// `skills serve`'s, kept apart because a server's clients may be anyone who can reach it:
/// what they send fills and rotates only the server's own log, never the history of the
/// user's own runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UserLog {
    /// `audit/`: the agent's tool calls.
    #[default]
    Agent,
    /// `audit-serve/`: the skill calls `skills serve` answered.
    Serve,
}

impl UserLog {
    /// Both logs, the agent's first.
    pub const ALL: [UserLog; 2] = [UserLog::Agent, UserLog::Serve];

    /// The log's directory name in the per-user state directory.
    pub fn dir_name(self) -> &'static str {
        match self {
            UserLog::Agent => "audit",
            UserLog::Serve => "audit-serve",
        }
    }
}

fn user_dir(log: UserLog) -> Result<PathBuf, AuditError> {
    Ok(skillful_state::Dirs::per_user()?
        .state()
        .join(log.dir_name()))
}

/// `event` with its arguments and reason within bounds.
fn bounded(mut event: AuditEvent) -> AuditEvent {
    if event
        .args
        .as_ref()
        .is_some_and(|args| args.to_string().len() > MAX_ARGS_BYTES)
    {
        event.args = None;
    }
    if let Some(reason) = &mut event.reason
        && reason.chars().count() > MAX_REASON_CHARS
    {
        *reason = reason.chars().take(MAX_REASON_CHARS).collect::<String>() + "…";
    }
    for text in [&mut event.user, &mut event.host] {
        bound_field(text);
    }
    let optional = [
        &mut event.session,
        &mut event.tool,
        &mut event.call_id,
        &mut event.script,
        &mut event.script_digest,
        &mut event.resource,
        &mut event.risk,
        &mut event.args_digest,
        &mut event.decision,
        &mut event.decided_by,
        &mut event.sandbox,
        &mut event.result_digest,
    ];
    for text in optional.into_iter().flatten() {
        bound_field(text);
    }
    if let Some(skill) = &mut event.skill {
        for text in [&mut skill.name, &mut skill.origin, &mut skill.scope] {
            bound_field(text);
        }
        for text in [&mut skill.location, &mut skill.digest]
            .into_iter()
            .flatten()
        {
            bound_field(text);
        }
    }
    event
}

/// `text` cut to [`MAX_FIELD_CHARS`] characters with the sha256 of the whole after them, when
/// it is longer.
fn bound_field(text: &mut String) {
    if text.chars().count() > MAX_FIELD_CHARS {
        let digest = sha256_hex(text.as_bytes());
        *text = format!(
            "{}… (sha256 {digest})",
            text.chars().take(MAX_FIELD_CHARS).collect::<String>()
        );
    }
}

fn open_append(path: &Path) -> Result<File, AuditError> {
    let mut options = OpenOptions::new();
    options.create(true).append(true).read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    let file = options
        .open(path)
        .map_err(|error| AuditError::io(path, error))?;
    let metadata = file
        .metadata()
        .map_err(|error| AuditError::io(path, error))?;
    if !metadata.is_file() {
        return Err(AuditError::State(skillful_state::StateError::Fs(
            skillful_fs::FsError::unsafe_path(path, "is not a regular file"),
        )));
    }
    Ok(file)
}

/// The opened file's stamp and length.
fn identity_of(file: &File, path: &Path) -> Result<Opened, AuditError> {
    let metadata = file
        .metadata()
        .map_err(|error| AuditError::io(path, error))?;
    Ok(Opened {
        stamp: FileStamp::of(&metadata),
        len: metadata.len(),
    })
}

/// The last complete line of a file (without its newline), and the bytes after it.
type Tail = (Option<Vec<u8>>, Option<Vec<u8>>);

/// The last complete line of a file of `length` bytes (without its newline), and the bytes after
/// it when the file does not end with a newline (a torn line).
fn tail(file: &mut File, path: &Path, length: u64) -> Result<Tail, AuditError> {
    let io = |error| AuditError::io(path, error);
    let mut window = 64 * 1024_u64;
    loop {
        let start = length.saturating_sub(window);
        file.seek(SeekFrom::Start(start)).map_err(io)?;
        let mut bytes = Vec::with_capacity((length - start) as usize);
        Read::by_ref(file)
            .take(length - start)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        let (body, torn) = match bytes.iter().rposition(|byte| *byte == b'\n') {
            Some(end) => (&bytes[..end], bytes[end + 1..].to_vec()),
            None if start == 0 => (&bytes[..0], bytes.clone()),
            None => {
                window *= 4;
                continue;
            }
        };
        let torn = (!torn.is_empty()).then_some(torn);
        if body.is_empty() && start == 0 {
            return Ok((None, torn));
        }
        match body.iter().rposition(|byte| *byte == b'\n') {
            Some(begin) => return Ok((Some(body[begin + 1..].to_vec()), torn)),
            None if start == 0 => return Ok((Some(body.to_vec()), torn)),
            None => window *= 4,
        }
    }
}

/// The rotated files of `dir`, oldest first.
fn rotated_files(dir: &Path) -> Result<Vec<PathBuf>, AuditError> {
    let mut files = Vec::new();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(files),
        Err(error) => return Err(AuditError::io(dir, error)),
    };
    for entry in entries {
        let entry = entry.map_err(|error| AuditError::io(dir, error))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let is_rotated = name
            .strip_prefix("audit-")
            .and_then(|rest| rest.strip_suffix(".jsonl"))
            .is_some_and(|number| number.len() == 12 && number.bytes().all(|b| b.is_ascii_digit()));
        if is_rotated && entry.file_type().is_ok_and(|kind| kind.is_file()) {
            files.push(entry.path());
        }
    }
    files.sort();
    Ok(files)
}

/// The number and digest of the record on `line` of the file at `path`.
fn record_end(line: &[u8], path: &Path) -> Result<(u64, String), AuditError> {
    let value: Value = serde_json::from_slice(line).map_err(|error| AuditError::Corrupt {
        path: path.to_owned(),
        line: 0,
        reason: format!("its last line: {error}"),
    })?;
    let seq = value
        .get("seq")
        .and_then(Value::as_u64)
        .ok_or_else(|| AuditError::Corrupt {
            path: path.to_owned(),
            line: 0,
            reason: "its last line has no `seq`".to_owned(),
        })?;
    Ok((seq, json_digest(&value)))
}

/// The number and digest of the last complete record of the file at `path`, if it has one.
fn last_record(path: &Path) -> Result<Option<(u64, String)>, AuditError> {
    let mut file = File::open(path).map_err(|error| AuditError::io(path, error))?;
    let length = file
        .metadata()
        .map_err(|error| AuditError::io(path, error))?
        .len();
    match tail(&mut file, path, length)?.0 {
        Some(line) => record_end(&line, path).map(Some),
        None => Ok(None),
    }
}

/// The newest record the last rotation removed: its number and digest.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
struct Anchor {
    seq: u64,
    digest: String,
}

/// The last rotation's anchor in `dir`, if a rotation removed files.
fn read_anchor(dir: &Path) -> Result<Option<Anchor>, AuditError> {
    let path = dir.join(ANCHOR);
    let Some(bytes) = skillful_state::read_private(&path, 4096)? else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|error| AuditError::Corrupt {
            path,
            line: 1,
            reason: error.to_string(),
        })
}

/// The largest file of the log read.
const MAX_READ_BYTES: u64 = 1 << 30;

/// One line of the log as read: where it is, what it says.
#[derive(Debug, Clone)]
pub struct Line {
    /// The file.
    pub path: PathBuf,
    /// The line, counted from 1.
    pub line: usize,
    /// The record, or why the line is not one.
    pub record: Result<(AuditRecord, Value), String>,
    /// Whether it is the file's last line and has no newline (torn by a crash).
    pub torn: bool,
}

/// The audit log read back (for `skills audit`, `--verify`, `skills stats`).
#[derive(Debug, Clone)]
pub struct AuditLog {
    dir: PathBuf,
}

/// The record before the one being checked.
struct Previous {
    seq: u64,
    digest: String,
    time: String,
    path: PathBuf,
    line: usize,
}

/// How a record fails to follow the one before it.
enum ChainBreak {
    /// This record is the broken one: what is wrong with it.
    Here(String),
    /// The record before it is (altered after the fact).
    Before(Broken),
}

impl Previous {
    /// Whether `record` follows this one: the next number, the digest of this one, no earlier
    /// time.
    fn chain_break(&self, record: &AuditRecord) -> Option<ChainBreak> {
        let (seq, last_seq) = (record.seq, self.seq);
        if seq != last_seq + 1 {
            let problem = if seq <= last_seq {
                format!("record {seq} is out of order (it follows record {last_seq})")
            } else if seq == last_seq + 2 {
                format!(
                    "record {} is missing (record {seq} follows record {last_seq})",
                    last_seq + 1
                )
            } else {
                format!(
                    "records {}–{} are missing (record {seq} follows record {last_seq})",
                    last_seq + 1,
                    seq - 1
                )
            };
            return Some(ChainBreak::Here(problem));
        }
        if record.prev.as_deref() != Some(self.digest.as_str()) {
            return Some(ChainBreak::Before(Broken {
                path: self.path.clone(),
                line: self.line,
                seq: Some(last_seq),
                problem: format!(
                    "record {last_seq} was altered (or the digest record {seq} \
                     holds for it): they no longer chain"
                ),
            }));
        }
        if record.time < self.time {
            return Some(ChainBreak::Here(format!(
                "record {seq}'s time goes back from record {last_seq}'s"
            )));
        }
        None
    }
}

/// What is wrong with the log's first record `record` (number `seq`), given the last
/// rotation's `anchor`: records before it gone and no rotation accounting for them.
fn gone_before(seq: u64, record: &AuditRecord, anchor: Option<&Anchor>) -> Option<String> {
    if seq == 0 {
        return None;
    }
    match anchor {
        None => Some(format!(
            "records 0–{} are gone and no rotation removed them (they were deleted)",
            seq - 1
        )),
        Some(anchor) if anchor.seq + 1 == seq => {
            (record.prev.as_deref() != Some(anchor.digest.as_str())).then(|| {
                format!(
                    "record {seq} does not follow record {}, the last one a rotation removed",
                    anchor.seq
                )
            })
        }
        // A rotation stopped before its files went: the anchor's record is checked on the way.
        Some(anchor) if anchor.seq >= seq => None,
        Some(anchor) => Some(format!(
            "records {}–{} are gone: a rotation removed records up to {}, the rest were deleted",
            anchor.seq + 1,
            seq - 1,
            anchor.seq
        )),
    }
}

/// What [`AuditLog::verify`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    /// The records that verify, up to the first broken one.
    pub verified: u64,
    /// The first record's number (more than 0 when older files were rotated away).
    pub first_seq: Option<u64>,
    /// The first broken record, if any.
    pub broken: Option<Broken>,
}

/// The first record of the log that breaks the chain.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: line {line}: {problem}", path.display())]
pub struct Broken {
    /// Its file.
    pub path: PathBuf,
    /// Its line, counted from 1.
    pub line: usize,
    /// The record's number, when the line has one.
    pub seq: Option<u64>,
    /// What is wrong.
    pub problem: String,
}

impl AuditLog {
    /// The user's log.
    ///
    /// # Errors
    /// No home directory.
    pub fn per_user() -> Result<Self, AuditError> {
        Self::per_user_log(UserLog::Agent)
    }

    /// One of the user's logs ([`UserLog`]).
    ///
    /// # Errors
    /// No home directory.
    pub fn per_user_log(log: UserLog) -> Result<Self, AuditError> {
        Ok(Self::at(user_dir(log)?))
    }

    /// The log in `dir` (it may not exist: then it has no records).
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The log's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every line of the log, oldest first (rotated files, then the current one).
    ///
    /// # Errors
    /// A file could not be read, or is over 1 GiB.
    pub fn lines(&self) -> Result<Vec<Line>, AuditError> {
        let mut lines = Vec::new();
        self.each_line(|path, index, part, torn| {
            let record = serde_json::from_slice::<Value>(part)
                .map_err(|error| error.to_string())
                .and_then(|value| {
                    serde_json::from_value::<AuditRecord>(value.clone())
                        .map(|record| (record, value))
                        .map_err(|error| error.to_string())
                });
            lines.push(Line {
                path: path.to_path_buf(),
                line: index + 1,
                record,
                torn,
            });
            Ok(())
        })?;
        Ok(lines)
    }

    /// Calls `each` with every line of the log, oldest first: its file, its 0-based index, its
    /// bytes and whether it is a torn last line.
    fn each_line(
        &self,
        mut each: impl FnMut(&Path, usize, &[u8], bool) -> Result<(), AuditError>,
    ) -> Result<(), AuditError> {
        let mut files = rotated_files(&self.dir)?;
        let current = self.dir.join(CURRENT);
        if current.exists() {
            files.push(current);
        }
        for path in files {
            let Some(bytes) = skillful_state::read_private(&path, MAX_READ_BYTES)? else {
                continue;
            };
            let ends_whole = bytes.last() == Some(&b'\n');
            let parts: Vec<&[u8]> = bytes.split(|byte| *byte == b'\n').collect();
            let count = parts.len() - 1 + usize::from(!ends_whole);
            for (index, part) in parts.into_iter().take(count).enumerate() {
                each(&path, index, part, !ends_whole && index + 1 == count)?;
            }
        }
        Ok(())
    }

    /// The records, oldest first; a line that is not a record is an error.
    ///
    /// # Errors
    /// As [`AuditLog::lines`]; [`AuditError::Corrupt`] for a line that is not a record.
    pub fn records(&self) -> Result<Vec<AuditRecord>, AuditError> {
        let mut records = Vec::new();
        self.each_line(|path, index, part, _| {
            let record = serde_json::from_slice::<AuditRecord>(part).map_err(|error| {
                AuditError::Corrupt {
                    path: path.to_path_buf(),
                    line: index + 1,
                    reason: error.to_string(),
                }
            })?;
            records.push(record);
            Ok(())
        })?;
        Ok(records)
    }

    /// When each skill the log names was last named (its newest record's time, RFC 3339), read
    /// from the two fields alone: what `skills stale` needs of a log of any size. A line that is
    /// not a record is left out.
    ///
    /// # Errors
    /// As [`AuditLog::lines`].
    pub fn last_uses(&self) -> Result<HashMap<String, String>, AuditError> {
        /// The two fields of a record read, borrowed from the line where they can be.
        #[derive(serde::Deserialize)]
        struct Use<'a> {
            #[serde(borrow)]
            time: std::borrow::Cow<'a, str>,
            #[serde(borrow)]
            skill: Option<Named<'a>>,
        }
        #[derive(serde::Deserialize)]
        struct Named<'a> {
            #[serde(borrow)]
            name: std::borrow::Cow<'a, str>,
        }
        let mut last: HashMap<String, String> = HashMap::new();
        self.each_line(|_, _, part, _| {
            if let Ok(Use {
                time,
                skill: Some(Named { name }),
            }) = serde_json::from_slice::<Use<'_>>(part)
            {
                match last.get_mut(name.as_ref()) {
                    Some(known) if known.as_str() >= time.as_ref() => {}
                    Some(known) => *known = time.into_owned(),
                    None => {
                        last.insert(name.into_owned(), time.into_owned());
                    }
                }
            }
            Ok(())
        })?;
        Ok(last)
    }

    /// Checks the chain: every line a record, numbered one after the other, each holding the
    /// digest of the one before, times never going back, the last line whole.
    ///
    /// # Errors
    /// As [`AuditLog::lines`]; a broken chain is not an error but [`Verification::broken`].
    pub fn verify(&self) -> Result<Verification, AuditError> {
        let mut verified = 0;
        let mut first_seq = None;
        let mut previous: Option<Previous> = None;
        let anchor = read_anchor(&self.dir)?;
        for line in self.lines()? {
            let broken = |seq, problem: String| Broken {
                path: line.path.clone(),
                line: line.line,
                seq,
                problem,
            };
            let finish = |broken| Verification {
                verified,
                first_seq,
                broken: Some(broken),
            };
            if line.torn {
                return Ok(finish(broken(
                    None,
                    "the last line is torn (cut short by a crash while it was written); the \
                     records before it verify"
                        .to_owned(),
                )));
            }
            let (record, value) = match &line.record {
                Ok(parsed) => parsed,
                Err(reason) => {
                    return Ok(finish(broken(
                        None,
                        format!("not an audit record: {reason}"),
                    )));
                }
            };
            let seq = record.seq;
            if let Some(anchor) = &anchor
                && anchor.seq == seq
                && anchor.digest != json_digest(value)
            {
                return Ok(finish(broken(
                    Some(seq),
                    "the record is not the one the last rotation recorded as removed".to_owned(),
                )));
            }
            match &previous {
                None => {
                    if seq == 0 && record.prev.is_some() {
                        return Ok(finish(broken(
                            Some(seq),
                            "the first record names a previous record".to_owned(),
                        )));
                    }
                    if let Some(problem) = gone_before(seq, record, anchor.as_ref()) {
                        return Ok(finish(broken(Some(seq), problem)));
                    }
                    first_seq = Some(seq);
                }
                Some(previous) => match previous.chain_break(record) {
                    None => {}
                    Some(ChainBreak::Here(problem)) => {
                        return Ok(finish(broken(Some(seq), problem)));
                    }
                    // The record before is the broken one: it does not count as verified.
                    Some(ChainBreak::Before(broken)) => {
                        return Ok(Verification {
                            verified: verified - 1,
                            first_seq,
                            broken: Some(broken),
                        });
                    }
                },
            }
            verified += 1;
            previous = Some(Previous {
                seq,
                digest: json_digest(value),
                time: record.time.clone(),
                path: line.path.clone(),
                line: line.line,
            });
        }
        Ok(Verification {
            verified,
            first_seq,
            broken: None,
        })
    }
}
