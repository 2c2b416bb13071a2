//! Class-skill plugins in `skills list`, `show`, `read` and `catalog` (`--plugins`, the default
//! plugin directories), and a plugin scaffolded by `cargo xtask new-plugin`. The plugins are
//! built by a nested `cargo build` (the test harness does not build `cdylib`s).

use crate::common;
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use skillful_plugin_build::PluginBuild;

use super::{EXAMPLES, err, out, skills};

fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The example plugins and a library that is not a plugin, by library name, built once.
fn library(name: &str) -> &'static Path {
    static BUILT: OnceLock<HashMap<String, PathBuf>> = OnceLock::new();
    let built = BUILT.get_or_init(|| {
        PluginBuild::new()
            .manifest_path(workspace().join("Cargo.toml"))
            .package("temperature-converter")
            .package("clock")
            .package("not-a-plugin")
            .run()
            .unwrap_or_else(|error| panic!("{error}"))
            .into_iter()
            .map(|library| (library.name, library.path))
            .collect()
    });
    built
        .get(name)
        .unwrap_or_else(|| panic!("no library {name} in {built:?}"))
}

/// A directory holding copies of the named libraries.
fn plugin_dir(dir: &Path, names: &[&str]) {
    fs::create_dir_all(dir).unwrap();
    for name in names {
        fs::copy(library(name), dir.join(library(name).file_name().unwrap())).unwrap();
    }
}

fn names(output: &Output) -> Vec<String> {
    out(output)
        .lines()
        .map(|line| line.split_whitespace().next().unwrap().to_owned())
        .collect()
}

#[test]
fn plugin_skills_are_listed_after_file_skills_and_a_bad_plugin_is_reported() {
    let temp = tempfile::tempdir().unwrap();
    let plugins = temp.path().join("plugins");
    plugin_dir(
        &plugins,
        &["temperature_converter", "clock", "not_a_plugin"],
    );
    let output = skills(&["list", "--plugins", plugins.to_str().unwrap(), EXAMPLES]);
    assert_eq!(
        names(&output),
        ["unit-converter", "clock", "temperature-converter"]
    );
    let bad = library("not_a_plugin")
        .file_name()
        .unwrap()
        .to_str()
        .unwrap();
    let stderr = err(&output);
    assert!(
        stderr.contains(bad) && stderr.contains("not a skills plugin"),
        "{stderr}"
    );
    assert_eq!(
        output.status.code(),
        Some(1),
        "a plugin that cannot load makes the list invalid"
    );

    let json = skills(&[
        "list",
        "--json",
        "--plugins",
        library("clock").to_str().unwrap(),
        EXAMPLES,
    ]);
    assert_eq!(json.status.code(), Some(0), "{}", err(&json));
    let listed: serde_json::Value = serde_json::from_str(&out(&json)).unwrap();
    let clock = &listed[1];
    assert_eq!(clock["name"], "clock");
    assert_eq!(clock["path"], library("clock").to_str().unwrap());
    assert_eq!(clock["resources"], serde_json::json!(["current-time"]));
}

#[test]
fn show_read_and_catalog_serve_plugin_skills_like_file_skills() {
    let converter = library("temperature_converter").to_str().unwrap();
    let shown = skills(&[
        "show",
        "temperature-converter",
        "--plugins",
        converter,
        EXAMPLES,
    ]);
    assert_eq!(shown.status.code(), Some(0), "{}", err(&shown));
    assert!(out(&shown).contains("<script name=\"convert-temperature\""));

    let read = skills(&[
        "read",
        "temperature-converter",
        "temperature-conversion-formulas",
        "--plugins",
        converter,
        EXAMPLES,
    ]);
    assert_eq!(read.status.code(), Some(0), "{}", err(&read));
    assert!(out(&read).contains("K = C + 273.15"));

    let catalog = skills(&["catalog", "--plugins", converter, EXAMPLES]);
    let catalog = out(&catalog);
    assert!(catalog.contains("<name>unit-converter</name>"), "{catalog}");
    assert!(
        catalog.contains("<name>temperature-converter</name>"),
        "{catalog}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_library_planted_in_a_project_or_home_is_never_opened_implicitly() {
    // `not_a_plugin`'s constructor writes the marker the moment the library is loaded.
    let temp = tempfile::tempdir().unwrap();
    let (project, home) = (temp.path().join("project"), temp.path().join("home"));
    fs::create_dir_all(project.join(".git")).unwrap();
    plugin_dir(&project.join(".agents/plugins"), &["not_a_plugin"]);
    plugin_dir(&home.join(".agents/plugins"), &["not_a_plugin"]);
    plugin_dir(&temp.path().join(".agents/plugins"), &["not_a_plugin"]);
    let nested = project.join("src/deep");
    fs::create_dir_all(&nested).unwrap();
    let marker = temp.path().join("loaded");

    for args in [
        &["list"][..],
        &["list", "--trust-project"],
        &["catalog"],
        &["list", EXAMPLES],
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_skills"))
            .args(args)
            .current_dir(&nested)
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("SKILLFUL_TEST_MARKER", &marker)
            .output()
            .unwrap();
        assert!(output.status.success(), "{args:?}: {}", err(&output));
        assert!(
            !marker.exists(),
            "`skills {args:?}` opened a planted library"
        );
    }

    // Named explicitly, the same library is opened (and refused as no plugin): the marker works.
    let output = Command::new(env!("CARGO_BIN_EXE_skills"))
        .args(["list", "--plugins"])
        .arg(project.join(".agents/plugins"))
        .arg(EXAMPLES)
        .env("SKILLFUL_TEST_MARKER", &marker)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", err(&output));
    assert!(marker.exists());
}

#[cfg(unix)]
#[test]
fn a_plugin_directory_others_can_write_is_refused_without_opening_anything() {
    use std::os::unix::fs::PermissionsExt;
    let temp = tempfile::tempdir().unwrap();
    let plugins = temp.path().join("plugins");
    plugin_dir(&plugins, &["clock"]);
    fs::set_permissions(&plugins, fs::Permissions::from_mode(0o777)).unwrap();
    let output = skills(&["list", "--plugins", plugins.to_str().unwrap(), EXAMPLES]);
    assert_eq!(output.status.code(), Some(1), "{}", err(&output));
    assert_eq!(names(&output), ["unit-converter"]);
    let stderr = err(&output);
    assert!(
        stderr.contains("refused, nothing was loaded: it is writable by every user")
            && stderr.contains("chmod go-w"),
        "{stderr}"
    );
}

#[test]
fn a_missing_plugin_directory_is_a_usage_error() {
    let output = skills(&["list", "--plugins", "/no/such/plugins", EXAMPLES]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        err(&output).contains("/no/such/plugins: no such directory"),
        "{}",
        err(&output)
    );
}

#[test]
fn a_plugin_scaffolded_by_xtask_builds_loads_and_is_listed() {
    let temp = tempfile::tempdir().unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let scaffold = Command::new(&cargo)
        .args(["run", "--quiet", "--package", "xtask", "--manifest-path"])
        .arg(workspace().join("Cargo.toml"))
        .args(["--", "new-plugin", "hello-plugin", "--dir"])
        .arg(temp.path())
        .output()
        .unwrap();
    assert!(scaffold.status.success(), "{}", err(&scaffold));
    let crate_dir = temp.path().join("hello-plugin");

    // The scaffold is a workspace of its own: build it in this workspace's target directory, with
    // this workspace's lock file and `[profile.dev]`, so the dependencies already built are reused.
    fs::copy(workspace().join("Cargo.lock"), crate_dir.join("Cargo.lock")).unwrap();
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target"));
    let built = PluginBuild::new()
        .manifest_path(crate_dir.join("Cargo.toml"))
        .target_dir(target_dir)
        .config(r#"profile.dev.debug="line-tables-only""#)
        .config(r#"profile.dev.package."*".debug=false"#)
        .run()
        .unwrap_or_else(|error| panic!("{error}"));
    let [library] = built.as_slice() else {
        panic!("one library expected: {built:?}");
    };
    assert_eq!(library.name, "hello_plugin");

    let plugin = library.path.to_str().unwrap();
    let listed = skills(&["list", "--plugins", plugin, EXAMPLES]);
    assert_eq!(listed.status.code(), Some(0), "{}", err(&listed));
    assert!(
        out(&listed).contains("hello-plugin    TODO: what this skill does and when to use it."),
        "{}",
        out(&listed)
    );
    let read = skills(&[
        "read",
        "hello-plugin",
        "notes",
        "--plugins",
        plugin,
        EXAMPLES,
    ]);
    assert!(
        out(&read).starts_with("TODO: reference material"),
        "{}",
        err(&read)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn run_offers_plugin_skills_to_the_model_and_runs_their_scripts() {
    use serde_json::json;
    use skillful_test_server::{Reply, TestServer};

    let temp = tempfile::tempdir().unwrap();
    let plugins = temp.path().join("plugins");
    plugin_dir(&plugins, &["temperature_converter"]);
    let model = TestServer::start().await;
    model.push(Reply::tool_call(
        "c1",
        "run_skill_script",
        json!({
            "skillName": "temperature-converter",
            "scriptName": "convert-temperature",
            "arguments": {"value": 100, "from": "C", "to": "F"}
        }),
    ));
    model.push(Reply::text("100 °C is 212 °F."));
    let args: Vec<String> = [
        "run",
        "How warm is 100 °C in Fahrenheit?",
        "--skills",
        EXAMPLES,
        "--plugins",
        plugins.to_str().unwrap(),
        "--endpoint",
        model.url(),
        "--approve",
        "all",
        // The stand-in model scripts the tool loop.
        "--mode",
        "tools",
    ]
    .iter()
    .map(|arg| (*arg).to_owned())
    .collect();
    let output = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        skills(&args)
    })
    .await
    .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", err(&output));
    assert!(
        out(&output).contains("<< tool result: "),
        "{}",
        out(&output)
    );
    assert!(out(&output).contains("212"), "{}", out(&output));
    let system = model.requests()[0].contents("system");
    assert!(
        system
            .iter()
            .any(|text| text.contains("<name>temperature-converter</name>")
                && text.contains("<name>unit-converter</name>")),
        "{system:?}"
    );
}

/// `skills ARGS` in `dir` with `home` as the home directory, the marker of `not_a_plugin` at
/// `marker`.
#[cfg(target_os = "linux")]
fn skills_at_home(dir: &Path, home: &Path, marker: &Path, args: &[&str]) -> Output {
    common::command_at_home(dir, home)
        .args(args)
        .env("SKILLFUL_TEST_MARKER", marker)
        .output()
        .unwrap()
}

#[cfg(target_os = "linux")]
#[test]
fn trusting_from_a_folder_in_home_never_trusts_home_nor_a_repository_cloned_there_later() {
    // The attack: `skills trust` in `~/notes` trusted all of `$HOME` (`~/.agents`, the user's
    // own skills root, counted as a project marker); a repository cloned under `~` later had
    // the plugin directories of its `.agents/skillful.toml` loaded by a plain `skills list`.
    let temp = tempfile::tempdir().unwrap();
    let home = temp.path().canonicalize().unwrap().join("home");
    fs::create_dir_all(home.join(".agents/skills")).unwrap();
    let notes = home.join("notes");
    fs::create_dir_all(&notes).unwrap();
    let marker = temp.path().join("loaded");

    let list = skills_at_home(&notes, &home, &marker, &["list"]);
    assert!(!err(&list).contains("skills trust"), "{}", err(&list));
    let trust = skills_at_home(&notes, &home, &marker, &["trust"]);
    assert_eq!(trust.status.code(), Some(0), "{}", err(&trust));
    let listed = skills_at_home(&notes, &home, &marker, &["trust", "--list"]);
    assert_eq!(out(&listed), format!("{}\n", notes.display()));

    // Later, a repository is cloned under `~`: its settings name a plugin directory.
    let clone = home.join("src/clone");
    fs::create_dir_all(clone.join(".git")).unwrap();
    plugin_dir(&clone.join(".agents/evil"), &["not_a_plugin"]);
    fs::write(
        clone.join(".agents/skillful.toml"),
        "[plugins]\ndirs = [\"evil\"]\n",
    )
    .unwrap();
    let list = skills_at_home(&clone, &home, &marker, &["list"]);
    assert!(
        !marker.exists(),
        "a plain `skills list` in the clone opened its plugin"
    );
    assert!(
        err(&list).contains(&format!("run `skills trust {}`", clone.display())),
        "{}",
        err(&list)
    );

    // `$HOME` itself is trusted only with --force, after the risk is explained; even then a
    // repository below it is a project of its own.
    let refused = skills_at_home(&home, &home, &marker, &["trust"]);
    assert_eq!(refused.status.code(), Some(2), "{}", out(&refused));
    assert!(
        err(&refused).contains("your home directory") && err(&refused).contains("--force"),
        "{}",
        err(&refused)
    );
    let forced = skills_at_home(
        &notes,
        &home,
        &marker,
        &["trust", "--force", home.to_str().unwrap()],
    );
    assert_eq!(forced.status.code(), Some(0), "{}", err(&forced));
    skills_at_home(&clone, &home, &marker, &["list"]);
    assert!(
        !marker.exists(),
        "a trusted home covered a repository below it"
    );

    // Trusted itself, the clone's plugin directory is read: the marker works.
    let trust = skills_at_home(&clone, &home, &marker, &["trust"]);
    assert_eq!(trust.status.code(), Some(0), "{}", err(&trust));
    skills_at_home(&clone, &home, &marker, &["list"]);
    assert!(marker.exists());
}
