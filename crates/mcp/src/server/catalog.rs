//! What the server serves, as of the last discovery: every skill with the files it answers for,
//! the final form's entries (manifests with digests), and the digests themselves, computed once
//! per version of each file.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use rmcp::model::{
    SKILL_MD, Skill, SkillFrontmatter, SkillResource, SkillResources, sha256_digest,
};
use skillful_core::{Skill as _, SkillError};
use skillful_discovery::{Discovery, FileSkill, FileSkillsSource, FileVersion};
use skillful_fs::blocking;
use skillful_watch::WatchedSource;

use crate::final_form::{check_entry, fetched_frontmatter};

pub(super) const SCHEME: &str = "skill://";

/// What a URI segment keeps as is: RFC 3986's unreserved characters. Everything else is
/// percent-encoded, so a file name with a space or a `#` still makes one valid URI.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The URI of the skill `name`'s `SKILL.md`: `skill://<name>/SKILL.md`.
pub(super) fn skill_md_uri(name: &str) -> String {
    format!("{SCHEME}{name}/{SKILL_MD}")
}

/// The URI of the file `file` (a `/`-separated name) of the skill `name`, each segment of the
/// file's name percent-encoded.
pub(super) fn file_uri(name: &str, file: &str) -> String {
    let mut uri = format!("{SCHEME}{name}");
    for segment in file.split('/') {
        uri.push('/');
        uri.extend(utf8_percent_encode(segment, SEGMENT));
    }
    uri
}

/// One file of a listed skill, as its manifest lists it.
#[derive(Debug, Clone)]
pub(super) struct ServedFile {
    /// Its `/`-separated name in the skill (`references/FAQ.md`).
    pub(super) name: String,
    pub(super) uri: String,
    pub(super) size: u64,
}

/// One skill discovery found, with every file the server answers for.
#[derive(Debug)]
pub(super) struct Served {
    pub(super) skill: Arc<FileSkill>,
    /// Its `SKILL.md` URI.
    pub(super) uri: String,
    /// The files it serves: `SKILL.md`, its resources, then its scripts, each once.
    pub(super) names: Vec<String>,
    /// Its final-form entry, or why it is not listed in the final form.
    pub(super) entry: Result<Listed, String>,
}

/// A skill of the final-form listing: its entry and its files sorted by URI.
#[derive(Debug, Clone)]
pub(super) struct Listed {
    pub(super) entry: Skill,
    pub(super) files: Vec<ServedFile>,
}

impl Served {
    /// The name of the file `file` names (as served, or percent-decoded), if the skill serves
    /// it: a listed skill serves exactly the files of its manifest, any other skill every file
    /// discovery admitted.
    pub(super) fn file(&self, file: &str) -> Option<&str> {
        let decoded = percent_decode_str(file).decode_utf8_lossy();
        self.served_names()
            .find(|name| *name == file || *name == decoded)
    }

    /// The names of the files the skill serves.
    pub(super) fn served_names(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        match &self.entry {
            Ok(listed) => Box::new(listed.files.iter().map(|file| file.name.as_str())),
            Err(_) => Box::new(self.names.iter().map(String::as_str)),
        }
    }

    /// The skill's name.
    pub(super) fn name(&self) -> &str {
        self.skill.name()
    }
}

/// The skills as one discovery found them.
#[derive(Debug)]
pub(super) struct Snapshot {
    built: Instant,
    /// The discovery it was built from.
    discovery: Arc<Discovery>,
    /// Every skill served, in discovery order.
    pub(super) skills: Vec<Served>,
    by_name: HashMap<String, usize>,
    /// The final-form entries, sorted by URI (what `skills/list` pages over).
    pub(super) entries: Vec<Skill>,
    /// For each entry, the index of its skill in `skills`.
    listed: Vec<usize>,
}

impl Snapshot {
    /// The skill called `name`.
    pub(super) fn skill(&self, name: &str) -> Option<&Served> {
        self.by_name.get(name).map(|&index| &self.skills[index])
    }

    /// The listed skill whose `SKILL.md` is at `uri`.
    pub(super) fn listed_skill(&self, uri: &str) -> Option<&Served> {
        let position = self
            .entries
            .binary_search_by(|entry| entry.uri.as_str().cmp(uri))
            .ok()?;
        Some(&self.skills[self.listed[position]])
    }
}

/// A file's digest and size, and for a `SKILL.md` its frontmatter, for one version of it.
#[derive(Debug, Clone)]
struct Digested {
    version: FileVersion,
    digest: String,
    size: u64,
    /// For a `SKILL.md`: its frontmatter as the entry carries it, or why it has none.
    frontmatter: Option<Result<SkillFrontmatter, String>>,
}

/// Where the server's skills come from.
#[derive(Debug, Clone)]
pub(super) enum Skills {
    /// A file source, discovered again at most once per rescan interval.
    Rescanned(FileSkillsSource),
    /// A watched source, which reloads when the files change: the catalog is rebuilt only
    /// after a reload.
    Watched(Arc<WatchedSource>),
}

/// The skills the server serves, as of the last discovery (see [`Skills`]).
#[derive(Debug)]
pub(super) struct Catalog {
    skills: Skills,
    /// How often a rescanned source is walked again; the results' `ttlMs` hint either way.
    rescan: Duration,
    current: RwLock<Option<Arc<Snapshot>>>,
    /// Held while a snapshot is built for a request that has none to use.
    building: tokio::sync::Mutex<()>,
    /// Whether a background rebuild is under way.
    refreshing: AtomicBool,
    /// The digest of each file's last version seen, by path.
    digests: Mutex<HashMap<PathBuf, Digested>>,
}

impl Catalog {
    pub(super) fn new(skills: Skills, rescan: Duration) -> Self {
        Self {
            skills,
            rescan,
            current: RwLock::new(None),
            building: tokio::sync::Mutex::new(()),
            refreshing: AtomicBool::new(false),
            digests: Mutex::new(HashMap::new()),
        }
    }

    pub(super) fn skills(&self) -> &Skills {
        &self.skills
    }

    pub(super) fn rescan(&self) -> Duration {
        self.rescan
    }

    /// The skills as of a discovery at most one rescan interval old.
    ///
    /// A snapshot past its interval (but not twice past it) is still used while another is
    /// built in the background, so requests never wait for a rescan under steady load; an older
    /// one, or none, is rebuilt first. With a zero interval every call discovers afresh.
    ///
    /// A watched source is never walked here: the snapshot is rebuilt when the source's
    /// discovery is not the one it was built from (after waiting for any reload of changes
    /// already reported, so nothing stale is served once the watcher has seen a change).
    pub(super) async fn snapshot(self: &Arc<Self>) -> Arc<Snapshot> {
        let source = match &self.skills {
            Skills::Watched(watched) => return self.watched_snapshot(watched).await,
            Skills::Rescanned(source) => source,
        };
        if self.rescan.is_zero() {
            return self.rebuild(Arc::new(source.discover().await)).await;
        }
        if let Some(current) = self.current() {
            let age = current.built.elapsed();
            if age < self.rescan {
                return current;
            }
            if age < self.rescan.saturating_mul(2) {
                if !self.refreshing.swap(true, Ordering::AcqRel) {
                    let catalog = self.clone();
                    let source = source.clone();
                    tokio::spawn(async move {
                        catalog.rebuild(Arc::new(source.discover().await)).await;
                        catalog.refreshing.store(false, Ordering::Release);
                    });
                }
                return current;
            }
        }
        let _building = self.building.lock().await;
        // Another request may have built one while this one waited.
        if let Some(current) = self.current()
            && current.built.elapsed() < self.rescan
        {
            return current;
        }
        self.rebuild(Arc::new(source.discover().await)).await
    }

    async fn watched_snapshot(&self, watched: &WatchedSource) -> Arc<Snapshot> {
        let discovery = watched.discovery().await;
        let built_from = |snapshot: &Snapshot| Arc::ptr_eq(&snapshot.discovery, &discovery);
        if let Some(current) = self.current()
            && built_from(&current)
        {
            return current;
        }
        let _building = self.building.lock().await;
        if let Some(current) = self.current()
            && built_from(&current)
        {
            return current;
        }
        self.rebuild(discovery).await
    }

    /// The snapshot built last, without waiting for a reload (none before the first).
    pub(super) fn current(&self) -> Option<Arc<Snapshot>> {
        self.current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Builds the entries of the skills `discovery` found and makes them the current snapshot.
    async fn rebuild(&self, discovery: Arc<Discovery>) -> Arc<Snapshot> {
        let built = Instant::now();
        let mut skills = Vec::with_capacity(discovery.skills.len());
        let mut by_name = HashMap::with_capacity(discovery.skills.len());
        for skill in &discovery.skills {
            let skill = Arc::clone(skill);
            let name = skill.name().to_owned();
            let uri = skill_md_uri(&name);
            let mut seen = HashSet::new();
            let names: Vec<String> = skill
                .file_names()
                .into_iter()
                .filter(|file| seen.insert(*file))
                .map(str::to_owned)
                .collect();
            let entry = self.listed(&skill, &uri, &names).await;
            if let Err(reason) = &entry {
                tracing::debug!(skill = %name, "not listed by skills/list: {reason}");
            }
            by_name.insert(name, skills.len());
            skills.push(Served {
                skill,
                uri,
                names,
                entry,
            });
        }
        let mut listed: Vec<usize> = (0..skills.len())
            .filter(|&index| skills[index].entry.is_ok())
            .collect();
        listed.sort_by(|&a, &b| skills[a].uri.cmp(&skills[b].uri));
        let entries = listed
            .iter()
            .filter_map(|&index| skills[index].entry.as_ref().ok())
            .map(|listed| listed.entry.clone())
            .collect();
        let snapshot = Arc::new(Snapshot {
            built,
            discovery,
            skills,
            by_name,
            entries,
            listed,
        });
        self.forget_unserved(&snapshot);
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = Some(snapshot.clone());
        snapshot
    }

    /// Drops the digests of files the snapshot no longer serves.
    fn forget_unserved(&self, snapshot: &Snapshot) {
        let served: HashSet<PathBuf> = snapshot
            .skills
            .iter()
            .flat_map(|served| {
                served
                    .names
                    .iter()
                    .map(|name| served.skill.dir().join(name))
            })
            .collect();
        self.digests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|path, _| served.contains(path));
    }

    /// The final-form entry of `skill` as its files are now: a manifest of every file it
    /// serves, digested once per version, and its `SKILL.md`'s frontmatter. A file that cannot
    /// be read whole now is left out (with a warning), as the server cannot serve it. An entry
    /// that breaks a rule of the final form (a name outside the naming rules, over the limits)
    /// is not listed: one such entry would make the whole page invalid.
    pub(super) async fn listed(
        &self,
        skill: &FileSkill,
        uri: &str,
        names: &[String],
    ) -> Result<Listed, String> {
        let name = skill.name();
        let mut files = Vec::with_capacity(names.len());
        let mut manifest = Vec::with_capacity(names.len());
        let mut frontmatter = None;
        for file in names {
            let digested = match self.digested(skill, file).await {
                Ok(digested) => digested,
                Err(error) if file == SKILL_MD => return Err(error.to_string()),
                // A file that cannot be read whole (over the read limit, unreadable) cannot be
                // served either: it is left out of the manifest, and the skill stays listed.
                Err(error) => {
                    tracing::warn!(skill = %name, file = %file, "file left out of the manifest: {error}");
                    continue;
                }
            };
            let file_uri = if file == SKILL_MD {
                uri.to_owned()
            } else {
                file_uri(name, file)
            };
            manifest.push(SkillResource::new(
                file_uri.clone(),
                digested.digest,
                digested.size,
            ));
            files.push(ServedFile {
                name: file.clone(),
                uri: file_uri,
                size: digested.size,
            });
            if digested.frontmatter.is_some() {
                frontmatter = digested.frontmatter;
            }
        }
        let frontmatter = frontmatter.unwrap_or_else(|| Err("it has no SKILL.md".to_owned()))?;
        manifest.sort_by(|a, b| a.uri.cmp(&b.uri));
        files.sort_by(|a, b| a.uri.cmp(&b.uri));
        let entry = Skill::new(uri, frontmatter, SkillResources::Files(manifest));
        check_entry(&entry).map_err(|problem| problem.to_string())?;
        Ok(Listed { entry, files })
    }

    /// The digest of `skill`'s file `name` as it is now: kept from an earlier read while the
    /// file's version is unchanged, computed from a fresh read otherwise.
    async fn digested(&self, skill: &FileSkill, name: &str) -> Result<Digested, SkillError> {
        let path = skill.dir().join(name);
        let version = skill.file_version(name).await?;
        if let Some(known) = self.known(&path)
            && known.version == version
        {
            return Ok(known);
        }
        let (bytes, version) = skill.read_file_versioned(name).await?;
        let skill_md = name == SKILL_MD;
        let digested = blocking::run("digesting a skill file", move || Digested {
            version,
            digest: sha256_digest(&bytes),
            size: bytes.len() as u64,
            frontmatter: skill_md.then(|| entry_frontmatter(&bytes)),
        })
        .await
        .map_err(SkillError::other)?;
        self.digests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(path, digested.clone());
        Ok(digested)
    }

    fn known(&self, path: &PathBuf) -> Option<Digested> {
        self.digests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(path)
            .cloned()
    }

    /// The digest of `skill`'s `SKILL.md` as it is now (for the draft index).
    pub(super) async fn skill_md_digest(&self, skill: &FileSkill) -> Result<String, SkillError> {
        self.digested(skill, SKILL_MD)
            .await
            .map(|digested| digested.digest)
    }
}

/// A `SKILL.md`'s frontmatter as the final form carries it: every key the author wrote, with
/// the types YAML gives the values.
fn entry_frontmatter(bytes: &[u8]) -> Result<SkillFrontmatter, String> {
    let text = std::str::from_utf8(bytes).map_err(|error| format!("it is not UTF-8: {error}"))?;
    let fields = fetched_frontmatter(text)?;
    serde_json::from_value(serde_json::Value::Object(fields))
        .map_err(|error| format!("its frontmatter cannot be listed: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_encode_each_segment() {
        assert_eq!(
            file_uri("notes", "references/a b#1.md"),
            "skill://notes/references/a%20b%231.md"
        );
        assert_eq!(file_uri("notes", "x-y_z.~1"), "skill://notes/x-y_z.~1");
        assert_eq!(skill_md_uri("notes"), "skill://notes/SKILL.md");
    }
}
