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

use skillful_core::names::RelativeName;
use skillful_core::{Diagnostic, Skill};

use crate::config::{Config, FileFilter};
use crate::head::read_head;
use crate::skill::{FileSkill, FoundSkill, SKILL_FILE, ScriptPolicy, SkillRoot};

/// How many levels below a root a `SKILL.md` is looked for: `root/` to `root/a/b/c/d/e/f/`.
/// Public repositories keep skills four levels down (`plugins/NAME/skills/SKILL/`), and one
/// depth for every command means `list` and `scan` of a tree see the same skills; MAF looks
/// two levels down.
pub const MAX_SKILL_DEPTH: usize = 6;

/// The hidden directories searched for skills: where public repositories and agent hosts keep
/// them (`skills/.curated/`, `skills/.system/`, `skills/.experimental/` in openai/skills;
/// `.claude/skills/`, `.agents/skills/`, `.github/skills/` in a project).
pub const SKILL_HOLDING_DOT_DIRS: &[&str] = &[
    ".agents",
    ".claude",
    ".codex",
    ".copilot",
    ".curated",
    ".experimental",
    ".gemini",
    ".github",
    ".goose",
    ".system",
];

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

/// Hidden directories (`.git`, `.venv`, ...) and `node_modules` hold no resources of a skill.
pub(crate) fn is_ignored_dir(name: &std::ffi::OsStr) -> bool {
    name.as_encoded_bytes().starts_with(b".") || name == "node_modules"
}

/// Whether the search for skills enters the directory `name`: not `node_modules`, nor a hidden
/// directory other than those of [`SKILL_HOLDING_DOT_DIRS`].
pub(crate) fn is_searched_dir(name: &std::ffi::OsStr) -> bool {
    !is_ignored_dir(name)
        || name
            .to_str()
            .is_some_and(|name| SKILL_HOLDING_DOT_DIRS.contains(&name))
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
    /// The root, when it could be resolved to a directory.
    pub(crate) root: Option<Arc<SkillRoot>>,
    /// Whether the root is itself a skill (holds `SKILL.md`).
    pub(crate) is_skill: bool,
    /// What visiting the root itself found.
    pub(crate) own: Arc<[Item]>,
    /// What was found below each directory one level below the root, in name order.
    pub(crate) below: Vec<Below>,
}

impl RootWalk {
    /// The root's canonical directory, when it could be resolved to one.
    pub(crate) fn dir(&self) -> Option<&Path> {
        self.root.as_ref().map(|root| root.dir.as_path())
    }

    /// Where `dir` is in `below` (which is in name order), if it is there.
    pub(crate) fn position(&self, dir: &Path) -> Option<usize> {
        let name = dir.strip_prefix(self.dir()?).ok()?;
        self.below
            .binary_search_by(|below| Path::new(below.name()).cmp(name))
            .ok()
    }
}

/// What the search of one directory below a root found. Most such directories are one skill
/// and nothing else, and a large library keeps thousands of them: those keep only the skill.
#[derive(Debug, Clone)]
pub(crate) enum Below {
    /// A directory that is the skill, where nothing else was met.
    Skill(Arc<FileSkill>),
    /// Any other directory: its name, and what was met in it and below it.
    Other(Arc<(OsString, Box<[Item]>)>),
}

impl Below {
    /// What was found searching the directory called `name`.
    fn new(name: OsString, mut items: Vec<Item>) -> Self {
        if let [Item::Skill(skill)] = items.as_slice()
            && name
                .to_str()
                .is_some_and(|name| skill.relative_dir() == Some(name))
        {
            return Self::Skill(Arc::clone(skill));
        }
        items.shrink_to_fit();
        Self::Other(Arc::new((name, items.into_boxed_slice())))
    }

    /// A directory not searched yet.
    pub(crate) fn unsearched(dir: &Path) -> Self {
        Self::new(dir.file_name().unwrap_or_default().to_owned(), Vec::new())
    }

    /// The directory's name.
    pub(crate) fn name(&self) -> &std::ffi::OsStr {
        match self {
            Self::Skill(skill) => skill.relative_dir().unwrap_or_default().as_ref(),
            Self::Other(other) => &other.0,
        }
    }
}

/// A root listed: what the visit of the root found, and the directories below it to search.
#[derive(Default)]
pub(crate) struct RootPlan {
    pub(crate) root: Option<Arc<SkillRoot>>,
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
    let given = &config.roots[root];
    let (dir, subdirs) = searcher.root(&given.path);
    let root = dir.map(|dir| {
        Arc::new(SkillRoot {
            dir,
            label: given.path.display().to_string(),
            scope: given.scope,
            parse_options: config.loader.options().clone(),
            reads: config.reads,
            policy: ScriptPolicy {
                runner: config.runner.clone(),
                runnable: config.scripts_runnable,
            },
        })
    });
    let is_skill = root.as_ref().is_some_and(|root| {
        fs::symlink_metadata(root.dir.join(SKILL_FILE)).is_ok_and(|metadata| metadata.is_file())
    });
    let own = match &root {
        Some(root) => make(root, searcher.events),
        // Nothing was loaded: only what was skipped.
        None => searcher
            .events
            .into_iter()
            .filter_map(|event| match event {
                Event::Skipped(diagnostic) => Some(Item::Skipped(diagnostic)),
                Event::Found(_) => None,
            })
            .collect(),
    };
    RootPlan {
        root,
        is_skill,
        own: own.into(),
        subdirs,
    }
}

/// Searches `dir`, one level below `root`, and makes the skills found there.
pub(crate) fn search(config: &Config, root: &Arc<SkillRoot>, dir: PathBuf) -> Below {
    let mut searcher = Searcher {
        config,
        events: Vec::new(),
    };
    let name = dir.file_name().unwrap_or_default().to_owned();
    searcher.search(dir, 1);
    Below::new(name, make(root, searcher.events))
}

/// The skills of `events`, found below `root`, made.
fn make(root: &Arc<SkillRoot>, events: Vec<Event>) -> Vec<Item> {
    events
        .into_iter()
        .map(|event| match event {
            Event::Skipped(diagnostic) => Item::Skipped(diagnostic),
            Event::Found(Err(diagnostics)) => Item::Rejected(diagnostics),
            Event::Found(Ok(skill)) => Item::Skill(Arc::new(FileSkill::new(*skill, root))),
        })
        .collect()
}

/// Puts what the walks of the roots found together in order, dropping later duplicates of a
/// name (unless the source keeps them for its host to rank).
pub(crate) fn assemble(
    config: &Config,
    roots: &[RootWalk],
) -> (Vec<Arc<FileSkill>>, Vec<Diagnostic>) {
    let mut assembly = Assembly {
        keep_duplicates: config.keep_duplicates,
        seen: HashMap::new(),
        skills: Vec::new(),
        diagnostics: Vec::new(),
    };
    for root in roots {
        root.own.iter().for_each(|item| assembly.item(item));
        for below in &root.below {
            match below {
                Below::Skill(skill) => assembly.skill(skill),
                Below::Other(other) => other.1.iter().for_each(|item| assembly.item(item)),
            }
        }
    }
    (assembly.skills, assembly.diagnostics)
}

/// The skills and diagnostics put together so far.
struct Assembly<'a> {
    keep_duplicates: bool,
    /// Lowercased skill names already taken, with the skill that took each.
    seen: HashMap<String, &'a FileSkill>,
    skills: Vec<Arc<FileSkill>>,
    diagnostics: Vec<Diagnostic>,
}

impl<'a> Assembly<'a> {
    fn item(&mut self, item: &'a Item) {
        match item {
            Item::Skipped(diagnostic) => self.diagnostics.push(diagnostic.clone()),
            Item::Rejected(rejected) => self.diagnostics.extend_from_slice(rejected),
            Item::Skill(skill) => self.skill(skill),
        }
    }

    fn skill(&mut self, skill: &'a Arc<FileSkill>) {
        let key = skill.name().to_lowercase();
        if let Some(first) = self.seen.get(&key).filter(|_| !self.keep_duplicates) {
            let message = format!(
                "skill skipped: the name `{}` is already taken by {} (the first one found wins); rename one of them",
                skill.name(),
                first.skill_md_path().display()
            );
            self.diagnostics
                .push(warning(&skill.skill_md_path(), "name", message));
            return;
        }
        self.seen.insert(key, skill);
        self.diagnostics.extend_from_slice(skill.diagnostics());
        self.skills.push(Arc::clone(skill));
    }
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
        let visited = visit(dir, depth, &mut skipped);
        self.events.extend(skipped.into_iter().map(Event::Skipped));
        match visited {
            Visited::Skill(dir, entries) => {
                let outcome = load(self.config, dir, entries);
                self.events.push(Event::Found(outcome));
                Vec::new()
            }
            Visited::Search(subdirs) => subdirs,
        }
    }
}

/// What visiting one directory of the search for skills found.
enum Visited {
    /// The directory is a skill: it, and its entries.
    Skill(PathBuf, Vec<Entry>),
    /// It is not: its subdirectories to search (none below [`MAX_SKILL_DEPTH`]).
    Search(Vec<PathBuf>),
}

/// Visits `dir`, `depth` levels below its root, for the search for skills: the one rule of
/// which directories hold a skill and which are searched further, for discovery and for
/// [`skill_dirs`] alike. What is skipped (links, unreadable entries) is added to `skipped`.
fn visit(dir: PathBuf, depth: usize, skipped: &mut Vec<Diagnostic>) -> Visited {
    let Some(entries) = read_entries(&dir, skipped) else {
        return Visited::Search(Vec::new());
    };
    if let Some(skill_file) = entries.iter().find(|entry| entry.name == SKILL_FILE) {
        let refusal = match skill_file.kind {
            Kind::File => return Visited::Skill(dir, entries),
            Kind::Symlink => Some(
                "skill skipped: SKILL.md is a symbolic link and links are not followed; copy the file instead",
            ),
            Kind::Other => Some("skill skipped: SKILL.md is not a regular file"),
            // A directory that happens to be called SKILL.md: searched like any other.
            Kind::Dir => None,
        };
        if let Some(refusal) = refusal {
            skipped.push(warning(&dir.join(SKILL_FILE), SKILL_FILE, refusal.into()));
            return Visited::Search(Vec::new());
        }
    }
    if depth >= MAX_SKILL_DEPTH {
        return Visited::Search(Vec::new());
    }
    let mut subdirs = Vec::new();
    for entry in entries {
        if !is_searched_dir(&entry.name) {
            continue;
        }
        match entry.kind {
            Kind::Dir => subdirs.push(dir.join(&entry.name)),
            Kind::Symlink => skipped.push(warning(
                &dir.join(&entry.name),
                "path",
                "skipped: it is a symbolic link and links below a skills root are not followed; move the skill here or add its directory as a root".into(),
            )),
            Kind::File | Kind::Other => {}
        }
    }
    Visited::Search(subdirs)
}

/// The skill directories found at or below `root` (those holding a `SKILL.md`, which are not
/// searched further), in path order, as discovery finds them but without reading them: down to
/// [`MAX_SKILL_DEPTH`] levels, entering no link, `node_modules` or hidden directory other than
/// those of [`SKILL_HOLDING_DOT_DIRS`].
///
/// `scan`, `add` and `install` find skills with this; discovery (`list`, `validate`, `catalog`,
/// `search`, the runtime) walks by the same rule.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkillDirs {
    /// The skill directories, in path order.
    pub dirs: Vec<PathBuf>,
    /// What was skipped on the way (a link, a `SKILL.md` that is not a regular file, a
    /// directory that cannot be listed), each a warning naming its path.
    pub skipped: Vec<Diagnostic>,
}

/// Searches `root` (a skill, or a directory holding skills) for skill directories: see
/// [`SkillDirs`]. A root that is a symbolic link is followed, as a root given to discovery is.
///
/// # Example
/// ```
/// # let root = tempfile::tempdir().unwrap();
/// # for dir in ["skills/.curated/fix-ci", "skills/lint", ".git/hooks"] {
/// #     std::fs::create_dir_all(root.path().join(dir)).unwrap();
/// # }
/// # std::fs::write(root.path().join("skills/.curated/fix-ci/SKILL.md"), "---\n---\n").unwrap();
/// # std::fs::write(root.path().join("skills/lint/SKILL.md"), "---\n---\n").unwrap();
/// let found = skillful_discovery::skill_dirs(root.path());
/// let names: Vec<_> = found.dirs.iter().map(|dir| dir.file_name().unwrap()).collect();
/// assert_eq!(names, ["fix-ci", "lint"]);
/// ```
pub fn skill_dirs(root: &Path) -> SkillDirs {
    let mut found = SkillDirs::default();
    let mut pending = vec![(root.to_path_buf(), 0)];
    while let Some((dir, depth)) = pending.pop() {
        match visit(dir, depth, &mut found.skipped) {
            Visited::Skill(dir, _) => found.dirs.push(dir),
            // In reverse, so that the stack pops them in name order.
            Visited::Search(subdirs) => {
                pending.extend(subdirs.into_iter().rev().map(|subdir| (subdir, depth + 1)));
            }
        }
    }
    found
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
        if let Err(unsafe_name) = RelativeName::new(&relative) {
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
