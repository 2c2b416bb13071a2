//! `skills doctor`: one screen of what this machine enforces and the state of skillful's own
//! files; exit 1 when something is unsafe. The checks are the libraries' (`skillful-state`'s
//! `inspect_private`, `skillful-scripts`' `SandboxSupport`, `skillful-config`'s trust store and
//! settings); this only asks them, in order, and prints. Nothing is created or repaired.

use std::path::Path;

use skillful_agent::ApprovalsStore;
use skillful_config::{Environment, Settings, SettingsLevel, TRUST_FILE, TrustStore};
use skillful_core::text::one_line;
use skillful_engine::Engine;
use skillful_scripts::{SandboxSupport, user_namespaces};
use skillful_state::{PathState, inspect_private};

use crate::{Outcome, output};

#[derive(Debug, clap::Args)]
pub(crate) struct DoctorArgs {}

/// The lines of the report, and whether any says something is unsafe.
#[derive(Default)]
struct Report {
    lines: Vec<String>,
    unsafe_count: usize,
}

impl Report {
    fn line(&mut self, line: String) {
        self.lines.push(line);
    }

    /// `what` at `path`: its state; `true` when it may be read further (it exists and is
    /// private).
    fn place(&mut self, what: &str, path: &Path, dir: bool) -> bool {
        let shown = one_line(&path.display().to_string()).into_owned();
        let (said, readable) = match inspect_private(path, dir) {
            Ok(PathState::Missing) => ("missing (created private when first needed)".into(), false),
            Ok(PathState::Private) => ("private".into(), true),
            Ok(PathState::Readable { mode }) => (
                format!(
                    "readable by others (mode {mode:04o}); skillful makes it private when it next uses it"
                ),
                false,
            ),
            Ok(PathState::Unsafe { path, reason }) => {
                self.unsafe_count += 1;
                let path = one_line(&path.display().to_string()).into_owned();
                (
                    format!(
                        "UNSAFE: {path} {reason}; another user could plant or replace skillful's \
                         state: fix its owner and permissions (chmod go-w), or remove it"
                    ),
                    false,
                )
            }
            Err(error) => (format!("cannot be inspected: {error}"), false),
        };
        self.line(format!("{what}: {shown}: {said}"));
        readable
    }
}

/// Prints the report; exit 1 when something is unsafe.
pub(crate) fn doctor(_args: DoctorArgs) -> anyhow::Result<Outcome> {
    let environment = Environment::from_process()?;
    let dirs = environment.dirs();
    let mut report = Report::default();

    sandbox_lines(&mut report);
    let config = report.place("config directory", dirs.config(), true);
    let state = report.place("state directory", dirs.state(), true);
    report.place("cache directory", dirs.cache(), true);
    trust_lines(&mut report, &environment, config);
    approvals_lines(&mut report, state)?;
    settings_lines(&mut report, &environment);
    engine_line(&mut report, state);

    let mut out = output::stdout();
    for line in &report.lines {
        writeln!(out, "{line}")?;
    }
    if report.unsafe_count > 0 {
        writeln!(
            output::stderr(),
            "skills: {} unsafe finding{}: fix the lines marked UNSAFE",
            report.unsafe_count,
            if report.unsafe_count == 1 { "" } else { "s" }
        )?;
        return Ok(Outcome::Failed);
    }
    Ok(Outcome::Ok)
}

/// What the sandbox can enforce here: Landlock, seccomp, user namespaces, and so whether scripts
/// are isolated.
fn sandbox_lines(report: &mut Report) {
    let support = SandboxSupport::detect();
    report.line(format!(
        "landlock: {}",
        support
            .landlock_abi
            .map_or_else(|| "not available".to_owned(), |abi| format!("ABI {abi}"))
    ));
    report.line(format!(
        "seccomp: {}",
        if support.seccomp {
            "available"
        } else {
            "not available"
        }
    ));
    report.line(format!(
        "user namespaces: {} (not needed: the sandbox uses Landlock and seccomp)",
        match user_namespaces() {
            Ok(()) => "available".to_owned(),
            Err(why) => format!("not available: {why}"),
        }
    ));
    report.line(match support.missing() {
        None => "scripts: isolated in the sandbox of their risk tier".to_owned(),
        Some(missing) => format!(
            "scripts: NOT isolated ({missing}): every script asks before it runs, and `skills \
             eval` runs none"
        ),
    });
}

/// The trust store: how many projects are trusted, and which entries trust too much (unsafe).
fn trust_lines(report: &mut Report, environment: &Environment, config: bool) {
    let dirs = environment.dirs();
    let trust_file = dirs.config().join(TRUST_FILE);
    if report.place("trust store", &trust_file, false) && config {
        match TrustStore::load(environment) {
            Ok(store) => {
                let count = store.entries().len();
                report.line(format!(
                    "  {count} trusted project director{}",
                    if count == 1 { "y" } else { "ies" }
                ));
                for (entry, risk) in store.too_broad(environment.home()) {
                    report.unsafe_count += 1;
                    let dir = one_line(&entry.shown()).into_owned();
                    report.line(format!(
                        "  UNSAFE: {dir} is trusted, and it {risk}: every project below it is \
                         trusted with it; run `skills untrust {dir}`"
                    ));
                }
            }
            Err(error) => report.line(format!(
                "  cannot be read: {}",
                one_line(&error.to_string())
            )),
        }
    }
}

/// The approvals store, read when the state directory is private.
fn approvals_lines(report: &mut Report, state: bool) -> anyhow::Result<()> {
    let approvals = ApprovalsStore::per_user_path()?;
    if report.place("approvals store", &approvals, false) && state {
        match ApprovalsStore::at(&approvals) {
            Ok(store) => report.line(format!("  {} approvals given for good", store.len())),
            Err(error) => report.line(format!(
                "  cannot be read: {}",
                one_line(&error.to_string())
            )),
        }
    }
    Ok(())
}

/// The user's settings: what they disable and allow.
fn settings_lines(report: &mut Report, environment: &Environment) {
    let settings_file = environment.user_config_file();
    if report.place("settings", &settings_file, false) {
        match Settings::load(&settings_file, SettingsLevel::User) {
            Ok(settings) => report.line(format!(
                "  {} skills disabled, {} plugin directories, {} directories write-high scripts may write",
                settings.disabled.len(),
                settings.plugin_dirs.len(),
                settings.allow_write.len()
            )),
            Err(error) => report.line(format!("  cannot be read: {}", one_line(&error.to_string()))),
        }
    }
}

/// The engines running, when the state directory is private.
fn engine_line(report: &mut Report, state: bool) {
    report.line(if state {
        match Engine::from_env().and_then(|engine| engine.running()) {
            Ok(running) if running.is_empty() => "engine: none running".to_owned(),
            Ok(running) => format!(
                "engine: {}",
                running
                    .iter()
                    .map(|record| format!(
                        "{} on 127.0.0.1:{} (pid {})",
                        one_line(&record.model),
                        record.port,
                        record.pid
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Err(error) => format!("engine: cannot be listed: {}", one_line(&error.to_string())),
        }
    } else {
        "engine: none has run (or its state directory is not private)".to_owned()
    });
}
