//! The `skills` command: validates, lists and inspects Agent Skills.
//!
//! A thin binary: it parses arguments, calls the library crates and prints. Every failure is one
//! line on stderr; exit codes are 0 (ok), 1 (validation errors, a missing skill, a script that
//! failed or timed out) and 2 (usage errors). Every line reaches the terminal through
//! `output`, the terminal writer.

#![forbid(unsafe_code)]
// Printing goes through the terminal writer (`output.rs`), which escapes what it is given.
#![deny(clippy::print_stdout, clippy::print_stderr, clippy::disallowed_methods)]

use std::io;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use skillful_core::text::one_line;

mod audit;
mod commands;
mod compose;
mod converse;
mod inspect;
mod outcome;
mod output;
mod sandbox;
mod settings;
mod supply;
mod telemetry;

use commands::{
    add, audit as audit_log, catalog, chat, completions, disable, doctor, enable, engine, eval,
    init, install, list, man, outdated, read, remove, report, rollback, run as run_prompt,
    run_script, scan, search, serve, show, stale, stats, trust, untrust, update, validate, verify,
};
use outcome::{Outcome, UsageError};

#[derive(Debug, Parser)]
#[command(
    name = "skills",
    version,
    about = "Validate, list and inspect Agent Skills, and run them with a model"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Print no warnings on stderr, only errors (`RUST_LOG` still sets the level).
    #[arg(short, long, global = true)]
    quiet: bool,
    /// Colour the warnings on stderr and the severities of report lines (validate, list,
    /// catalog, scan, doctor): auto (on a terminal, unless `NO_COLOR` is set), always, never.
    #[arg(long, global = true, value_name = "WHEN", default_value = "auto")]
    color: output::ColorChoice,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check SKILL.md files against the Agent Skills specification.
    #[command(after_help = "Example:\n  skills validate --strict examples/skills")]
    Validate(validate::Args),
    /// List the skills under the roots (name and description; `--json` for every field).
    #[command(
        visible_alias = "ls",
        after_help = "Example:\n  skills list examples/skills --json"
    )]
    List(list::Args),
    /// Print what `load_skill` returns for a skill.
    #[command(after_help = "Example:\n  skills show unit-converter examples/skills")]
    Show(show::Args),
    /// Print what `read_skill_resource` returns for a resource of a skill.
    #[command(
        after_help = "Example:\n  skills read unit-converter references/conversion-table.md examples/skills"
    )]
    Read(read::Args),
    /// Print the exact system-prompt text the skills provider injects.
    #[command(after_help = "Example:\n  skills catalog examples/skills")]
    Catalog(catalog::Args),
    /// Find the skills that match a request, as the `search_skills` tool ranks them.
    #[command(
        after_help = "Example:\n  skills search \"convert miles to km\" examples/skills --limit 3"
    )]
    Search(search::SearchArgs),
    /// Run a script of a skill with the agent's runner and limits; print what the model sees.
    #[command(
        after_help = "Example:\n  skills run-script unit-converter scripts/convert.py examples/skills -- --value 26.2 --factor 1.609344"
    )]
    RunScript(run_script::RunScriptArgs),
    /// Serve the skills under the roots as an MCP server (stdio, or streamable HTTP).
    #[command(after_help = "Example:\n  skills serve examples/skills --stdio")]
    Serve(serve::ServeArgs),
    /// Ask a model once, with the skills as tools (OpenAI-compatible server; approvals asked).
    #[command(
        after_help = "Example:\n  skills run \"A marathon is 26.2 miles. How many km is that?\" --skills examples/skills"
    )]
    Run(converse::RunArgs),
    /// Talk with a model, with the skills as tools, one prompt per line.
    #[command(after_help = "Example:\n  skills chat --skills examples/skills")]
    Chat(converse::ChatArgs),
    /// Trust a project: load its .agents/skills, plugins and settings (`--list`: show trusted).
    #[command(after_help = "Example:\n  skills trust ~/src/repo")]
    Trust(trust::Args),
    /// Stop trusting a directory.
    #[command(after_help = "Example:\n  skills untrust ~/src/repo")]
    Untrust(untrust::Args),
    /// Offer a skill again (user settings; `--project` for the project's).
    #[command(after_help = "Example:\n  skills enable pdf-tools --project")]
    Enable(settings::ToggleArgs),
    /// Stop offering a skill (user settings; `--project` for the project's).
    #[command(after_help = "Example:\n  skills disable pdf-tools")]
    Disable(settings::ToggleArgs),
    /// The embedded engine: a local model server installed from PyPI (start, stop, status, models).
    #[command(after_help = "Example:\n  skills engine start --port 8090")]
    Engine(engine::EngineArgs),
    /// Measure whether skills help a model: run their evals with and without them, grade, benchmark.
    #[command(after_help = "Example:\n  skills eval examples/skills/unit-converter --runs 3")]
    Eval(eval::EvalArgs),
    /// What this machine enforces and whether skillful's own files are safe (exit 1 if not).
    #[command(
        after_help = "Example:\n  skills doctor && skills eval examples/skills/unit-converter"
    )]
    Doctor(doctor::DoctorArgs),
    /// Print the audit log of skill tool calls (`--verify`: check its hash chain).
    #[command(after_help = "Example:\n  skills audit --since 12h --skill unit-converter")]
    Audit(audit_log::Args),
    /// The skills not used for N days, never evaluated, or regressed (exit 1 when any).
    #[command(after_help = "Example:\n  skills stale --days 60 --only unused --disable-stale")]
    Stale(stale::Args),
    /// Usage per skill from the audit log: activations, calls, failures, latency, tokens.
    #[command(after_help = "Example:\n  skills stats --since 7d")]
    Stats(stats::Args),
    /// One HTML page of usage per skill over time and the latest evaluations, with charts.
    #[command(
        after_help = "Example:\n  skills report --since 30d --out report.html && xdg-open report.html"
    )]
    Report(report::Args),
    /// Scan skills for hidden text, prompt injection, exfiltration and risky scripts.
    #[command(after_help = "Example:\n  skills scan examples/skills --sarif > scan.sarif")]
    Scan(scan::ScanArgs),
    /// Create a new skill: SKILL.md with valid frontmatter, references/, scripts/, evals/.
    #[command(after_help = "Example:\n  skills init pdf-tools --dir .agents/skills")]
    Init(init::Args),
    /// Install skills from a git repository or a directory (fetched, validated, scanned, locked).
    #[command(after_help = "Example:\n  skills add anthropics/skills@main --skill pdf")]
    Add(add::Args),
    /// Make the installed skills match skills-lock.json (`--frozen`: fail instead of re-locking).
    #[command(after_help = "Example:\n  skills install --frozen --project")]
    Install(install::Args),
    /// Compare installed skills with skills-lock.json; exit 1 on any difference.
    #[command(after_help = "Example:\n  skills verify")]
    Verify(verify::Args),
    /// Remove an installed skill and its lock entry.
    #[command(visible_alias = "rm", after_help = "Example:\n  skills remove pdf")]
    Remove(remove::Args),
    /// Fetch the newest commit of each locked skill's ref, show the changes and findings, re-lock.
    #[command(after_help = "Example:\n  skills update pdf")]
    Update(update::Args),
    /// Put an installed skill back to the version the last update replaced (or `--to REF`).
    #[command(after_help = "Example:\n  skills rollback pdf --to 3f2a9c1")]
    Rollback(rollback::Args),
    /// List the locked skills whose ref points at a newer commit (exit 1 when any).
    #[command(after_help = "Example:\n  skills outdated")]
    Outdated(outdated::Args),
    /// Print a shell completion script for `skills` (bash, zsh, fish, elvish, powershell).
    #[command(
        after_help = "Example:\n  skills completions bash > ~/.local/share/bash-completion/completions/skills"
    )]
    Completions(completions::Args),
    /// Write the man pages of `skills` and of each command (roff), or print the main one.
    #[command(after_help = "Example:\n  skills man --out ~/.local/share/man/man1")]
    Man(man::Args),
}

fn main() -> ExitCode {
    // First, before anything starts a script or an MCP server: they must not read this
    // process's environment (API keys) through /proc.
    let hardened = skillful_scripts::harden_process();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            // Through the terminal writer: the message quotes the arguments it could not use.
            let message = error.render().to_string();
            return if error.use_stderr() {
                let _ = write!(output::stderr(), "{message}");
                ExitCode::from(2)
            } else {
                let _ = write!(output::stdout(), "{message}");
                ExitCode::SUCCESS
            };
        }
    };
    // Commands run on a single-threaded tokio runtime; file work goes to its blocking pool.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            let _ = writeln!(output::stderr(), "skills: {}", one_line(&error.to_string()));
            return ExitCode::from(1);
        }
    };
    let telemetry = exports_traces(&cli.command)
        .then(|| {
            let _entered = runtime.enter();
            telemetry::start()
        })
        .flatten();
    let reports_discovery = matches!(
        cli.command,
        Command::List(_) | Command::Catalog(_) | Command::Search(_) | Command::Validate(_)
    );
    output::init_tracing(
        telemetry.as_ref().map(|telemetry| telemetry.layer()),
        output::Logging {
            reports_discovery,
            quiet: cli.quiet,
            color: cli.color,
        },
    );
    if let Err(error) = hardened {
        let _ = writeln!(
            output::stderr(),
            "skills: warning: {}",
            one_line(&error.to_string())
        );
    }
    let result = run(&runtime, cli.command);
    if let Some(telemetry) = telemetry {
        // The last spans are flushed while the runtime runs (gRPC's connection task is on it),
        // within the exporter's bound.
        let _ = runtime
            .block_on(async { tokio::task::spawn_blocking(move || telemetry.shutdown()).await });
    }
    match result {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::Invalid | Outcome::Failed) => ExitCode::from(1),
        Ok(Outcome::Pending) => ExitCode::from(3),
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            // One line, whatever the error quotes (a skill's text, a server's answer).
            let _ = writeln!(
                output::stderr(),
                "skills: {}",
                one_line(&format!("{error:#}"))
            );
            if error.is::<UsageError>() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// Whether `command` exports traces when the `OTEL_*` variables ask for it: the commands that
/// run agents or serve skills.
fn exports_traces(command: &Command) -> bool {
    matches!(
        command,
        Command::Run(_) | Command::Chat(_) | Command::Eval(_) | Command::Serve(_)
    )
}

/// Runs `command` on `runtime`.
fn run(runtime: &tokio::runtime::Runtime, command: Command) -> anyhow::Result<Outcome> {
    runtime.block_on(async {
        match command {
            Command::List(args) => list::run(args).await,
            Command::Show(args) => show::run(args).await,
            Command::Read(args) => read::run(args).await,
            Command::Catalog(args) => catalog::run(args).await,
            Command::Search(args) => search::search(args).await,
            Command::RunScript(args) => run_script::run_script(args).await,
            Command::Validate(args) => validate::run(args).await,
            Command::Serve(args) => serve::serve(args).await,
            Command::Run(args) => run_prompt::run(args).await,
            Command::Chat(args) => chat::run(args).await,
            Command::Trust(args) => trust::run(args),
            Command::Untrust(args) => untrust::run(args),
            Command::Enable(args) => enable::run(args),
            Command::Disable(args) => disable::run(args),
            Command::Engine(args) => engine::run(args).await,
            Command::Eval(args) => eval::run(args).await,
            Command::Doctor(args) => doctor::doctor(args).await,
            Command::Audit(args) => audit_log::run(args),
            Command::Stats(args) => stats::run(args).await,
            Command::Stale(args) => stale::run(args).await,
            Command::Report(args) => report::run(args).await,
            Command::Scan(args) => scan::scan(args),
            Command::Init(args) => init::run(args),
            Command::Add(args) => add::run(args),
            Command::Install(args) => install::run(args),
            Command::Verify(args) => verify::run(args),
            Command::Remove(args) => remove::run(args),
            Command::Update(args) => update::run(args),
            Command::Rollback(args) => rollback::run(args),
            Command::Outdated(args) => outdated::run(args),
            Command::Completions(args) => completions::run(&args),
            Command::Man(args) => man::run(&args),
        }
    })
}

/// A closed pipe (`skills validate | head`) is not an error worth reporting.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .downcast_ref::<io::Error>()
        .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// No two options of a command share a name or a short flag (clap panics on them only when
    /// the command is parsed in a debug build).
    #[test]
    fn the_options_are_consistent() {
        super::Cli::command().debug_assert();
    }
}
