//! `skills serve` and the `--mcp-stdio` / `--mcp-http` sources: our binary on both ends, over a
//! child process's stdio and over HTTP on 127.0.0.1, and the Python MCP SDK's client.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use serde_json::json;
use skillful_test_server::{Reply, TestServer};

const BIN: &str = env!("CARGO_BIN_EXE_skills");
const PYTHON_CLIENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/python_mcp_client.py"
);

/// A served root with `remote-notes`, a local root with `local-notes`, and a home and a
/// temporary directory of their own.
struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| {
            let path = dir.path().join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        };
        write(
            "served/remote-notes/SKILL.md",
            "---\nname: remote-notes\ndescription: Notes from the server.\n---\nRead references/notes.md.\n",
        );
        write("served/remote-notes/references/notes.md", "served notes\n");
        write("served/remote-notes/scripts/run.py", "print('no')\n");
        write(
            "local/local-notes/SKILL.md",
            "---\nname: local-notes\ndescription: Notes on disk.\n---\nLocal.\n",
        );
        for dir_name in ["home", "tmp"] {
            fs::create_dir_all(dir.path().join(dir_name)).unwrap();
        }
        Self { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn arg(&self, name: &str) -> String {
        self.path(name).to_str().unwrap().to_owned()
    }

    /// The command line of a server for the served root.
    fn server_command(&self, extra: &str) -> String {
        format!("\"{BIN}\" serve --stdio {extra} \"{}\"", self.arg("served"))
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(BIN);
        command
            .args(args)
            .current_dir(self.dir.path())
            .env("HOME", self.path("home"))
            .env("TMPDIR", self.path("tmp"))
            .env("XDG_CACHE_HOME", self.path("home/.cache"))
            .env_remove("RUST_LOG");
        command
    }

    fn skills(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("the skills binary runs")
    }

    /// What `skills list --json` shows of the local root and the stdio `server` (with `extra`
    /// arguments), once it exits 0.
    fn listed(&self, server: &str, extra: &[&str]) -> serde_json::Value {
        let local = self.arg("local");
        let mut args = vec!["list", "--json", &local, "--mcp-stdio", server];
        args.extend(extra);
        let list = self.skills(&args);
        assert_eq!(list.status.code(), Some(0), "{}", err(&list));
        serde_json::from_str(&out(&list)).unwrap()
    }
}

fn out(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn err(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A stdio server's standard error reaches the terminal as the host's warnings, escaped: a
/// control sequence in it cannot retitle the window (it was inherited raw before).
#[cfg(unix)]
#[test]
fn a_stdio_servers_standard_error_is_shown_escaped() {
    let setup = Setup::new();
    fs::write(
        setup.path("noisy.sh"),
        "printf '\\033]0;retitled\\007hello from the server\\n' >&2\nexec \"$@\"\n",
    )
    .unwrap();
    let server = format!(
        "sh \"{}\" {}",
        setup.arg("noisy.sh"),
        setup.server_command("")
    );
    let list = setup.skills(&["list", &setup.arg("local"), "--mcp-stdio", &server]);
    assert_eq!(list.status.code(), Some(0), "{}", err(&list));
    let stderr = err(&list);
    assert!(stderr.contains("hello from the server"), "{stderr}");
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");
    assert!(!stderr.contains('\u{7}'), "{stderr:?}");
}

#[test]
fn list_show_and_read_skills_of_a_stdio_server() {
    let setup = Setup::new();
    let server = setup.server_command("");
    let local = setup.arg("local");

    let list = setup.skills(&["list", &local, "--mcp-stdio", &server]);
    assert_eq!(list.status.code(), Some(0), "{}", err(&list));
    assert_eq!(
        out(&list),
        "local-notes   Notes on disk.\nremote-notes  Notes from the server.\n"
    );

    let show = setup.skills(&["show", "remote-notes", &local, "--mcp-stdio", &server]);
    assert_eq!(show.status.code(), Some(0), "{}", err(&show));
    assert!(
        out(&show).starts_with("---\nname: remote-notes\n"),
        "{}",
        out(&show)
    );
    assert!(out(&show).contains("Read references/notes.md."));

    let read = setup.skills(&[
        "read",
        "remote-notes",
        "references/notes.md",
        &local,
        "--mcp-stdio",
        &server,
    ]);
    assert_eq!(read.status.code(), Some(0), "{}", err(&read));
    assert_eq!(out(&read), "served notes\n");

    // Scripts are listed as scripts, not resources (and do not run without approval).
    let script = setup.skills(&[
        "read",
        "remote-notes",
        "scripts/run.py",
        &local,
        "--mcp-stdio",
        &server,
    ]);
    assert_eq!(script.status.code(), Some(1), "{}", out(&script));
}

#[test]
fn list_json_shows_the_server_label_uri_and_listed_digest_of_mcp_skills() {
    let setup = Setup::new();
    let server = setup.server_command("");
    let label = format!("notes-server={server}");
    let listed = setup.listed(&server, &["--mcp-label", &label]);
    let skill = |name: &str| {
        listed
            .as_array()
            .unwrap()
            .iter()
            .find(|skill| skill["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {listed}"))
            .clone()
    };
    let remote = skill("remote-notes");
    let served = fs::read(setup.path("served/remote-notes/SKILL.md")).unwrap();
    assert_eq!(remote["origin"]["kind"], "mcp");
    assert_eq!(remote["origin"]["label"], "notes-server");
    assert_eq!(remote["uri"], "skill://remote-notes/SKILL.md");
    assert_eq!(remote["origin"]["location"], remote["uri"]);
    assert_eq!(
        remote["digest"],
        json!(skillful_mcp::final_form::sha256_digest(&served))
    );
    let local = skill("local-notes");
    assert_eq!(local["origin"]["kind"], "files");
    assert_eq!(local["digest"], serde_json::Value::Null);
}

#[test]
fn with_archives_the_final_form_is_unchanged_and_nothing_lands_in_the_temporary_directory() {
    let setup = Setup::new();
    let server = setup.server_command("--archives");
    let listed = setup.listed(&server, &[]);
    let remote = &listed[1];
    assert_eq!(remote["name"], "remote-notes");
    assert_eq!(remote["resources"], json!(["references/notes.md"]));
    assert_eq!(remote["scripts"], json!(["scripts/run.py"]));
    assert_eq!(
        remote["origin"],
        json!({"kind": "mcp", "scope": "explicit", "label": "mcp1", "location": "skill://remote-notes/SKILL.md"})
    );
    let show = setup.skills(&["show", "remote-notes", "--mcp-stdio", &server]);
    assert_eq!(show.status.code(), Some(0), "{}", err(&show));
    // What the client keeps of a server lies in the user's private cache, never in the
    // (shared) temporary directory.
    assert_eq!(fs::read_dir(setup.path("tmp")).unwrap().count(), 0);
    let kept = setup.path("home/.cache/skillful/mcp/files");
    assert_eq!(fs::read_dir(&kept).unwrap().count(), 1, "one server");
}

/// A server started by the test with `--http`; killed when dropped.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start(setup: &Setup, addr: &str) -> Self {
        let mut child = setup
            .command(&["serve", &setup.arg("served"), "--http", addr])
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("the skills binary runs");
        let url = skillful_test_support::announced(
            child.stderr.take().unwrap(),
            "skills: serving MCP at ",
        );
        Self { child, url }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn skills_of_an_http_server_on_loopback() {
    let setup = Setup::new();
    let server = HttpServer::start(&setup, "0");
    assert!(
        server.url.starts_with("http://127.0.0.1:"),
        "{}",
        server.url
    );
    assert!(server.url.ends_with("/mcp"));
    let local = setup.arg("local");
    let list = setup.skills(&["list", &local, "--mcp-http", &server.url]);
    assert_eq!(list.status.code(), Some(0), "{}", err(&list));
    assert!(out(&list).contains("remote-notes  Notes from the server."));
    let read = setup.skills(&[
        "read",
        "remote-notes",
        "references/notes.md",
        &local,
        "--mcp-http",
        &server.url,
    ]);
    assert_eq!(out(&read), "served notes\n", "{}", err(&read));
}

#[test]
fn an_unreachable_server_is_one_line_naming_it() {
    let setup = Setup::new();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    drop(listener);
    let list = setup.skills(&["list", &setup.arg("local"), "--mcp-http", &url]);
    assert_eq!(list.status.code(), Some(1));
    let stderr = err(&list);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("cannot connect to MCP server {url}")),
        "{stderr}"
    );

    let quoted = setup.skills(&["list", "--mcp-stdio", "\"unclosed"]);
    assert_eq!(quoted.status.code(), Some(2), "{}", err(&quoted));
    let bad_addr = setup.skills(&["serve", "--http", "nowhere"]);
    assert_eq!(bad_addr.status.code(), Some(2), "{}", err(&bad_addr));
}

#[tokio::test(flavor = "multi_thread")]
async fn run_offers_the_skills_of_an_mcp_server_to_the_model() {
    let setup = Setup::new();
    let model = TestServer::start().await;
    model.push(Reply::load_skill("c1", "remote-notes"));
    model.push(Reply::text("Done."));
    let server = setup.server_command("");
    let (local, endpoint) = (setup.arg("local"), model.url().to_owned());
    let output = tokio::task::spawn_blocking(move || {
        setup
            .command(&[
                "run",
                "Use the notes.",
                // The stand-in model scripts the tool loop.
                "--mode",
                "tools",
                "--mcp-stdio",
                &server,
                "--skills",
                &local,
                "--endpoint",
                &endpoint,
                "--approve",
                "read-only",
            ])
            .stdin(Stdio::null())
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", err(&output));
    assert!(
        out(&output).contains("<< tool result: --- name: remote-notes"),
        "{}",
        out(&output)
    );
    let system = &model.requests()[0].contents("system");
    assert!(
        system.iter().any(|text| text.contains("remote-notes")),
        "{system:?}"
    );
}

#[test]
fn the_python_mcp_client_reads_our_stdio_server() {
    if !skillful_test_support::python_imports("mcp", "pip install mcp") {
        return;
    }
    let setup = Setup::new();
    let output = Command::new("python3")
        .args([PYTHON_CLIENT, BIN, "serve", "--stdio", &setup.arg("served")])
        .env("HOME", setup.path("home"))
        .output()
        .expect("python3 runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "python3 with the `mcp` package (pip install mcp) reads the server: {}",
        err(&output)
    );
    let read: serde_json::Value = serde_json::from_str(&out(&output)).unwrap();
    assert_eq!(
        read["schema"],
        "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
    );
    let skill = &read["skills"][0];
    assert_eq!(skill["name"], "remote-notes");
    assert_eq!(skill["type"], "skill-md");
    assert_eq!(skill["url"], "skill://remote-notes/SKILL.md");
    assert_eq!(skill["digest_matches"], true);
    assert!(
        skill["skill_md"]
            .as_str()
            .unwrap()
            .contains("Read references/notes.md.")
    );
    assert_eq!(
        read["uris"],
        json!([
            "skill://index.json",
            "skill://remote-notes/SKILL.md",
            "skill://remote-notes/references/notes.md",
            "skill://remote-notes/scripts/run.py"
        ])
    );
    assert_eq!(read["resource"], "served notes\n");
    assert!(Path::new(PYTHON_CLIENT).exists());
}

#[test]
fn a_stdio_server_gets_the_scripts_environment_and_the_variables_named_with_mcp_env() {
    if !skillful_test_support::python_imports("mcp", "pip install mcp") {
        return;
    }
    let server = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../mcp/tests/fixtures/environment_server.py"
    );
    // The interpreter itself: a launcher (a pyenv shim) would add variables of its own.
    let python = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 runs");
    let python = String::from_utf8(python.stdout).unwrap().trim().to_owned();
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(BIN)
        .args(["show", "env-report", "--mcp-stdio"])
        .arg(format!("\"{python}\" \"{server}\""))
        .args(["--mcp-env", "SKILLFUL_TEST_PASSED"])
        .arg(dir.path())
        .env("HOME", dir.path())
        .env("SKILLFUL_TEST_SECRET", "sk-host-secret")
        .env("SKILLFUL_TEST_PASSED", "named-with-mcp-env")
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", err(&output));
    let report = out(&output);
    assert!(report.contains("passed=named-with-mcp-env\n"), "{report}");
    assert!(!report.contains("SKILLFUL_TEST_SECRET"), "{report}");
    assert!(report.contains("\nPATH\n"), "{report}");
}
