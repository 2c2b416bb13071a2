//! `skills serve` audits its skill calls: every request that names a skill (a file read, an
//! archive, `skills/get`, answered or failed) is one record of the user's serve log (apart from
//! the agent's), which `skills audit --log serve --verify` checks and `skills stats` counts.

use std::path::Path;

use rmcp::model::{GetSkillRequestParams, ReadResourceRequestParams};
use rmcp::service::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use skillful_audit::sha256_hex;

use crate::common::{command_with_state, text};

const SKILL_MD: &str =
    "---\nname: alpha\ndescription: A served skill.\n---\nRead references/notes.md.\n";

/// Serves `root` over stdio with its state under `state`, makes four skill calls and two
/// listings, and ends the session.
async fn serve_and_call(root: &Path, state: &Path, extra: &[&str]) {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_skills"));
    command
        .args(["serve", "--stdio"])
        .args(extra)
        .arg(root)
        .env("HOME", root)
        .env("XDG_STATE_HOME", state)
        .env_remove("RUST_LOG");
    let client = ().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();
    let peer = client.peer();
    let read = async |uri: &str| {
        peer.read_resource(ReadResourceRequestParams::new(uri))
            .await
    };
    read("skill://alpha/SKILL.md").await.unwrap();
    read("skill://alpha/references/notes.md").await.unwrap();
    read("skill://nobody/SKILL.md").await.unwrap_err();
    // Listings name no skill: not recorded.
    read("skill://index.json").await.unwrap();
    peer.list_all_resources().await.unwrap();
    peer.get_skill(GetSkillRequestParams::new("skill://alpha/SKILL.md"))
        .await
        .unwrap();
    client.cancel().await.unwrap();
}

fn skills(state: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
    let output = command_with_state(&args, state).output().unwrap();
    (
        output.status.code(),
        text(&output.stdout),
        text(&output.stderr),
    )
}

fn records(state: &Path) -> Vec<Value> {
    let (code, stdout, stderr) = skills(state, &["audit", "--log", "serve", "--json"]);
    assert_eq!(code, Some(0), "{stderr}");
    stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn every_skill_call_of_serve_is_one_record() {
    let root = tempfile::tempdir().unwrap();
    let skill = root.path().join("alpha");
    std::fs::create_dir_all(skill.join("references")).unwrap();
    std::fs::write(skill.join("SKILL.md"), SKILL_MD).unwrap();
    std::fs::write(skill.join("references/notes.md"), "Notes.\n").unwrap();
    let state = tempfile::tempdir().unwrap();
    serve_and_call(root.path(), state.path(), &[]).await;

    let records = records(state.path());
    let calls: Vec<(&str, &str, Value)> = records
        .iter()
        .map(|record| {
            (
                record["event"].as_str().unwrap(),
                record["tool"].as_str().unwrap(),
                record["resource"].clone(),
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("tool_call", "resources/read", json!("SKILL.md")),
            ("tool_call", "resources/read", json!("references/notes.md")),
            ("tool_call", "resources/read", Value::Null),
            ("tool_call", "skills/get", Value::Null),
        ],
        "{records:#?}"
    );
    let activation = &records[0];
    assert_eq!(activation["host"], "skills serve");
    assert_eq!(activation["actor"], "client");
    assert_eq!(activation["skill"]["name"], "alpha");
    assert_eq!(activation["skill"]["origin"], "files");
    assert_eq!(
        activation["skill"]["digest"],
        sha256_hex(SKILL_MD.as_bytes())
    );
    assert_eq!(activation["result_digest"], sha256_hex(SKILL_MD.as_bytes()));
    assert_eq!(activation["args"], json!({"uri": "skill://alpha/SKILL.md"}));
    assert!(activation["args_digest"].is_string());
    assert!(activation["call_id"].is_string());
    assert_eq!(activation["is_error"], false);
    assert!(activation["duration_us"].is_u64());
    assert_eq!(records[1]["result_digest"], sha256_hex(b"Notes.\n"));
    let unknown = &records[2];
    assert_eq!(unknown["skill"], Value::Null);
    assert_eq!(unknown["is_error"], true);
    assert!(
        unknown["reason"]
            .as_str()
            .unwrap()
            .contains("no such skill"),
        "{unknown}"
    );

    let (code, stdout, stderr) = skills(state.path(), &["audit", "--log", "serve", "--verify"]);
    assert_eq!(
        (code, stdout.as_str()),
        (Some(0), "ok: 4 records verify\n"),
        "{stderr}"
    );
    // The agent's own log holds none of them: a server's clients cannot rotate it away.
    let (code, stdout, stderr) = skills(state.path(), &["audit", "--json"]);
    assert_eq!((code, stdout.as_str()), (Some(0), ""), "{stderr}");
    assert!(state.path().join("skillful/audit-serve").is_dir());
    assert!(!state.path().join("skillful/audit").exists());
    let root_path = root.path().to_str().unwrap();
    let (code, stdout, stderr) = skills(state.path(), &["stats", root_path, "--json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let stats: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        stats["skills"]["alpha"]["activations"],
        json!({"client": 1})
    );
    assert_eq!(
        stats["skills"]["alpha"]["calls"],
        json!({"resources/read": 2, "skills/get": 1})
    );

    // `--audit-redact`: the URIs are left out, their digests kept.
    serve_and_call(root.path(), state.path(), &["--audit-redact"]).await;
    let records = self::records(state.path());
    assert_eq!(records.len(), 8);
    assert_eq!(records[4]["args"], Value::Null);
    assert_eq!(records[4]["args_digest"], records[0]["args_digest"]);
}
