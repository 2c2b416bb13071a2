//! Live reload of file skills for long-running hosts (`skills chat`, `skills serve`, an agent
//! service): [`WatchedSource`] keeps what a [`FileSkillsSource`] discovered and discovers again,
//! reading only the directories that changed ([`FileSkillsSource::rediscover`]), after a file
//! watcher on the roots reports changes.
//!
//! Changes are debounced: a reload starts once no change has been reported for
//! [`DEFAULT_DEBOUNCE`] (or [`WatchedSourceBuilder::debounce`]), or at the latest
//! [`DEFAULT_MAX_DELAY`] after the first change of a burst, so a `git checkout` of a thousand
//! files gives one reload, not a thousand. A call for skills made while changes are pending
//! waits for the next reload that *starts after it arrived* and has finished (reloads are
//! counted), so it never returns skills a change already reported made stale, and never waits
//! longer than the debounce limit plus one reload, however long the files keep changing: a
//! change counts as reported as soon as the watcher's thread hears of it, even while the
//! runtime is busy (or, single-threaded, blocked) and has not run the reloading task yet, and a
//! reload takes in every change reported before it started.
//! Every reload that changed something is announced on [`WatchedSource::reloads`] (an MCP
//! server sends `notifications/resources/list_changed` then).
//!
//! The watcher is the platform's (inotify, FSEvents, ReadDirectoryChangesW, through the
//! `notify` crate), never following symbolic links. When it cannot be started, or cannot watch
//! a root, that root is polled instead (every [`DEFAULT_POLL_INTERVAL`]) with a warning; a root
//! that does not exist yet is looked for at the same interval and watched once it appears.
//! Reading events (the watcher reports the source's own reads) are ignored.
//!
//! It owns watching and when to reload; it does not know what a skill is beyond
//! `skillful-discovery`, nor prompts, tools, MCP or the CLI.
//!
//! The debouncing is this crate's own rather than `notify-debouncer-*`'s: those flush each path
//! once that path has been quiet, so a long burst over many files comes out in many batches,
//! while a reload waits for the whole tree to be quiet (up to the max delay).
//!
//! # Example
//! ```
//! use std::time::Duration;
//! use skillful_core::{SkillsSource, SourceContext};
//! use skillful_discovery::FileSkillsSource;
//! use skillful_watch::WatchedSource;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! # let root = tempfile::tempdir().unwrap();
//! let files = FileSkillsSource::builder().root(root.path()).build().unwrap();
//! let watched = WatchedSource::builder(files)
//!     .debounce(Duration::from_millis(50))
//!     .start()
//!     .await;
//! let mut reloads = watched.reloads();
//! # let dir = root.path().join("greeter");
//! # std::fs::create_dir(&dir).unwrap();
//! # std::fs::write(dir.join("SKILL.md"), "---\nname: greeter\ndescription: Greets.\n---\nHi.\n").unwrap();
//! // ... a skill is added under the root ...
//! # tokio::time::timeout(Duration::from_secs(10), reloads.changed()).await.unwrap().unwrap();
//! let skills = watched.skills(&SourceContext::default()).await.unwrap();
//! assert_eq!(skills[0].name(), "greeter");
//! assert_eq!(reloads.borrow().added, ["greeter"]);
//! # }
//! ```

#![forbid(unsafe_code)]

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use notify::{EventKind, PollWatcher, RecommendedWatcher, RecursiveMode, Watcher};
use skillful_core::{Skill, SkillError, SkillsSource, SourceContext};
use skillful_discovery::{Discovery, FileSkill, FileSkillsSource};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

/// How long the roots must be quiet before a reload starts, by default.
pub const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(100);

/// How long after the first change of a burst a reload starts at the latest, by default.
pub const DEFAULT_MAX_DELAY: Duration = Duration::from_secs(2);

/// How often polled roots are scanned, and missing roots looked for, by default.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(2);

/// How a root is being watched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Watching {
    /// By the platform's file watcher.
    Native,
    /// By scanning it every poll interval (the watcher failed, or polling was asked for).
    Polling,
    /// Not at all yet: it does not exist (or is not a directory); it is looked for every poll
    /// interval.
    Missing,
}

/// What one reload changed, by skill name; announced on [`WatchedSource::reloads`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reload {
    /// How many reloads changed something so far (0 before the first).
    pub generation: u64,
    /// Skills that were not there before.
    pub added: Vec<String>,
    /// Skills read again (their `SKILL.md` or files changed).
    pub changed: Vec<String>,
    /// Skills that are gone.
    pub removed: Vec<String>,
}

/// Configures a [`WatchedSource`].
#[derive(Debug)]
#[must_use]
pub struct WatchedSourceBuilder {
    source: FileSkillsSource,
    debounce: Duration,
    max_delay: Duration,
    poll_interval: Duration,
    polling: bool,
}

impl WatchedSourceBuilder {
    /// How long the roots must be quiet before a reload starts (default [`DEFAULT_DEBOUNCE`]).
    pub fn debounce(mut self, quiet: Duration) -> Self {
        self.debounce = quiet;
        self
    }

    /// How long after the first change of a burst a reload starts at the latest, however busy
    /// the roots stay (default [`DEFAULT_MAX_DELAY`]).
    pub fn max_delay(mut self, delay: Duration) -> Self {
        self.max_delay = delay;
        self
    }

    /// How often polled roots are scanned and missing roots looked for (default
    /// [`DEFAULT_POLL_INTERVAL`]).
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// Polls every root instead of using the platform's watcher: for network file systems,
    /// whose remote changes the platform's watcher does not see (default `false`).
    pub fn polling(mut self, polling: bool) -> Self {
        self.polling = polling;
        self
    }

    /// Discovers the skills and starts watching the roots.
    ///
    /// Never fails: a watcher that cannot start, or cannot watch a root, is replaced by polling
    /// with a warning.
    ///
    /// # Panics
    /// Outside a tokio runtime.
    pub async fn start(self) -> WatchedSource {
        let discovery = Arc::new(self.source.discover().await);
        let (events, receiver) = mpsc::unbounded_channel();
        let pending = watch::Sender::new(Pending::default());
        let reporter = Reporter {
            events,
            pending: pending.clone(),
        };
        let roots: Vec<PathBuf> = self
            .source
            .roots()
            .into_iter()
            .map(Path::to_path_buf)
            .collect();
        let shared = Arc::new(Shared {
            source: self.source,
            current: Mutex::new(Arc::clone(&discovery)),
            pending,
            reloads: watch::Sender::new(Reload::default()),
            watching: Mutex::new(vec![Watching::Missing; roots.len()]),
        });
        let watchers = Watchers::new(reporter, self.polling, self.poll_interval);
        let watchers = follow(watchers, &shared, &roots, &discovery).await;
        let task = Task {
            shared: Arc::clone(&shared),
            roots,
            watchers,
            received: 0,
            debounce: self.debounce,
            max_delay: self.max_delay,
            poll_interval: self.poll_interval,
        };
        let task = tokio::spawn(task.run(receiver));
        WatchedSource { shared, task }
    }
}

/// The skills of a [`FileSkillsSource`], kept in memory and reloaded when the files under its
/// roots change (see the crate documentation).
///
/// Put it where a cache would go (do not cache it again: a cache above it would keep the skills
/// it replaced). Dropping it stops the watcher.
pub struct WatchedSource {
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl WatchedSource {
    /// Starts configuring a watched source over `source`.
    pub fn builder(source: FileSkillsSource) -> WatchedSourceBuilder {
        WatchedSourceBuilder {
            source,
            debounce: DEFAULT_DEBOUNCE,
            max_delay: DEFAULT_MAX_DELAY,
            poll_interval: DEFAULT_POLL_INTERVAL,
            polling: false,
        }
    }

    /// What the last discovery found (skills and diagnostics), after the reload of any change
    /// already reported: when changes are pending, the next reload that starts after this call
    /// and has finished (at most the debounce limit plus one reload away, even under churn).
    pub async fn discovery(&self) -> Arc<Discovery> {
        let mut pending = self.shared.pending.subscribe();
        let wanted = {
            let now = pending.borrow_and_update();
            if now.settled() {
                None
            } else {
                Some(now.started + 1)
            }
        };
        if let Some(wanted) = wanted {
            // Either that reload has finished, or every change reported has been read by one
            // that has (the change that was pending was in the reload under way when this call
            // arrived, and nothing changed since). The sender lives as long as `shared`:
            // waiting cannot fail.
            let _ = pending
                .wait_for(|pending| pending.finished >= wanted || pending.settled())
                .await;
        }
        self.shared.current()
    }

    /// The announcements of reloads: the last [`Reload`], marked changed each time a reload
    /// changes something. A receiver that falls behind sees only the latest.
    pub fn reloads(&self) -> watch::Receiver<Reload> {
        self.shared.reloads.subscribe()
    }

    /// How each root (in the source's order) is watched now.
    pub fn watching(&self) -> Vec<Watching> {
        self.shared.watching_now()
    }
}

impl Drop for WatchedSource {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl fmt::Debug for WatchedSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WatchedSource")
            .field("source", &self.shared.source)
            .field("watching", &self.shared.watching_now())
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl SkillsSource for WatchedSource {
    async fn skills(&self, _context: &SourceContext) -> Result<Vec<Arc<dyn Skill>>, SkillError> {
        Ok(self
            .discovery()
            .await
            .skills
            .iter()
            .map(|skill| Arc::clone(skill) as Arc<dyn Skill>)
            .collect())
    }
}

/// What the source and its task share.
struct Shared {
    source: FileSkillsSource,
    current: Mutex<Arc<Discovery>>,
    /// The changes reported, and how many of them reloads have read.
    pending: watch::Sender<Pending>,
    reloads: watch::Sender<Reload>,
    watching: Mutex<Vec<Watching>>,
}

impl Shared {
    fn current(&self) -> Arc<Discovery> {
        Arc::clone(&self.current.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn watching_now(&self) -> Vec<Watching> {
        self.watching
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set_watching(&self, root: usize, how: Watching) {
        if let Some(slot) = self
            .watching
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_mut(root)
        {
            *slot = how;
        }
    }
}

/// How many changes the watchers reported and how many of them a reload has read; how many
/// reloads have started and which one finished last.
#[derive(Debug, Clone, Copy, Default)]
struct Pending {
    reported: u64,
    read: u64,
    started: u64,
    finished: u64,
}

impl Pending {
    /// Whether every change reported has been read by a reload.
    fn settled(&self) -> bool {
        self.read >= self.reported
    }
}

/// Whether `event` reports a change: opening and reading files, the source's own reads
/// included, change nothing; an error may hide changes.
fn is_change(event: &notify::Result<notify::Event>) -> bool {
    !matches!(event, Ok(event) if matches!(event.kind, EventKind::Access(_)))
}

/// What the watchers' threads call with each event: it counts the change as pending at once,
/// then hands the event to the reloading task.
#[derive(Clone)]
struct Reporter {
    events: mpsc::UnboundedSender<notify::Result<notify::Event>>,
    pending: watch::Sender<Pending>,
}

impl Reporter {
    fn report(&self, event: notify::Result<notify::Event>) {
        let change = is_change(&event);
        // Queued before it counts as reported, so a reload that starts once it is reported
        // finds it in the queue. The task is gone only when the source is: nothing is waiting
        // for the event then.
        let _ = self.events.send(event);
        if change {
            self.pending.send_modify(|pending| pending.reported += 1);
        }
    }
}

/// The watchers of the roots: the platform's, and a polling one for the roots it cannot watch.
struct Watchers {
    reporter: Reporter,
    native: Option<RecommendedWatcher>,
    poller: Option<PollWatcher>,
    poll_interval: Duration,
    /// The directory each root is watched at, if it is watched.
    watched: HashMap<usize, PathBuf>,
}

impl Watchers {
    fn new(reporter: Reporter, polling: bool, poll_interval: Duration) -> Self {
        let native = if polling {
            None
        } else {
            let sender = reporter.clone();
            let config = notify::Config::default().with_follow_symlinks(false);
            match RecommendedWatcher::new(move |event| sender.report(event), config) {
                Ok(watcher) => Some(watcher),
                Err(error) => {
                    tracing::warn!(
                        "the file watcher cannot start ({error}); the skill roots are polled every {poll_interval:?} instead"
                    );
                    None
                }
            }
        };
        Self {
            reporter,
            native,
            poller: None,
            poll_interval,
            watched: HashMap::new(),
        }
    }

    /// Watches every root of `discovery` not watched yet at the directory it resolved to.
    fn follow(&mut self, shared: &Shared, roots: &[PathBuf], discovery: &Discovery) {
        for (index, dir) in discovery.root_dirs().into_iter().enumerate() {
            let Some(dir) = dir else {
                if self.watched.remove(&index).is_some() {
                    shared.set_watching(index, Watching::Missing);
                }
                continue;
            };
            if self
                .watched
                .get(&index)
                .is_some_and(|watched| watched == dir)
            {
                continue;
            }
            let how = self.watch(&roots[index], dir);
            self.watched.insert(index, dir.to_path_buf());
            shared.set_watching(index, how);
        }
    }

    /// Watches `dir` (the root `root` resolved), natively when possible.
    fn watch(&mut self, root: &Path, dir: &Path) -> Watching {
        if let Some(native) = &mut self.native {
            match native.watch(dir, RecursiveMode::Recursive) {
                Ok(()) => return Watching::Native,
                Err(error) => tracing::warn!(
                    root = %root.display(),
                    "the file watcher cannot watch this skills root ({error}); it is polled every {:?} instead",
                    self.poll_interval
                ),
            }
        }
        let poller = match &mut self.poller {
            Some(poller) => poller,
            empty => {
                let sender = self.reporter.clone();
                let config = notify::Config::default()
                    .with_follow_symlinks(false)
                    .with_poll_interval(self.poll_interval);
                match PollWatcher::new(move |event| sender.report(event), config) {
                    Ok(poller) => empty.insert(poller),
                    Err(error) => {
                        tracing::warn!(
                            root = %root.display(),
                            "this skills root cannot be polled either ({error}); changes to it are not seen"
                        );
                        return Watching::Missing;
                    }
                }
            }
        };
        // The poller reports a root it cannot scan as an event error, not here.
        let _ = poller.watch(dir, RecursiveMode::Recursive);
        Watching::Polling
    }
}

/// [`Watchers::follow`] on the blocking pool: adding a recursive watch walks the tree.
async fn follow(
    mut watchers: Watchers,
    shared: &Arc<Shared>,
    roots: &[PathBuf],
    discovery: &Arc<Discovery>,
) -> Watchers {
    let (shared, roots, discovery) = (Arc::clone(shared), roots.to_vec(), Arc::clone(discovery));
    let reporter = watchers.reporter.clone();
    let poll_interval = watchers.poll_interval;
    let followed = skillful_fs::blocking::run("watching the skill roots", move || {
        watchers.follow(&shared, &roots, &discovery);
        watchers
    })
    .await;
    followed.unwrap_or_else(|error| {
        tracing::warn!("the skill roots are not watched: {error}");
        Watchers {
            reporter,
            native: None,
            poller: None,
            poll_interval,
            watched: HashMap::new(),
        }
    })
}

/// The loop that collects reported changes and reloads.
struct Task {
    shared: Arc<Shared>,
    roots: Vec<PathBuf>,
    watchers: Watchers,
    /// How many changes this task has received (each also counted as reported).
    received: u64,
    debounce: Duration,
    max_delay: Duration,
    poll_interval: Duration,
}

impl Task {
    async fn run(mut self, mut events: mpsc::UnboundedReceiver<notify::Result<notify::Event>>) {
        let mut changed: BTreeSet<PathBuf> = BTreeSet::new();
        // When the current burst started, and when it last reported a change.
        let mut burst: Option<(Instant, Instant)> = None;
        let mut look_for_missing = tokio::time::interval(self.poll_interval);
        look_for_missing.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let deadline =
                burst.map(|(first, last)| (last + self.debounce).min(first + self.max_delay));
            tokio::select! {
                event = events.recv() => {
                    let Some(event) = event else { return };
                    if self.note(event, &mut changed) {
                        self.received += 1;
                        let now = Instant::now();
                        burst = Some((burst.map_or(now, |(first, _)| first), now));
                    }
                }
                () = sleep_until(deadline), if deadline.is_some() => {
                    burst = None;
                    self.reload(&mut events, &mut changed).await;
                }
                _ = look_for_missing.tick() => {
                    if burst.is_none() && self.a_missing_root_appeared() {
                        self.reload(&mut events, &mut changed).await;
                    }
                }
            }
        }
    }

    /// Adds the paths an event reports to `changed`; whether it reports a change at all.
    fn note(&self, event: notify::Result<notify::Event>, changed: &mut BTreeSet<PathBuf>) -> bool {
        match event {
            event if !is_change(&event) => false,
            Ok(event) if event.need_rescan() => {
                changed.extend(self.watched_dirs());
                true
            }
            Ok(event) => {
                changed.extend(event.paths);
                true
            }
            Err(error) => {
                tracing::warn!(
                    "the file watcher reported an error ({error}); the skill roots are read again"
                );
                changed.extend(self.watched_dirs());
                true
            }
        }
    }

    fn watched_dirs(&self) -> Vec<PathBuf> {
        self.watchers.watched.values().cloned().collect()
    }

    /// Whether a root that did not exist does now.
    fn a_missing_root_appeared(&self) -> bool {
        self.roots
            .iter()
            .enumerate()
            .any(|(index, root)| !self.watchers.watched.contains_key(&index) && root.is_dir())
    }

    /// Discovers again after the paths in `changed` changed, and those of every event already
    /// queued (so that it covers every change reported before it started), watches roots that
    /// appeared, and announces what changed.
    async fn reload(
        &mut self,
        events: &mut mpsc::UnboundedReceiver<notify::Result<notify::Event>>,
        changed: &mut BTreeSet<PathBuf>,
    ) {
        let generation = {
            let mut started = 0;
            self.shared.pending.send_modify(|pending| {
                pending.started += 1;
                started = pending.started;
            });
            started
        };
        while let Ok(event) = events.try_recv() {
            if self.note(event, changed) {
                self.received += 1;
            }
        }
        let paths: Vec<PathBuf> = std::mem::take(changed).into_iter().collect();
        let before = self.shared.current();
        let mut after = Arc::new(self.shared.source.rediscover(&before, &paths).await);
        if after.root_dirs() != before.root_dirs() {
            let placeholder =
                Watchers::new(self.watchers.reporter.clone(), true, self.poll_interval);
            let watchers = std::mem::replace(&mut self.watchers, placeholder);
            self.watchers = follow(watchers, &self.shared, &self.roots, &after).await;
            // What changed in a root that appeared after it was read and before its watch began
            // is reported by no watcher: such roots are read once more, now that they are
            // watched.
            let was: Vec<Option<&Path>> = before.root_dirs();
            let appeared: Vec<PathBuf> = after
                .root_dirs()
                .into_iter()
                .flatten()
                .filter(|dir| !was.contains(&Some(*dir)))
                .map(Path::to_path_buf)
                .collect();
            if !appeared.is_empty() {
                after = Arc::new(self.shared.source.rediscover(&after, &appeared).await);
            }
        }
        *self
            .shared
            .current
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Arc::clone(&after);
        // Every change received so far was in this reload's batch.
        let received = self.received;
        self.shared.pending.send_modify(|pending| {
            pending.read = received;
            pending.finished = generation;
        });
        let (added, changed, removed) = differences(&before.skills, &after.skills);
        if added.is_empty() && changed.is_empty() && removed.is_empty() {
            return;
        }
        tracing::info!(
            added = added.len(),
            changed = changed.len(),
            removed = removed.len(),
            "skills reloaded"
        );
        self.shared.reloads.send_modify(|reload| {
            *reload = Reload {
                generation: reload.generation + 1,
                added,
                changed,
                removed,
            };
        });
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    if let Some(deadline) = deadline {
        tokio::time::sleep_until(deadline).await;
    }
}

/// The names of the skills added, read again and removed between `before` and `after`, each
/// sorted. Skills are told apart by their directory, not their name: a source that keeps
/// duplicates (the same name in two roots) changes when a second skill of a name appears.
fn differences(
    before: &[Arc<FileSkill>],
    after: &[Arc<FileSkill>],
) -> (Vec<String>, Vec<String>, Vec<String>) {
    let by_dir = |skills: &[Arc<FileSkill>]| -> HashMap<PathBuf, Arc<FileSkill>> {
        skills
            .iter()
            .map(|skill| (skill.dir().to_path_buf(), Arc::clone(skill)))
            .collect()
    };
    let (before, after) = (by_dir(before), by_dir(after));
    let name = |skill: &Arc<FileSkill>| skill.name().to_owned();
    let mut added = Vec::new();
    let mut changed = Vec::new();
    for (dir, skill) in &after {
        match before.get(dir) {
            None => added.push(name(skill)),
            Some(old) if !Arc::ptr_eq(old, skill) => changed.push(name(skill)),
            Some(_) => {}
        }
    }
    let mut removed: Vec<String> = before
        .iter()
        .filter(|(dir, _)| !after.contains_key(*dir))
        .map(|(_, skill)| name(skill))
        .collect();
    added.sort_unstable();
    changed.sort_unstable();
    removed.sort_unstable();
    (added, changed, removed)
}
