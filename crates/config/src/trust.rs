//! Which project directories the user trusts: skills found by walking up from the working
//! directory are someone else's until the user says otherwise, and a trust given is bound to the
//! directory it was given for (its owner, device and inode), not to its path.

use std::fs;
use std::path::{Path, PathBuf};

use skillful_fs::FileLock;
use skillful_state::{Dirs, read_private, write_private};
use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, value};

use crate::environment::{Environment, Project, dunce_canonical, is_repository};
use crate::error::{ConfigError, shown_path};
use crate::safety::{self, Risk};
use crate::settings::{Settings, SettingsLevel};

/// The trust file, in the user's configuration directory.
pub const TRUST_FILE: &str = "trusted.toml";

/// The version of the trust file's format this crate writes. Version 1 (no `version` key) was
/// a list of paths, `trusted = ["/path", ...]`; its entries are read as directories not yet
/// verified ([`TrustEntry::identity`] is `None`).
pub const TRUST_FORMAT_VERSION: i64 = 2;

/// The largest trust file read.
const MAX_TRUST_FILE_BYTES: u64 = 1024 * 1024;

/// What identifies a directory beyond its path: a directory removed and re-created (by anyone)
/// under the same path is another directory.
///
/// Not a [`FileStamp`](skillful_fs::FileStamp): that one changes whenever the directory's
/// entries do, and a trusted directory stays trusted while its files change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirIdentity {
    /// The device it is on.
    pub device: u64,
    /// Its inode.
    pub inode: u64,
    /// Its owner's user id.
    pub owner: u32,
}

impl DirIdentity {
    /// The identity of the directory at `path` (not followed if it is a link), if it exists.
    pub fn of(path: &Path) -> Option<Self> {
        let metadata = fs::symlink_metadata(path).ok()?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(Self {
                device: metadata.dev(),
                inode: metadata.ino(),
                owner: metadata.uid(),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = metadata;
            Some(Self {
                device: 0,
                inode: 0,
                owner: 0,
            })
        }
    }
}

/// One trusted directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustEntry {
    dir: PathBuf,
    identity: Option<DirIdentity>,
    forced: bool,
    plugins: Vec<TrustedPlugins>,
}

/// A plugin directory the project's settings named when it was trusted, with what its files
/// were then ([`plugin_dir_digest`]): project plugins are loaded only from such a directory,
/// unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedPlugins {
    /// The directory, canonical.
    pub dir: PathBuf,
    /// [`plugin_dir_digest`] of it when it was trusted.
    pub digest: String,
}

/// The most bytes of one file of a plugin directory read for its digest.
const MAX_PLUGIN_FILE_BYTES: u64 = 1 << 30;

/// The SHA-256 (hex) of what a plugin directory holds: each entry's name, in byte order, with
/// a regular file's content, a link's target or a directory's kind. Any library added, removed,
/// replaced or changed changes it.
///
/// # Errors
/// [`ConfigError::Environment`] naming the directory or file that cannot be read.
pub fn plugin_dir_digest(dir: &Path) -> Result<String, ConfigError> {
    let unreadable = |path: &Path, error: &dyn std::fmt::Display| {
        ConfigError::Environment(format!(
            "{}: cannot read the plugin directory: {error}",
            shown_path(path)
        ))
    };
    let mut entries: Vec<fs::DirEntry> = fs::read_dir(dir)
        .map_err(|error| unreadable(dir, &error))?
        .collect::<Result<_, _>>()
        .map_err(|error| unreadable(dir, &error))?;
    entries.sort_by_key(fs::DirEntry::file_name);
    let mut listing = Vec::new();
    for entry in entries {
        let path = entry.path();
        let kind = entry
            .file_type()
            .map_err(|error| unreadable(&path, &error))?;
        listing.extend_from_slice(entry.file_name().as_encoded_bytes());
        listing.push(0);
        if kind.is_symlink() {
            let target = fs::read_link(&path).map_err(|error| unreadable(&path, &error))?;
            listing.extend_from_slice(b"link ");
            listing.extend_from_slice(target.as_os_str().as_encoded_bytes());
        } else if kind.is_file() {
            let digest = skillful_fs::sha256_file(&path, MAX_PLUGIN_FILE_BYTES)
                .map_err(|error| unreadable(&path, &error))?
                .ok_or_else(|| unreadable(&path, &"it is gone"))?;
            listing.extend_from_slice(b"file ");
            listing.extend_from_slice(digest.sha256.as_bytes());
        } else {
            listing.extend_from_slice(b"other");
        }
        listing.push(b'\n');
    }
    Ok(skillful_fs::sha256_hex(&listing))
}

impl TrustEntry {
    /// The directory (canonical when it was trusted), byte for byte.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The directory's identity when it was trusted; `None` for an entry of a version 1 file,
    /// which is verified (and its identity recorded) when the store is loaded and the directory
    /// is safe, and not honoured otherwise.
    pub fn identity(&self) -> Option<DirIdentity> {
        self.identity
    }

    /// Whether it was trusted with `--force` despite its [`Risk`]s (which are then not checked
    /// again while the directory keeps its identity).
    pub fn forced(&self) -> bool {
        self.forced
    }

    /// The directory as text, losslessly: bytes that are not UTF-8 are shown as `\xNN`.
    pub fn shown(&self) -> String {
        shown_path(&self.dir)
    }
}

/// One trusted directory as `skills trust --list` reports it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TrustedDir {
    /// The directory, losslessly ([`TrustEntry::shown`]).
    pub dir: String,
    /// Whether it is honoured: `false` for an entry an older version recorded that could not be
    /// verified (trust it again).
    pub honoured: bool,
    /// Whether it was trusted with `--force` despite its risks.
    pub forced: bool,
}

/// `skills trust --list`: the trusted directories ([`TrustStore::listing`]); one JSON document
/// with `--json` (its JSON Schema, the `schema` feature, is committed under
/// `docs/src/reference/schemas/`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TrustListing {
    /// In the order they were trusted.
    pub directories: Vec<TrustedDir>,
}

/// A directory just trusted ([`TrustStore::trust`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Trusted {
    /// The directory, canonical.
    pub dir: PathBuf,
    /// What it risks, accepted with `force` (empty when it is safe).
    pub risks: Vec<Risk>,
    /// The plugin directories its settings name, recorded with their files.
    pub plugins: Vec<TrustedPlugins>,
}

/// What the trust store says of a project ([`TrustStore::verdict`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verdict {
    /// Trusted, by the entry of `by` (the project's directory or one above it).
    Trusted {
        /// The trusted directory that covers the project.
        by: PathBuf,
    },
    /// No entry covers it.
    Untrusted,
    /// Refused whatever the store says: the project's directory or its `.agents` is another
    /// user's or writable by every user.
    Refused {
        /// What is wrong.
        risks: Vec<Risk>,
    },
    /// The trusted directory that would cover it is not the directory that was trusted: it was
    /// removed and re-created since (another inode or owner).
    Replaced {
        /// The trusted directory's path.
        dir: PathBuf,
    },
}

/// The directories whose project skills (and project configuration) the user trusts, kept in
/// [`TRUST_FILE`] in the user's configuration directory (mode 0600 in a 0700 directory), each
/// with its identity ([`DirIdentity`]).
///
/// A trusted directory covers the projects at and below it, except those in a repository of
/// their own below it (a directory holding `.git`): a nested repository is a separate project.
/// A project whose directory or `.agents` is another user's (neither the user's nor root's) or
/// writable by every user is refused even when covered, unless it is itself a directory trusted
/// with `force`. `$HOME`, the directories above it, other users' and shared (world-writable or
/// sticky) directories are trusted only with `force`.
///
/// # Example
/// ```
/// use skillful_config::{Environment, TrustStore, Verdict};
///
/// # let temp = tempfile::tempdir().unwrap();
/// # let temp = temp.path().canonicalize().unwrap();
/// let environment = Environment::under(&temp).with_working_dir(temp.join("project/sub"));
/// std::fs::create_dir_all(temp.join("project/sub")).unwrap();
/// std::fs::create_dir_all(temp.join("project/.agents/skills")).unwrap();
/// let project = environment.project().unwrap();
/// let store = TrustStore::load(&environment).unwrap();
/// assert_eq!(store.verdict(&project), Verdict::Untrusted);
/// TrustStore::trust(&environment, &temp.join("project"), false).unwrap();
/// let store = TrustStore::load(&environment).unwrap();
/// assert!(matches!(store.verdict(&project), Verdict::Trusted { .. }));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustStore {
    entries: Vec<TrustEntry>,
}

impl TrustStore {
    /// The trusted directories recorded for the user of `environment` (none when nothing was
    /// trusted). Entries of an older format are verified now: a directory that is safe gets
    /// its identity recorded (the file is rewritten); one that is not stays unverified and is
    /// not honoured.
    ///
    /// # Errors
    /// The file is unsafe (a link, another user's), too large, not the expected TOML, or of a
    /// newer format. (When verified entries cannot be written back, they count for this load
    /// and a warning says so.)
    pub fn load(environment: &Environment) -> Result<Self, ConfigError> {
        let dirs = &environment.dirs;
        let path = dirs.config().join(TRUST_FILE);
        let Some(bytes) = read_private(&path, MAX_TRUST_FILE_BYTES)? else {
            return Ok(Self::default());
        };
        let entries = parse(&path, &bytes)?;
        let verify = |entries: &mut Vec<TrustEntry>| {
            for entry in entries.iter_mut() {
                if verifiable(entry, environment) {
                    entry.identity = DirIdentity::of(&entry.dir);
                }
            }
        };
        if !entries.iter().any(|entry| verifiable(entry, environment)) {
            return Ok(Self { entries });
        }
        let mut verified = Vec::new();
        let recorded = Self::update(dirs, |entries| {
            verify(entries);
            verified.clone_from(entries);
        });
        if let Err(error) = recorded {
            tracing::warn!(
                "{}: the identities of directories trusted by an older version cannot be recorded ({error}); they are verified again next time",
                shown_path(&path)
            );
            verified = entries;
            verify(&mut verified);
        }
        Ok(Self { entries: verified })
    }

    /// The trusted directories, in the order they were trusted.
    pub fn entries(&self) -> &[TrustEntry] {
        &self.entries
    }

    /// The plugin directories recorded with the trust of `by` (a [`Verdict::Trusted`]'s).
    pub fn recorded_plugins(&self, by: &Path) -> &[TrustedPlugins] {
        self.entries
            .iter()
            .find(|entry| entry.dir == by)
            .map_or(&[], |entry| &entry.plugins)
    }

    /// The trusted directories as `skills trust --list` shows them.
    pub fn listing(&self) -> TrustListing {
        TrustListing {
            directories: self
                .entries
                .iter()
                .map(|entry| TrustedDir {
                    dir: entry.shown(),
                    honoured: entry.identity.is_some(),
                    forced: entry.forced,
                })
                .collect(),
        }
    }

    /// The entries that trust far more than a project, with why: the user's `home` or a
    /// directory holding it (the file system's root included), under which every project the
    /// user has would be trusted.
    pub fn too_broad(&self, home: Option<&Path>) -> Vec<(&TrustEntry, Risk)> {
        let home = home.map(dunce_canonical);
        self.entries
            .iter()
            .filter_map(|entry| {
                let risk = safety::home_risk(&entry.dir, home.as_deref())
                    .or_else(|| entry.dir.parent().is_none().then_some(Risk::AboveHome))?;
                Some((entry, risk))
            })
            .collect()
    }

    /// What the store says of `project`: the nearest entry at or above the project's directory
    /// with no repository of its own in between covers it, if that directory still has the
    /// identity it was trusted with; the project's directory and `.agents` must be the user's
    /// (or root's) and not writable by every user, unless the project's directory is itself
    /// trusted with `force`.
    pub fn verdict(&self, project: &Project) -> Verdict {
        let dir = &project.dir;
        let covering = self
            .entries
            .iter()
            .filter(|entry| entry.identity.is_some() && covers(&entry.dir, dir))
            .max_by_key(|entry| entry.dir.as_os_str().len());
        let current = covering.and_then(|entry| DirIdentity::of(&entry.dir));
        let same = covering.is_some_and(|entry| entry.identity == current);
        let itself = covering.filter(|entry| same && entry.dir == *dir);
        let risks = if itself.is_some_and(|entry| entry.forced) {
            Vec::new()
        } else {
            safety::ownership_risks(dir)
        };
        match covering {
            _ if !risks.is_empty() => Verdict::Refused { risks },
            Some(entry) if same => Verdict::Trusted {
                by: entry.dir.clone(),
            },
            Some(entry) => Verdict::Replaced {
                dir: entry.dir.clone(),
            },
            None => Verdict::Untrusted,
        }
    }

    /// Trusts `dir` (made canonical; it must exist), recording it and its identity for the
    /// user of `environment`. A directory with [`Risk`]s (the home directory or one above it,
    /// another user's, one every user may write in, or one whose `.agents` is such) is trusted
    /// only with `force`.
    ///
    /// # Errors
    /// `dir` does not exist; [`ConfigError::Risky`] without `force`; the path cannot be
    /// stored on this platform; the file cannot be read or written safely.
    pub fn trust(
        environment: &Environment,
        dir: &Path,
        force: bool,
    ) -> Result<Trusted, ConfigError> {
        let canonical = dunce::canonicalize(dir).map_err(|error| {
            ConfigError::Environment(format!("{}: cannot trust it: {error}", shown_path(dir)))
        })?;
        if !canonical.is_dir() {
            return Err(ConfigError::Environment(format!(
                "{}: cannot trust it: not a directory",
                shown_path(&canonical)
            )));
        }
        if !cfg!(unix) && canonical.to_str().is_none() {
            return Err(ConfigError::Environment(format!(
                "{}: cannot trust it: its name is not valid Unicode; rename it",
                shown_path(&canonical)
            )));
        }
        let home = environment.home.as_deref().map(dunce_canonical);
        let mut risks: Vec<Risk> = safety::home_risk(&canonical, home.as_deref())
            .into_iter()
            .collect();
        risks.extend(safety::ownership_risks(&canonical));
        if !risks.is_empty() && !force {
            return Err(ConfigError::Risky {
                path: canonical,
                risks: Risk::describe(&risks),
            });
        }
        let project = Project {
            dir: canonical.clone(),
        };
        let settings = Settings::load(&project.config_file(), SettingsLevel::Project)?;
        let mut plugins = Vec::new();
        for dir in &settings.plugin_dirs {
            // One that does not exist has nothing to load; made later, it is not recorded.
            let Ok(dir) = dunce::canonicalize(dir) else {
                continue;
            };
            plugins.push(TrustedPlugins {
                digest: plugin_dir_digest(&dir)?,
                dir,
            });
        }
        let entry = TrustEntry {
            identity: DirIdentity::of(&canonical),
            dir: canonical.clone(),
            forced: !risks.is_empty(),
            plugins,
        };
        let plugins = entry.plugins.clone();
        Self::update(&environment.dirs, |entries| {
            entries.retain(|old| old.dir != entry.dir);
            entries.push(entry);
        })?;
        Ok(Trusted {
            dir: canonical,
            risks,
            plugins,
        })
    }

    /// Stops trusting `dir` (exactly that directory, as canonical as it can be made); whether it
    /// was trusted.
    ///
    /// # Errors
    /// The file cannot be read or written safely.
    pub fn untrust(dirs: &Dirs, dir: &Path) -> Result<bool, ConfigError> {
        let canonical = dunce_canonical(dir);
        let mut removed = false;
        Self::update(dirs, |entries| {
            let before = entries.len();
            entries.retain(|entry| entry.dir != canonical && entry.dir != dir);
            removed = entries.len() != before;
        })?;
        Ok(removed)
    }

    /// Reads, changes and writes the file under a lock, so that two processes never lose each
    /// other's changes.
    fn update(dirs: &Dirs, change: impl FnOnce(&mut Vec<TrustEntry>)) -> Result<(), ConfigError> {
        let config = dirs.config_dir()?;
        let _lock = FileLock::acquire(&config.join(format!("{TRUST_FILE}.lock")))?;
        let path = config.join(TRUST_FILE);
        let mut entries = match read_private(&path, MAX_TRUST_FILE_BYTES)? {
            Some(bytes) => parse(&path, &bytes)?,
            None => Vec::new(),
        };
        change(&mut entries);
        write_private(&path, render(&entries).as_bytes())?;
        Ok(())
    }
}

/// Whether the entry of `trusted` covers the project directory `project`: it is at or above it,
/// and no directory below `trusted`, down to `project`, is a repository of its own.
fn covers(trusted: &Path, project: &Path) -> bool {
    project.starts_with(trusted)
        && !project
            .ancestors()
            .take_while(|dir| *dir != trusted)
            .any(is_repository)
}

/// Whether `entry` is of an older format and its directory now exists and is safe to trust.
fn verifiable(entry: &TrustEntry, environment: &Environment) -> bool {
    let home = environment.home.as_deref().map(dunce_canonical);
    entry.identity.is_none()
        && entry.dir.is_dir()
        && safety::home_risk(&entry.dir, home.as_deref()).is_none()
        && safety::ownership_risks(&entry.dir).is_empty()
}

/// The file's text: `path` when the directory's name is UTF-8, else its bytes as `path-bytes`.
fn render(entries: &[TrustEntry]) -> String {
    let mut document = DocumentMut::new();
    document["version"] = value(TRUST_FORMAT_VERSION);
    let mut tables = ArrayOfTables::new();
    for entry in entries {
        let mut table = Table::new();
        match entry.dir.to_str() {
            Some(text) => table["path"] = value(text),
            None => table["path-bytes"] = value(path_bytes(&entry.dir)),
        }
        if let Some(identity) = entry.identity {
            table["device"] = value(i64::from_ne_bytes(identity.device.to_ne_bytes()));
            table["inode"] = value(i64::from_ne_bytes(identity.inode.to_ne_bytes()));
            table["owner"] = value(i64::from(identity.owner));
        }
        if entry.forced {
            table["forced"] = value(true);
        }
        if !entry.plugins.is_empty() {
            let mut plugins = toml_edit::Array::new();
            for recorded in &entry.plugins {
                let mut plugin = toml_edit::InlineTable::new();
                plugin.insert("path", recorded.dir.to_string_lossy().as_ref().into());
                plugin.insert("sha256", recorded.digest.as_str().into());
                plugins.push(plugin);
            }
            table["plugins"] = value(plugins);
        }
        tables.push(table);
    }
    document["trusted"] = Item::ArrayOfTables(tables);
    format!(
        "# Directories whose project skills (.agents/skills) and project configuration are\n# loaded, each with the identity it had when trusted. Written by `skills trust` and\n# `skills untrust`.\n{document}"
    )
}

#[cfg(unix)]
fn path_bytes(path: &Path) -> toml_edit::Array {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str()
        .as_bytes()
        .iter()
        .map(|byte| i64::from(*byte))
        .collect()
}

#[cfg(not(unix))]
fn path_bytes(path: &Path) -> toml_edit::Array {
    // `trust` refuses such a path; nothing else records one.
    std::iter::once(path.to_string_lossy().into_owned()).collect()
}

fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<TrustEntry>, ConfigError> {
    let invalid = |message: String| ConfigError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let text = std::str::from_utf8(bytes).map_err(|error| invalid(error.to_string()))?;
    let document: DocumentMut = text
        .parse()
        .map_err(|error: toml_edit::TomlError| invalid(error.to_string()))?;
    let version = match document.get("version") {
        None => 1,
        Some(item) => item
            .as_integer()
            .ok_or_else(|| invalid("`version` must be a number".to_owned()))?,
    };
    if version > TRUST_FORMAT_VERSION {
        return Err(invalid(format!(
            "format version {version} is newer than this skillful reads ({TRUST_FORMAT_VERSION}); upgrade skillful"
        )));
    }
    let Some(item) = document.get("trusted") else {
        return Ok(Vec::new());
    };
    if version == 1 {
        let array = item
            .as_array()
            .ok_or_else(|| invalid("`trusted` must be a list of directories".to_owned()))?;
        return array
            .iter()
            .map(|entry| {
                entry
                    .as_str()
                    .map(|dir| TrustEntry {
                        dir: PathBuf::from(dir),
                        identity: None,
                        forced: false,
                        plugins: Vec::new(),
                    })
                    .ok_or_else(|| invalid("`trusted` must list directories as strings".to_owned()))
            })
            .collect();
    }
    let tables = item
        .as_array_of_tables()
        .ok_or_else(|| invalid("`trusted` must be a list of tables ([[trusted]])".to_owned()))?;
    tables
        .iter()
        .map(|table| entry(table).map_err(|message| invalid(message.to_owned())))
        .collect()
}

/// One `[[trusted]]` table.
fn entry(table: &Table) -> Result<TrustEntry, &'static str> {
    let dir = match (table.get("path"), table.get("path-bytes")) {
        (Some(path), None) => PathBuf::from(path.as_str().ok_or("`path` must be a string")?),
        (None, Some(bytes)) => dir_of_bytes(bytes)?,
        _ => return Err("each [[trusted]] has one of `path` or `path-bytes`"),
    };
    let number = |key: &str| -> Result<Option<i64>, &'static str> {
        table
            .get(key)
            .map(|item| {
                item.as_integer()
                    .ok_or("`device`, `inode` and `owner` are numbers")
            })
            .transpose()
    };
    let identity = match (number("device")?, number("inode")?, number("owner")?) {
        (Some(device), Some(inode), Some(owner)) => Some(DirIdentity {
            device: u64::from_ne_bytes(device.to_ne_bytes()),
            inode: u64::from_ne_bytes(inode.to_ne_bytes()),
            owner: u32::try_from(owner).map_err(|_| "`owner` is a user id")?,
        }),
        (None, None, None) => None,
        _ => return Err("each [[trusted]] has all of `device`, `inode` and `owner`, or none"),
    };
    let forced = match table.get("forced") {
        None => false,
        Some(item) => item.as_bool().ok_or("`forced` is true or false")?,
    };
    const PLUGINS: &str = "`plugins` is a list of { path = \"...\", sha256 = \"...\" }";
    let plugins = match table.get("plugins") {
        None => Vec::new(),
        Some(item) => item
            .as_array()
            .ok_or(PLUGINS)?
            .iter()
            .map(|plugin| {
                let plugin = plugin.as_inline_table().ok_or(PLUGINS)?;
                let text = |key: &str| {
                    plugin
                        .get(key)
                        .and_then(|item| item.as_str())
                        .ok_or(PLUGINS)
                };
                Ok(TrustedPlugins {
                    dir: PathBuf::from(text("path")?),
                    digest: text("sha256")?.to_owned(),
                })
            })
            .collect::<Result<_, &'static str>>()?,
    };
    Ok(TrustEntry {
        dir,
        identity,
        forced,
        plugins,
    })
}

fn dir_of_bytes(item: &Item) -> Result<PathBuf, &'static str> {
    const MESSAGE: &str = "`path-bytes` must be a list of bytes (0 to 255)";
    let bytes = item
        .as_array()
        .ok_or(MESSAGE)?
        .iter()
        .map(|byte| {
            byte.as_integer()
                .and_then(|byte| u8::try_from(byte).ok())
                .ok_or(MESSAGE)
        })
        .collect::<Result<Vec<u8>, _>>()?;
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        Ok(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
    }
    #[cfg(not(unix))]
    {
        String::from_utf8(bytes)
            .map(PathBuf::from)
            .map_err(|_| "`path-bytes` that are not UTF-8 name no directory on this platform")
    }
}
