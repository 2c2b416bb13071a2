//! `skills doctor`: one screen of what this machine enforces and the state of skillful's own
//! files; exit 1 when something is unsafe. The checks are the libraries' (`skillful-state`'s
//! `inspect_private`, `skillful-scripts`' `SandboxSupport`, `skillful-config`'s trust store and
//! settings); this only asks them, in order, and prints. Nothing is created or repaired.

use std::path::{Path, PathBuf};

use skillful_agent::ApprovalsStore;
use skillful_config::{Environment, Settings, SettingsLevel, SkillsConfig, TRUST_FILE, TrustStore};
use skillful_core::text::one_line;
use skillful_discovery::hosts::HOSTS;
use skillful_engine::Engine;
use skillful_scripts::{SandboxSupport, user_namespaces};
use skillful_state::{Check, CheckDetail, CheckStatus, Checkup, PathState, inspect_private};

use crate::output::Tone;
use crate::{Outcome, output};

#[derive(Debug, clap::Args)]
pub(crate) struct DoctorArgs {
    /// Print one JSON document on stdout (schema: doctor.schema.json in the book); the exit code
    /// is the same.
    #[arg(long)]
    json: bool,
    /// The model server to check (`--endpoint` of `run` and `chat`): whether it answers, and
    /// the models it offers (`GET {URL}/models`).
    #[arg(long, env = "SKILLS_ENDPOINT", hide_env_values = true, value_parser = crate::converse::base_url)]
    endpoint: Option<String>,
}

/// The checks so far.
#[derive(Default)]
struct Report {
    checkup: Checkup,
}

impl Report {
    /// A check of `topic` that looked at no one file.
    fn check(&mut self, topic: &str, status: CheckStatus, message: String) {
        self.checkup.checks.push(Check {
            topic: topic.to_owned(),
            path: None,
            status,
            message,
            details: Vec::new(),
        });
    }

    /// A line under the last check.
    fn detail(&mut self, status: CheckStatus, message: String) {
        if let Some(check) = self.checkup.checks.last_mut() {
            check.details.push(CheckDetail { status, message });
        }
    }

    /// `what` at `path`: its state; `true` when it may be read further (it exists and is
    /// private).
    fn place(&mut self, what: &str, path: &Path, dir: bool) -> bool {
        let shown = one_line(&path.display().to_string()).into_owned();
        let (status, said, readable) = match inspect_private(path, dir) {
            Ok(PathState::Missing) => (
                CheckStatus::Notice,
                "missing (created private when first needed)".into(),
                false,
            ),
            Ok(PathState::Private) => (CheckStatus::Ok, "private".into(), true),
            Ok(PathState::Readable { mode }) => (
                CheckStatus::Warning,
                format!(
                    "readable by others (mode {mode:04o}); skillful makes it private when it next uses it"
                ),
                false,
            ),
            Ok(PathState::Unsafe { path, reason }) => {
                let path = one_line(&path.display().to_string()).into_owned();
                (
                    CheckStatus::Unsafe,
                    format!(
                        "UNSAFE: {path} {reason}; another user could plant or replace skillful's \
                         state: fix its owner and permissions (chmod go-w), or remove it"
                    ),
                    false,
                )
            }
            Err(error) => (
                CheckStatus::Warning,
                format!("cannot be inspected: {error}"),
                false,
            ),
        };
        self.checkup.checks.push(Check {
            topic: what.to_owned(),
            path: Some(shown),
            status,
            message: said,
            details: Vec::new(),
        });
        readable
    }
}

/// Prints the report; exit 1 when something is unsafe.
pub(crate) async fn doctor(args: DoctorArgs) -> anyhow::Result<Outcome> {
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
    endpoint_line(&mut report, args.endpoint.as_deref()).await;
    tool_lines(&mut report);
    lock_line(&mut report, &environment);
    other_hosts_lines(&mut report, &environment);

    let checkup = report.checkup;
    let mut out = output::stdout();
    if args.json {
        out.json(&checkup)?;
    } else {
        for check in &checkup.checks {
            let tone = match check.status {
                CheckStatus::Ok => Tone::Good,
                CheckStatus::Notice => Tone::Minor,
                CheckStatus::Warning => Tone::Warning,
                _ => Tone::Bad,
            };
            out.tone(tone, &check.topic)?;
            match &check.path {
                Some(path) => writeln!(out, ": {path}: {}", check.message)?,
                None => writeln!(out, ": {}", check.message)?,
            }
            for detail in &check.details {
                writeln!(out, "  {}", detail.message)?;
            }
        }
    }
    let unsafe_count = checkup.unsafe_count();
    if unsafe_count > 0 {
        writeln!(
            output::stderr(),
            "skills: {unsafe_count} unsafe finding{}: fix the lines marked UNSAFE",
            if unsafe_count == 1 { "" } else { "s" }
        )?;
        return Ok(Outcome::Failed);
    }
    Ok(Outcome::Ok)
}

/// What the sandbox can enforce here: Landlock, seccomp, mount namespaces, and so whether
/// scripts are isolated.
fn sandbox_lines(report: &mut Report) {
    use CheckStatus::{Ok, Warning};
    let support = SandboxSupport::detect();
    match support.landlock_abi {
        Some(abi) => report.check("landlock", Ok, format!("ABI {abi}")),
        None => report.check("landlock", Warning, "not available".to_owned()),
    }
    if support.seccomp {
        report.check("seccomp", Ok, "available".to_owned());
    } else {
        report.check("seccomp", Warning, "not available".to_owned());
    }
    if support.mount_namespaces {
        report.check(
            "mount namespaces",
            Ok,
            "available (a write tier's .git, .envrc, ... are mounted read-only)".to_owned(),
        );
    } else {
        report.check(
            "mount namespaces",
            Warning,
            match user_namespaces() {
                Result::Ok(()) => "not available".to_owned(),
                Err(why) => format!("not available: {why}"),
            },
        );
    }
    match support.missing() {
        None => report.check(
            "scripts",
            Ok,
            "isolated in the sandbox of their risk tier".to_owned(),
        ),
        Some(missing) => report.check(
            "scripts",
            Warning,
            format!(
                "NOT isolated ({missing}): every script asks before it runs, and `skills eval` \
                 runs none"
            ),
        ),
    }
}

/// The trust store: how many projects are trusted, and which entries trust too much (unsafe).
fn trust_lines(report: &mut Report, environment: &Environment, config: bool) {
    let dirs = environment.dirs();
    let trust_file = dirs.config().join(TRUST_FILE);
    if report.place("trust store", &trust_file, false) && config {
        match TrustStore::load(environment) {
            Ok(store) => {
                let count = store.entries().len();
                report.detail(
                    CheckStatus::Ok,
                    format!(
                        "{count} trusted project director{}",
                        if count == 1 { "y" } else { "ies" }
                    ),
                );
                for (entry, risk) in store.too_broad(environment.home()) {
                    let dir = one_line(&entry.shown()).into_owned();
                    report.detail(
                        CheckStatus::Unsafe,
                        format!(
                            "UNSAFE: {dir} is trusted, and it {risk}: every project below it is \
                             trusted with it; run `skills untrust {dir}`"
                        ),
                    );
                }
            }
            Err(error) => report.detail(CheckStatus::Warning, cannot_be_read(&error)),
        }
    }
}

/// The detail of a file that is there and cannot be read.
fn cannot_be_read(error: &dyn std::fmt::Display) -> String {
    format!("cannot be read: {}", one_line(&error.to_string()))
}

/// The approvals store, read when the state directory is private.
fn approvals_lines(report: &mut Report, state: bool) -> anyhow::Result<()> {
    let approvals = ApprovalsStore::per_user_path()?;
    if report.place("approvals store", &approvals, false) && state {
        match ApprovalsStore::at(&approvals) {
            Ok(store) => report.detail(
                CheckStatus::Ok,
                format!("{} approvals given for good", store.len()),
            ),
            Err(error) => report.detail(CheckStatus::Warning, cannot_be_read(&error)),
        }
    }
    Ok(())
}

/// The user's settings: what they disable and allow.
fn settings_lines(report: &mut Report, environment: &Environment) {
    let settings_file = environment.user_config_file();
    if report.place("settings", &settings_file, false) {
        match Settings::load(&settings_file, SettingsLevel::User) {
            Ok(settings) => report.detail(
                CheckStatus::Ok,
                format!(
                    "{} skills disabled, {} plugin directories, {} directories write-high scripts may write",
                    settings.disabled.len(),
                    settings.plugin_dirs.len(),
                    settings.allow_write.len()
                ),
            ),
            Err(error) => report.detail(CheckStatus::Warning, cannot_be_read(&error)),
        }
    }
}

/// The programs skillful starts: git (for `add` and `install` of git sources) and the system
/// Python the embedded engine installs itself with.
fn tool_lines(report: &mut Report) {
    match skillful_install::git_version() {
        Ok(version) => report.check("git", CheckStatus::Ok, one_line(&version).into_owned()),
        Err(error) => report.check(
            "git",
            CheckStatus::Warning,
            format!(
                "not usable ({}): `skills add` and `install` of git sources need it",
                one_line(&error.to_string())
            ),
        ),
    }
    match Engine::from_env().and_then(|engine| engine.system_python()) {
        Ok(version) => report.check(
            "python",
            CheckStatus::Ok,
            format!("{version} with venv (the embedded engine installs itself with it)"),
        ),
        Err(error) => report.check(
            "python",
            CheckStatus::Warning,
            format!(
                "{}: the embedded engine cannot be installed; a model server given with \
                 --endpoint still works",
                one_line(&error.to_string())
            ),
        ),
    }
}

/// The user's lock: how many skills it holds, and whether their files are as locked.
fn lock_line(report: &mut Report, environment: &Environment) {
    let Some(dir) = environment.user_skills().into_iter().next() else {
        return;
    };
    let installer = skillful_install::Installer::new(dir);
    let (status, message) = match installer.verify(&[]) {
        Ok(verified) if verified.is_empty() => (
            CheckStatus::Ok,
            "no skill installed with `skills add`".into(),
        ),
        Ok(verified) => {
            let differ: Vec<&str> = verified
                .iter()
                .filter(|(_, state)| !matches!(state, skillful_install::Verified::Intact))
                .map(|(name, _)| name.as_str())
                .collect();
            if differ.is_empty() {
                (
                    CheckStatus::Ok,
                    format!("{} skills, every file as locked", verified.len()),
                )
            } else {
                (
                    CheckStatus::Warning,
                    format!(
                        "{} skills; {} differ from the lock ({}): see `skills verify`",
                        verified.len(),
                        differ.len(),
                        one_line(&differ.join(", "))
                    ),
                )
            }
        }
        Err(error) => (
            CheckStatus::Warning,
            one_line(&error.to_string()).into_owned(),
        ),
    };
    report.check("lock", status, message);
}

/// Skills in other agent hosts' directories (`skillful_discovery::hosts::HOSTS`: the user's, and
/// the project's) that this composition does not read, and how to read them.
fn other_hosts_lines(report: &mut Report, environment: &Environment) {
    let read: Vec<PathBuf> = SkillsConfig::new(environment.clone())
        .build()
        .map(|composition| {
            composition
                .file_roots()
                .iter()
                .map(|(root, _)| root.clone())
                .collect()
        })
        .unwrap_or_default();
    let project = environment.project().map(|project| project.dir);
    for host in HOSTS.iter().filter(|host| !host.is_default()) {
        let dirs = [
            environment.home().map(|home| host.user_skills(home)),
            project.as_deref().map(|dir| host.project_skills(dir)),
        ];
        for dir in dirs.into_iter().flatten() {
            let found = skillful_discovery::skill_dirs(&dir).dirs.len();
            if found == 0 || read.contains(&dir) {
                continue;
            }
            let shown = one_line(&dir.display().to_string()).into_owned();
            let name = host.name;
            report.check(
                host.title,
                CheckStatus::Notice,
                format!(
                    "{found} skill{} in {shown}, not read: add `agents = [\"{name}\"]` to \
                     [skills] in the settings to read them always, or pass `--agent {name}` \
                     (`skills list --agent {name}`)",
                    if found == 1 { "" } else { "s" }
                ),
            );
        }
    }
}

/// Whether the model server `run` and `chat` are pointed at answers, and its models; without
/// one, where they go instead. A server that does not answer is a warning: skills still work,
/// a conversation does not.
async fn endpoint_line(report: &mut Report, endpoint: Option<&str>) {
    let Some(endpoint) = endpoint else {
        report.check(
            "endpoint",
            CheckStatus::Notice,
            "none named: run and chat use the embedded engine (pass --endpoint URL or set \
             SKILLS_ENDPOINT to check a server)"
                .to_owned(),
        );
        return;
    };
    let client = skillful_chat::OpenAiClient::builder(endpoint)
        .timeout(ENDPOINT_TIMEOUT)
        .max_response_bytes(MAX_MODELS_BYTES)
        .build();
    let listed = match client {
        Ok(client) => client
            .models()
            .await
            .map(|models| (client.url().to_owned(), models)),
        Err(error) => Err(error),
    };
    let (status, message) = match listed {
        Ok((url, models)) => {
            let url = url.trim_end_matches("/chat/completions").to_owned();
            let shown: Vec<String> = models
                .iter()
                .take(MAX_MODELS_SHOWN)
                .map(|model| one_line(model).into_owned())
                .collect();
            let more = models.len().saturating_sub(MAX_MODELS_SHOWN);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            (
                CheckStatus::Ok,
                format!(
                    "{} answers; {} model{}: {}{more}",
                    one_line(&url),
                    models.len(),
                    if models.len() == 1 { "" } else { "s" },
                    shown.join(", ")
                ),
            )
        }
        Err(error) => (
            CheckStatus::Warning,
            format!(
                "{}; run and chat cannot use it",
                one_line(&error.to_string())
            ),
        ),
    };
    report.check("endpoint", status, message);
}

/// How long `doctor` waits for the model server's list of models.
const ENDPOINT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// The longest list of models read (a list is a few KB).
const MAX_MODELS_BYTES: usize = 1024 * 1024;
/// How many of the server's models are named.
const MAX_MODELS_SHOWN: usize = 5;

/// The engines running, when the state directory is private.
fn engine_line(report: &mut Report, state: bool) {
    let (status, message) = if state {
        match Engine::from_env().and_then(|engine| engine.running()) {
            Ok(running) if running.is_empty() => (CheckStatus::Ok, "none running".to_owned()),
            Ok(running) => (
                CheckStatus::Ok,
                running
                    .iter()
                    .map(|record| {
                        format!(
                            "{} on 127.0.0.1:{} (pid {})",
                            one_line(&record.model),
                            record.port,
                            record.pid
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            Err(error) => (
                CheckStatus::Warning,
                format!("cannot be listed: {}", one_line(&error.to_string())),
            ),
        }
    } else {
        (
            CheckStatus::Notice,
            "none has run (or its state directory is not private)".to_owned(),
        )
    };
    report.check("engine", status, message);
}
