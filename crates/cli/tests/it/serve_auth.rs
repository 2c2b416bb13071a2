//! `skills serve --http` on an address other hosts can reach: refused without a bearer token,
//! and with one, every request without the token is answered 401. Real HTTP on 127.0.0.1 (a
//! server bound to 0.0.0.0 is reachable there).

use std::fs;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_skills");
const TOKEN_VAR: &str = "SKILLS_TEST_SERVE_TOKEN";
const TOKEN: &str = "correct-horse-battery-staple";

/// A served root with one skill, and a home of its own.
fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let skill = dir.path().join("served/notes");
    fs::create_dir_all(&skill).unwrap();
    fs::write(
        skill.join("SKILL.md"),
        "---\nname: notes\ndescription: Notes.\n---\nBody.\n",
    )
    .unwrap();
    fs::create_dir_all(dir.path().join("home")).unwrap();
    dir
}

/// `skills` run in `dir` with a home of its own, no token and no log filter in its environment.
fn skills(dir: &tempfile::TempDir) -> Command {
    let mut command = Command::new(BIN);
    command
        .current_dir(dir.path())
        .env("HOME", dir.path().join("home"))
        .env("XDG_CACHE_HOME", dir.path().join("home/.cache"))
        .env_remove(TOKEN_VAR)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null());
    command
}

fn serve(dir: &tempfile::TempDir, extra: &[&str]) -> Command {
    let mut command = skills(dir);
    command
        .arg("serve")
        .arg(dir.path().join("served"))
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

/// The exit code of `child`, or `None` (and the child killed) if it is still serving after
/// `patience`: a refusal comes long before.
fn exit_code(child: Child, patience: Duration) -> (Option<i32>, String) {
    match skillful_test_support::wait::output_within(child, patience) {
        Some(output) => (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        ),
        None => (None, String::new()),
    }
}

#[test]
fn a_non_loopback_address_without_a_token_is_refused_with_exit_2() {
    let dir = setup();
    for addr in ["0.0.0.0:0", "[::]:0"] {
        let child = serve(&dir, &["--http", addr]).spawn().unwrap();
        let (code, stderr) = exit_code(child, Duration::from_secs(20));
        assert_eq!(code, Some(2), "{addr} was served without a token: {stderr}");
        assert!(stderr.contains(addr), "{stderr}");
        assert!(stderr.contains("--auth-token-env"), "{stderr}");
        assert!(stderr.contains("127.0.0.1"), "{stderr}");
    }
}

#[test]
fn a_missing_or_empty_token_variable_is_refused_naming_it() {
    let dir = setup();
    for value in [None, Some("")] {
        let mut command = serve(
            &dir,
            &["--http", "0.0.0.0:0", "--auth-token-env", TOKEN_VAR],
        );
        if let Some(value) = value {
            command.env(TOKEN_VAR, value);
        }
        let (code, stderr) = exit_code(command.spawn().unwrap(), Duration::from_secs(20));
        assert_eq!(code, Some(2), "{value:?}: {stderr}");
        assert!(stderr.contains(TOKEN_VAR), "{stderr}");
    }
}

/// A server started with `--http ADDR`; killed when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(dir: &tempfile::TempDir, addr: &str, token: Option<&str>) -> Self {
        let mut args = vec!["--http", addr];
        let mut command = serve(dir, &[]);
        if let Some(token) = token {
            args.extend(["--auth-token-env", TOKEN_VAR]);
            command.env(TOKEN_VAR, token);
        }
        let mut child = command.args(&args).spawn().unwrap();
        let url = skillful_test_support::announced(
            child.stderr.take().unwrap(),
            "skills: serving MCP at ",
        );
        let port = url
            .strip_suffix("/mcp")
            .and_then(|rest| rest.rsplit(':').next())
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("no port in {url}"));
        Self { child, port }
    }

    /// The status line and headers, and the body, of an `initialize` POST to 127.0.0.1 with
    /// `authorization` as the `Authorization` header.
    fn initialize(&self, authorization: Option<&str>) -> (String, String) {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#;
        let mut request = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
            self.port,
            body.len()
        );
        if let Some(authorization) = authorization {
            request.push_str(&format!("Authorization: {authorization}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
        (head.to_owned(), body.to_owned())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn status(head: &str) -> &str {
    head.split(' ').nth(1).unwrap_or_default()
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().skip(1).find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

#[test]
fn with_a_token_only_requests_carrying_it_are_answered() {
    let dir = setup();
    let server = Server::start(&dir, "0.0.0.0:0", Some(TOKEN));
    let wrong = format!("{TOKEN}x");
    let prefix = &TOKEN[..TOKEN.len() - 1];
    for authorization in [
        None,
        Some(format!("Bearer {wrong}")),
        Some(format!("Bearer {prefix}")),
        Some("Bearer ".to_owned()),
        Some(format!("Basic {TOKEN}")),
        Some(TOKEN.to_owned()),
    ] {
        let (head, body) = server.initialize(authorization.as_deref());
        assert_eq!(status(&head), "401", "{authorization:?}: {head}");
        let challenge = header(&head, "WWW-Authenticate").unwrap_or_default();
        assert!(challenge.starts_with("Bearer"), "{head}");
        assert!(!body.contains("serverInfo"), "{body}");
    }
    for authorization in [format!("Bearer {TOKEN}"), format!("bearer {TOKEN}")] {
        let (head, body) = server.initialize(Some(&authorization));
        assert_eq!(status(&head), "200", "{head}\n{body}");
        assert!(body.contains("serverInfo"), "{body}");
    }
}

#[test]
fn loopback_works_without_a_token_and_enforces_one_when_given() {
    let dir = setup();
    let open = Server::start(&dir, "127.0.0.1:0", None);
    let (head, body) = open.initialize(None);
    assert_eq!(status(&head), "200", "{head}\n{body}");
    assert!(body.contains("serverInfo"), "{body}");

    let guarded = Server::start(&dir, "127.0.0.1:0", Some(TOKEN));
    let (head, _) = guarded.initialize(None);
    assert_eq!(status(&head), "401", "{head}");
    let (head, body) = guarded.initialize(Some(&format!("Bearer {TOKEN}")));
    assert_eq!(status(&head), "200", "{head}\n{body}");
}

/// `skills ARGS` run as a client, `vars` set in its environment.
fn client(
    dir: &tempfile::TempDir,
    args: &[&str],
    vars: &[(&str, &str)],
) -> (Option<i32>, String, String) {
    let output = skills(dir)
        .args(args)
        .envs(vars.iter().copied())
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn our_client_reads_a_guarded_server_with_the_token_it_is_given() {
    const CLIENT_VAR: &str = "SKILLS_TEST_CLIENT_TOKEN";
    let dir = setup();
    let server = Server::start(&dir, "0.0.0.0:0", Some(TOKEN));
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let token_env = format!("{url}={CLIENT_VAR}");

    let without_token = ["show", "notes", "--mcp-http", &url];
    let with_token = [&without_token[..], &["--mcp-auth-token-env", &token_env]].concat();

    let (code, stdout, stderr) = client(&dir, &with_token, &[(CLIENT_VAR, TOKEN)]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("Body."), "{stdout}");
    assert!(!format!("{stdout}{stderr}").contains(TOKEN));

    for (args, vars) in [
        (&without_token[..], vec![]),
        (&with_token[..], vec![(CLIENT_VAR, "not-the-token")]),
    ] {
        let (code, stdout, stderr) = client(&dir, args, &vars);
        assert_ne!(code, Some(0), "{args:?} read a guarded server: {stdout}");
        assert!(stderr.contains(&url), "{stderr}");
        assert!(!stdout.contains("Body."), "{stdout}");
    }
}

#[test]
fn a_token_for_a_server_not_given_or_an_unset_variable_is_a_usage_error() {
    let dir = setup();
    let url = "http://127.0.0.1:9/mcp";
    for (args, named) in [
        (
            vec![
                "list",
                "--mcp-auth-token-env",
                "http://127.0.0.1:9/mcp=SKILLS_TEST_CLIENT_TOKEN",
            ],
            "no --mcp-http",
        ),
        (
            vec![
                "list",
                "--mcp-http",
                url,
                "--mcp-auth-token-env",
                "http://127.0.0.1:9/mcp=SKILLS_TEST_UNSET_TOKEN",
            ],
            "SKILLS_TEST_UNSET_TOKEN",
        ),
        (
            vec!["list", "--mcp-http", url, "--mcp-auth-token-env", "VAR"],
            "SERVER=VAR",
        ),
    ] {
        let (code, _, stderr) = client(&dir, &args, &[]);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(named), "{args:?}: {stderr}");
    }
}
