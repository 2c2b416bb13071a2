//! Loading real plugin libraries, built by a nested `cargo build` (the test harness does not build
//! `cdylib`s): the example plugins, and the fixtures under `tests/fixtures/`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use serde_json::{Value, json};
use skillful_core::{OriginKind, ResourceContent, RiskTier, Skill, SkillError, SourceContext};
use skillful_inline::SkillsSourceBuilder;
use skillful_plugin_build::PluginBuild;
use skillful_plugin_host::{PluginError, PluginSkill, PluginSkillsSource, plugin_files};
use skillful_provider::{SkillsProvider, ToolErrorCode, ToolOutput};

/// The plugins this file loads, by library name, built once per test run.
fn library(name: &str) -> &'static Path {
    static BUILT: OnceLock<HashMap<String, PathBuf>> = OnceLock::new();
    let built = BUILT.get_or_init(|| {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
        let build = [
            "temperature-converter",
            "clock",
            "panicking-plugin",
            "incompatible-plugin",
            "not-a-plugin",
        ]
        .into_iter()
        .fold(
            PluginBuild::new().manifest_path(workspace),
            PluginBuild::package,
        );
        let libraries = build.run().unwrap_or_else(|error| panic!("{error}"));
        libraries
            .into_iter()
            .map(|library| (library.name, library.path))
            .collect()
    });
    built
        .get(name)
        .unwrap_or_else(|| panic!("no library {name} among {built:?}"))
}

/// A directory holding copies of the named libraries under their platform file names.
fn plugin_dir(names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in names {
        let file = library(name).file_name().unwrap();
        std::fs::copy(library(name), dir.path().join(file)).unwrap();
    }
    dir
}

fn provider(source: PluginSkillsSource) -> SkillsProvider {
    SkillsProvider::new(SkillsSourceBuilder::new().source(Arc::new(source)).build())
}

fn text(content: ResourceContent) -> String {
    match content {
        ResourceContent::Text(text) => text,
        other => panic!("expected text, got {other:?}"),
    }
}

async fn invoke(provider: &SkillsProvider, tool: &str, arguments: Value) -> ToolOutput {
    let run = provider.context(&SourceContext::default()).await.unwrap();
    run.tool(tool).unwrap().invoke(arguments).await
}

#[tokio::test]
async fn the_temperature_converter_is_served_like_any_skill() {
    let provider = provider(PluginSkillsSource::new().file(library("temperature_converter")));
    let run = provider.context(&SourceContext::default()).await.unwrap();
    let catalog = run.instructions().unwrap();
    assert!(
        catalog.contains("<name>temperature-converter</name>"),
        "{catalog}"
    );

    let content = invoke(
        &provider,
        "load_skill",
        json!({"skillName": "temperature-converter"}),
    )
    .await
    .into_model_text();
    assert!(
        content.starts_with("---\nname: temperature-converter\ndescription: Converts temperatures"),
        "{content}"
    );
    assert!(
        content.contains("\n---\nTo convert a temperature, run `convert-temperature`"),
        "{content}"
    );
    assert!(content.contains(
        "<resource name=\"temperature-conversion-formulas\" description=\"The formulas between Celsius, Fahrenheit and Kelvin.\"/>"
    ));
    assert!(content.contains("<script name=\"convert-temperature\" description=\"Converts a temperature from one unit (C, F, K) to another.\" risk=\"read\">"));
    assert!(
        content.contains(r#""required":["value","from","to"]"#),
        "{content}"
    );

    let formulas = invoke(
        &provider,
        "read_skill_resource",
        json!({"skillName": "temperature-converter", "resourceName": "temperature-conversion-formulas"}),
    )
    .await
    .into_model_text();
    assert!(formulas.contains("| Celsius (C) | Fahrenheit (F) | F = C × 9/5 + 32 |"));

    let converted = invoke(
        &provider,
        "run_skill_script",
        json!({"skillName": "temperature-converter", "scriptName": "convert-temperature",
               "arguments": {"value": 100, "from": "C", "to": "F"}}),
    )
    .await;
    assert_eq!(converted, ToolOutput::Text("100 °C = 212 °F".to_owned()));
}

#[tokio::test]
async fn script_errors_of_a_plugin_reach_the_model_as_script_failures() {
    let provider = provider(PluginSkillsSource::new().file(library("temperature_converter")));
    let run = |arguments: Value| {
        invoke(
            &provider,
            "run_skill_script",
            json!({"skillName": "temperature-converter", "scriptName": "convert-temperature", "arguments": arguments}),
        )
    };
    let ToolOutput::Error(unknown_unit) = run(json!({"value": 1, "from": "R", "to": "C"})).await
    else {
        panic!("an unknown unit must fail");
    };
    assert_eq!(unknown_unit.code, ToolErrorCode::ScriptFailed);
    assert!(
        unknown_unit
            .hint
            .contains("unknown unit 'R'; use C (Celsius), F (Fahrenheit) or K (Kelvin)"),
        "{unknown_unit:?}"
    );

    let ToolOutput::Error(missing) = run(json!({"value": 1, "from": "C"})).await else {
        panic!("a missing argument must fail");
    };
    assert!(
        missing
            .hint
            .contains("invalid arguments: missing field `to`"),
        "{missing:?}"
    );
}

#[tokio::test]
async fn a_dynamic_resource_is_evaluated_on_every_read_and_a_static_one_is_not() {
    let skill = PluginSkill::load(library("clock")).unwrap();
    let origin = skill.origin();
    assert_eq!(origin.kind, OriginKind::Plugin);
    assert_eq!(
        origin.location.as_deref(),
        Some(library("clock").to_str().unwrap())
    );
    let current_time = skill.resource("current-time").unwrap();
    let reading = |text: &str| -> u64 {
        let line = text
            .lines()
            .find_map(|line| line.strip_prefix("reading: "))
            .unwrap();
        line.parse().unwrap()
    };
    let first = text(current_time.read().await.unwrap());
    let second = text(current_time.read().await.unwrap());
    assert!(
        first.starts_with("utc: ") && first.contains("Z\nunix_seconds: "),
        "{first}"
    );
    assert_eq!(reading(&second), reading(&first) + 1);

    let converter = PluginSkill::load(library("temperature_converter")).unwrap();
    let formulas = converter
        .resource("temperature-conversion-formulas")
        .unwrap();
    assert_eq!(
        text(formulas.read().await.unwrap()),
        text(formulas.read().await.unwrap())
    );
}

#[tokio::test]
async fn a_panicking_plugin_returns_errors_and_the_host_keeps_serving() {
    let skill = PluginSkill::load(library("panicking_plugin")).unwrap();

    let boom = skill.resource("boom").unwrap().read().await.unwrap_err();
    assert!(matches!(&boom, SkillError::Other(_)), "{boom:?}");
    assert_eq!(
        boom.to_string(),
        "resource 'boom' of skill 'panicking' failed: the plugin panicked reading resource 'boom': the boom resource always panics"
    );
    let panic = skill
        .script("panic")
        .unwrap()
        .run(json!({"text": "now"}))
        .await
        .unwrap_err();
    assert_eq!(
        panic.to_string(),
        "script 'panic' failed: the plugin panicked running script 'panic': asked to panic: now"
    );
    let fail = skill
        .script("fail")
        .unwrap()
        .run(json!({"text": "x"}))
        .await
        .unwrap_err();
    assert_eq!(
        fail.to_string(),
        "script 'fail' failed: failed on purpose: x"
    );

    // The same plugin, and every other, still serves.
    let echo = skill
        .script("echo")
        .unwrap()
        .run(json!({"text": "still alive"}))
        .await;
    assert_eq!(echo.unwrap(), "still alive");
    assert_eq!(
        text(skill.resource("fine").unwrap().read().await.unwrap()),
        "still here"
    );
    let provider = provider(
        PluginSkillsSource::new()
            .file(library("panicking_plugin"))
            .file(library("temperature_converter")),
    );
    let panicked = invoke(
        &provider,
        "run_skill_script",
        json!({"skillName": "panicking", "scriptName": "panic", "arguments": {"text": "again"}}),
    )
    .await;
    assert!(panicked.is_error());
    let converted = invoke(
        &provider,
        "run_skill_script",
        json!({"skillName": "temperature-converter", "scriptName": "convert-temperature",
               "arguments": {"value": 0, "from": "K", "to": "C"}}),
    )
    .await;
    assert_eq!(converted, ToolOutput::Text("0 K = -273.15 °C".to_owned()));
}

/// Held by every test that opens `not_a_plugin`: its constructor writes the marker that
/// [`a_library_anyone_could_have_changed_is_never_opened`] sets, so no other test may open it
/// while that test watches the marker.
static OPENS_NOT_A_PLUGIN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[tokio::test]
async fn a_directory_loads_every_plugin_and_reports_each_file_that_is_not_one() {
    let _opens = OPENS_NOT_A_PLUGIN.lock().await;
    let dir = plugin_dir(&[
        "temperature_converter",
        "clock",
        "not_a_plugin",
        "incompatible_plugin",
    ]);
    let notes = dir.path().join(format!(
        "{}notes{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    std::fs::write(&notes, "not a library at all").unwrap();

    let source = PluginSkillsSource::new().dir(dir.path());
    let load = source.load().await.unwrap();
    let mut names: Vec<&str> = load
        .skills
        .iter()
        .map(|skill| skill.frontmatter().name.as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["clock", "temperature-converter"]);

    let error_for = |name: &str| {
        load.errors
            .iter()
            .find(|error| error.path().file_name() == library(name).file_name())
            .unwrap_or_else(|| panic!("no error for {name}: {:?}", load.errors))
    };
    let not_a_plugin = error_for("not_a_plugin");
    assert!(
        matches!(**not_a_plugin, PluginError::NotAPlugin { .. }),
        "{not_a_plugin:?}"
    );
    assert!(not_a_plugin.to_string().ends_with(
        "not a skills plugin (it exports no abi_stable root module); export a skill with skillful_plugin_abi::export_skill!"
    ));

    let incompatible = error_for("incompatible_plugin");
    let PluginError::IncompatibleLayout { source: report, .. } = &**incompatible else {
        panic!("expected an incompatible layout, got {incompatible:?}");
    };
    let message = incompatible.to_string();
    assert!(!message.contains('\n'), "{message}");
    assert!(message.ends_with(&format!(
        "its plugin interface does not match this host's (the root module's layout differs); rebuild the plugin against skillful-plugin-abi {}",
        skillful_plugin_host::INTERFACE_VERSION
    )));
    assert!(
        report.report().lines().count() > 5,
        "the full report stays available: {report}"
    );
    let cause = std::error::Error::source(incompatible).unwrap();
    assert_eq!(cause.to_string(), report.to_string());

    let not_a_library = load
        .errors
        .iter()
        .find(|error| error.path() == notes)
        .unwrap();
    assert!(
        matches!(**not_a_library, PluginError::NotALibrary { .. }),
        "{not_a_library:?}"
    );
    assert!(!not_a_library.to_string().contains('\n'));
    assert_eq!(load.errors.len(), 3, "{:?}", load.errors);

    // The source serves the plugins that loaded, and loads only once.
    let skills = skillful_core::SkillsSource::skills(&source, &SourceContext::default())
        .await
        .unwrap();
    assert_eq!(skills.len(), 2);
    assert!(std::ptr::eq(load, source.load().await.unwrap()));
}

#[tokio::test]
async fn a_missing_directory_holds_no_plugins_and_no_errors() {
    let dir = tempfile::tempdir().unwrap();
    let source = PluginSkillsSource::new().dir(dir.path().join("absent"));
    let load = source.load().await.unwrap();
    assert!(load.skills.is_empty() && load.errors.is_empty());
}

#[test]
fn only_files_with_the_platform_library_name_are_plugin_files() {
    let dir = tempfile::tempdir().unwrap();
    let (prefix, suffix) = (std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX);
    for name in [
        format!("{prefix}b{suffix}"),
        format!("{prefix}a{suffix}"),
        "a.txt".to_owned(),
        format!("{prefix}{suffix}"),
        format!("{prefix}c{suffix}.bak"),
    ] {
        std::fs::write(dir.path().join(name), "").unwrap();
    }
    std::fs::create_dir(dir.path().join(format!("{prefix}dir{suffix}"))).unwrap();
    let files: Vec<String> = plugin_files(dir.path())
        .unwrap()
        .iter()
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        files,
        [format!("{prefix}a{suffix}"), format!("{prefix}b{suffix}")]
    );
}

#[test]
fn plugin_scripts_carry_their_schema_and_risk_tier() {
    let skill = PluginSkill::load(library("temperature_converter")).unwrap();
    let script = skill.script("convert-temperature").unwrap();
    assert_eq!(script.risk_tier(), RiskTier::Read);
    let schema = script.parameters_schema().unwrap();
    assert_eq!(schema["properties"]["from"]["enum"], json!(["C", "F", "K"]));
    assert_eq!(
        skill.frontmatter().license.as_deref(),
        Some("MIT OR Apache-2.0")
    );
    let echo = PluginSkill::load(library("panicking_plugin")).unwrap();
    assert_eq!(
        echo.script("echo").unwrap().risk_tier(),
        RiskTier::SCRIPT_DEFAULT
    );
}

/// Loads `dir` as a plugin directory and returns the errors.
async fn load_errors(dir: &Path) -> Vec<PluginError> {
    PluginSkillsSource::new()
        .dir(dir)
        .load()
        .await
        .unwrap()
        .errors
        .iter()
        .map(|error| match &**error {
            PluginError::Unsafe { path, reason, fix } => PluginError::Unsafe {
                path: path.clone(),
                reason: reason.clone(),
                fix: fix.clone(),
            },
            other => PluginError::Failed {
                path: other.path().to_path_buf(),
                message: other.to_string(),
            },
        })
        .collect()
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_library_anyone_could_have_changed_is_never_opened() {
    use std::os::unix::fs::PermissionsExt;
    // Declared first so that it is released last, after the marker's directory is gone.
    let _opens = OPENS_NOT_A_PLUGIN.lock().await;
    // The library's constructor writes the marker the moment it is loaded. Tests run in one
    // process, so the variable is seen by every test of this file (only this fixture reads it,
    // and the lock keeps the other tests that open it out).
    let markers = tempfile::tempdir().unwrap();
    let marker = markers.path().join("loaded");
    // SAFETY: no other thread of this test binary reads or writes SKILLFUL_TEST_MARKER: its only
    // reader is the fixture's constructor, and the lock keeps the other tests from opening it.
    unsafe { std::env::set_var("SKILLFUL_TEST_MARKER", &marker) };
    let dir = plugin_dir(&["not_a_plugin"]);
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o775)).unwrap();

    let errors = load_errors(dir.path()).await;
    assert!(
        matches!(&errors[..], [PluginError::Unsafe { reason, fix, .. }]
            if reason.contains("writable by its group") && fix.contains("chmod go-w")),
        "{errors:?}"
    );
    assert!(!marker.exists(), "the library was opened");

    let file = dir
        .path()
        .join(library("not_a_plugin").file_name().unwrap());
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
    let errors = load_errors(dir.path()).await;
    assert!(
        matches!(&errors[..], [PluginError::Unsafe { reason, .. }] if reason.contains("every user")),
        "{errors:?}"
    );
    assert!(!marker.exists(), "the library was opened");

    let link_dir = tempfile::tempdir().unwrap();
    let link = link_dir.path().join(file.file_name().unwrap());
    std::os::unix::fs::symlink(&file, &link).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let errors = load_errors(link_dir.path()).await;
    assert!(
        matches!(&errors[..], [PluginError::Unsafe { reason, .. }] if reason.contains("symbolic link")),
        "{errors:?}"
    );
    assert!(!marker.exists(), "the library was opened");

    // The same library, safely placed, is opened (and refused as no plugin): the marker proves
    // that the checks above, not a broken fixture, kept it closed.
    let errors = load_errors(dir.path()).await;
    assert!(
        matches!(&errors[..], [PluginError::Failed { message, .. }] if message.contains("not a skills plugin")),
        "{errors:?}"
    );
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "loaded");
}
