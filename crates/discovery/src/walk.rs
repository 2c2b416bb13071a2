//! The discovery walk, all blocking. [`plan`] lists the roots, [`run`] searches the directories
//! below them (in parallel batches) and loads the skills found, and [`assemble`] puts the
//! results in discovery order and drops duplicate names. No symbolic link below a root is
//! followed.

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
use crate::source::Discovery;

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
fn is_ignored_dir(name: &OsString) -> bool {
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

/// One piece of a discovery run, in discovery order.
pub(crate) enum Step {
    /// What the walk of the roots themselves found.
    Done(Vec<Event>),
    /// A directory one level below the root of this index, still to be searched.
    Search(PathBuf, usize),
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

/// Lists every root of `config` (loading a root that is itself a skill), leaving the
/// directories below the roots as [`Step::Search`]es that can run in parallel.
pub(crate) fn plan(config: &Config) -> Vec<Step> {
    let mut steps = Vec::new();
    for (index, root) in config.roots.iter().enumerate() {
        let mut searcher = Searcher {
            config,
            root: index,
            events: Vec::new(),
        };
        let subdirs = searcher.root(&root.path);
        steps.push(Step::Done(searcher.events));
        steps.extend(subdirs.into_iter().map(|dir| Step::Search(dir, index)));
    }
    steps
}

/// Runs one step: searches its directory and loads the skills found there.
pub(crate) fn run(config: &Config, step: Step) -> Vec<Event> {
    match step {
        Step::Done(events) => events,
        Step::Search(dir, root) => {
            let mut searcher = Searcher {
                config,
                root,
                events: Vec::new(),
            };
            searcher.search(dir, 1);
            searcher.events
        }
    }
}

/// Puts the events of a run together in order, dropping later duplicates of a name.
pub(crate) fn assemble(config: &Config, events: impl IntoIterator<Item = Event>) -> Discovery {
    let policy = ScriptPolicy {
        runner: config.runner.clone(),
        runnable: config.scripts_runnable,
    };
    let mut found = Discovery::default();
    // Lowercased skill names already taken, with the `SKILL.md` that took each.
    let mut seen: HashMap<String, PathBuf> = HashMap::new();
    for event in events {
        match event {
            Event::Skipped(diagnostic) => found.diagnostics.push(diagnostic),
            Event::Found(Err(diagnostics)) => found.diagnostics.extend(diagnostics),
            Event::Found(Ok(skill)) => {
                let skill_md = skill.dir.join(SKILL_FILE);
                let key = skill.frontmatter.name.to_lowercase();
                if let Some(first) = seen.get(&key) {
                    let message = format!(
                        "skill skipped: the name `{}` is already taken by {} (the first one found wins); rename one of them",
                        skill.frontmatter.name,
                        first.display()
                    );
                    found.diagnostics.push(warning(&skill_md, "name", message));
                    continue;
                }
                seen.insert(key, skill_md);
                let root = &config.roots[skill.root];
                let origin = SkillOrigin::new(OriginKind::Files, root.path.display().to_string())
                    .with_scope(root.scope)
                    .with_location(skill.dir.display().to_string());
                let skill = FileSkill::new(*skill, origin, &policy);
                found.diagnostics.extend_from_slice(skill.diagnostics());
                found.skills.push(Arc::new(skill));
            }
        }
    }
    found
}

/// Searches directories for skills and loads those it finds, recording what it meets.
struct Searcher<'a> {
    config: &'a Config,
    /// The index of the root being searched.
    root: usize,
    events: Vec<Event>,
}

impl Searcher<'_> {
    fn skip(&mut self, path: &Path, field: &str, message: String) {
        self.events
            .push(Event::Skipped(warning(path, field, message)));
    }

    /// Resolves `root` and visits it; returns its subdirectories to search.
    fn root(&mut self, root: &Path) -> Vec<PathBuf> {
        if root.as_os_str().is_empty() {
            return Vec::new();
        }
        // The host chose the root, so a link there is followed; below it nothing is.
        let canonical = match dunce::canonicalize(root) {
            Ok(canonical) => canonical,
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                tracing::debug!(root = %root.display(), "skills root does not exist");
                return Vec::new();
            }
            Err(error) => {
                self.skip(
                    root,
                    "path",
                    format!("skills root skipped: it cannot be resolved ({error})"),
                );
                return Vec::new();
            }
        };
        if !canonical.is_dir() {
            self.skip(
                root,
                "path",
                "skills root skipped: it is not a directory; give the directory that holds skill folders".into(),
            );
            return Vec::new();
        }
        self.visit(canonical, 0)
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
                    let outcome = load(self.config, self.root, dir, entries);
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
fn load(config: &Config, root: usize, dir: PathBuf, entries: Vec<Entry>) -> Outcome {
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
        root,
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
