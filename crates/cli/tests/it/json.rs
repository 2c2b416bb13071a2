//! The `--json` outputs of `skills`: every command that reports has `--json`, and the JSON
//! Schema of each (under `docs/src/reference/schemas`) is the one its report type gives. The
//! outputs themselves are checked against these files where each command is tested in a real
//! setup (`supply.rs`, `doctor.rs`, `trust.rs`, `engine.rs`, `inspect.rs`, `search.rs`,
//! `validate.rs`, `scan.rs`, `audit.rs`, `eval.rs`, `converse.rs`, through `common::json_of`).
//!
//! After changing a report type, `SKILLFUL_BLESS=1 cargo test -p skillful-cli --test it json::`
//! rewrites the schema files; review the difference, which is a change of the command's output.

use crate::common;
use std::path::Path;
use std::process::Command;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;

/// The schema files and the type each is generated from.
fn schemas() -> Vec<(&'static str, schemars::Schema)> {
    // As the commands serialize (a field skipped when empty is not required), not as a
    // deserializer would read it.
    fn of<T: JsonSchema>() -> schemars::Schema {
        SchemaSettings::draft2020_12()
            .for_serialize()
            .into_generator()
            .into_root_schema_for::<T>()
    }
    vec![
        ("add", of::<skillful_install::Installation>()),
        ("add-list", of::<skillful_install::Offer>()),
        ("audit", of::<skillful_audit::AuditRecord>()),
        ("doctor", of::<skillful_state::Checkup>()),
        ("engine-models", of::<skillful_engine::ModelsReport>()),
        ("engine-status", of::<skillful_engine::StatusReport>()),
        ("eval", of::<Evaluated>()),
        ("eval-compare", of::<skillful_eval::Comparison>()),
        ("install", of::<skillful_install::LockedReport>()),
        ("list", of::<Vec<skillful_config::ListedSkill>>()),
        ("outdated", of::<skillful_install::OutdatedReport>()),
        ("remove", of::<skillful_install::Removal>()),
        ("rollback", of::<skillful_install::RolledBack>()),
        ("run", of::<skillful_agent::RunReport>()),
        ("scan", of::<skillful_scan::JsonReport<'static>>()),
        ("search", of::<Vec<skillful_provider::search::SearchHit>>()),
        ("stale", of::<Vec<skillful_report::StaleSkill>>()),
        ("stats", of::<skillful_audit::Stats>()),
        ("trust-list", of::<skillful_config::TrustListing>()),
        ("update", of::<skillful_install::UpdateReport>()),
        ("validate", of::<Vec<skillful_core::Diagnostic>>()),
        ("verify", of::<skillful_install::Verification>()),
    ]
}

/// What `skills eval --json` prints: the benchmark of the one skill evaluated, or an array of
/// them (several skills, or `--compare-modes`).
#[derive(JsonSchema)]
#[schemars(untagged)]
#[expect(dead_code, reason = "only its schema is used")]
enum Evaluated {
    /// One benchmark.
    One(Box<skillful_eval::Benchmark>),
    /// Several.
    Many(Vec<skillful_eval::Benchmark>),
}

#[test]
fn the_schema_files_are_the_ones_the_report_types_give() {
    let bless = std::env::var_os("SKILLFUL_BLESS").is_some();
    let dir = Path::new(common::SCHEMAS);
    let mut stale = Vec::new();
    for (name, schema) in schemas() {
        let path = dir.join(format!("{name}.schema.json"));
        let generated = format!("{}\n", serde_json::to_string_pretty(&schema).unwrap());
        if bless {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(&path, &generated).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(generated.as_str()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "these schemas differ from their types: {stale:?}; run \
         `SKILLFUL_BLESS=1 cargo test -p skillful-cli --test it json::` and review the change"
    );
    // No file for a command that no longer has it.
    let names: Vec<String> = schemas()
        .into_iter()
        .map(|(name, _)| format!("{name}.schema.json"))
        .collect();
    for entry in std::fs::read_dir(dir).unwrap() {
        let file = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            names.contains(&file),
            "docs/src/reference/schemas/{file} has no type"
        );
    }
}

/// The commands that print no report, and why: they print what the model is shown, serve, talk,
/// write files, or say in one line what they did.
const NO_REPORT: &[(&str, &str)] = &[
    ("show", "prints the text load_skill returns"),
    ("read", "prints the text read_skill_resource returns"),
    ("catalog", "prints the system-prompt text"),
    (
        "run-script",
        "prints what the model is shown of the script's run",
    ),
    ("serve", "serves MCP on stdio or HTTP"),
    ("chat", "a conversation on the terminal"),
    ("untrust", "one line saying what it did"),
    ("enable", "one line saying what it did"),
    ("disable", "one line saying what it did"),
    ("engine start", "one line saying where the engine answers"),
    ("engine stop", "one line per engine stopped"),
    ("report", "writes an HTML page"),
    ("init", "writes a skill's files"),
    ("completions", "prints a shell script"),
    ("man", "writes man pages"),
];

fn help(command: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(command.split_whitespace())
        .arg("--help")
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    assert!(output.status.success(), "skills {command} --help");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn every_command_that_reports_has_json_and_a_schema() {
    let mut commands: Vec<String> = common::commands()
        .into_iter()
        .filter(|name| name != "engine")
        .collect();
    commands.extend(common::ENGINE_COMMANDS.map(String::from));
    assert!(commands.len() > 30, "{commands:?}");
    let schemas: Vec<&str> = schemas().into_iter().map(|(name, _)| name).collect();
    for command in &commands {
        if NO_REPORT.iter().any(|(name, _)| name == command) {
            continue;
        }
        assert!(
            help(command).contains("--json"),
            "`skills {command}` reports and has no --json; add it (with a schema) or say in \
             NO_REPORT why it prints no report"
        );
        // `trust` reports with --list only.
        let schema = match command.as_str() {
            "trust" => "trust-list".to_owned(),
            other => other.replace(' ', "-"),
        };
        assert!(
            schemas.contains(&schema.as_str()),
            "`skills {command} --json` has no schema under docs/src/reference/schemas"
        );
    }
    for (name, _) in NO_REPORT {
        assert!(commands.contains(&name.to_string()), "{name} is no command");
    }
}
