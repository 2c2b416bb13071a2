//! `skills add`: skills from a git repository or a directory, scanned and shown, then installed
//! into a scope's skills directory (or each `--agent`'s) and recorded in its `skills-lock.json`
//! (the logic is `skillful-install`'s).

use skillful_core::text::one_line;
use skillful_install::{
    Candidate, InstallError, Installer, Prepared, Replacement, Selection, Source,
};

use crate::supply::{
    InstallFlags, ScopeArgs, changed_files, install, outcome_of, print_file_changes,
};
use crate::{Outcome, UsageError, output};

/// The help of `--json`, naming this command's schema.
const JSON_HELP: &str = "Print one JSON document on stdout (schema: add.schema.json in the book; \
    with --list, add-list.schema.json). Never asks: without --yes nothing \
    is installed (exit 2).";

#[derive(Debug, clap::Args)]
#[command(mut_arg("json", |json| json.help(JSON_HELP)))]
pub(crate) struct Args {
    /// A git URL (https://, ssh://, file://, git@host:path; git:// and http:// with a warning
    /// off this machine), owner/repo (GitHub) or a
    /// directory; `@REF` pins a tag, branch or commit (full or abbreviated).
    source: String,
    /// Only the skill of this name, or in a directory of this name (repeatable; `*` for all).
    /// A name the source does not have fails, naming the nearest one it has.
    #[arg(short, long = "skill", value_name = "NAME")]
    skills: Vec<String>,
    /// Every skill of the source (as --skill '*'). Without --skill, --all or --yes, a source
    /// offering several skills on a terminal asks which to install.
    #[arg(short, long, conflicts_with = "skills")]
    all: bool,
    /// Only the skills below this directory of the source.
    #[arg(long, value_name = "SUBDIR")]
    path: Option<String>,
    /// List what the source offers (name, directory, scan verdict, description); install
    /// nothing.
    #[arg(short, long)]
    list: bool,
    #[command(flatten)]
    install: InstallFlags,
    #[command(flatten)]
    scope: ScopeArgs,
}

/// Runs `skills add`.
pub(crate) fn run(args: Args) -> anyhow::Result<Outcome> {
    args.scope.one_report()?;
    let installers = args.scope.installers()?;
    let installer = &installers[0];
    let (source, page_path) =
        Source::parse_located(&args.source).map_err(|e| UsageError(e.to_string()))?;
    if let Some(scheme) = source.plain_transport()
        && !output::quiet()
    {
        writeln!(
            output::stderr(),
            "skills: warning: {scheme} neither authenticates the server nor encrypts the \
             fetch: anyone on the network path can change what is fetched; prefer https:// or \
             ssh://"
        )?;
    }
    let ask_which = args.skills.is_empty()
        && !args.all
        && !args.list
        && !args.scope.json
        && !args.install.yes()
        && on_a_terminal();
    let selection = Selection {
        skills: if args.all {
            vec!["*".to_owned()]
        } else {
            args.skills
        },
        path: args.path.or(page_path),
    };
    let mut prepared = installer.prepare(source, &selection)?;
    if ask_which && prepared.candidates.len() > 1 {
        let Some(picked) = pick(&prepared)? else {
            writeln!(output::stdout(), "nothing picked: nothing installed")?;
            return Ok(Outcome::Ok);
        };
        prepared.candidates = std::mem::take(&mut prepared.candidates)
            .into_iter()
            .enumerate()
            .filter_map(|(index, candidate)| picked.contains(&index).then_some(candidate))
            .collect();
    }
    if args.list {
        if args.scope.json {
            output::stdout().json(&prepared.offer())?;
        } else {
            list(&prepared)?;
        }
        return Ok(Outcome::Ok);
    }
    let mut targets = Vec::new();
    for installer in &installers {
        let replaces = match installer.replacements(&prepared) {
            Err(error @ InstallError::NotOurs { .. }) => {
                return Err(UsageError(error.to_string()).into());
            }
            result => result?,
        };
        if !args.scope.json {
            say_replaced(installer, &prepared, &replaces)?;
        }
        targets.push((installer, replaces));
    }
    let installations = install(targets, &prepared, &args.install, args.scope.json)?;
    if args.scope.json {
        output::stdout().json(&installations[0])?;
    }
    outcome_of(installations[0].outcome)
}

/// For each skill that is installed already: what this add changes in it, file by file with
/// the diffs (the add replaces it, as `update` does, after the same question).
fn say_replaced(
    installer: &Installer,
    prepared: &Prepared,
    replaces: &[Replacement],
) -> anyhow::Result<()> {
    let mut out = output::stdout();
    for replacement in replaces {
        writeln!(
            out,
            "{} is installed: this add replaces it ({})",
            one_line(&replacement.name),
            changed_files(&replacement.changes)
        )?;
        if let Some(candidate) = prepared
            .candidates
            .iter()
            .find(|candidate| candidate.name == replacement.name)
        {
            print_file_changes(&mut out, &installer.file_changes(candidate)?)?;
        }
    }
    Ok(())
}

/// Whether standard input, output and error are a terminal: the picker draws on standard
/// error and reads keys from the terminal.
fn on_a_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stdin().is_terminal()
        && dialoguer::console::Term::stdout().is_term()
        && dialoguer::console::Term::stderr().is_term()
}

/// The width of the description in a line of the picker.
const PICKED_DESCRIPTION: usize = 60;

/// Asks on the terminal which of the skills `prepared` offers to install: a multi-select of
/// one line each (name, directory, scan verdict, the start of the description; other people's
/// text, each escaped by `one_line`); the indices picked, or none when none was or the picker
/// was left (Esc, q).
fn pick(prepared: &Prepared) -> anyhow::Result<Option<Vec<usize>>> {
    let items: Vec<String> = prepared
        .candidates
        .iter()
        .map(|candidate| {
            let description: String = candidate
                .description
                .chars()
                .take(PICKED_DESCRIPTION)
                .collect();
            format!(
                "{}  ({})  [{}]  {}",
                one_line(&candidate.name),
                one_line(&candidate.path),
                candidate.verdict(),
                one_line(&description)
            )
        })
        .collect();
    let picked = dialoguer::MultiSelect::new()
        .with_prompt(format!(
            "{} skills offered; pick those to install (space picks, enter confirms, esc leaves)",
            items.len()
        ))
        .items(&items)
        .interact_on_opt(&dialoguer::console::Term::stderr())?;
    Ok(picked.filter(|picked| !picked.is_empty()))
}

/// One line per skill the source offers: name, directory, the scan's verdict, description.
fn list(prepared: &Prepared) -> anyhow::Result<()> {
    let mut out = output::stdout();
    let width = |of: fn(&Candidate) -> &str| {
        prepared
            .candidates
            .iter()
            .map(|candidate| one_line(of(candidate)).chars().count())
            .max()
            .unwrap_or(0)
    };
    let (name_width, path_width) = (width(|c| &c.name), width(|c| &c.path));
    for candidate in &prepared.candidates {
        let verdict = candidate.verdict();
        writeln!(
            out,
            "{:name_width$}  {:path_width$}  {verdict:8}  {}",
            one_line(&candidate.name),
            one_line(&candidate.path),
            one_line(&candidate.description)
        )?;
    }
    writeln!(
        out,
        "{} skill(s); add one with --skill NAME, all with --skill '*'",
        prepared.candidates.len()
    )?;
    Ok(())
}
