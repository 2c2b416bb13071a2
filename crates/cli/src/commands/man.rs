//! `skills man`: the man pages of `skills` and of each command (roff), generated from the same
//! argument definitions the command parses; their EXIT STATUS, ENVIRONMENT and FILES sections
//! are the book's reference chapter (`docs/src/reference/environment.md`), so the two cannot
//! disagree.

use std::path::{Path, PathBuf};

use clap::CommandFactory;

use crate::{Cli, Outcome, output};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Write `skills.1` and one `skills-COMMAND.1` per command into DIR (created if missing);
    /// without it, `skills.1` is printed.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// The book's chapter of exit codes, environment variables and files.
const REFERENCE: &str = include_str!("../../../../docs/src/reference/environment.md");

/// Runs `skills man`.
pub(crate) fn run(args: &Args) -> anyhow::Result<Outcome> {
    let command = Cli::command();
    match &args.out {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
            let names = page_names(&command, command.get_name());
            clap_mangen::generate_to(command, dir).map_err(|e| {
                anyhow::anyhow!("cannot write man pages into {}: {e}", dir.display())
            })?;
            for name in names {
                append_sections(&dir.join(format!("{name}.1")))?;
            }
            writeln!(output::stderr(), "man pages written to {}", dir.display())?;
        }
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(command).render(&mut page)?;
            write!(
                output::stdout(),
                "{}{}",
                String::from_utf8(page)?,
                sections()
            )?;
        }
    }
    Ok(Outcome::Ok)
}

/// The names of the pages `clap_mangen::generate_to` writes for `command` (called `name`):
/// its own, and `NAME-SUB` for each subcommand, recursively.
fn page_names(command: &clap::Command, name: &str) -> Vec<String> {
    let mut names = vec![name.to_owned()];
    for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        names.extend(page_names(sub, &format!("{name}-{}", sub.get_name())));
    }
    names
}

/// Adds the reference sections to the page at `path`, if it was written.
fn append_sections(path: &Path) -> anyhow::Result<()> {
    if !path.is_file() {
        return Ok(());
    }
    let mut page = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    page.push_str(&sections());
    std::fs::write(path, page).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))
}

/// EXIT STATUS, ENVIRONMENT and FILES in roff: each table row of the reference chapter's
/// sections as a tagged paragraph (the first cell the tag, the others its text).
fn sections() -> String {
    let mut roff = String::new();
    for (heading, title) in [
        ("## Exit codes", "EXIT STATUS"),
        ("## Environment variables", "ENVIRONMENT"),
        ("## Files", "FILES"),
    ] {
        let Some(start) = REFERENCE.find(heading) else {
            continue;
        };
        let body = &REFERENCE[start + heading.len()..];
        let body = body.find("\n## ").map_or(body, |end| &body[..end]);
        roff.push_str(&format!(".SH \"{title}\"\n"));
        // The table's rows, without its header and separator.
        for row in body.lines().filter(|line| line.starts_with('|')).skip(2) {
            let cells: Vec<String> = row
                .trim_matches('|')
                .split(" | ")
                .map(|cell| plain(cell.trim()))
                .collect();
            if let Some((tag, text)) = cells.split_first() {
                roff.push_str(&format!(".TP\n{}\n{}\n", line(tag), line(&text.join("; "))));
            }
        }
    }
    roff
}

/// A cell of the chapter as plain text: code spans and links unwrapped, escaped pipes restored.
fn plain(cell: &str) -> String {
    let mut text = cell.replace("\\|", "|").replace('`', "");
    // `[text](target)` is `text`.
    while let Some(open) = text.find("](") {
        let Some(close) = text[open..].find(')') else {
            break;
        };
        let start = text[..open].rfind('[').unwrap_or(open);
        let label = text[start + 1..open].to_owned();
        text.replace_range(start..open + close + 1, &label);
    }
    text
}

/// `text` as one roff text line: backslashes escaped, and a leading `.` or `'` (a request)
/// made literal.
fn line(text: &str) -> String {
    let escaped = text.replace('\\', "\\e");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}
