//! `skills list`, `show`, `read`, `catalog` and `run-script` on real directories.

mod plugins;

use crate::common::{self, EXAMPLES};
use std::fs;
use std::path::Path;
use std::process::Output;
use std::sync::LazyLock;

/// Runs `skills` in `dir` as a user whose home (and every per-user directory) is `home`, with no
/// admin skills.
fn skills_in(dir: &Path, home: &Path, args: &[&str]) -> Output {
    common::command_at_home(dir, home)
        .args(args)
        .output()
        .expect("the skills binary runs")
}

/// `skills ARGS` in the crate's directory, as a user whose home is a fresh directory (its state,
/// audit log included, never lands in the repository).
fn skills(args: &[&str]) -> Output {
    static HOME: LazyLock<tempfile::TempDir> = LazyLock::new(|| tempfile::tempdir().unwrap());
    skills_in(Path::new(env!("CARGO_MANIFEST_DIR")), HOME.path(), args)
}

fn write_skill(root: &Path, name: &str, description: &str) {
    let dir = root.join(name);
    fs::create_dir_all(dir.join("references")).unwrap();
    fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\nDo it.\n"),
    )
    .unwrap();
    fs::write(
        dir.join("references/notes.md"),
        format!("notes of {name}\n"),
    )
    .unwrap();
}

fn out(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn err(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

#[test]
fn an_empty_list_says_where_it_looked_and_how_to_add_a_skill() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("empty-root");
    fs::create_dir_all(&root).unwrap();
    let output = skills_in(home.path(), home.path(), &["list", root.to_str().unwrap()]);
    // A root named on the command line that holds no skill fails, as `scan` and `validate` do.
    assert_eq!(output.status.code(), Some(1), "{}", err(&output));
    assert_eq!(out(&output), "");
    let said = err(&output);
    assert!(said.contains("no skills found; looked in:"), "{said}");
    assert!(
        said.contains(&format!("{} (explicit)", root.display())),
        "{said}"
    );
    assert!(said.contains("skills add SOURCE"), "{said}");
    let catalog = skills_in(
        home.path(),
        home.path(),
        &["catalog", root.to_str().unwrap()],
    );
    assert_eq!(catalog.status.code(), Some(1), "{}", err(&catalog));
    assert_eq!(out(&catalog), "");
    assert!(err(&catalog).contains("no skills found; looked in:"));
    // The default roots, all empty, are no failure: nothing was pointed at.
    let defaults = skills_in(home.path(), home.path(), &["list"]);
    assert_eq!(defaults.status.code(), Some(0), "{}", err(&defaults));
    assert!(
        err(&defaults).contains("no skills found"),
        "{}",
        err(&defaults)
    );
    // A list with skills says nothing of the kind.
    let full = skills(&["list", EXAMPLES]);
    assert!(!err(&full).contains("no skills found"), "{}", err(&full));
}

#[test]
fn list_json_has_every_field() {
    let output = skills(&["list", "--json", EXAMPLES]);
    assert_eq!(output.status.code(), Some(0), "{}", err(&output));
    let listed = common::json_of("list", &output);
    let skill = &listed[0];
    let keys: Vec<&str> = skill
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "name",
            "own_name",
            "description",
            "license",
            "compatibility",
            "allowed_tools",
            "metadata",
            "extra",
            "origin",
            "path",
            "uri",
            "digest",
            "resources",
            "scripts",
            "risk",
            "script_risks",
            "capabilities",
            "lifecycle",
            "warnings",
            "status",
        ]
    );
    assert_eq!(
        skill["origin"],
        serde_json::json!({
            "kind": "files",
            "scope": "explicit",
            "label": skill["origin"]["label"],
            "location": skill["path"],
        })
    );
    assert_eq!(skill["status"], "active");
    assert_eq!(
        skill["digest"],
        serde_json::Value::Null,
        "files list no digest"
    );
    assert_eq!(skill["risk"], "read");
    assert_eq!(
        skill["script_risks"],
        serde_json::json!({"scripts/convert.py": "read"})
    );
    assert_eq!(skill["name"], "unit-converter");
    assert_eq!(skill["license"], "MIT");
    assert_eq!(skill["metadata"]["version"], "1.0");
    assert_eq!(
        skill["resources"],
        serde_json::json!(["references/conversion-table.md"])
    );
    assert_eq!(skill["scripts"], serde_json::json!(["scripts/convert.py"]));
    assert_eq!(skill["warnings"], serde_json::json!([]));
    assert_eq!(skill["capabilities"], serde_json::json!({}));
    assert_eq!(
        skill["lifecycle"],
        serde_json::json!({"version": "1.0", "owner": "skillful"})
    );
    assert!(
        skill["path"]
            .as_str()
            .unwrap()
            .ends_with("examples/skills/unit-converter")
    );
}

/// A root with `fetcher`, declaring the network and writes, and `broken`, whose declaration is
/// not a host.
fn capabilities_root() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    for (name, metadata) in [
        (
            "fetcher",
            "  capabilities.network: api.example.com, *.example.org:443\n  capabilities.writes: out/",
        ),
        ("broken", "  capabilities.network: http://example.com"),
    ] {
        let dir = root.path().join(name);
        fs::create_dir_all(dir.join("scripts")).unwrap();
        fs::write(
            dir.join("SKILL.md"),
            format!(
                "---\nname: {name}\ndescription: Fetches.\nmetadata:\n{metadata}\n---\nFetch.\n"
            ),
        )
        .unwrap();
        fs::write(dir.join("scripts/fetch.py"), "print('fetched')\n").unwrap();
    }
    root
}

#[test]
fn declared_capabilities_are_listed_and_shown_and_bad_ones_are_warnings() {
    let root = capabilities_root();
    let root = root.path().to_str().unwrap();
    let output = skills(&["list", "--json", root]);
    let listed: serde_json::Value = serde_json::from_str(&out(&output)).unwrap();
    let by_name = |name: &str| {
        listed
            .as_array()
            .unwrap()
            .iter()
            .find(|skill| skill["name"] == name)
            .unwrap()
            .clone()
    };
    let fetcher = by_name("fetcher");
    assert_eq!(
        fetcher["capabilities"],
        serde_json::json!({"network": ["api.example.com", "*.example.org:443"], "writes": ["out"]})
    );
    let broken = by_name("broken");
    assert_eq!(
        broken["capabilities"],
        serde_json::json!({}),
        "nothing declared"
    );
    let warning = broken["warnings"][0].as_str().unwrap();
    assert!(
        warning.starts_with(
            "metadata.capabilities.network: skill 'broken': metadata.capabilities.network: \
             `http://example.com` is not a host name"
        ),
        "{warning}"
    );

    let shown = skills(&["show", "fetcher", root]);
    assert_eq!(shown.status.code(), Some(0), "{}", err(&shown));
    assert!(
        out(&shown).ends_with(
            "<declared_capabilities>network: api.example.com, *.example.org:443 · writes: \
             out</declared_capabilities>\n"
        ),
        "{}",
        out(&shown)
    );
}

#[test]
fn list_reports_bad_skills_on_stderr_and_exits_1() {
    let root = tempfile::tempdir().unwrap();
    write_skill(root.path(), "good", "Works.");
    let bad = root.path().join("bad");
    fs::create_dir_all(&bad).unwrap();
    fs::write(bad.join("SKILL.md"), "---\nname: bad\n---\n").unwrap();
    let output = skills(&["list", root.path().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(out(&output), "good  Works.\n");
    assert!(err(&output).contains("description"), "{}", err(&output));
}

#[test]
fn show_prints_what_load_skill_returns() {
    let output = skills(&["show", "unit-converter", EXAMPLES]);
    assert_eq!(output.status.code(), Some(0));
    let skill_md = fs::read_to_string(format!("{EXAMPLES}/unit-converter/SKILL.md")).unwrap();
    let text = out(&output);
    assert!(text.starts_with(&skill_md));
    assert!(text.contains("<available_scripts>"));
    assert!(text.contains(r#"<script name="scripts/convert.py" risk="read">"#));

    let missing = skills(&["show", "unit-convertor", EXAMPLES]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        err(&missing).contains("Error: Skill 'unit-convertor' not found."),
        "{}",
        err(&missing)
    );
    assert!(
        err(&missing).contains("unit-converter"),
        "a did-you-mean: {}",
        err(&missing)
    );
}

#[test]
fn read_prints_a_resource_and_pages_on_request() {
    let output = skills(&[
        "read",
        "unit-converter",
        "references/conversion-table.md",
        EXAMPLES,
    ]);
    assert_eq!(output.status.code(), Some(0));
    let table = fs::read_to_string(format!(
        "{EXAMPLES}/unit-converter/references/conversion-table.md"
    ))
    .unwrap();
    assert_eq!(out(&output), table);

    let page = skills(&[
        "read",
        "unit-converter",
        "references/conversion-table.md",
        "--limit",
        "20",
        EXAMPLES,
    ]);
    assert!(out(&page).starts_with(&table[..20]));
    assert!(
        out(&page).contains("call read_skill_resource again with offset=20"),
        "{}",
        out(&page)
    );

    let missing = skills(&["read", "unit-converter", "nope.md", EXAMPLES]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        err(&missing).contains("Error: Resource 'nope.md' not found in skill 'unit-converter'.")
    );
}

#[test]
fn catalog_prints_the_system_prompt() {
    let output = skills(&["catalog", EXAMPLES]);
    assert_eq!(output.status.code(), Some(0));
    let text = out(&output);
    assert!(text.starts_with(
        "You have access to skills containing domain-specific knowledge and capabilities.\n"
    ));
    assert!(text.contains("<available_skills>\n  <skill>\n    <name>unit-converter</name>"));
    assert!(text.ends_with("Only load what is needed, when it is needed.\n"));
}

#[test]
fn default_roots_are_the_trusted_project_then_home_and_the_first_wins() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    fs::create_dir(project.path().join(".git")).unwrap();
    let nested = project.path().join("src/deep");
    fs::create_dir_all(&nested).unwrap();
    write_skill(
        &project.path().join(".agents/skills"),
        "shared",
        "From the project.",
    );
    write_skill(
        &project.path().join(".agents/skills"),
        "local",
        "Only here.",
    );
    write_skill(&home.path().join(".agents/skills"), "shared", "From home.");
    write_skill(
        &home.path().join(".agents/skills"),
        "personal",
        "Only at home.",
    );

    // A project found by walking up is someone else's until trusted: a note says how.
    let output = skills_in(&nested, home.path(), &["list"]);
    assert_eq!(output.status.code(), Some(0), "{}", err(&output));
    assert_eq!(
        out(&output),
        "personal  Only at home.\nshared    From home.\n"
    );
    let project_dir = project.path().canonicalize().unwrap();
    assert_eq!(
        err(&output),
        format!(
            "skills: {0}: project skills and settings not loaded: the project is not trusted; run `skills trust {0}` to trust it, or pass --trust-project for this run\n",
            project_dir.display()
        )
    );

    let trust = skills_in(&nested, home.path(), &["trust"]);
    assert_eq!(trust.status.code(), Some(0), "{}", err(&trust));
    assert!(out(&trust).contains(&project_dir.display().to_string()));
    let listed = skills_in(&nested, home.path(), &["trust", "--list"]);
    assert_eq!(out(&listed), format!("{}\n", project_dir.display()));

    let output = skills_in(&nested, home.path(), &["list"]);
    // The user's `shared` is not dropped silently: a warning names both.
    let warning = err(&output);
    assert_eq!(warning.lines().count(), 1, "{warning}");
    assert!(
        warning.contains("skill `shared` of files ")
            && warning.contains(" is shadowed by the skill of the same name of files ")
            && warning.contains("(higher precedence)"),
        "{warning}"
    );
    assert_eq!(
        out(&output),
        "local     Only here.\nshared    From the project.\npersonal  Only at home.\n"
    );
    let all = skills_in(&nested, home.path(), &["list", "--all"]);
    assert!(
        out(&all).contains("shared    [shadowed by shared of files "),
        "{}",
        out(&all)
    );
    let read = skills_in(
        &nested,
        home.path(),
        &["read", "shared", "references/notes.md"],
    );
    assert_eq!(out(&read), "notes of shared\n");

    let untrust = skills_in(
        &nested,
        home.path(),
        &["untrust", project_dir.to_str().unwrap()],
    );
    assert_eq!(untrust.status.code(), Some(0), "{}", err(&untrust));
    let output = skills_in(&nested, home.path(), &["list", "--trust-project"]);
    assert_eq!(
        out(&output),
        "local     Only here.\nshared    From the project.\npersonal  Only at home.\n"
    );
    let output = skills_in(&nested, home.path(), &["list"]);
    assert_eq!(
        out(&output),
        "personal  Only at home.\nshared    From home.\n"
    );
}

#[test]
fn concurrent_project_disables_are_all_kept_and_bad_names_are_refused() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path().canonicalize().unwrap();
    let project = home.join("work/project");
    fs::create_dir_all(project.join(".git")).unwrap();
    fs::create_dir_all(project.join(".agents")).unwrap();
    // 24 processes at once, each disabling its own skill in the project's settings.
    let start = std::sync::Barrier::new(24);
    let outputs: Vec<Output> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..24)
            .map(|i| {
                let (start, project, home) = (&start, &project, &home);
                scope.spawn(move || {
                    let name = format!("skill-{i}");
                    start.wait();
                    skills_in(project, home, &["disable", &name, "--project"])
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for output in &outputs {
        assert_eq!(output.status.code(), Some(0), "{}", err(output));
    }
    let settings = fs::read_to_string(project.join(".agents/skillful.toml")).unwrap();
    let kept = (0..24)
        .filter(|i| settings.contains(&format!("\"skill-{i}\"")))
        .count();
    assert_eq!(kept, 24, "{settings}");
    // The lock lives outside the project: nothing but the settings file was added there.
    let added: Vec<_> = fs::read_dir(project.join(".agents"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(added, ["skillful.toml"]);

    for name in ["", "  ", "evil\nname", "bell\u{7}"] {
        let refused = skills_in(&project, &home, &["disable", name, "--project"]);
        assert_ne!(refused.status.code(), Some(0), "{name:?}");
        assert!(err(&refused).contains("skill name"), "{}", err(&refused));
        let refused = skills_in(&project, &home, &["enable", name]);
        assert_ne!(refused.status.code(), Some(0), "{name:?}");
    }
    assert_eq!(
        fs::read_to_string(project.join(".agents/skillful.toml")).unwrap(),
        settings
    );
}

#[test]
fn disabled_skills_are_not_offered_and_list_all_marks_them() {
    let home = tempfile::tempdir().unwrap();
    let roots = tempfile::tempdir().unwrap();
    write_skill(roots.path(), "alpha", "First.");
    write_skill(roots.path(), "beta", "Second.");
    let root = roots.path().to_str().unwrap();
    let here = home.path();

    let disable = skills_in(here, here, &["disable", "alpha"]);
    assert_eq!(disable.status.code(), Some(0), "{}", err(&disable));
    let list = skills_in(here, here, &["list", root]);
    assert_eq!(out(&list), "beta  Second.\n");
    let all = skills_in(here, here, &["list", "--all", root]);
    assert_eq!(
        out(&all),
        "alpha  [disabled by the user's settings] First.\nbeta   Second.\n"
    );
    let show = skills_in(here, here, &["show", "alpha", root]);
    assert_eq!(
        show.status.code(),
        Some(1),
        "disabled skills cannot be loaded"
    );

    let once = skills_in(here, here, &["list", "--disable", "beta", root]);
    assert_eq!(out(&once), "");
    let json = skills_in(
        here,
        here,
        &["list", "--all", "--json", "--disable", "beta", root],
    );
    let listed = common::json_of("list", &json);
    assert_eq!(listed[1]["status"], "disabled");
    assert_eq!(listed[1]["disabled_by"], "run");

    let enable = skills_in(here, here, &["enable", "alpha"]);
    assert_eq!(enable.status.code(), Some(0), "{}", err(&enable));
    let list = skills_in(here, here, &["list", root]);
    assert_eq!(out(&list), "alpha  First.\nbeta   Second.\n");
}

#[test]
fn a_name_starting_with_a_hyphen_is_shown_after_two_hyphens() {
    let roots = tempfile::tempdir().unwrap();
    let dir = roots.path().join("dash");
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("SKILL.md"),
        "---\nname: -dash\ndescription: Odd name.\n---\nBody.\n",
    )
    .unwrap();
    let show = skills(&["show", "--", "-dash", roots.path().to_str().unwrap()]);
    assert_eq!(show.status.code(), Some(0), "{}", err(&show));
    assert!(out(&show).contains("Body."), "{}", out(&show));
}

#[test]
fn a_missing_root_is_a_usage_error() {
    let output = skills(&["list", "/no/such/root"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(err(&output).lines().count(), 1);
    assert!(err(&output).starts_with("skills: /no/such/root: "));
}

#[test]
fn run_script_prints_the_rendered_output_of_the_unit_converter() {
    if !common::python_runs() {
        return;
    }
    let output = skills(&[
        "run-script",
        "unit-converter",
        "scripts/convert.py",
        EXAMPLES,
        "--",
        "--value",
        "26.2",
        "--factor",
        "1.609344",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", err(&output));
    assert_eq!(
        out(&output),
        "{\"value\": 26.2, \"factor\": 1.609344, \"result\": 42.1648}\n"
    );
}

/// A root holding the skill `tools` with one script, `scripts/run.sh`.
fn tools_root(script: &str) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    write_skill(root.path(), "tools", "Tools.");
    fs::create_dir_all(root.path().join("tools/scripts")).unwrap();
    fs::write(root.path().join("tools/scripts/run.sh"), script).unwrap();
    root
}

#[test]
fn run_script_passes_arguments_verbatim_and_exits_1_when_the_script_fails() {
    let root = tools_root("printf '%s\\n' \"$@\"\necho oops >&2\nexit 4\n");
    let dir = root.path().to_str().unwrap();
    let output = skills(&[
        "run-script",
        "tools",
        "scripts/run.sh",
        dir,
        "--",
        "$(id)",
        "a;b",
        "--flag",
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", err(&output));
    assert_eq!(
        out(&output),
        "$(id)\na;b\n--flag\n[stderr]\noops\n[exit code: 4]\n[sandbox: write-high — writes only in the working directory, the directories the user allowed and $TMPDIR, no network]\n"
    );
}

#[test]
fn run_script_kills_a_script_past_its_timeout_and_exits_1() {
    let root = tools_root("echo started\nsleep 300\n");
    let dir = root.path().to_str().unwrap();
    let output = skills(&[
        "run-script",
        "tools",
        "scripts/run.sh",
        dir,
        "--timeout",
        "0.5",
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", err(&output));
    let text = out(&output);
    assert!(text.starts_with("started\n[timed out after "), "{text}");

    let zero = skills(&[
        "run-script",
        "tools",
        "scripts/run.sh",
        dir,
        "--timeout",
        "0",
    ]);
    assert_eq!(zero.status.code(), Some(2));
}

#[test]
fn run_script_names_what_is_missing() {
    let output = skills(&["run-script", "unit-converter", "scripts/nope.py", EXAMPLES]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        err(&output),
        "skills: script 'scripts/nope.py' failed: skill 'unit-converter' has no such script; its scripts are: 'scripts/convert.py'\n"
    );
    let output = skills(&[
        "run-script",
        "unit-convertor",
        "scripts/convert.py",
        EXAMPLES,
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(err(&output).contains("no skill named 'unit-convertor'"));
}

#[test]
fn list_search_and_validate_say_each_warning_once() {
    let root = tempfile::tempdir().unwrap();
    write_skill(root.path(), "kept", "A skill that loads.");
    let broken = root.path().join("broken-one");
    fs::create_dir_all(&broken).unwrap();
    fs::write(
        broken.join("SKILL.md"),
        "---\ndescription: No name.\n---\nBody.\n",
    )
    .unwrap();
    let root_text = root.path().to_str().unwrap();
    for args in [
        vec!["list", root_text],
        vec!["search", "anything", root_text],
        vec!["validate", root_text],
    ] {
        let output = skills(&args);
        let said = err(&output) + &out(&output);
        assert_eq!(
            said.matches("Skill name is required").count(),
            1,
            "{args:?} says the warning once: {said}"
        );
    }
    // `-q` leaves warnings out; `ls` is `list`.
    let quiet = skills(&["-q", "ls", root_text]);
    assert_eq!(quiet.status.code(), Some(0), "{}", err(&quiet));
    assert_eq!(err(&quiet), "");
    assert!(out(&quiet).contains("kept"), "{}", out(&quiet));
}

#[test]
fn list_and_show_say_what_a_skill_declares_of_its_life() {
    let temp = tempfile::tempdir().unwrap();
    let skill = temp.path().join("loan-payment");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: loan-payment\ndescription: Monthly payment of a loan.\nmetadata:\n  version: 1.4.0\n  owner: data@example.com\n  domain: finance\n  triggers: loan payment\n  anti-triggers: mortgage advice; credit score\n---\n# Loan payment\n",
    )
    .unwrap();
    let root = temp.path().to_str().unwrap();
    let listed = skills(&["list", root]);
    assert_eq!(
        String::from_utf8_lossy(&listed.stdout),
        "loan-payment  Monthly payment of a loan. (v1.4.0)\n"
    );
    let shown = skills(&["show", "loan-payment", root]);
    assert_eq!(
        String::from_utf8_lossy(&shown.stderr),
        "skills: loan-payment: version 1.4.0 · owner data@example.com · domain finance · for: loan payment · not for: mortgage advice; credit score\n"
    );
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(text.contains("# Loan payment"), "{text}");
    let json = common::json_of("list", &skills(&["list", "--json", root]));
    assert_eq!(
        json[0]["lifecycle"]["anti_triggers"],
        serde_json::json!(["mortgage advice", "credit score"])
    );
}
