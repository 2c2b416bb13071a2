//! Rule `module-cycles`: the modules of a crate name one another in no circle.
//!
//! A module names another by a `use` of it or a path written out in code (`crate::a::B`,
//! `super::B`, `self::c::D`, or `c::D` for a child module `c`). A name is followed to the module
//! that defines it: through the `use` that brought it into a module (so `super::Precedence`,
//! which the parent only re-exports, names the sibling that defines it). A re-export (`pub use`,
//! `pub(crate) use`) is not itself a dependency: a facade that declares and re-exports its
//! children names none of them. The crate root (`lib.rs`, `main.rs`), the crate's facade, is
//! left out, and so is test code.
//!
//! The reading is textual, as the other rules' is: a path inside a string literal counts, and a
//! module made by `#[path]` or an inline `mod name { .. }` is not seen.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module: its path below the crate root (`["compose", "load"]`); the root is `[]`.
type Module = Vec<String>;

/// A circle of modules, each naming the next (the last naming the first), with the path by
/// which each does.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Circle {
    pub(super) steps: Vec<(String, String)>,
}

impl Circle {
    /// `a -> b (crate::b::X) -> a (super::a::Y)`.
    pub(super) fn describe(&self) -> String {
        let mut text = String::new();
        for (module, path) in &self.steps {
            text.push_str(&format!("{module} names {path}; "));
        }
        text.trim_end_matches("; ").to_owned()
    }
}

/// The module of `file` in the crate whose sources are below `src`.
fn module_of(src: &Path, file: &Path) -> Option<Module> {
    let relative = file.strip_prefix(src).ok()?.with_extension("");
    let mut parts: Module = relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main") {
        return Some(Vec::new());
    }
    if parts.last().is_some_and(|last| last == "mod") {
        parts.pop();
    }
    Some(parts)
}

/// One `use` statement: whether it re-exports, and each path it brings in (braces expanded),
/// with the name it is known by.
struct Use {
    exported: bool,
    paths: Vec<(String, String)>,
}

/// The `use` statements of `code`, and `code` without them.
fn uses(code: &str) -> (Vec<Use>, String) {
    let mut found = Vec::new();
    let mut rest = String::new();
    let mut at = 0;
    while let Some(offset) = code[at..].find("use ") {
        let start = at + offset;
        let before = code[..start].trim_end();
        let word_start = code[..start]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || c == ';' || c == '{' || c == '}');
        let Some(length) = code[start..].find(';') else {
            break;
        };
        if !word_start {
            rest.push_str(&code[at..start + 4]);
            at = start + 4;
            continue;
        }
        let last_word = before
            .rsplit(|c: char| c.is_whitespace() || matches!(c, ';' | '{' | '}' | ']'))
            .next()
            .unwrap_or_default();
        let exported = last_word == "pub" || last_word.starts_with("pub(");
        let body = code[start + 4..start + length]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let paths = expand(&body)
            .into_iter()
            .filter_map(|path| {
                let (path, alias) = match path.split_once(" as ") {
                    Some((path, alias)) => (path.to_owned(), alias.to_owned()),
                    None => {
                        let name = path.rsplit("::").next().unwrap_or_default().to_owned();
                        (path, name)
                    }
                };
                let path = path.replace(' ', "");
                (!path.ends_with('*') && alias != "_").then_some((path, alias))
            })
            .collect();
        found.push(Use { exported, paths });
        // A re-export's `pub` goes with it.
        let statement_start = if exported {
            before.len() - last_word.len()
        } else {
            start
        };
        rest.push_str(&code[at..statement_start.max(at)]);
        at = start + length + 1;
    }
    rest.push_str(&code[at..]);
    (found, rest)
}

/// `a::{b, c::{d, e}}` as `a::b`, `a::c::d`, `a::c::e` (`a::{self, b}` gives `a::self`).
fn expand(path: &str) -> Vec<String> {
    let Some(open) = path.find('{') else {
        return vec![path.to_owned()];
    };
    let mut depth = 0;
    let mut close = None;
    for (at, c) in path.char_indices().skip_while(|(at, _)| *at < open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(at);
                    break;
                }
            }
            _ => {}
        }
    }
    let Some(close) = close else {
        return Vec::new();
    };
    let (prefix, inner, suffix) = (&path[..open], &path[open + 1..close], &path[close + 1..]);
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (at, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .flat_map(|part| {
            let joined = format!("{prefix}{part}{suffix}");
            // `a::{self}` is `a` itself.
            let joined = joined
                .strip_suffix("::self")
                .map_or(joined.clone(), str::to_owned);
            expand(&joined)
        })
        .collect()
}

/// The paths of two or more segments written in `code` (`a::b`, `crate::c::D`).
fn written_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut current = String::new();
    let mut chars = code.chars().peekable();
    let mut previous = ' ';
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            if current.is_empty() && previous == ':' {
                // The tail of a path that did not start at an identifier (`<T>::x`).
                previous = c;
                while chars
                    .peek()
                    .is_some_and(|c| c.is_alphanumeric() || *c == '_')
                {
                    chars.next();
                }
                continue;
            }
            current.push(c);
        } else if c == ':' && chars.peek() == Some(&':') && !current.is_empty() {
            chars.next();
            current.push_str("::");
        } else {
            if current.contains("::") {
                paths.push(current.trim_end_matches("::").to_owned());
            }
            current.clear();
        }
        previous = c;
    }
    if current.contains("::") {
        paths.push(current.trim_end_matches("::").to_owned());
    }
    paths
}

/// The modules of one crate and what each names.
struct Crate {
    /// Each module's `use`d names: the name, and the path it stands for.
    imported: BTreeMap<Module, BTreeMap<String, String>>,
    /// Each module's dependencies: the `use`s that are not re-exports and the paths written.
    named: BTreeMap<Module, Vec<String>>,
}

impl Crate {
    /// Where `path`, written in `module`, starts: the module and the segments after it; `None`
    /// for a path outside the crate.
    fn start<'p>(&self, module: &[String], path: &'p str) -> Option<(Module, Vec<&'p str>)> {
        let mut segments: Vec<&str> = path.split("::").collect();
        match segments[0] {
            "crate" => Some((Vec::new(), segments.split_off(1))),
            "super" | "self" => {
                let mut at = module.to_vec();
                while let Some(&first) = segments.first() {
                    match first {
                        "super" => {
                            at.pop()?;
                        }
                        "self" => {}
                        _ => break,
                    }
                    segments.remove(0);
                }
                Some((at, segments))
            }
            child => {
                let mut at = module.to_vec();
                at.push(child.to_owned());
                self.imported
                    .contains_key(&at)
                    .then(|| (module.to_vec(), segments))
            }
        }
    }

    /// The module that defines what `path`, written in `module`, names: the deepest module the
    /// path reaches, followed through the `use` that brought its next segment in (at most
    /// `hops` times).
    fn resolve(&self, module: &[String], path: &str, hops: usize) -> Option<Module> {
        let (mut at, segments) = self.start(module, path)?;
        let mut rest = segments.into_iter();
        let mut next = rest.next();
        while let Some(segment) = next {
            let mut child = at.clone();
            child.push(segment.to_owned());
            if !self.imported.contains_key(&child) {
                break;
            }
            at = child;
            next = rest.next();
        }
        if let Some(name) = next
            && hops > 0
            && let Some(target) = self.imported.get(&at).and_then(|names| names.get(name))
            && let Some(defined) = self.resolve(&at, target, hops - 1)
        {
            return Some(defined);
        }
        Some(at)
    }
}

/// The circles among the modules of the crate whose sources are `files` below `src`, leaving
/// out `test_files`; `code_end` gives where a file's code ends (its test module) and `is_code`
/// which lines are code.
pub(super) fn circles(
    src: &Path,
    files: &[(PathBuf, String)],
    test_files: &[PathBuf],
    code_end: impl Fn(&[&str]) -> Option<usize>,
    is_code: impl Fn(&str) -> bool,
) -> Vec<Circle> {
    let mut krate = Crate {
        imported: BTreeMap::new(),
        named: BTreeMap::new(),
    };
    for (file, text) in files {
        if test_files.contains(file) {
            continue;
        }
        let Some(module) = module_of(src, file) else {
            continue;
        };
        let lines: Vec<&str> = text.lines().collect();
        let end = code_end(&lines).unwrap_or(lines.len());
        let code: Vec<&str> = lines[..end]
            .iter()
            .copied()
            .filter(|line| is_code(line))
            .collect();
        let (uses, rest) = uses(&code.join("\n"));
        let mut imported = BTreeMap::new();
        let mut named = Vec::new();
        for statement in uses {
            for (path, alias) in statement.paths {
                if !statement.exported {
                    named.push(path.clone());
                }
                imported.insert(alias, path);
            }
        }
        named.extend(written_paths(&rest));
        krate.imported.insert(module.clone(), imported);
        krate.named.insert(module, named);
    }
    let mut edges: BTreeMap<Module, BTreeMap<Module, String>> = BTreeMap::new();
    for (module, paths) in &krate.named {
        if module.is_empty() {
            continue;
        }
        for path in paths {
            let Some(target) = krate.resolve(module, path, 8) else {
                continue;
            };
            if target != *module && !target.is_empty() {
                edges
                    .entry(module.clone())
                    .or_default()
                    .entry(target)
                    .or_insert_with(|| path.clone());
            }
        }
    }
    components(&edges)
        .into_iter()
        .map(|component| circle_through(&component, &edges))
        .collect()
}

/// The strongly connected components of more than one module (Tarjan's algorithm).
fn components(edges: &BTreeMap<Module, BTreeMap<Module, String>>) -> Vec<BTreeSet<Module>> {
    struct Search<'e> {
        edges: &'e BTreeMap<Module, BTreeMap<Module, String>>,
        index: BTreeMap<&'e Module, (usize, usize)>,
        stack: Vec<&'e Module>,
        on_stack: BTreeSet<&'e Module>,
        found: Vec<BTreeSet<Module>>,
    }
    impl<'e> Search<'e> {
        fn visit(&mut self, module: &'e Module) {
            let number = self.index.len();
            self.index.insert(module, (number, number));
            self.stack.push(module);
            self.on_stack.insert(module);
            for next in self.edges.get(module).into_iter().flat_map(BTreeMap::keys) {
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.index[next].1;
                    let entry = self.index.get_mut(module).expect("visited");
                    entry.1 = entry.1.min(low);
                } else if self.on_stack.contains(next) {
                    let number = self.index[next].0;
                    let entry = self.index.get_mut(module).expect("visited");
                    entry.1 = entry.1.min(number);
                }
            }
            let (number, low) = self.index[module];
            if number == low {
                let mut component = BTreeSet::new();
                while let Some(top) = self.stack.pop() {
                    self.on_stack.remove(top);
                    component.insert(top.clone());
                    if top == module {
                        break;
                    }
                }
                if component.len() > 1 {
                    self.found.push(component);
                }
            }
        }
    }
    let mut search = Search {
        edges,
        index: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for module in edges.keys() {
        if !search.index.contains_key(module) {
            search.visit(module);
        }
    }
    search.found
}

/// One circle through `component`: from its first module, the shortest way back to it.
fn circle_through(
    component: &BTreeSet<Module>,
    edges: &BTreeMap<Module, BTreeMap<Module, String>>,
) -> Circle {
    let first = component.first().expect("a component has modules");
    // Breadth first inside the component, remembering how each module was reached.
    let mut reached: BTreeMap<&Module, (&Module, &String)> = BTreeMap::new();
    let mut frontier = vec![first];
    let mut back = None;
    'search: while !frontier.is_empty() {
        let mut next_frontier = Vec::new();
        for module in frontier {
            for (next, path) in edges.get(module).into_iter().flatten() {
                if !component.contains(next) {
                    continue;
                }
                if next == first {
                    back = Some((module, path));
                    break 'search;
                }
                if !reached.contains_key(next) {
                    reached.insert(next, (module, path));
                    next_frontier.push(next);
                }
            }
        }
        frontier = next_frontier;
    }
    let mut steps = Vec::new();
    if let Some((mut module, path)) = back {
        steps.push((module.join("::"), path.clone()));
        while module != first {
            let (from, path) = reached[module];
            steps.push((from.join("::"), path.clone()));
            module = from;
        }
    }
    steps.reverse();
    Circle { steps }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn circles_of(files: &[(&str, &str)]) -> Vec<String> {
        let src = Path::new("/crate/src");
        let files: Vec<(PathBuf, String)> = files
            .iter()
            .map(|(name, text)| (src.join(name), (*text).to_owned()))
            .collect();
        circles(
            src,
            &files,
            &[],
            |_| None,
            |line| !line.trim_start().starts_with("//"),
        )
        .iter()
        .map(Circle::describe)
        .collect()
    }

    #[test]
    fn two_modules_naming_each_other_are_a_circle_however_they_name() {
        let found = circles_of(&[
            ("lib.rs", "mod a;\nmod b;\npub use a::A;\n"),
            ("a.rs", "use crate::b::{self, B};\npub struct A(pub B);\n"),
            (
                "b.rs",
                "pub struct B;\nfn f() { let _ = crate::a::A(B); }\n",
            ),
        ]);
        assert_eq!(found, ["a names crate::b; b names crate::a::A"]);
    }

    #[test]
    fn a_parent_and_its_child_naming_each_other_are_a_circle() {
        let found = circles_of(&[
            ("lib.rs", "mod server;\n"),
            (
                "server.rs",
                "mod audit;\nuse audit::Answer;\npub struct Server;\n",
            ),
            (
                "server/audit.rs",
                "use super::Server;\npub struct Answer;\n",
            ),
        ]);
        assert_eq!(
            found,
            ["server names audit::Answer; server::audit names super::Server"]
        );
    }

    #[test]
    fn a_facade_that_re_exports_its_children_names_none_of_them() {
        let found = circles_of(&[
            ("lib.rs", "mod pipeline;\npub use pipeline::Dedupe;\n"),
            (
                "pipeline/mod.rs",
                "mod dedupe;\nmod rule;\npub use dedupe::Dedupe;\npub use rule::Rule;\n",
            ),
            ("pipeline/rule.rs", "pub struct Rule;\n"),
            (
                "pipeline/dedupe.rs",
                "use super::Rule;\npub struct Dedupe(Rule);\n",
            ),
            // The crate root is the crate's facade: naming it names what it re-exports.
            ("other.rs", "pub fn f() -> crate::Dedupe { todo!() }\n"),
        ]);
        assert_eq!(found, Vec::<String>::new());
    }

    #[test]
    fn uses_expand_braces_aliases_and_leave_globs_out() {
        let (found, rest) = uses("pub(crate) use a::{b::{C, D as E}, self};\nuse f::*;\nfn g() {}");
        assert!(found[0].exported);
        assert_eq!(
            found[0].paths,
            [
                ("a::b::C".to_owned(), "C".to_owned()),
                ("a::b::D".to_owned(), "E".to_owned()),
                ("a".to_owned(), "a".to_owned()),
            ]
        );
        assert!(!found[1].exported);
        assert!(found[1].paths.is_empty());
        assert_eq!(rest.trim(), "fn g() {}");
    }
}
