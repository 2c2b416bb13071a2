//! `skills doctor` over real per-user directories: what the machine enforces, and exit 1 naming
//! a state directory others can write, or a trust store that trusts the whole machine.

use crate::common::{self, text};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

fn doctor(root: &Path) -> Output {
    doctor_command(root)
        .output()
        .expect("the skills binary runs")
}

/// `skills doctor` in `root` as a user whose home is `root/home`, for a test to add to.
fn doctor_command(root: &Path) -> Command {
    let mut command = common::command_at_home(root, &root.join("home"));
    command.arg("doctor");
    command
}

#[test]
fn a_clean_state_passes_and_says_what_the_machine_enforces() {
    let temp = tempfile::tempdir().unwrap();
    let output = doctor(temp.path());
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        text(&output.stderr)
    );
    for start in [
        "landlock: ",
        "seccomp: ",
        "mount namespaces: ",
        "scripts: ",
        "config directory: ",
        "state directory: ",
        "trust store: ",
        "approvals store: ",
        "settings: ",
        "engine: ",
        "git: ",
        "python: ",
        "lock: no skill installed",
    ] {
        assert!(
            stdout.lines().any(|line| line.starts_with(start)),
            "no `{start}` line:\n{stdout}"
        );
    }
    assert!(
        !temp.path().join("home/.local/state/skillful").exists(),
        "nothing is created"
    );
}

#[test]
fn a_state_directory_others_can_write_fails_naming_it_and_is_left_as_it_is() {
    let temp = tempfile::tempdir().unwrap();
    let state = temp.path().join("home/.local/state/skillful");
    fs::create_dir_all(&state).unwrap();
    fs::write(state.join("approvals.json"), "{}").unwrap();
    fs::set_permissions(&state, fs::Permissions::from_mode(0o777)).unwrap();

    let output = doctor(temp.path());
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
    let line = stdout
        .lines()
        .find(|line| line.starts_with("state directory: "))
        .unwrap_or_default();
    assert!(
        line.contains(&format!(
            "UNSAFE: {} is writable by others (mode 0777)",
            state.display()
        )),
        "{stdout}"
    );
    assert!(stderr.contains("fix the lines marked UNSAFE"), "{stderr}");
    assert_eq!(
        fs::metadata(&state).unwrap().permissions().mode() & 0o777,
        0o777,
        "doctor repairs nothing"
    );
}

#[test]
fn a_trust_store_that_trusts_the_whole_machine_fails() {
    let temp = tempfile::tempdir().unwrap();
    let config = temp.path().join("home/.config/skillful");
    fs::create_dir_all(&config).unwrap();
    fs::set_permissions(&config, fs::Permissions::from_mode(0o700)).unwrap();
    let store = config.join("trusted.toml");
    fs::write(&store, "trusted = [\"/\"]\n").unwrap();
    fs::set_permissions(&store, fs::Permissions::from_mode(0o600)).unwrap();

    let output = doctor(temp.path());
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("UNSAFE: / is trusted, and it holds your home directory"),
        "{stdout}"
    );
}

/// A state directory another user owns is unsafe too (as root, the test user is the other one).
#[test]
fn a_state_directory_another_user_owns_fails_naming_it() {
    let me = std::process::Command::new("id").arg("-u").output().unwrap();
    if String::from_utf8_lossy(&me.stdout).trim() != "0" {
        skillful_test_support::prerequisite_missing(
            "giving a directory to another user needs root",
        );
        return;
    }
    if let Err(reason) = skillful_test_support::unprivileged::as_unprivileged_user() {
        skillful_test_support::prerequisite_missing(&format!(
            "this test needs a second user, and {reason}"
        ));
        return;
    }
    let temp = tempfile::tempdir().unwrap();
    let state = temp.path().join("home/.local/state/skillful");
    fs::create_dir_all(&state).unwrap();
    fs::set_permissions(&state, fs::Permissions::from_mode(0o700)).unwrap();
    skillful_test_support::unprivileged::give_to(
        &state,
        skillful_test_support::unprivileged::test_user_ids(),
    );

    let output = doctor(temp.path());
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "UNSAFE: {} is owned by another user",
            state.display()
        )),
        "{stdout}"
    );
}

#[test]
fn git_python_and_the_skills_of_other_hosts_are_named() {
    let temp = tempfile::tempdir().unwrap();
    for skill in ["one", "two"] {
        let dir = temp.path().join("home/.claude/skills").join(skill);
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {skill}\ndescription: A skill.\n---\nDo.\n"),
        )
        .unwrap();
    }
    let output = doctor(temp.path());
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    let claude = temp.path().join("home/.claude/skills");
    let unread = format!(
        "Claude Code: 2 skills in {}, not read: add `agents = [\"claude-code\"]` to [skills] in \
         the settings to read them always, or pass `--agent claude-code`",
        claude.display()
    );
    assert!(stdout.contains(&unread), "{stdout}");
    assert!(!stdout.contains("Codex:"), "{stdout}");
    // Named in the settings, they are read, and the line goes.
    let settings = temp.path().join("home/.config/skillful");
    fs::create_dir_all(&settings).unwrap();
    fs::write(
        settings.join("config.toml"),
        "[skills]\nagents = [\"claude-code\"]\n",
    )
    .unwrap();
    let output = doctor(temp.path());
    let read = text(&output.stdout);
    assert!(!read.contains("Claude Code:"), "{read}");
    // This machine (and CI) has git and a Python with venv.
    let git = stdout
        .lines()
        .find(|line| line.starts_with("git: "))
        .unwrap();
    assert!(git.starts_with("git: git version "), "{git}");
    let python = stdout
        .lines()
        .find(|line| line.starts_with("python: "))
        .unwrap();
    assert!(
        python.ends_with("with venv (the embedded engine installs itself with it)"),
        "{python}"
    );
}

#[test]
fn json_says_each_check_and_its_status_and_keeps_the_exit_code() {
    let temp = tempfile::tempdir().unwrap();
    let output = doctor_command(temp.path()).arg("--json").output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let report = common::json_of("doctor", &output);
    let checks = report["checks"].as_array().unwrap();
    let topics: Vec<&str> = checks
        .iter()
        .map(|c| c["topic"].as_str().unwrap())
        .collect();
    for topic in ["landlock", "state directory", "trust store", "git", "lock"] {
        assert!(topics.contains(&topic), "{topics:?}");
    }
    assert!(checks.iter().all(|c| c["status"] != "unsafe"), "{report}");

    let state = temp.path().join("home/.local/state/skillful");
    fs::create_dir_all(&state).unwrap();
    fs::set_permissions(&state, fs::Permissions::from_mode(0o777)).unwrap();
    let output = doctor_command(temp.path()).arg("--json").output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let report = common::json_of("doctor", &output);
    let check = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["topic"] == "state directory")
        .unwrap();
    assert_eq!(check["status"], "unsafe", "{report}");
    assert_eq!(check["path"], state.display().to_string());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_endpoint_named_is_checked_for_its_models() {
    let temp = tempfile::tempdir().unwrap();
    let server = skillful_test_server::TestServer::start().await;
    let output = doctor_command(temp.path())
        .args(["--endpoint", server.url()])
        .output()
        .unwrap();
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains(&format!(
            "endpoint: {} answers; 1 model: {}",
            server.url(),
            skillful_test_server::MODEL
        )),
        "{stdout}"
    );
    drop(server);

    // Nothing answers there any more: a warning, not a failure of the machine's state.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let output = doctor_command(temp.path())
        .env("SKILLS_ENDPOINT", format!("http://127.0.0.1:{port}/v1"))
        .output()
        .unwrap();
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains("endpoint: cannot connect to")
            && stdout.contains("run and chat cannot use it"),
        "{stdout}"
    );
    assert!(output.status.success(), "{stdout}");
    // Without one, where run and chat go instead.
    let stdout = text(&doctor(temp.path()).stdout);
    assert!(stdout.contains("endpoint: none named"), "{stdout}");
}

#[test]
fn a_servers_model_ids_are_printed_escaped() {
    use std::io::{Read, Write};
    let temp = tempfile::tempdir().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // A server whose one model id carries a colour change, a bell, a title-setting sequence
    // and a line break that would forge a line of the report.
    let server = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut request = [0u8; 4096];
        let _ = stream.read(&mut request).unwrap();
        let body = r#"{"object":"list","data":[{"id":"evil\u001b[31mred\u0007\u001b]0;owned\u0007\nstate directory: ok"}]}"#;
        write!(
            stream,
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
    });
    let output = doctor_command(temp.path())
        .args(["--endpoint", &format!("http://127.0.0.1:{port}/v1")])
        .output()
        .unwrap();
    server.join().unwrap();
    let stdout = text(&output.stdout);
    let line = stdout
        .lines()
        .find(|line| line.contains("endpoint:"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.contains("1 model: evil"), "{stdout}");
    assert!(
        !stdout.contains('\u{1b}') && !stdout.contains('\u{7}'),
        "{stdout:?}"
    );
    assert!(
        !stdout
            .lines()
            .any(|line| line.starts_with("state directory: ok")),
        "a model id forged a line: {stdout}"
    );
}
