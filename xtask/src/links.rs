//! `cargo xtask check-links`: every relative link in the book (`docs/src`), `README.md` and
//! `ARCHITECTURE.md` points at a file that exists and, with `#anchor`, at a heading of it (the
//! ids mdBook gives headings); every chapter under `docs/src` is listed in `SUMMARY.md`.
//! External links (`https://…`) are not fetched: CI has no internet beyond package registries.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// A broken link: the file it is in, its line, and what is wrong.
#[derive(Debug, PartialEq, Eq)]
struct Broken {
    file: PathBuf,
    line: usize,
    problem: String,
}

/// Checks the documentation under `root` (a workspace); prints each broken link and fails when
/// there is any.
pub(crate) fn run(root: &Path) -> anyhow::Result<()> {
    let mut files = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    let book = root.join("docs/src");
    if book.is_dir() {
        markdown_files(&book, &mut files)?;
    }
    let mut broken = Vec::new();
    for file in &files {
        broken.extend(check_file(file)?);
    }
    if book.is_dir() {
        broken.extend(unlisted_chapters(&book, &files)?);
    }
    for link in &broken {
        eprintln!(
            "{}:{}: {}",
            link.file.strip_prefix(root).unwrap_or(&link.file).display(),
            link.line,
            link.problem
        );
    }
    if !broken.is_empty() {
        bail!("{} broken link(s) in the documentation", broken.len());
    }
    println!("links: {} files checked, none broken", files.len());
    Ok(())
}

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .collect::<Result<_, _>>()?;
    entries.sort_by_key(fs::DirEntry::path);
    for entry in entries {
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            markdown_files(&path, out)?;
        } else if path.extension().is_some_and(|ext| ext == "md") {
            out.push(path);
        }
    }
    Ok(())
}

/// The lines of `text` outside fenced code blocks, numbered from 1.
fn prose_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut fenced = false;
    text.lines().enumerate().filter_map(move |(index, line)| {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            return None;
        }
        (!fenced).then_some((index + 1, line))
    })
}

/// `line` without its inline code spans (a link shown as code is not a link).
fn without_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
        } else if !in_code {
            out.push(c);
        }
    }
    out
}

/// The link targets of a line: what follows `](` up to the closing parenthesis.
fn link_targets(line: &str) -> Vec<String> {
    let line = without_code_spans(line);
    let mut targets = Vec::new();
    let mut rest = line.as_str();
    while let Some(start) = rest.find("](") {
        rest = &rest[start + 2..];
        let end = rest.find(')').unwrap_or(rest.len());
        let target = rest[..end].split_whitespace().next().unwrap_or("");
        targets.push(target.to_owned());
        rest = &rest[end..];
    }
    targets
}

/// The id mdBook gives a heading: lower case, letters, digits, `-` and `_` kept, spaces made
/// `-`, everything else dropped (the text of code spans is kept).
fn heading_id(heading: &str) -> String {
    heading
        .replace('`', "")
        .trim()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c.to_lowercase().next().unwrap_or(c))
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// The heading ids of a Markdown text (a repeated heading gets `-1`, `-2`, … as in mdBook).
fn heading_ids(text: &str) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    for (_, line) in prose_lines(text) {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let id = heading_id(&line[hashes..]);
            let mut unique = id.clone();
            let mut n = 1;
            while ids.contains(&unique) {
                unique = format!("{id}-{n}");
                n += 1;
            }
            ids.insert(unique);
        }
    }
    ids
}

fn check_file(file: &Path) -> anyhow::Result<Vec<Broken>> {
    let text =
        fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let own_ids = heading_ids(&text);
    let dir = file.parent().unwrap_or(Path::new("."));
    let mut broken = Vec::new();
    for (line_number, line) in prose_lines(&text) {
        for target in link_targets(line) {
            let external = target.contains("://") || target.starts_with("mailto:");
            if target.is_empty() || external {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (target.as_str(), None),
            };
            let problem = if path.is_empty() {
                anchor
                    .filter(|anchor| !own_ids.contains(*anchor))
                    .map(|anchor| format!("no heading `#{anchor}` in this file"))
            } else {
                let linked = dir.join(path);
                if !linked.exists() {
                    Some(format!("`{target}`: no such file"))
                } else if let Some(anchor) = anchor.filter(|_| path.ends_with(".md")) {
                    let ids = heading_ids(&fs::read_to_string(&linked)?);
                    (!ids.contains(anchor))
                        .then(|| format!("`{target}`: no heading `#{anchor}` there"))
                } else {
                    None
                }
            };
            if let Some(problem) = problem {
                broken.push(Broken {
                    file: file.to_owned(),
                    line: line_number,
                    problem,
                });
            }
        }
    }
    Ok(broken)
}

/// Chapters under `docs/src` that `SUMMARY.md` does not link (mdBook would leave them out).
fn unlisted_chapters(book: &Path, files: &[PathBuf]) -> anyhow::Result<Vec<Broken>> {
    let summary = book.join("SUMMARY.md");
    let text = fs::read_to_string(&summary)
        .with_context(|| format!("cannot read {}", summary.display()))?;
    let listed: BTreeSet<PathBuf> = prose_lines(&text)
        .flat_map(|(_, line)| link_targets(line))
        .map(|target| book.join(target.split('#').next().unwrap_or("")))
        .collect();
    Ok(files
        .iter()
        .filter(|file| file.starts_with(book) && **file != summary && !listed.contains(*file))
        .map(|file| Broken {
            file: summary.clone(),
            line: 1,
            problem: format!(
                "`{}` is not listed: add it to SUMMARY.md",
                file.strip_prefix(book).unwrap_or(file).display()
            ),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heading_ids_are_mdbooks() {
        assert_eq!(heading_id(" The `skills` command"), "the-skills-command");
        assert_eq!(
            heading_id(" MCP: skills from servers, and `skills serve`"),
            "mcp-skills-from-servers-and-skills-serve"
        );
        assert_eq!(
            heading_id(" Does a skill help? `skills eval`"),
            "does-a-skill-help-skills-eval"
        );
    }

    #[test]
    fn broken_links_and_anchors_are_found_and_code_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("other.md"), "# Other\n\n## Part two\n").unwrap();
        let page = dir.path().join("page.md");
        fs::write(
            &page,
            "# Page\n\n[ok](other.md#part-two) [self](#page) [gone](missing.md)\n\
             [bad anchor](other.md#part-three) [bad own](#nowhere)\n\
             `[code](missing.md)` [web](https://example.com/x#y)\n\
             ```\n[fenced](missing.md)\n```\n",
        )
        .unwrap();
        let broken = check_file(&page).unwrap();
        let problems: Vec<_> = broken
            .iter()
            .map(|b| (b.line, b.problem.as_str()))
            .collect();
        assert_eq!(
            problems,
            [
                (3, "`missing.md`: no such file"),
                (4, "`other.md#part-three`: no heading `#part-three` there"),
                (4, "no heading `#nowhere` in this file"),
            ]
        );
    }

    #[test]
    fn a_chapter_missing_from_the_summary_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let book = dir.path();
        fs::write(book.join("SUMMARY.md"), "# Summary\n\n- [One](one.md)\n").unwrap();
        fs::write(book.join("one.md"), "# One\n").unwrap();
        fs::write(book.join("two.md"), "# Two\n").unwrap();
        let files = [
            book.join("SUMMARY.md"),
            book.join("one.md"),
            book.join("two.md"),
        ];
        let broken = unlisted_chapters(book, &files).unwrap();
        assert_eq!(broken.len(), 1);
        assert!(
            broken[0].problem.contains("`two.md` is not listed"),
            "{broken:?}"
        );
    }
}
