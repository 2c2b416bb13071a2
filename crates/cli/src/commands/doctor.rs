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
    tool_lines(&mut report);
    lock_line(&mut report, &environment);
    other_hosts_lines(&mut report, &environment);

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

/// The programs skillful starts: git (for `add` and `install` of git sources) and the system
/// Python the embedded engine installs itself with.
fn tool_lines(report: &mut Report) {
    report.line(match skillful_install::git_version() {
        Ok(version) => format!("git: {}", one_line(&version)),
        Err(error) => format!(
            "git: not usable ({}): `skills add` and `install` of git sources need it",
            one_line(&error.to_string())
        ),
    });
    report.line(
        match Engine::from_env().and_then(|engine| engine.system_python()) {
            Ok(version) => {
                format!("python: {version} with venv (the embedded engine installs itself with it)")
            }
            Err(error) => format!(
                "python: {}: the embedded engine cannot be installed; a model server given with \
                 --endpoint still works",
                one_line(&error.to_string())
            ),
        },
    );
}

/// The user's lock: how many skills it holds, and whether their files are as locked.
fn lock_line(report: &mut Report, environment: &Environment) {
    let Some(dir) = environment.user_skills().into_iter().next() else {
        return;
    };
    let installer = skillful_install::Installer::new(dir);
    report.line(match installer.verify(&[]) {
        Ok(verified) if verified.is_empty() => "lock: no skill installed with `skills add`".into(),
        Ok(verified) => {
            let differ: Vec<&str> = verified
                .iter()
                .filter(|(_, state)| !matches!(state, skillful_install::Verified::Intact))
                .map(|(name, _)| name.as_str())
                .collect();
            if differ.is_empty() {
                format!("lock: {} skills, every file as locked", verified.len())
            } else {
                format!(
                    "lock: {} skills; {} differ from the lock ({}): see `skills verify`",
                    verified.len(),
                    differ.len(),
                    one_line(&differ.join(", "))
                )
            }
        }
        Err(error) => format!("lock: {}", one_line(&error.to_string())),
    });
}

/// The skill directories of other agent hosts (Claude Code, Codex, Gemini CLI, Copilot,
/// goose) in the home directory: skills there are not read unless named as roots.
const OTHER_HOSTS: &[(&str, &str)] = &[
    ("Claude Code", ".claude/skills"),
    ("Codex", ".codex/skills"),
    ("Gemini CLI", ".gemini/skills"),
    ("Copilot", ".copilot/skills"),
    ("goose", ".config/goose/skills"),
];

/// Skills in other hosts' directories, which skillful does not read, and how to read them.
fn other_hosts_lines(report: &mut Report, environment: &Environment) {
    let Some(home) = environment.home() else {
        return;
    };
    for (host, relative) in OTHER_HOSTS {
        let dir = home.join(relative);
        let found = skillful_discovery::skill_dirs(&dir).dirs.len();
        if found > 0 {
            let shown = one_line(&dir.display().to_string()).into_owned();
            report.line(format!(
                "{host}: {found} skill{} in {shown}, not read by default: name it as a root \
                 (`skills list {shown}`, `skills run --skills {shown}`) or copy them with \
                 `skills add {shown}`",
                if found == 1 { "" } else { "s" }
            ));
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
