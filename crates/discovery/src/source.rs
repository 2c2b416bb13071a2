use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use futures_util::future::try_join_all;
use skillful_core::{Diagnostic, Skill, SkillError, SkillsSource, SourceContext};
use skillful_fs::blocking;

use crate::config::Config;
use crate::skill::{FileSkill, SKILL_FILE, SkillRoot};
use crate::walk::{self, Below, RootPlan, RootWalk};

/// Fewer directories than this are not worth a batch of their own.
const MIN_BATCH: usize = 64;

/// The skills found in directory trees: every directory holding a `SKILL.md`, at most two
/// levels below a configured root.
///
/// Built with [`FileSkillsSource::builder`]. Every call to [`FileSkillsSource::discover`] (or
/// [`SkillsSource::skills`]) walks the roots afresh on tokio's blocking pool.
#[derive(Clone)]
pub struct FileSkillsSource {
    config: Arc<Config>,
}

impl fmt::Debug for FileSkillsSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.config.fmt(f)
    }
}

/// What one discovery run found.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Discovery {
    /// The skills loaded, in discovery order: roots in the order given, entries by file name.
    pub skills: Vec<Arc<FileSkill>>,
    /// Why skills or files were skipped, and the warnings of the skills loaded; each names its
    /// file.
    pub diagnostics: Vec<Diagnostic>,
    /// What the walk found per root and directory, for [`FileSkillsSource::rediscover`].
    walk: Option<Walk>,
}

/// What the walk of a source's roots found, and which source's it is.
#[derive(Debug)]
struct Walk {
    config: Arc<Config>,
    roots: Vec<RootWalk>,
}

impl Discovery {
    fn of(config: &Arc<Config>, roots: Vec<RootWalk>) -> Self {
        let (skills, diagnostics) = walk::assemble(config, &roots);
        Self {
            skills,
            diagnostics,
            walk: Some(Walk {
                config: Arc::clone(config),
                roots,
            }),
        }
    }

    /// For each root of the source, in order, the directory it resolved to (canonical), or
    /// `None` when it did not exist or was not a directory: the directories to watch for
    /// changes.
    pub fn root_dirs(&self) -> Vec<Option<&Path>> {
        self.walk.as_ref().map_or_else(Vec::new, |walk| {
            walk.roots.iter().map(RootWalk::dir).collect()
        })
    }
}

impl FileSkillsSource {
    pub(crate) fn from_config(config: Config) -> Self {
        Self {
            config: Arc::new(config),
        }
    }

    /// Walks the roots and loads every skill found, with the diagnostics of the run.
    ///
    /// One unreadable, oversized or invalid skill is skipped (with a warning and a diagnostic);
    /// it never hides the others. The walk runs on tokio's blocking pool; the skills found are
    /// then loaded there in a few parallel batches.
    ///
    /// # Panics
    /// Outside a tokio runtime.
    ///
    /// # Cancel safety
    /// Dropping the future lets the work already started finish in the background and discards
    /// its result.
    pub async fn discover(&self) -> Discovery {
        match self.try_discover().await {
            Ok(found) => found,
            Err(error) => {
                tracing::warn!("skill discovery did not run: {error}");
                Discovery {
                    skills: Vec::new(),
                    diagnostics: vec![Diagnostic::error(
                        "path",
                        format!("skill discovery did not run: {error}"),
                    )],
                    walk: None,
                }
            }
        }
    }

    /// The roots searched, as configured (not resolved), in order.
    pub fn roots(&self) -> Vec<&Path> {
        self.config
            .roots
            .iter()
            .map(|root| root.path.as_path())
            .collect()
    }

    /// Discovers again after the files at `changed` paths changed (were added, modified or
    /// removed), reusing from `previous` (a discovery of this source) everything the changes
    /// cannot have touched: only the directories one level below a root that hold a changed
    /// path are searched again, and a root's own listing only when an entry directly in it
    /// changed. A changed path that is a root itself searches that root again whole; a root
    /// that did not exist is looked for again. Skills not searched again are the same objects
    /// as in `previous`, their cached documents kept.
    ///
    /// `changed` paths are compared with the roots' canonical directories
    /// ([`Discovery::root_dirs`]), as a file watcher on those directories reports them; paths
    /// elsewhere, and in hidden directories or `node_modules` below a root, change nothing.
    /// A `previous` of another source (or of none) gives a whole new discovery.
    ///
    /// # Panics
    /// Outside a tokio runtime.
    pub async fn rediscover(&self, previous: &Discovery, changed: &[PathBuf]) -> Discovery {
        let Some(walk) = previous
            .walk
            .as_ref()
            .filter(|walk| Arc::ptr_eq(&walk.config, &self.config))
        else {
            return self.discover().await;
        };
        match self.try_rediscover(walk, changed).await {
            Ok(found) => found,
            Err(error) => {
                tracing::warn!("skill discovery did not run again: {error}");
                self.discover().await
            }
        }
    }

    async fn try_discover(&self) -> Result<Discovery, SkillError> {
        let everything = vec![Change::Everything; self.config.roots.len()];
        self.walk(&[], &everything, &HashSet::new()).await
    }

    async fn try_rediscover(
        &self,
        previous: &Walk,
        changed: &[PathBuf],
    ) -> Result<Discovery, SkillError> {
        let mut changes = vec![Change::Nothing; previous.roots.len()];
        let mut dirty = HashSet::new();
        for (root, change) in previous.roots.iter().zip(&mut changes) {
            let Some(dir) = root.dir() else {
                // A root that was missing: look for it again.
                *change = Change::Everything;
                continue;
            };
            for path in changed {
                let Ok(rest) = path.strip_prefix(dir) else {
                    continue;
                };
                let mut components = rest.components();
                let first = match components.next() {
                    None => {
                        *change = Change::Everything;
                        continue;
                    }
                    Some(Component::Normal(first)) => first,
                    Some(_) => continue,
                };
                if root.is_skill || first == SKILL_FILE {
                    *change = Change::Everything;
                } else if walk::is_searched_dir(first) {
                    let entry = dir.join(first);
                    // An entry directly in the root, or a directory not seen before (its own
                    // creation may not have been reported): the root is listed again.
                    if components.next().is_none() || root.position(&entry).is_none() {
                        *change = (*change).max(Change::Listing);
                    }
                    dirty.insert(entry);
                }
            }
        }
        self.walk(&previous.roots, &changes, &dirty).await
    }

    /// Walks the roots: each root as `changes` says, reusing `previous` (per root) for what did
    /// not change, and searching again the directories in `dirty`.
    async fn walk(
        &self,
        previous: &[RootWalk],
        changes: &[Change],
        dirty: &HashSet<PathBuf>,
    ) -> Result<Discovery, SkillError> {
        let mut plans = self.plan(previous, changes).await?.into_iter();
        let mut roots = Vec::with_capacity(changes.len());
        let mut searches = Vec::new();
        for (index, change) in changes.iter().enumerate() {
            let before = previous.get(index);
            let root = match before {
                Some(before) if *change == Change::Nothing => {
                    keep_root(index, before, dirty, &mut searches)
                }
                _ => {
                    let plan = plans.next().unwrap_or_default();
                    relist_root(index, plan, *change, before, dirty, &mut searches)
                }
            };
            roots.push(root);
        }
        self.search_again(&mut roots, &searches).await?;
        Ok(Discovery::of(&self.config, roots))
    }

    /// Lists, on the blocking pool, the roots that changed or were not walked before.
    async fn plan(
        &self,
        previous: &[RootWalk],
        changes: &[Change],
    ) -> Result<Vec<RootPlan>, SkillError> {
        let config = Arc::clone(&self.config);
        let listed: Vec<usize> = (0..changes.len())
            .filter(|&root| changes[root] != Change::Nothing || previous.get(root).is_none())
            .collect();
        blocking::run("planning discovery", move || {
            listed
                .into_iter()
                .map(|root| walk::plan_root(&config, root))
                .collect()
        })
        .await
        .map_err(SkillError::other)
    }

    /// Searches the directories of `searches` and puts what each found in its slot of `roots`.
    async fn search_again(
        &self,
        roots: &mut [RootWalk],
        searches: &[PendingSearch],
    ) -> Result<(), SkillError> {
        // A search whose root is gone is dropped together with its slot, so that each result
        // goes back to the search that asked for it.
        let ready: Vec<(&PendingSearch, Arc<SkillRoot>)> = searches
            .iter()
            .filter_map(|pending| Some((pending, Arc::clone(roots[pending.root].root.as_ref()?))))
            .collect();
        let found = self
            .search(
                ready
                    .iter()
                    .map(|(pending, root)| (Arc::clone(root), pending.dir.clone()))
                    .collect(),
            )
            .await?;
        for ((pending, _), below) in ready.iter().zip(found) {
            roots[pending.root].below[pending.slot] = below;
        }
        Ok(())
    }

    /// Searches each `(root, directory)` on the blocking pool, in a few parallel batches;
    /// returns what each found, in order.
    async fn search(
        &self,
        searches: Vec<(Arc<SkillRoot>, PathBuf)>,
    ) -> Result<Vec<Below>, SkillError> {
        let batch_size = searches
            .len()
            .div_ceil(self.config.parallelism)
            .max(MIN_BATCH);
        let mut batches = Vec::new();
        let mut searches = searches.into_iter();
        loop {
            let batch: Vec<_> = searches.by_ref().take(batch_size).collect();
            if batch.is_empty() {
                break;
            }
            let config = self.config.clone();
            // Each batch starts on the blocking pool when first polled; `try_join_all` polls them
            // all at once, so they run in parallel.
            batches.push(blocking::run("discovering skills", move || {
                batch
                    .into_iter()
                    .map(|(root, dir)| walk::search(&config, &root, dir))
                    .collect::<Vec<_>>()
            }));
        }
        let found = try_join_all(batches).await.map_err(SkillError::other)?;
        Ok(found.into_iter().flatten().collect())
    }
}

/// A directory to search again: the root it is below (by index) and its slot in that root's
/// `below`.
struct PendingSearch {
    root: usize,
    slot: usize,
    dir: PathBuf,
}

/// The root of index `index` as `before` found it, with the `dirty` directories below it
/// queued to be searched again.
fn keep_root(
    index: usize,
    before: &RootWalk,
    dirty: &HashSet<PathBuf>,
    searches: &mut Vec<PendingSearch>,
) -> RootWalk {
    for dir in dirty {
        if let Some(slot) = before.position(dir) {
            searches.push(PendingSearch {
                root: index,
                slot,
                dir: dir.clone(),
            });
        }
    }
    before.clone()
}

/// The root of index `index` as `plan` lists it now. When only its listing changed, the
/// directories below it that are not `dirty` keep what `before` found; the others are queued
/// to be searched.
fn relist_root(
    index: usize,
    plan: RootPlan,
    change: Change,
    before: Option<&RootWalk>,
    dirty: &HashSet<PathBuf>,
    searches: &mut Vec<PendingSearch>,
) -> RootWalk {
    let reusable: HashMap<&OsStr, &Below> = match (change, before, before.and_then(RootWalk::dir)) {
        (Change::Listing, Some(before), Some(before_dir)) => before
            .below
            .iter()
            .filter(|below| !dirty.contains(&before_dir.join(below.name())))
            .map(|below| (below.name(), below))
            .collect(),
        _ => HashMap::new(),
    };
    let below = plan
        .subdirs
        .into_iter()
        .enumerate()
        .map(
            |(slot, dir)| match dir.file_name().and_then(|name| reusable.get(name)) {
                Some(below) => (*below).clone(),
                None => {
                    let unsearched = Below::unsearched(&dir);
                    searches.push(PendingSearch {
                        root: index,
                        slot,
                        dir,
                    });
                    unsearched
                }
            },
        )
        .collect();
    RootWalk {
        root: plan.root,
        is_skill: plan.is_skill,
        own: plan.own,
        below,
    }
}

/// How much of a root to walk again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Change {
    /// Nothing but the directories below it that changed.
    Nothing,
    /// Its listing (an entry directly in it changed), and the directories below it that
    /// changed or are new.
    Listing,
    /// All of it.
    Everything,
}

#[async_trait]
impl SkillsSource for FileSkillsSource {
    async fn skills(&self, _context: &SourceContext) -> Result<Vec<Arc<dyn Skill>>, SkillError> {
        Ok(self
            .discover()
            .await
            .skills
            .into_iter()
            .map(|skill| skill as Arc<dyn Skill>)
            .collect())
    }
}
