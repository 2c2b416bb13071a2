//! The discovery walk, all blocking. [`plan_root`] lists a root, [`search`] searches one
//! directory below it (in parallel batches) and makes the skills found, and [`assemble`] puts
//! the results in discovery order and drops duplicate names. The results are kept per root and
//! per directory below it ([`RootWalk`]), so that a later discovery can search again only the
//! directories that changed. No symbolic link below a root is followed.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use skillful_core::names::check_relative_name;
use skillful_core::{Diagnostic, OriginKind, Skill, SkillOrigin};

use crate::builder::{Config, FileFilter};
use crate::head::read_head;
use crate::skill::{FileSkill, FoundSkill, SKILL_FILE, ScriptPolicy};

/// How many levels below a root a `SKILL.md` is looked for: `root/`, `root/a/`, `root/a/b/`.
const MAX_SKILL_DEPTH: usize = 2;

/// One directory entry, typed without following links.
struct Entry {
    name: OsString,
    kind: Kind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Dir,
    File,
    Symlink,
    Other,
}

/// Logs a warning about `path` (something skipped, or to fix) and returns it as a diagnostic.
fn warning(path: &Path, field: &str, message: String) -> Diagnostic {
    tracing::warn!(path = %path.display(), "{message}");
    Diagnostic::warning(field, message).with_path(path)
}

/// Hidden directories (`.git`, `.venv`, ...) and `node_modules` hold no skills and no resources.
pub(crate) fn is_ignored_dir(name: &std::ffi::OsStr) -> bool {
    name.as_encoded_bytes().starts_with(b".") || name == "node_modules"
}

/// A skill's own `evals/` directory (its test cases with their expected answers, and the scripts
/// that grade them, for `skills eval`) is for the skill's author: a model under evaluation must
/// not read the answers, nor run the graders.
const EVALS_DIR: &str = "evals";

/// The entries of `dir` sorted by name, or `None` (with a warning) when it cannot be listed.
/// An entry that cannot be inspected is skipped with a warning.
fn read_entries(dir: &Path, sink: &mut Vec<Diagnostic>) -> Option<Vec<Entry>> {
    let listing = match fs::read_dir(dir) {
        Ok(listing) => listing,
        Err(error) => {
            sink.push(warning(
                dir,
                "path",
                format!("directory skipped: it cannot be listed ({error})"),
            ));
            return None;
        }
    };
    let mut entries = Vec::new();
    for item in listing {
        let entry = match item {
            Ok(entry) => entry,
            Err(error) => {
                sink.push(warning(
                    dir,
                    "path",
                    format!("an entry of this directory was skipped: {error}"),
                ));
                continue;
            }
        };
        let name = entry.file_name();
        let kind = match entry.file_type() {
            Ok(kind) if kind.is_symlink() => Kind::Symlink,
            Ok(kind) if kind.is_dir() => Kind::Dir,
            Ok(kind) if kind.is_file() => Kind::File,
            Ok(_) => Kind::Other,
            Err(error) => {
                sink.push(warning(
                    &dir.join(&name),
                    "path",
                    format!("skipped: it cannot be inspected ({error})"),
                ));
                continue;
            }
        };
        entries.push(Entry { name, kind });
    }
    entries.sort_unstable_by(|a, b| a.name.cmp(&b.name));
    Some(entries)
}

/// Something a discovery run met, in discovery order.
pub(crate) enum Event {
    /// A warning about something skipped.
    Skipped(Diagnostic),
    /// A `SKILL.md` found, loaded or rejected.
    Found(Outcome),
}

/// What loading one skill gave: the skill, or why it was rejected.
pub(crate) type Outcome = Result<Box<FoundSkill>, Vec<Diagnostic>>;

/// What a walk met, its skills made: kept between discoveries.
#[derive(Debug, Clone)]
pub(crate) enum Item {
    /// A warning about something skipped.
    Skipped(Diagnostic),
    /// A skill rejected, and why.
    Rejected(Vec<Diagnostic>),
    /// A skill loaded.
    Skill(Arc<FileSkill>),
}

/// What the walk of one root found.
#[derive(Debug, Clone, Default)]
pub(crate) struct RootWalk {
    /// The root's canonical directory, when it could be resolved to one.
    pub(crate) dir: Option<PathBuf>,
    /// Whether the root is itself a skill (holds `SKILL.md`).
    pub(crate) is_skill: bool,
    /// What visiting the root itself found.
    pub(crate) own: Arc<[Item]>,
    /// What was found below each directory one level below the root, in name order.
    pub(crate) below: Vec<(PathBuf, Arc<[Item]>)>,
}

impl RootWalk {
    /// Where `dir` is in `below` (which is in path order), if it is there.
    pub(crate) fn position(&self, dir: &Path) -> Option<usize> {
        self.below
            .binary_search_by(|(below, _)| below.as_path().cmp(dir))
            .ok()
    }
}

/// A root listed: what the visit of the root found, and the directories below it to search.
#[derive(Default)]
pub(crate) struct RootPlan {
    pub(crate) dir: Option<PathBuf>,
    pub(crate) is_skill: bool,
    pub(crate) own: Arc<[Item]>,
    pub(crate) subdirs: Vec<PathBuf>,
}

/// Lists the root of index `root` (loading it when it is itself a skill), leaving the
/// directories below it to [`search`].
pub(crate) fn plan_root(config: &Config, root: usize) -> RootPlan {
    let mut searcher = Searcher {
        config,
        events: Vec::new(),
    };
    let (dir, subdirs) = searcher.root(&config.roots[root].path);
    let is_skill = dir.as_ref().is_some_and(|dir| {
        fs::symlink_metadata(dir.join(SKILL_FILE)).is_ok_and(|metadata| metadata.is_file())
    });
    RootPlan {
        dir,
        is_skill,
        own: make(config, root, searcher.events).into(),
        subdirs,
    }
}

/// Searches `dir`, one level below the root of index `root`, and makes the skills found there.
pub(crate) fn search(config: &Config, root: usize, dir: PathBuf) -> Arc<[Item]> {
    let mut searcher = Searcher {
        config,
        events: Vec::new(),
    };
    searcher.search(dir, 1);
    make(config, root, searcher.events).into()
}

/// The skills of `events`, found below the root of index `root`, made.
fn make(config: &Config, root: usize, events: Vec<Event>) -> Vec<Item> {
    let policy = ScriptPolicy {
        runner: config.runner.clone(),
        runnable: config.scripts_runnable,
    };
    let root_dir = &config.roots[root];
    events
        .into_iter()
        .map(|event| match event {
            Event::Skipped(diagnostic) => Item::Skipped(diagnostic),
            Event::Found(Err(diagnostics)) => Item::Rejected(diagnostics),
            Event::Found(Ok(skill)) => {
                let origin =
                    SkillOrigin::new(OriginKind::Files, root_dir.path.display().to_string())
                        .with_scope(root_dir.scope)
                        .with_location(skill.dir.display().to_string());
                Item::Skill(Arc::new(FileSkill::new(*skill, origin, &policy)))
            }
        })
        .collect()
}

/// Puts what the walks of the roots found together in order, dropping later duplicates of a
/// name (unless the source keeps them for its host to rank).
pub(crate) fn assemble(
    config: &Config,
    roots: &[RootWalk],
) -> (Vec<Arc<FileSkill>>, Vec<Diagnostic>) {
    let mut skills = Vec::new();
    let mut diagnostics = Vec::new();
    // Lowercased skill names already taken, with the `SKILL.md` that took each.
    let mut seen: HashMap<String, PathBuf> = HashMap::new();
    let items = roots.iter().flat_map(|root| {
        root.own
            .iter()
            .chain(root.below.iter().flat_map(|(_, items)| items.iter()))
    });
    for item in items {
        match item {
            Item::Skipped(diagnostic) => diagnostics.push(diagnostic.clone()),
            Item::Rejected(rejected) => diagnostics.extend_from_slice(rejected),
            Item::Skill(skill) => {
                let skill_md = skill.skill_md_path();
                let key = skill.frontmatter().name.to_lowercase();
                if let Some(first) = seen.get(&key).filter(|_| !config.keep_duplicates) {
                    let message = format!(
                        "skill skipped: the name `{}` is already taken by {} (the first one found wins); rename one of them",
                        skill.frontmatter().name,
                        first.display()
                    );
                    diagnostics.push(warning(&skill_md, "name", message));
                    continue;
                }
                seen.insert(key, skill_md);
                diagnostics.extend_from_slice(skill.diagnostics());
                skills.push(Arc::clone(skill));
            }
        }
    }
    (skills, diagnostics)
}

/// Searches directories for skills and loads those it finds, recording what it meets.
struct Searcher<'a> {
    config: &'a Config,
    events: Vec<Event>,
}

impl Searcher<'_> {
    fn skip(&mut self, path: &Path, field: &str, message: String) {
        self.events
            .push(Event::Skipped(warning(path, field, message)));
    }

    /// Resolves `root` and visits it; returns its canonical directory and its subdirectories to
    /// search.
    fn root(&mut self, root: &Path) -> (Option<PathBuf>, Vec<PathBuf>) {
        if root.as_os_str().is_empty() {
            return (None, Vec::new());
        }
        // The host chose the root, so a link there is followed; below it nothing is.
        let canonical = match dunce::canonicalize(root) {
            Ok(canonical) => canonical,
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                tracing::debug!(root = %root.display(), "skills root does not exist");
                return (None, Vec::new());
            }
            Err(error) => {
                self.skip(
                    root,
                    "path",
                    format!("skills root skipped: it cannot be resolved ({error})"),
                );
                return (None, Vec::new());
            }
        };
        if !canonical.is_dir() {
            self.skip(
                root,
                "path",
                "skills root skipped: it is not a directory; give the directory that holds skill folders".into(),
            );
            return (None, Vec::new());
        }
        let subdirs = self.visit(canonical.clone(), 0);
        (Some(canonical), subdirs)
    }

    /// Searches `dir`, `depth` levels below its root, and everything below it.
    fn search(&mut self, dir: PathBuf, depth: usize) {
        for subdir in self.visit(dir, depth) {
            self.search(subdir, depth + 1);
        }
    }

    /// Loads `dir` when it is a skill; otherwise returns its subdirectories to search, if any.
    fn visit(&mut self, dir: PathBuf, depth: usize) -> Vec<PathBuf> {
        let mut skipped = Vec::new();
        let entries = read_entries(&dir, &mut skipped);
        self.events.extend(skipped.into_iter().map(Event::Skipped));
        let Some(entries) = entries else {
            return Vec::new();
        };
        if let Some(skill_file) = entries.iter().find(|entry| entry.name == SKILL_FILE) {
            let refusal = match skill_file.kind {
                Kind::File => {
                    let outcome = load(self.config, dir, entries);
                    self.events.push(Event::Found(outcome));
                    return Vec::new();
                }
                Kind::Symlink => Some(
                    "skill skipped: SKILL.md is a symbolic link and links are not followed; copy the file instead",
                ),
                Kind::Other => Some("skill skipped: SKILL.md is not a regular file"),
                // A directory that happens to be called SKILL.md: searched like any other.
                Kind::Dir => None,
            };
            if let Some(refusal) = refusal {
                self.skip(&dir.join(SKILL_FILE), SKILL_FILE, refusal.into());
                return Vec::new();
            }
        }
        if depth >= MAX_SKILL_DEPTH {
            return Vec::new();
        }
        let mut subdirs = Vec::new();
        for entry in entries {
            if is_ignored_dir(&entry.name) {
                continue;
            }
            match entry.kind {
                Kind::Dir => subdirs.push(dir.join(&entry.name)),
                Kind::Symlink => self.skip(
                    &dir.join(&entry.name),
                    "path",
                    "skipped: it is a symbolic link and links below a skills root are not followed; move the skill here or add its directory as a root".into(),
                ),
                Kind::File | Kind::Other => {}
            }
        }
        subdirs
    }
}

/// Reads the frontmatter of the skill in `dir` (whose `entries` are read), validates it, and
/// lists its files.
fn load(config: &Config, dir: PathBuf, entries: Vec<Entry>) -> Outcome {
    let skill_md = dir.join(SKILL_FILE);
    let loader = &config.loader;
    let loaded = read_head(&skill_md, loader.options())
        .map_err(|error| vec![Diagnostic::error(SKILL_FILE, error.0)])
        .and_then(|head| {
            let dir_name = dir
                .file_name()
                .map(|name| name.to_string_lossy())
                .unwrap_or_default();
            loader.load(&head, Some(&dir_name))
        });
    let loaded = match loaded {
        Ok(loaded) => loaded,
        Err(diagnostics) => {
            let reasons: Vec<&str> = diagnostics
                .iter()
                .filter(|diagnostic| diagnostic.is_error())
                .map(|diagnostic| diagnostic.message.as_str())
                .collect();
            tracing::warn!(path = %skill_md.display(), "skill skipped: {}", reasons.join("; "));
            return Err(diagnostics
                .into_iter()
                .map(|diagnostic| diagnostic.with_path(&skill_md))
                .collect());
        }
    };
    let mut diagnostics = Vec::with_capacity(loaded.diagnostics.len());
    for diagnostic in loaded.diagnostics {
        diagnostics.push(warning(&skill_md, &diagnostic.field, diagnostic.message));
    }
    let mut files = Files {
        config,
        dir: &dir,
        skill_name: &loaded.frontmatter.name,
        resources: Vec::new(),
        scripts: Vec::new(),
        diagnostics,
    };
    files.scan(&dir, "", entries, 1);
    let Files {
        resources,
        scripts,
        diagnostics,
        ..
    } = files;
    Ok(Box::new(FoundSkill {
        frontmatter: loaded.frontmatter,
        dir,
        parse_options: loader.options().clone(),
        reads: config.reads,
        resources,
        scripts,
        diagnostics,
    }))
}

/// The resource and script files of one skill, found so far.
struct Files<'a> {
    config: &'a Config,
    dir: &'a Path,
    skill_name: &'a str,
    resources: Vec<String>,
    scripts: Vec<String>,
    diagnostics: Vec<Diagnostic>,
}

impl Files<'_> {
    /// Lists the files of `dir` (named `prefix` relative to the skill, `depth` levels down from
    /// it, the skill directory being level 1), then its subdirectories within the search depth.
    fn scan(&mut self, dir: &Path, prefix: &str, entries: Vec<Entry>, depth: usize) {
        const LINKED: &str = "skipped: it is a symbolic link and links inside a skill are not followed; copy the file into the skill instead";
        let mut subdirs = Vec::new();
        for entry in entries {
            let Some(name) = entry.name.to_str() else {
                let message = "skipped: its name is not UTF-8; rename it".into();
                let path = dir.join(&entry.name);
                self.diagnostics.push(warning(&path, "path", message));
                continue;
            };
            let relative = || {
                if prefix.is_empty() {
                    name.to_owned()
                } else {
                    format!("{prefix}/{name}")
                }
            };
            match entry.kind {
                Kind::File => self.add(name, relative),
                Kind::Dir if is_ignored_dir(&entry.name) => {}
                Kind::Dir if depth == 1 && entry.name == EVALS_DIR => {}
                Kind::Dir if depth < self.config.search_depth => {
                    subdirs.push((dir.join(name), relative()));
                }
                Kind::Dir => {}
                Kind::Symlink => {
                    let path = dir.join(name);
                    self.diagnostics.push(warning(&path, "path", LINKED.into()));
                }
                Kind::Other if self.is_listed(name) => {
                    let path = dir.join(name);
                    let message = "skipped: it is not a regular file".into();
                    self.diagnostics.push(warning(&path, "path", message));
                }
                Kind::Other => {}
            }
        }
        for (path, relative) in subdirs {
            if let Some(entries) = read_entries(&path, &mut self.diagnostics) {
                self.scan(&path, &relative, entries, depth + 1);
            }
        }
    }

    fn is_listed(&self, name: &str) -> bool {
        Config::has_extension(&self.config.resource_extensions, name)
            || Config::has_extension(&self.config.script_extensions, name)
    }

    /// Adds the file `relative` as a resource and/or a script, as its extension and the
    /// filters say. `SKILL.md` files are the skill's instructions, never resources.
    fn add(&mut self, name: &str, relative: impl Fn() -> String) {
        if name.eq_ignore_ascii_case(SKILL_FILE) {
            return;
        }
        let config = self.config;
        let is_resource = Config::has_extension(&config.resource_extensions, name);
        let is_script = Config::has_extension(&config.script_extensions, name);
        if !is_resource && !is_script {
            return;
        }
        let relative = relative();
        if let Err(unsafe_name) = check_relative_name(&relative) {
            let message = format!("skipped: {}; rename the file", unsafe_name.reason);
            let path = self.dir.join(&relative);
            self.diagnostics.push(warning(&path, "path", message));
            return;
        }
        let keeps = |filter: &Option<FileFilter>| {
            filter
                .as_ref()
                .is_none_or(|keep| keep(self.skill_name, &relative))
        };
        let resource = is_resource && keeps(&config.resource_filter);
        let script = is_script && keeps(&config.script_filter);
        match (resource, script) {
            (true, true) => {
                self.resources.push(relative.clone());
                self.scripts.push(relative);
            }
            (true, false) => self.resources.push(relative),
            (false, true) => self.scripts.push(relative),
            (false, false) => {}
        }
    }
}
