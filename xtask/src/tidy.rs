//! `cargo xtask tidy`: the structural rules of `ARCHITECTURE.md`, checked on the source so that
//! they cannot drift into prose. Each [`Rule`] names what it keeps; `ARCHITECTURE.md` names the
//! rule beside each invariant it keeps, and rule `keepers` checks that every invariant there
//! names the rules, lints, tests or types that keep it, and that each of them exists.
//!
//! The library crates are the packages in `crates/*`. Test code is not checked for child
//! processes, printing and reads: a `#[cfg(test)]` (or `#[cfg(all(test, ...))]`) module (to the
//! end of its file, as the workspace writes them) and a file declared as one (`#[cfg(test)] mod
//! test_index;`).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use skillful_plugin_build::{Package, workspace_packages};

mod cycles;

/// The crates that may hold `unsafe` code, and why: system calls `libc` has no safe wrapper
/// for here (process groups, the reaper, `prctl`, `flock`), and the plugin ABI's export.
pub(crate) const UNSAFE_CRATES: [&str; 5] = [
    "skillful-process",
    "skillful-scripts",
    "skillful-plugin-abi",
    "skillful-fs",
    "skillful-test-support",
];

/// The crates that may start a process themselves: `skillful-process` (which every other crate
/// goes through), and the development tools that run the developer's own `cargo`, the tests'
/// helpers and `useradd` (`skillful-plugin-build`, `skillful-test-support`).
pub(crate) const CHILD_PROCESS_CRATES: [&str; 3] = [
    "skillful-process",
    "skillful-plugin-build",
    "skillful-test-support",
];

/// The crates that may write to standard output and error: the CLI (through its terminal
/// writer) and the tests' helpers (a skipped test says why).
pub(crate) const PRINTING_CRATES: [&str; 2] = ["skillful-cli", "skillful-test-support"];

/// The files that may open a file for reading themselves, and why: the one bounded,
/// link-refusing open, and files that read no skill's file (each crate's own records, the
/// kernel's). Every other read goes through it (`skillful_state::{open_nofollow,
/// open_regular_file, read_regular_file, read_bounded, read_private, sha256_file}`,
/// `skillful_manifest::read_bounded`).
pub(crate) const OWN_READS: [(&str, &str); 7] = [
    (
        "crates/fs/src/lib.rs",
        "the one bounded, link-refusing open (`open_nofollow`) and the reads built on it",
    ),
    (
        "crates/audit/src/log.rs",
        "the audit log's own files, in the private directory the sink verified",
    ),
    (
        "crates/engine/src/process.rs",
        "the engine's own records in its state directory, and /proc",
    ),
    (
        "crates/engine/src/install.rs",
        "the engine's own wheels (checked by sha256) and stamps",
    ),
    (
        "crates/cli/src/commands/man.rs",
        "the man page clap_mangen has just written",
    ),
    (
        "crates/scripts/src/sandbox.rs",
        "the kernel's settings in /proc/sys",
    ),
    (
        "crates/test-support/src/wait.rs",
        "/proc of a test's own child, and the named pipes a test made",
    ),
];

/// What `tidy` checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Rule {
    /// Each library crate is in the layer table of `ARCHITECTURE.md` ("Crate layers") and
    /// depends (normal dependencies) only on crates of lower layers.
    Layers,
    /// No crate but those of [`CHILD_PROCESS_CRATES`] starts a process (`Command::new`, or a
    /// `use` of `std::process::Command`/`tokio::process::Command`).
    ChildProcess,
    /// No crate but those of [`PRINTING_CRATES`] prints (`println!`, `eprintln!`, `print!`,
    /// `eprint!`, `dbg!`, `io::stdout()`, `io::stderr()`).
    Printing,
    /// Every crate but those of [`UNSAFE_CRATES`] has `#![forbid(unsafe_code)]`.
    ForbidUnsafe,
    /// Every `unsafe fn` has a `# Safety` section in its documentation.
    SafetyDoc,
    /// No crate opens a file for reading itself (`fs::read`, `fs::read_to_string`,
    /// `File::open`, `fs::copy`, an `OpenOptions` with `.read(true)`; std's or tokio's) outside
    /// the files of [`OWN_READS`]: a skill's file is read through the one bounded,
    /// link-refusing open.
    BoundedReads,
    /// Every subcommand of the CLI (`crates/cli/src/main.rs`, its `Command` enum) is named in
    /// `ARCHITECTURE.md`'s section on the CLI.
    Commands,
    /// The crates' table of `docs/src/development/layout.md` is the one `cargo xtask layout`
    /// writes from cargo metadata (each crate's directory, name and description).
    Layout,
    /// Every `**Architecture Invariant:**` of `ARCHITECTURE.md` names what keeps it ("Kept by:"
    /// and one or more [`Keeper`]s), and each keeper named exists: a rule of this file, a clippy
    /// lint the workspace configures, a test function, a type.
    Keepers,
    /// No crate's modules name one another in a circle (`cycles.rs` says how a module names
    /// another: a `use` or a path written out, followed through re-exports to the module that
    /// defines the name; the crate root and test code left out).
    ModuleCycles,
}

impl Rule {
    /// Every rule.
    const ALL: [Rule; 10] = [
        Rule::Layers,
        Rule::ChildProcess,
        Rule::Printing,
        Rule::ForbidUnsafe,
        Rule::SafetyDoc,
        Rule::BoundedReads,
        Rule::Commands,
        Rule::Layout,
        Rule::Keepers,
        Rule::ModuleCycles,
    ];
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rule::Layers => "layers",
            Rule::ChildProcess => "child-process",
            Rule::Printing => "printing",
            Rule::ForbidUnsafe => "forbid-unsafe",
            Rule::SafetyDoc => "safety-doc",
            Rule::BoundedReads => "bounded-reads",
            Rule::Commands => "commands",
            Rule::Layout => "layout",
            Rule::Keepers => "keepers",
            Rule::ModuleCycles => "module-cycles",
        })
    }
}

/// One breach of a rule: where (a file and line, or a crate) and what.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Problem {
    pub(crate) rule: Rule,
    pub(crate) at: String,
    pub(crate) what: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}: {}", self.rule, self.at, self.what)
    }
}

/// Runs `cargo xtask tidy` on the workspace at `root`: every problem printed, an error when
/// there is one.
pub(crate) fn run(root: &Path) -> anyhow::Result<()> {
    let problems = check(root)?;
    for problem in &problems {
        eprintln!("{problem}");
    }
    if !problems.is_empty() {
        bail!("tidy: {} problem(s)", problems.len());
    }
    println!("tidy: every rule holds");
    Ok(())
}

/// The problems of the workspace at `root`, sorted by rule and place.
pub(crate) fn check(root: &Path) -> anyhow::Result<Vec<Problem>> {
    let crates = crates(root)?;
    let architecture =
        std::fs::read_to_string(root.join("ARCHITECTURE.md")).context("reading ARCHITECTURE.md")?;
    let mut problems = layers(&architecture, &crates)?;
    problems.extend(commands(root, &architecture)?);
    problems.extend(layout(root, &crates)?);
    problems.extend(keepers(root, &architecture, &crates)?);
    for krate in &crates {
        problems.extend(krate.source_problems()?);
    }
    problems.sort();
    Ok(problems)
}

/// The library crates of the workspace at `root`, as cargo metadata lists them.
fn crates(root: &Path) -> anyhow::Result<Vec<Crate>> {
    let packages = workspace_packages(Some(&root.join("Cargo.toml")))
        .context("cargo metadata of the workspace")?;
    Ok(packages
        .into_iter()
        .filter_map(|package| Crate::of(root, package))
        .collect())
}

/// What begins an invariant of `ARCHITECTURE.md`.
const INVARIANT: &str = "**Architecture Invariant:**";

/// What begins the list of an invariant's keepers, which ends at the first full stop outside
/// backquotes.
const KEPT_BY: &str = "Kept by:";

/// What keeps an invariant, as `ARCHITECTURE.md` names it: its kind, then its name in
/// backquotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keeper {
    /// ``tidy rule `layers` ``: a [`Rule`] of this file.
    TidyRule,
    /// ``clippy `disallowed_methods` ``: a lint the workspace configures (`clippy.toml`, the root
    /// `Cargo.toml`'s lints, or a crate's `#![deny(clippy::...)]`).
    Clippy,
    /// ``test `a_name` ``: a function marked `#[test]` or `#[tokio::test]` somewhere in the
    /// workspace.
    Test,
    /// ``type `RelativeName` ``: a struct, enum, trait or type alias of a crate, whose
    /// construction enforces the invariant.
    Type,
}

impl Keeper {
    /// Each kind, by the words that name it.
    const KINDS: [(&str, Keeper); 4] = [
        ("tidy rule", Keeper::TidyRule),
        ("clippy", Keeper::Clippy),
        ("test", Keeper::Test),
        ("type", Keeper::Type),
    ];
}

/// An invariant of `ARCHITECTURE.md`: the line it begins on (from 1) and its text, from after
/// its marker to the end of its paragraph (or the next invariant).
#[derive(Debug)]
struct Invariant {
    line: usize,
    text: String,
}

/// The invariants of `architecture`.
fn invariants(architecture: &str) -> Vec<Invariant> {
    let lines: Vec<&str> = architecture.lines().collect();
    let mut found = Vec::new();
    for (number, line) in lines.iter().enumerate() {
        let mut rest = *line;
        while let Some(at) = rest.find(INVARIANT) {
            let after = &rest[at + INVARIANT.len()..];
            if let Some(next) = after.find(INVARIANT) {
                found.push(Invariant {
                    line: number + 1,
                    text: after[..next].to_owned(),
                });
                rest = &after[next..];
                continue;
            }
            let mut text = after.to_owned();
            for next in &lines[number + 1..] {
                if next.trim().is_empty() || next.starts_with('#') {
                    break;
                }
                let (before, ends) = match next.find(INVARIANT) {
                    Some(at) => (&next[..at], true),
                    None => (*next, false),
                };
                text.push(' ');
                text.push_str(before.trim());
                if ends {
                    break;
                }
            }
            found.push(Invariant {
                line: number + 1,
                text,
            });
            rest = "";
        }
    }
    found
}

/// The keepers an invariant's `text` names, each with its name; an error saying what is wrong
/// when it names none or cannot be read.
fn named_keepers(text: &str) -> Result<Vec<(Keeper, String)>, String> {
    let kinds = "tidy rule `NAME`, clippy `LINT`, test `NAME` or type `NAME`";
    let Some(at) = text.find(KEPT_BY) else {
        return Err(format!(
            "an invariant that names nothing that keeps it: end it with `{KEPT_BY}` and the \
             {kinds} that keeps it"
        ));
    };
    let list = &text[at + KEPT_BY.len()..];
    let mut quoted = false;
    let end = list
        .char_indices()
        .find(|&(_, c)| {
            quoted ^= c == '`';
            c == '.' && !quoted
        })
        .map_or(list.len(), |(end, _)| end);
    let mut rest = list[..end].trim();
    let mut keepers = Vec::new();
    while !rest.is_empty() {
        let unreadable = || format!("`{KEPT_BY}` names a keeper as {kinds} do not: `{rest}`");
        let (kind, after) = Keeper::KINDS
            .iter()
            .find_map(|(words, kind)| Some((*kind, rest.strip_prefix(words)?)))
            .ok_or_else(unreadable)?;
        let name = after
            .trim_start()
            .strip_prefix('`')
            .ok_or_else(unreadable)?;
        let (name, after) = name.split_once('`').ok_or_else(unreadable)?;
        keepers.push((kind, name.to_owned()));
        rest = after.trim_start();
        rest = rest.strip_prefix([',', ';']).map_or(rest, str::trim_start);
        rest = rest.strip_prefix("and ").unwrap_or(rest);
    }
    if keepers.is_empty() {
        return Err(format!("`{KEPT_BY}` names no {kinds}"));
    }
    Ok(keepers)
}

/// What keepers can name in the workspace at `root`: its test functions, its types and the
/// clippy lints it configures.
#[derive(Debug, Default)]
struct Named {
    tests: BTreeSet<String>,
    types: BTreeSet<String>,
    lints: BTreeSet<String>,
}

impl Named {
    /// What the workspace at `root`, with its library crates `crates`, declares.
    fn of(root: &Path, crates: &[Crate]) -> anyhow::Result<Self> {
        let mut named = Self::default();
        let mut dirs: Vec<PathBuf> = ["src", "tests", "xtask", "examples"]
            .iter()
            .map(|dir| root.join(dir))
            .collect();
        for krate in crates {
            dirs.push(krate.path.join("src"));
            dirs.push(krate.path.join("tests"));
        }
        for dir in &dirs {
            let library = dir.ends_with("src");
            for file in rust_files(dir)? {
                let text = std::fs::read_to_string(&file)
                    .with_context(|| format!("reading {}", file.display()))?;
                named.tests.extend(test_functions(&text));
                if library {
                    named.types.extend(declared_types(&text));
                    named.lints.extend(denied_lints(&text));
                }
            }
        }
        // Lints configured for the whole workspace: those clippy.toml configures (a key names
        // its lint in kebab case: `disallowed-methods`) and the root manifest's clippy lints.
        for (file, table) in [
            ("clippy.toml", None),
            ("Cargo.toml", Some("[workspace.lints.clippy]")),
        ] {
            if let Ok(text) = std::fs::read_to_string(root.join(file)) {
                named
                    .lints
                    .extend(table_keys(&text, table).map(|key| key.replace('-', "_")));
            }
        }
        Ok(named)
    }

    /// Why `name` keeps nothing, as a keeper of `kind`: it does not exist.
    fn missing(&self, kind: Keeper, name: &str) -> Option<String> {
        let exists = match kind {
            Keeper::TidyRule => Rule::ALL.iter().any(|rule| rule.to_string() == name),
            Keeper::Clippy => self.lints.contains(name),
            Keeper::Test => self.tests.contains(name),
            Keeper::Type => self.types.contains(name),
        };
        (!exists).then(|| match kind {
            Keeper::TidyRule => format!("`{name}` is no rule of xtask/src/tidy.rs"),
            Keeper::Clippy => format!(
                "the clippy lint `{name}` is configured nowhere (clippy.toml, the root \
                 Cargo.toml's lints, a crate's #![deny(clippy::...)])"
            ),
            Keeper::Test => format!("no #[test] or #[tokio::test] function is named `{name}`"),
            Keeper::Type => format!("no crate declares a struct, enum, trait or type `{name}`"),
        })
    }
}

/// The keys of the TOML `text` in `table` (its header, as written), or before any table.
fn table_keys<'a>(text: &'a str, table: Option<&'a str>) -> impl Iterator<Item = &'a str> {
    let mut current: Option<&str> = None;
    text.lines().filter_map(move |line| {
        let line = line.trim();
        if line.starts_with('[') {
            current = Some(line);
            return None;
        }
        let (key, _) = line.split_once('=')?;
        let key = key.trim();
        (current == table && !key.is_empty() && key.chars().all(|c| is_identifier(c) || c == '-'))
            .then_some(key)
    })
}

/// The names of the test functions of `text`: those marked `#[test]` or `#[tokio::test]`
/// (other attributes and comments between them aside).
fn test_functions(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    lines
        .iter()
        .enumerate()
        .filter_map(|(number, line)| {
            let name = function_name(line)?;
            lines[..number]
                .iter()
                .rev()
                .map(|line| line.trim())
                .take_while(|line| line.starts_with("#[") || line.starts_with("//"))
                .any(|line| line.starts_with("#[test]") || line.starts_with("#[tokio::test"))
                .then(|| name.to_owned())
        })
        .collect()
}

/// The function `line` declares (`fn name(`, `pub async fn name<`), if it declares one.
fn function_name(line: &str) -> Option<&str> {
    let mut rest = line.trim();
    for qualifier in ["pub(crate) ", "pub ", "async "] {
        rest = rest.strip_prefix(qualifier).unwrap_or(rest);
    }
    let rest = rest.strip_prefix("fn ")?;
    let end = rest.find(|c: char| !is_identifier(c))?;
    Some(&rest[..end])
}

/// The structs, enums, traits and type aliases `text` declares.
fn declared_types(text: &str) -> Vec<String> {
    let mut types = Vec::new();
    for line in text.lines().filter(|line| is_code(line)) {
        for keyword in ["struct ", "enum ", "trait ", "type "] {
            for (at, _) in line.match_indices(keyword) {
                if line[..at].chars().next_back().is_some_and(is_identifier) {
                    continue;
                }
                let name: String = line[at + keyword.len()..]
                    .chars()
                    .take_while(|c| is_identifier(*c))
                    .collect();
                if !name.is_empty() {
                    types.push(name);
                }
            }
        }
    }
    types
}

/// The clippy lints a crate root's `#![deny(...)]`, `#![forbid(...)]` or `#![warn(...)]` of
/// `text` turns on.
fn denied_lints(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|line| {
            ["#![deny(", "#![forbid(", "#![warn("]
                .iter()
                .any(|attribute| line.starts_with(attribute))
        })
        .flat_map(|line| line.split("clippy::").skip(1))
        .map(|lint| lint.chars().take_while(|c| is_identifier(*c)).collect())
        .collect()
}

/// The invariants of `architecture` that name no keeper, or a keeper that does not exist.
fn keepers(root: &Path, architecture: &str, crates: &[Crate]) -> anyhow::Result<Vec<Problem>> {
    let invariants = invariants(architecture);
    if invariants.is_empty() {
        return Ok(Vec::new());
    }
    let named = Named::of(root, crates)?;
    let mut problems = Vec::new();
    for invariant in &invariants {
        let problem = |what: String| Problem {
            rule: Rule::Keepers,
            at: format!("ARCHITECTURE.md:{}", invariant.line),
            what,
        };
        match named_keepers(&invariant.text) {
            Err(what) => problems.push(problem(what)),
            Ok(keepers) => problems.extend(
                keepers
                    .iter()
                    .filter_map(|(kind, name)| named.missing(*kind, name))
                    .map(problem),
            ),
        }
    }
    Ok(problems)
}

/// The page whose crates' table `cargo xtask layout` writes.
const LAYOUT: &str = "docs/src/development/layout.md";

/// The lines around the written table.
const LAYOUT_BEGIN: &str =
    "<!-- the crates: written by `cargo xtask layout` from cargo metadata -->";
const LAYOUT_END: &str = "<!-- end of the crates -->";

/// The crates' rows of the layout page: each crate's directory, name and description, by
/// directory.
fn layout_rows(crates: &[Crate]) -> String {
    let mut rows: Vec<String> = crates
        .iter()
        .map(|krate| {
            let description = krate.package.description.as_deref().unwrap_or("");
            format!(
                "| `{}` (`{}`) | {} |",
                krate.dir,
                krate.name(),
                description.replace('|', "\\|")
            )
        })
        .collect();
    rows.sort();
    format!("| crate | what |\n|---|---|\n{}", rows.join("\n"))
}

/// The layout page's text and where its written rows begin and end; `None` when the workspace
/// has no such page.
fn layout_page(root: &Path) -> anyhow::Result<Option<(String, usize, usize)>> {
    let Ok(text) = std::fs::read_to_string(root.join(LAYOUT)) else {
        return Ok(None);
    };
    let begin = text
        .find(LAYOUT_BEGIN)
        .with_context(|| format!("{LAYOUT} has no line {LAYOUT_BEGIN}"))?
        + LAYOUT_BEGIN.len();
    let end = text[begin..]
        .find(LAYOUT_END)
        .with_context(|| format!("{LAYOUT} has no line {LAYOUT_END}"))?
        + begin;
    Ok(Some((text, begin, end)))
}

/// The layout page's problem: its crates' rows are not those cargo metadata gives.
fn layout(root: &Path, crates: &[Crate]) -> anyhow::Result<Vec<Problem>> {
    let Some((text, begin, end)) = layout_page(root)? else {
        return Ok(Vec::new());
    };
    if text[begin..end].trim() == layout_rows(crates) {
        return Ok(Vec::new());
    }
    Ok(vec![Problem {
        rule: Rule::Layout,
        at: LAYOUT.to_owned(),
        what: "the crates' table is not cargo metadata's: run `cargo xtask layout`".to_owned(),
    }])
}

/// `cargo xtask layout`: writes the crates' rows of the layout page from cargo metadata.
pub(crate) fn write_layout(root: &Path) -> anyhow::Result<()> {
    let crates = crates(root)?;
    let (text, begin, end) = layout_page(root)?.with_context(|| format!("{LAYOUT} is missing"))?;
    let written = format!(
        "{}\n{}\n{}",
        &text[..begin],
        layout_rows(&crates),
        &text[end..]
    );
    std::fs::write(root.join(LAYOUT), written).with_context(|| format!("writing {LAYOUT}"))?;
    println!("{LAYOUT}: {} crates", crates.len());
    Ok(())
}

/// A library crate: a package in `crates/*`.
#[derive(Debug)]
struct Crate {
    package: Package,
    /// `crates/NAME`, relative to the workspace.
    dir: String,
    /// Its directory.
    path: PathBuf,
}

impl Crate {
    fn of(root: &Path, package: Package) -> Option<Self> {
        let path = package.manifest_path.parent()?.to_path_buf();
        let relative = path.strip_prefix(root).ok()?;
        let mut parts = relative.components();
        let (Some(first), Some(name), None) = (parts.next(), parts.next(), parts.next()) else {
            return None;
        };
        if first.as_os_str() != "crates" {
            return None;
        }
        let dir = format!("crates/{}", name.as_os_str().to_string_lossy());
        Some(Self { package, dir, path })
    }

    fn name(&self) -> &str {
        &self.package.name
    }

    /// The problems of its source: forbid-unsafe, safety-doc, child-process, printing,
    /// bounded-reads, module-cycles.
    fn source_problems(&self) -> anyhow::Result<Vec<Problem>> {
        let mut problems = Vec::new();
        let src = self.path.join("src");
        // Each file read once, for every rule.
        let files: Vec<(PathBuf, String)> = rust_files(&src)?
            .into_iter()
            .map(|file| {
                let text = std::fs::read_to_string(&file)
                    .with_context(|| format!("reading {}", file.display()))?;
                Ok((file, text))
            })
            .collect::<anyhow::Result<_>>()?;
        let root_file = ["lib.rs", "main.rs"]
            .iter()
            .find_map(|name| files.iter().find(|(file, _)| *file == src.join(name)));
        if !UNSAFE_CRATES.contains(&self.name())
            && let Some((root_file, text)) = root_file
            && !text.contains("#![forbid(unsafe_code)]")
        {
            problems.push(Problem {
                rule: Rule::ForbidUnsafe,
                at: format!("{}/src/{}", self.dir, file_name(root_file)),
                what: format!(
                    "{} has no #![forbid(unsafe_code)] and is not one of the crates that may \
                     hold unsafe code (xtask/src/tidy.rs: UNSAFE_CRATES)",
                    self.name()
                ),
            });
        }
        let test_files = test_module_files(&files);
        for circle in cycles::circles(&src, &files, &test_files, test_module_start, is_code) {
            problems.push(Problem {
                rule: Rule::ModuleCycles,
                at: format!("{}/src", self.dir),
                what: format!(
                    "modules of {} name one another in a circle: {}; move what they share into a \
                     module of its own (or pass it in), so that one of them no longer names the \
                     other",
                    self.name(),
                    circle.describe()
                ),
            });
        }
        for (file, text) in &files {
            let relative = file.strip_prefix(&self.path).unwrap_or(file);
            let path = format!("{}/{}", self.dir, relative.display());
            let at = |line: usize| format!("{path}:{}", line + 1);
            let own_reads = OWN_READS.iter().any(|(allowed, _)| *allowed == path);
            let lines: Vec<&str> = text.lines().collect();
            for (number, line) in lines.iter().enumerate() {
                if is_code(line) && line.contains("unsafe fn ") && !has_safety_doc(&lines, number) {
                    problems.push(Problem {
                        rule: Rule::SafetyDoc,
                        at: at(number),
                        what: "an unsafe fn without a `# Safety` section in its documentation"
                            .to_owned(),
                    });
                }
            }
            if test_files.contains(file) {
                continue;
            }
            let end = test_module_start(&lines).unwrap_or(lines.len());
            for (number, line) in lines[..end].iter().enumerate() {
                if !is_code(line) {
                    continue;
                }
                if !CHILD_PROCESS_CRATES.contains(&self.name()) && starts_a_process(line) {
                    problems.push(Problem {
                        rule: Rule::ChildProcess,
                        at: at(number),
                        what: "a process started outside skillful-process: use \
                               skillful_process::ChildCommand (its environment allow-list, \
                               its process tree ended)"
                            .to_owned(),
                    });
                }
                if !PRINTING_CRATES.contains(&self.name()) && prints(line) {
                    problems.push(Problem {
                        rule: Rule::Printing,
                        at: at(number),
                        what: "a library prints: report to the caller (a return value, a \
                               trait the CLI implements, or tracing)"
                            .to_owned(),
                    });
                }
                if !own_reads && opens_for_reading(line) {
                    problems.push(Problem {
                        rule: Rule::BoundedReads,
                        at: at(number),
                        what: "a file opened for reading outside the one bounded, link-refusing \
                               open: read through skillful_fs (open_regular_file, \
                               read_regular_file, read_bounded, read_opened), \
                               skillful_state::read_private or skillful_manifest::read_bounded, \
                               or list the file with its reason \
                               in xtask/src/tidy.rs: OWN_READS"
                            .to_owned(),
                    });
                }
            }
        }
        Ok(problems)
    }
}

/// The layer table's problems: a crate missing from it, a dependency on a crate of the same or
/// a higher layer, or a table naming a crate the workspace does not have.
fn layers(architecture: &str, crates: &[Crate]) -> anyhow::Result<Vec<Problem>> {
    let table = layer_table(architecture).context(
        "ARCHITECTURE.md has no layer table (a ```text block under \"## Crate layers\")",
    )?;
    let mut problems = Vec::new();
    let mut layer_of: BTreeMap<&str, u32> = BTreeMap::new();
    for (entry, layer) in &table {
        let found = crates.iter().find(|krate| match &entry.dir {
            Some(dir) => krate.dir == *dir,
            None => {
                krate.name() == entry.name || krate.name() == format!("skillful-{}", entry.name)
            }
        });
        match found {
            Some(krate) => {
                layer_of.insert(krate.name(), *layer);
            }
            // The facade (`skillful (the facade)`) is no crate of `crates/`.
            None if entry.dir.is_some() || entry.name == "skillful" => {}
            None => problems.push(Problem {
                rule: Rule::Layers,
                at: "ARCHITECTURE.md".to_owned(),
                what: format!(
                    "the layer table names `{}`, which is no crate of crates/",
                    entry.name
                ),
            }),
        }
    }
    for krate in crates {
        let Some(layer) = layer_of.get(krate.name()) else {
            problems.push(Problem {
                rule: Rule::Layers,
                at: krate.dir.clone(),
                what: format!("{} is not in ARCHITECTURE.md's layer table", krate.name()),
            });
            continue;
        };
        for dependency in &krate.package.normal_dependencies {
            match layer_of.get(dependency.as_str()) {
                Some(below) if below < layer => {}
                Some(other) => problems.push(Problem {
                    rule: Rule::Layers,
                    at: format!("{}/Cargo.toml", krate.dir),
                    what: format!(
                        "{} (layer {layer}) depends on {dependency} (layer {other}): a crate \
                         depends only on crates of lower layers",
                        krate.name()
                    ),
                }),
                None => {}
            }
        }
    }
    Ok(problems)
}

/// The subcommands of `crates/cli/src/main.rs` that `ARCHITECTURE.md`'s section on the CLI
/// does not name (as `` `run-script` ``); none when the workspace has no CLI.
fn commands(root: &Path, architecture: &str) -> anyhow::Result<Vec<Problem>> {
    let main = root.join("crates/cli/src/main.rs");
    let Ok(source) = std::fs::read_to_string(&main) else {
        return Ok(Vec::new());
    };
    let section = architecture
        .find("### `crates/cli`")
        .map(|start| {
            let rest = &architecture[start + 3..];
            &rest[..rest.find("\n### ").unwrap_or(rest.len())]
        })
        .context("ARCHITECTURE.md has no section \"### `crates/cli`\"")?;
    Ok(subcommands(&source)
        .into_iter()
        .filter(|name| !section.contains(&format!("`{name}`")))
        .map(|name| Problem {
            rule: Rule::Commands,
            at: "ARCHITECTURE.md".to_owned(),
            what: format!("the section on crates/cli does not name the command `{name}`"),
        })
        .collect())
}

/// The subcommands of the CLI's `enum Command` in `source`, as typed (`RunScript` is
/// `run-script`).
fn subcommands(source: &str) -> Vec<String> {
    let Some(start) = source.find("enum Command {") else {
        return Vec::new();
    };
    source[start..]
        .lines()
        .skip(1)
        .take_while(|line| !line.starts_with('}'))
        .filter_map(|line| {
            let variant = line.strip_prefix("    ")?;
            let name: String = variant
                .chars()
                .take_while(char::is_ascii_alphanumeric)
                .collect();
            let first = name.chars().next()?;
            (first.is_ascii_uppercase() && variant[name.len()..].starts_with(['(', ',', ' ', '{']))
                .then(|| kebab(&name))
        })
        .collect()
}

/// `RunScript` as `run-script`.
fn kebab(name: &str) -> String {
    let mut kebab = String::new();
    for c in name.chars() {
        if c.is_ascii_uppercase() && !kebab.is_empty() {
            kebab.push('-');
        }
        kebab.push(c.to_ascii_lowercase());
    }
    kebab
}

/// One name of the layer table: a crate's short name (`core` for `skillful-core`), or one with
/// its directory given (`skills (crates/cli)`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    name: String,
    dir: Option<String>,
}

/// The layer table of `ARCHITECTURE.md`: each name and its layer, from the first ```text block
/// after "## Crate layers", whose lines are a layer's number and its crates.
fn layer_table(text: &str) -> Option<Vec<(Entry, u32)>> {
    let section = &text[text.find("## Crate layers")?..];
    let block = &section[section.find("```text")? + "```text".len()..];
    let block = &block[..block.find("```")?];
    let mut table = Vec::new();
    for line in block.lines() {
        let mut words = line.split_whitespace();
        let Some(layer) = words.next().and_then(|word| word.parse::<u32>().ok()) else {
            continue;
        };
        let mut aside: Option<String> = None;
        for word in words {
            if let Some(open) = &mut aside {
                open.push(' ');
                open.push_str(word);
            } else if word.starts_with('(') {
                aside = Some(word.to_owned());
            } else {
                table.push((
                    Entry {
                        name: word.to_owned(),
                        dir: None,
                    },
                    layer,
                ));
            }
            if let Some(closed) = aside.take_if(|text| text.ends_with(')')) {
                let inside = closed.trim_start_matches('(').trim_end_matches(')');
                if inside.starts_with("crates/")
                    && let Some((entry, _)) = table.last_mut()
                {
                    entry.dir = Some(inside.to_owned());
                }
            }
        }
    }
    Some(table)
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry
                .with_context(|| format!("listing {}", dir.display()))?
                .path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The files (of `files`, each with its text) that are test modules: declared
/// `#[cfg(test)] mod NAME;` by another.
fn test_module_files(files: &[(PathBuf, String)]) -> Vec<PathBuf> {
    let mut tests = Vec::new();
    for (file, text) in files {
        let lines: Vec<&str> = text.lines().collect();
        for (number, line) in lines.iter().enumerate() {
            if !is_test_cfg(line) {
                continue;
            }
            let Some(name) = lines.get(number + 1).and_then(|next| declared_module(next)) else {
                continue;
            };
            // `lib.rs`, `main.rs` and `mod.rs` declare their directory's files; others a
            // directory of their own name.
            let Some(parent) = file.parent() else {
                continue;
            };
            let stem = file.file_stem().unwrap_or_default();
            let base = if ["lib", "main", "mod"].iter().any(|root| stem == *root) {
                parent.to_path_buf()
            } else {
                parent.join(stem)
            };
            tests.push(base.join(format!("{name}.rs")));
            tests.push(base.join(name).join("mod.rs"));
        }
    }
    tests
}

/// The name of the module `line` declares without a body (`mod name;`, `pub(crate) mod name;`).
fn declared_module(line: &str) -> Option<&str> {
    let line = line.trim();
    let rest = line.strip_prefix("pub(crate) ").unwrap_or(line);
    let rest = rest.strip_prefix("pub ").unwrap_or(rest);
    rest.strip_prefix("mod ")?.strip_suffix(';')
}

/// Where the file's `#[cfg(test)]` module with a body begins (the workspace puts it last).
fn test_module_start(lines: &[&str]) -> Option<usize> {
    lines.iter().enumerate().position(|(number, line)| {
        is_test_cfg(line)
            && lines.get(number + 1).is_some_and(|next| {
                let next = next.trim();
                next.contains("mod ") && next.ends_with('{')
            })
    })
}

/// Whether `line` is the attribute of test code: `#[cfg(test)]`, or `#[cfg(all(test, ...))]`.
fn is_test_cfg(line: &str) -> bool {
    let line = line.trim();
    line == "#[cfg(test)]" || line.starts_with("#[cfg(all(test,")
}

/// Whether `line` is code (not a comment or documentation).
fn is_code(line: &str) -> bool {
    !line.trim_start().starts_with("//")
}

/// Whether the `unsafe fn` on line `at` has `# Safety` in the documentation above it
/// (attributes between them are skipped).
fn has_safety_doc(lines: &[&str], at: usize) -> bool {
    lines[..at]
        .iter()
        .rev()
        .map(|line| line.trim())
        .skip_while(|line| line.starts_with("#["))
        .take_while(|line| line.starts_with("///"))
        .any(|line| line == "/// # Safety")
}

/// Whether `line` starts a process or imports a process command type to start one with.
fn starts_a_process(line: &str) -> bool {
    let trimmed = line.trim();
    let imports = trimmed.starts_with("use ")
        && (trimmed.contains("process::Command")
            || (trimmed.contains("process::{") && has_word(trimmed, "Command")));
    imports || has_word_before(line, "Command::new(")
}

/// Whether `line` prints to the process's standard streams.
fn prints(line: &str) -> bool {
    ["println!(", "print!(", "eprintln!(", "eprint!(", "dbg!("]
        .iter()
        .any(|call| has_word_before(line, call))
        || ["io::stdout()", "io::stderr()"]
            .iter()
            .any(|call| has_word_before(line, call))
}

/// Whether `line` opens a file for reading (std's or tokio's), or imports a function that
/// does.
fn opens_for_reading(line: &str) -> bool {
    let trimmed = line.trim();
    if trimmed.starts_with("use ") {
        return trimmed.split_once("fs::").is_some_and(|(_, imported)| {
            ["read", "read_to_string", "copy"]
                .iter()
                .any(|function| has_word(imported, function))
        });
    }
    [
        "fs::read(",
        "fs::read_to_string(",
        "File::open(",
        "fs::copy(",
    ]
    .iter()
    .any(|call| has_word_before(line, call))
        || line.contains(".read(true)")
}

/// Whether `text` holds `word` as a whole word.
fn has_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_identifier) && !after.is_some_and(is_identifier)
    })
}

/// Whether `text` holds `call` not preceded by an identifier's character (`ChildCommand::new(`
/// is not `Command::new(`).
fn has_word_before(text: &str, call: &str) -> bool {
    text.match_indices(call)
        .any(|(at, _)| !text[..at].chars().next_back().is_some_and(is_identifier))
}

fn is_identifier(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small workspace: `skillful-core` (layer 0), `skillful-process` (layer 0, may hold
    /// unsafe code and start processes) and `skillful-agent` (layer 1, on core), each tidy.
    struct Workspace {
        dir: tempfile::TempDir,
    }

    impl Workspace {
        fn new() -> Self {
            let dir = tempfile::tempdir().unwrap();
            let workspace = Self { dir };
            workspace.write(
                "Cargo.toml",
                "[workspace]\nmembers = [\"crates/*\"]\nresolver = \"3\"\n",
            );
            workspace.write(
                "ARCHITECTURE.md",
                "# Architecture\n\n## Crate layers\n\n```text\n1  agent\n0  core   process\n```\n",
            );
            workspace.krate("core", "");
            workspace.krate("process", "");
            workspace.krate("agent", "skillful-core = { path = \"../core\" }\n");
            workspace.write(
                "crates/process/src/lib.rs",
                "//! Processes.\n\n/// Starts one.\npub fn start() {\n    let _ = std::process::Command::new(\"true\");\n}\n",
            );
            workspace
        }

        fn krate(&self, name: &str, dependencies: &str) {
            self.write(
                &format!("crates/{name}/Cargo.toml"),
                &format!(
                    "[package]\nname = \"skillful-{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\n{dependencies}"
                ),
            );
            self.write(
                &format!("crates/{name}/src/lib.rs"),
                "//! A crate.\n\n#![forbid(unsafe_code)]\n",
            );
        }

        fn write(&self, path: &str, text: &str) {
            let path = self.dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }

        fn append(&self, path: &str, text: &str) {
            let path = self.dir.path().join(path);
            let mut old = std::fs::read_to_string(&path).unwrap();
            old.push_str(text);
            std::fs::write(path, old).unwrap();
        }

        /// The rules broken, each once per problem.
        fn broken(&self) -> Vec<(Rule, String)> {
            check(self.dir.path())
                .unwrap()
                .into_iter()
                .map(|problem| (problem.rule, problem.at))
                .collect()
        }
    }

    #[test]
    fn a_tidy_workspace_has_no_problem() {
        assert_eq!(Workspace::new().broken(), []);
    }

    #[test]
    fn a_dependency_on_the_same_or_a_higher_layer_breaks_the_layers() {
        let workspace = Workspace::new();
        workspace.append(
            "crates/core/Cargo.toml",
            "skillful-process = { path = \"../process\" }\n",
        );
        assert_eq!(
            workspace.broken(),
            [(Rule::Layers, "crates/core/Cargo.toml".to_owned())]
        );
        let workspace = Workspace::new();
        workspace.krate("eval", "");
        assert_eq!(
            workspace.broken(),
            [(Rule::Layers, "crates/eval".to_owned())]
        );
    }

    #[test]
    fn a_process_started_outside_skillful_process_is_a_problem_outside_tests() {
        let workspace = Workspace::new();
        workspace.append(
            "crates/agent/src/lib.rs",
            "\n/// Runs git.\npub fn git() {\n    let _ = std::process::Command::new(\"git\");\n}\n",
        );
        assert_eq!(
            workspace.broken(),
            [(Rule::ChildProcess, "crates/agent/src/lib.rs:7".to_owned())]
        );
        let workspace = Workspace::new();
        workspace.append(
            "crates/agent/src/lib.rs",
            "\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn date() {\n        let _ = std::process::Command::new(\"date\");\n    }\n}\n",
        );
        workspace.append("crates/agent/src/lib.rs", "\n#[cfg(test)]\nmod helpers;\n");
        workspace.write(
            "crates/agent/src/helpers.rs",
            "use std::process::Command;\n",
        );
        assert_eq!(workspace.broken(), []);
    }

    #[test]
    fn modules_that_name_one_another_are_a_problem_outside_tests() {
        let workspace = Workspace::new();
        workspace.append("crates/agent/src/lib.rs", "mod run;\nmod strategy;\n");
        workspace.write(
            "crates/agent/src/strategy.rs",
            "/// A strategy.\npub struct Strategy;\n\n#[cfg(test)]\nmod tests {\n    \
             use crate::run::Run;\n}\n",
        );
        workspace.write(
            "crates/agent/src/run.rs",
            "use crate::strategy::Strategy;\n\n/// A run.\npub struct Run(pub Strategy);\n",
        );
        assert_eq!(workspace.broken(), []);

        workspace.write(
            "crates/agent/src/strategy.rs",
            "/// A strategy.\npub struct Strategy;\n\n/// The run it serves.\n\
             pub fn run() -> Option<crate::run::Run> {\n    None\n}\n",
        );
        assert_eq!(
            workspace.broken(),
            [(Rule::ModuleCycles, "crates/agent/src".to_owned())]
        );
    }

    #[test]
    fn a_library_that_prints_is_a_problem() {
        let workspace = Workspace::new();
        workspace.write(
            "crates/agent/src/say.rs",
            "/// Says hello.\npub fn hello() {\n    eprintln!(\"hello\");\n}\n",
        );
        assert_eq!(
            workspace.broken(),
            [(Rule::Printing, "crates/agent/src/say.rs:3".to_owned())]
        );
    }

    #[test]
    fn a_file_opened_for_reading_is_a_problem_outside_tests_and_the_files_listed() {
        let workspace = Workspace::new();
        workspace.write(
            "crates/agent/src/skill.rs",
            "/// Reads a skill.\npub fn read(path: &std::path::Path) -> String {\n    \
             std::fs::read_to_string(path).unwrap_or_default()\n}\n",
        );
        workspace.write(
            "crates/agent/src/open.rs",
            "use std::fs::{read, read_dir};\n\n/// Opens one.\npub async fn open(path: \
             &std::path::Path) {\n    let _ = tokio::fs::File::open(path).await;\n}\n",
        );
        assert_eq!(
            workspace.broken(),
            [
                (Rule::BoundedReads, "crates/agent/src/open.rs:1".to_owned()),
                (Rule::BoundedReads, "crates/agent/src/open.rs:5".to_owned()),
                (Rule::BoundedReads, "crates/agent/src/skill.rs:3".to_owned())
            ]
        );

        // Tests read what they wrote; the one bounded open is where it is allowed.
        let workspace = Workspace::new();
        workspace.append(
            "crates/agent/src/lib.rs",
            "\n#[cfg(all(test, unix))]\nmod tests {\n    #[test]\n    fn reads() {\n        \
             let _ = std::fs::read(\"SKILL.md\");\n    }\n}\n",
        );
        workspace.write(
            "ARCHITECTURE.md",
            "# Architecture\n\n## Crate layers\n\n```text\n1  agent\n0  core   process   fs\n```\n",
        );
        workspace.krate("fs", "");
        workspace.append(
            "crates/fs/src/lib.rs",
            "\n/// The one open.\npub fn open_nofollow(path: &std::path::Path) {\n    \
             let _ = std::fs::OpenOptions::new().read(true).open(path);\n}\n",
        );
        assert_eq!(workspace.broken(), []);
    }

    #[test]
    fn a_crate_without_forbid_unsafe_code_is_a_problem_unless_listed() {
        let workspace = Workspace::new();
        workspace.write("crates/agent/src/lib.rs", "//! A crate.\n");
        workspace.write("crates/process/src/lib.rs", "//! Processes.\n");
        assert_eq!(
            workspace.broken(),
            [(Rule::ForbidUnsafe, "crates/agent/src/lib.rs".to_owned())]
        );
    }

    #[test]
    fn an_unsafe_fn_needs_a_safety_section() {
        let workspace = Workspace::new();
        workspace.append(
            "crates/process/src/lib.rs",
            "\n/// Forks.\n#[inline]\npub unsafe fn fork() {}\n\n/// Waits.\n///\n/// # Safety\n/// Only for children.\npub unsafe fn wait() {}\n",
        );
        assert_eq!(
            workspace.broken(),
            [(Rule::SafetyDoc, "crates/process/src/lib.rs:10".to_owned())]
        );
    }

    #[test]
    fn a_command_the_architecture_does_not_name_is_a_problem() {
        let workspace = Workspace::new();
        workspace.write(
            "crates/cli/src/main.rs",
            "enum Command {\n    /// Checks.\n    Validate(validate::Args),\n    /// Runs one.\n    \
             #[command(alias = \"x\")]\n    RunScript(run_script::Args),\n    Doctor,\n}\n",
        );
        workspace.append(
            "ARCHITECTURE.md",
            "\n### `crates/cli` (`skillful-cli`)\nThe commands `validate` and `doctor`.\n\n### Next\n\
             `run-script` is named in another section.\n",
        );
        let architecture =
            std::fs::read_to_string(workspace.dir.path().join("ARCHITECTURE.md")).unwrap();
        let problems = commands(workspace.dir.path(), &architecture).unwrap();
        let named: Vec<&str> = problems
            .iter()
            .map(|problem| problem.what.as_str())
            .collect();
        assert_eq!(
            named,
            ["the section on crates/cli does not name the command `run-script`"]
        );
    }

    #[test]
    fn a_layout_page_whose_crates_are_not_cargo_metadatas_is_a_problem_until_written() {
        let workspace = Workspace::new();
        workspace.write(
            LAYOUT,
            &format!(
                "# Layout\n\n{LAYOUT_BEGIN}\n| crate | what |\n|---|---|\n| `crates/core` \
                 (`skillful-core`) |  |\n{LAYOUT_END}\n\nThe book is in `docs/`.\n"
            ),
        );
        assert_eq!(workspace.broken(), [(Rule::Layout, LAYOUT.to_owned())]);
        write_layout(workspace.dir.path()).unwrap();
        assert_eq!(workspace.broken(), []);
        let page = std::fs::read_to_string(workspace.dir.path().join(LAYOUT)).unwrap();
        assert!(
            page.contains("| `crates/process` (`skillful-process`) |  |\n"),
            "{page}"
        );
        assert!(page.ends_with("\n\nThe book is in `docs/`.\n"), "{page}");
    }

    #[test]
    fn an_invariant_must_name_keepers_that_exist() {
        let workspace = Workspace::new();
        workspace.write(
            "crates/agent/tests/run.rs",
            "#[tokio::test(flavor = \"multi_thread\")]\n#[ignore]\nasync fn a_run_ends() {}\n\n\
             /// Not a test.\nfn helper() {}\n",
        );
        workspace.write(
            "crates/core/src/skill.rs",
            "/// A skill.\npub struct Skill;\n",
        );
        workspace.write(
            "clippy.toml",
            "disallowed-methods = [\n    { path = \"std::io::stdout\", reason = \"no\" },\n]\n",
        );
        workspace.append(
            "ARCHITECTURE.md",
            "\n## Invariants\n\n\
             **Architecture Invariant:** runs end. Kept by: test `a_run_ends`, tidy rule\n\
             `layers`; clippy `disallowed_methods` and type `Skill`. More prose.\n\
             **Architecture Invariant:** nothing keeps this.\n\
             It goes on.\n\n\
             Prose. **Architecture Invariant:** helpers are no tests. Kept by: test `helper`.\n\
             **Architecture Invariant:** renamed. Kept by: tidy rule `tidiness`, clippy `path`,\n\
             type `Agent`.\n\
             **Architecture Invariant:** unreadable. Kept by: lint `x`.\n",
        );
        let problems: Vec<(String, String)> = check(workspace.dir.path())
            .unwrap()
            .into_iter()
            .map(|problem| (problem.at, problem.what))
            .collect();
        let at = |line: usize| format!("ARCHITECTURE.md:{line}");
        assert_eq!(
            problems,
            [
                (
                    at(14),
                    "an invariant that names nothing that keeps it: end it with `Kept by:` and \
                     the tidy rule `NAME`, clippy `LINT`, test `NAME` or type `NAME` that keeps it"
                        .to_owned()
                ),
                (
                    at(17),
                    "no #[test] or #[tokio::test] function is named `helper`".to_owned()
                ),
                (
                    at(18),
                    "`tidiness` is no rule of xtask/src/tidy.rs".to_owned()
                ),
                (
                    at(18),
                    "no crate declares a struct, enum, trait or type `Agent`".to_owned()
                ),
                (
                    at(18),
                    "the clippy lint `path` is configured nowhere (clippy.toml, the root \
                     Cargo.toml's lints, a crate's #![deny(clippy::...)])"
                        .to_owned()
                ),
                (
                    at(20),
                    "`Kept by:` names a keeper as tidy rule `NAME`, clippy `LINT`, test `NAME` or \
                     type `NAME` do not: `lint `x``"
                        .to_owned()
                ),
            ]
        );
    }

    #[test]
    fn the_layer_table_names_crates_and_directories() {
        let text = "## Crate layers\n\n```text\n6  skills (crates/cli)   skillful (the facade)\n0  core  http\n```\n";
        let table = layer_table(text).unwrap();
        let entries: Vec<(&str, Option<&str>, u32)> = table
            .iter()
            .map(|(entry, layer)| (entry.name.as_str(), entry.dir.as_deref(), *layer))
            .collect();
        assert_eq!(
            entries,
            [
                ("skills", Some("crates/cli"), 6),
                ("skillful", None, 6),
                ("core", None, 0),
                ("http", None, 0)
            ]
        );
    }
}
