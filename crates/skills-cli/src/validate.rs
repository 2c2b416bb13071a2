//! `skills validate`: checks SKILL.md files and prints one line per diagnostic.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use skills_core::Diagnostic;
use skills_frontmatter::{FrontmatterLoader, ValidationMode};

use crate::{Outcome, UsageError};

/// How deep below a given root `SKILL.md` files are looked for, as discovery does.
const MAX_DEPTH: usize = 2;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Apply the specification strictly (as `skills-ref` does): every violation is an error.
    #[arg(long)]
    strict: bool,
    /// Print a JSON array of `{path, severity, field, message}` instead of lines.
    #[arg(long)]
    json: bool,
    /// Skill directories, SKILL.md files, or roots holding skills.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
}

pub(crate) fn run(args: Args) -> anyhow::Result<Outcome> {
    let mode = if args.strict {
        ValidationMode::Strict
    } else {
        ValidationMode::Lenient
    };
    let loader = FrontmatterLoader::new(mode);
    let mut diagnostics = Vec::new();
    let mut checked = 0;
    for path in &args.paths {
        let files = skill_files(path)?;
        if files.is_empty() {
            diagnostics.push(
                Diagnostic::error(
                    "SKILL.md",
                    "no SKILL.md found here or in the two levels below; point at a skill directory",
                )
                .with_path(path),
            );
        }
        for file in files {
            checked += 1;
            diagnostics.extend(check_file(&loader, &file));
        }
    }
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let mut out = io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &diagnostics)?;
        writeln!(out)?;
    } else {
        for diagnostic in &diagnostics {
            writeln!(out, "{diagnostic}")?;
        }
        writeln!(
            out,
            "{checked} skill(s) checked: {errors} error(s), {} warning(s)",
            diagnostics.len() - errors
        )?;
    }
    Ok(if errors > 0 {
        Outcome::Invalid
    } else {
        Outcome::Ok
    })
}

/// Validates one SKILL.md; every diagnostic names the file.
fn check_file(loader: &FrontmatterLoader, file: &Path) -> Vec<Diagnostic> {
    let dir_name = file
        .parent()
        .and_then(Path::file_name)
        .and_then(|name| name.to_str());
    let diagnostics = match read_limited(file, loader.options().max_file_bytes) {
        Ok(text) => match loader.load(&text, dir_name) {
            Ok(loaded) => loaded.diagnostics,
            Err(diagnostics) => diagnostics,
        },
        Err(message) => vec![Diagnostic::error("SKILL.md", message)],
    };
    diagnostics.into_iter().map(|d| d.with_path(file)).collect()
}

fn read_limited(file: &Path, limit: usize) -> Result<String, String> {
    let size = fs::metadata(file)
        .map_err(|e| format!("cannot read the file: {e}"))?
        .len();
    if size > limit as u64 {
        return Err(format!(
            "the file is {size} bytes, over the limit of {limit} bytes; shorten it"
        ));
    }
    let bytes = fs::read(file).map_err(|e| format!("cannot read the file: {e}"))?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "the file is not UTF-8 (invalid byte at offset {}); save it as UTF-8",
            e.utf8_error().valid_up_to()
        )
    })
}

/// The SKILL.md files that `path` names: itself, its own SKILL.md, or those below it.
fn skill_files(path: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let metadata = fs::metadata(path)
        .map_err(|e| UsageError(format!("{}: {e}; give an existing path", path.display())))?;
    if metadata.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut found = Vec::new();
    collect(path, 0, &mut found);
    found.sort();
    Ok(found)
}

fn collect(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    let skill_md = dir.join("SKILL.md");
    if skill_md.is_file() {
        found.push(skill_md);
        return;
    }
    if depth >= MAX_DEPTH {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let hidden = name
            .to_str()
            .is_none_or(|n| n.starts_with('.') || n == "node_modules");
        if !hidden && entry.file_type().is_ok_and(|t| t.is_dir()) {
            collect(&entry.path(), depth + 1, found);
        }
    }
}
