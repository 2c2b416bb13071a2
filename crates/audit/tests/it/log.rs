//! The file sink and the chain, over real files: records appended and read back, the chain
//! verified, then broken by an edited, a removed and a reordered record (each named), a torn
//! last line found and replaced, rotation that keeps the chain, records appended before their
//! sync, private modes.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use skillful_audit::{Actor, AuditEvent, AuditLog, AuditSink, EventKind, FileAuditSink};

fn event(tool: &str) -> AuditEvent {
    let mut event = AuditEvent::new(EventKind::ToolCall, "ada", "test", Actor::Model);
    event.tool = Some(tool.to_owned());
    event.args = Some(json!({"skillName": "s", "n": 1}));
    event
}

fn log_with(dir: &Path, count: usize) -> PathBuf {
    let sink = FileAuditSink::at(dir).unwrap();
    for index in 0..count {
        sink.record(event(&format!("tool{index}"))).unwrap();
    }
    dir.join("audit.jsonl")
}

fn lines(path: &Path) -> Vec<String> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn write_lines(path: &Path, lines: &[String]) {
    fs::write(path, lines.join("\n") + "\n").unwrap();
}

#[test]
fn records_chain_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    let file = log_with(dir.path(), 4);
    let records = AuditLog::at(dir.path()).records().unwrap();
    assert_eq!(records.len(), 4);
    assert_eq!(records[0].prev, None);
    for (index, record) in records.iter().enumerate() {
        assert_eq!(record.seq, index as u64);
        assert_eq!(
            record.event.tool.as_deref(),
            Some(format!("tool{index}").as_str())
        );
    }
    for pair in records.windows(2) {
        let before = serde_json::to_value(&pair[0]).unwrap();
        assert_eq!(
            pair[1].prev.as_deref(),
            Some(skillful_audit::json_digest(&before).as_str())
        );
    }
    // Every field is written, null when empty.
    let first: Value = serde_json::from_str(&lines(&file)[0]).unwrap();
    for field in ["sandbox", "exit_code", "result_digest", "skill", "session"] {
        assert_eq!(first.get(field), Some(&Value::Null), "{field}");
    }
    let verification = AuditLog::at(dir.path()).verify().unwrap();
    assert_eq!(verification.verified, 4);
    assert_eq!(verification.broken, None);
}

#[cfg(unix)]
#[test]
fn the_log_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit");
    let file = log_with(&audit, 1);
    let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&audit), 0o700);
    assert_eq!(mode(&file), 0o600);
}

#[test]
fn an_edited_record_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = log_with(dir.path(), 4);
    let mut all = lines(&file);
    all[1] = all[1].replace("tool1", "tool9");
    write_lines(&file, &all);
    let broken = AuditLog::at(dir.path()).verify().unwrap();
    assert_eq!(broken.verified, 1);
    let broken = broken.broken.unwrap();
    assert_eq!((broken.seq, broken.line), (Some(1), 2));
    assert!(
        broken.problem.contains("record 1 was altered"),
        "{}",
        broken.problem
    );
    assert_eq!(broken.path, file);
}

#[test]
fn a_removed_record_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = log_with(dir.path(), 4);
    let mut all = lines(&file);
    all.remove(2);
    write_lines(&file, &all);
    let broken = AuditLog::at(dir.path()).verify().unwrap().broken.unwrap();
    assert_eq!((broken.seq, broken.line), (Some(3), 3));
    assert!(
        broken.problem.contains("record 2 is missing"),
        "{}",
        broken.problem
    );
}

#[test]
fn reordered_records_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = log_with(dir.path(), 4);
    let mut all = lines(&file);
    all.swap(1, 2);
    write_lines(&file, &all);
    let verification = AuditLog::at(dir.path()).verify().unwrap();
    let broken = verification.broken.unwrap();
    assert_eq!(verification.verified, 1);
    assert_eq!((broken.seq, broken.line), (Some(2), 2));
    assert!(
        broken.problem.contains("record 1 is missing"),
        "{}",
        broken.problem
    );
    // Renumbered to hide the swap, the chain still breaks at the first moved record.
    let mut renumbered = lines(&file);
    renumbered[1] = renumbered[1].replacen("\"seq\":2", "\"seq\":1", 1);
    renumbered[2] = renumbered[2].replacen("\"seq\":1", "\"seq\":2", 1);
    write_lines(&file, &renumbered);
    let broken = AuditLog::at(dir.path()).verify().unwrap().broken.unwrap();
    assert_eq!(broken.seq, Some(0));
    assert!(
        broken.problem.contains("no longer chain"),
        "{}",
        broken.problem
    );
}

#[test]
fn a_torn_last_line_is_reported_then_cut_off_and_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let file = log_with(dir.path(), 3);
    let whole = fs::read(&file).unwrap();
    // A crash in the middle of the fourth record's write.
    let mut torn = whole.clone();
    torn.extend_from_slice(br#"{"seq":3,"time":"2026-"#);
    fs::write(&file, &torn).unwrap();
    let verification = AuditLog::at(dir.path()).verify().unwrap();
    assert_eq!(verification.verified, 3);
    let broken = verification.broken.unwrap();
    assert_eq!(broken.line, 4);
    assert!(broken.problem.contains("torn"), "{}", broken.problem);

    // The next writer cuts it off, records what it cut, and goes on; the chain verifies.
    let sink = FileAuditSink::at(dir.path()).unwrap();
    sink.record(event("after")).unwrap();
    let records = AuditLog::at(dir.path()).records().unwrap();
    assert_eq!(records.len(), 5);
    assert_eq!(records[3].event.event, EventKind::TornTail);
    assert!(
        records[3]
            .event
            .reason
            .as_deref()
            .unwrap()
            .starts_with("22 bytes cut off")
    );
    assert_eq!(records[4].event.tool.as_deref(), Some("after"));
    let verification = AuditLog::at(dir.path()).verify().unwrap();
    assert_eq!((verification.verified, verification.broken), (5, None));
}

#[test]
fn rotation_keeps_the_chain_across_files_and_drops_the_oldest() {
    let dir = tempfile::tempdir().unwrap();
    let sink = FileAuditSink::at(dir.path()).unwrap().rotate_at(1200, 2);
    for index in 0..12 {
        sink.record(event(&format!("tool{index}"))).unwrap();
    }
    let mut rotated: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("audit-"))
        .collect();
    rotated.sort();
    assert_eq!(rotated.len(), 2, "{rotated:?}");
    let log = AuditLog::at(dir.path());
    let records = log.records().unwrap();
    assert_eq!(records.last().unwrap().seq, 11);
    let verification = log.verify().unwrap();
    assert_eq!(verification.broken, None);
    assert!(
        verification.first_seq.unwrap() > 0,
        "the oldest files are gone"
    );
    assert_eq!(verification.verified, records.len() as u64);

    // A second writer (another process) appends after the first one's records.
    let other = FileAuditSink::at(dir.path()).unwrap();
    other.record(event("other")).unwrap();
    sink.record(event("first again")).unwrap();
    let records = log.records().unwrap();
    let last: Vec<u64> = records.iter().rev().take(2).map(|r| r.seq).collect();
    assert_eq!(last, [13, 12]);
    assert_eq!(log.verify().unwrap().broken, None);
}

#[cfg(unix)]
#[test]
fn rotation_deletes_only_the_logs_own_rotated_files() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let precious = outside.path().join("precious.jsonl");
    fs::write(&precious, "precious\n").unwrap();
    // Beside the log: a note, a file named almost like a rotated one, and a link named like the
    // oldest rotated file, to a file elsewhere.
    fs::write(dir.path().join("notes.txt"), "mine\n").unwrap();
    fs::write(dir.path().join("audit-1.jsonl"), "not rotated\n").unwrap();
    let link = dir.path().join("audit-000000000000.jsonl");
    std::os::unix::fs::symlink(&precious, &link).unwrap();

    let sink = FileAuditSink::at(dir.path()).unwrap().rotate_at(1200, 2);
    for index in 0..30 {
        sink.record(event(&format!("tool{index}"))).unwrap();
    }
    let verification = AuditLog::at(dir.path()).verify().unwrap();
    assert!(
        verification.first_seq.unwrap() > 0,
        "the oldest files are gone"
    );
    assert_eq!(verification.broken, None);

    assert_eq!(
        fs::read_to_string(dir.path().join("notes.txt")).unwrap(),
        "mine\n"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("audit-1.jsonl")).unwrap(),
        "not rotated\n"
    );
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(&precious).unwrap(), "precious\n");
}

#[test]
fn a_rotated_file_deleted_is_told_from_one_rotated_away() {
    let dir = tempfile::tempdir().unwrap();
    let sink = FileAuditSink::at(dir.path()).unwrap().rotate_at(1200, 3);
    for index in 0..30 {
        sink.record(event(&format!("tool{index}"))).unwrap();
    }
    let log = AuditLog::at(dir.path());
    let rotated_away = log.verify().unwrap();
    assert_eq!(rotated_away.broken, None, "rotation leaves an anchor");
    assert!(rotated_away.first_seq.unwrap() > 0);

    // Someone deletes the oldest file left: the records it held are reported gone.
    let mut rotated: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with("audit-") && name.ends_with(".jsonl")
        })
        .collect();
    rotated.sort();
    fs::remove_file(&rotated[0]).unwrap();
    let broken = log.verify().unwrap().broken.expect("the deletion is found");
    assert!(
        broken.problem.contains("the rest were deleted"),
        "{}",
        broken.problem
    );

    // Without the anchor, nothing accounts for the missing records at all.
    fs::remove_file(dir.path().join("rotation-anchor.json")).unwrap();
    let broken = log.verify().unwrap().broken.expect("the deletion is found");
    assert!(
        broken.problem.contains("no rotation removed them"),
        "{}",
        broken.problem
    );
}

#[test]
fn a_clients_long_ids_are_kept_as_a_prefix_and_a_digest() {
    let dir = tempfile::tempdir().unwrap();
    let sink = FileAuditSink::at(dir.path()).unwrap();
    let mut long = event("tools/call");
    long.call_id = Some("x".repeat(4 << 20));
    long.session = Some("s".repeat(10_000));
    sink.record(long).unwrap();
    let size = fs::metadata(dir.path().join("audit.jsonl")).unwrap().len();
    assert!(size < 4096, "the record is {size} bytes");
    let record = AuditLog::at(dir.path()).records().unwrap().remove(0);
    let call_id = record.event.call_id.unwrap();
    assert!(call_id.starts_with(&"x".repeat(200)), "{call_id}");
    assert!(
        call_id.ends_with(')') && call_id.contains("sha256 "),
        "{call_id}"
    );
}

#[test]
fn appended_records_are_in_the_log_before_they_are_synced() {
    let dir = tempfile::tempdir().unwrap();
    let sink = FileAuditSink::at(dir.path()).unwrap().rotate_at(1200, 8);
    sink.sync().unwrap();
    for index in 0..6 {
        sink.append(event(&format!("tool{index}"))).unwrap();
    }
    // Another writer (another process) sees them, and chains after them.
    let other = FileAuditSink::at(dir.path()).unwrap();
    other.record(event("other")).unwrap();
    sink.append(event("first again")).unwrap();
    sink.sync().unwrap();
    sink.sync().unwrap();

    let log = AuditLog::at(dir.path());
    let tools: Vec<String> = log
        .records()
        .unwrap()
        .into_iter()
        .map(|record| record.event.tool.unwrap())
        .collect();
    assert_eq!(
        tools,
        [
            "tool0",
            "tool1",
            "tool2",
            "tool3",
            "tool4",
            "tool5",
            "other",
            "first again"
        ]
    );
    let rotated = fs::read_dir(dir.path())
        .unwrap()
        .filter(|entry| {
            let name = entry.as_ref().unwrap().file_name();
            name.to_string_lossy().starts_with("audit-")
        })
        .count();
    assert!(rotated > 0, "the appends rotated the file");
    let verification = log.verify().unwrap();
    assert_eq!((verification.verified, verification.broken), (8, None));
}

#[test]
fn a_symbolic_link_for_the_log_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = dir.path().join("elsewhere");
    fs::write(&elsewhere, "").unwrap();
    let audit = dir.path().join("audit");
    fs::create_dir(&audit).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&elsewhere, audit.join("audit.jsonl")).unwrap();
        let sink = FileAuditSink::at(&audit).unwrap();
        assert!(sink.record(event("x")).is_err());
        assert_eq!(fs::read(&elsewhere).unwrap(), b"");
    }
}

#[test]
fn last_uses_give_each_skills_newest_record_and_skip_records_of_no_skill() {
    let dir = tempfile::tempdir().unwrap();
    let sink = FileAuditSink::at(dir.path()).unwrap();
    let start = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_795_856_400);
    for (offset, skill) in [
        (0, Some("a")),
        (60, Some("b")),
        (120, None),
        (180, Some("a")),
    ] {
        let mut event = event("load_skill");
        event.skill = skill.map(|name| skillful_audit::SkillRef::new(name, "files", "user"));
        sink.record_at(event, start + std::time::Duration::from_secs(offset))
            .unwrap();
    }
    let last = AuditLog::at(dir.path()).last_uses().unwrap();
    assert_eq!(last.len(), 2, "{last:?}");
    assert_eq!(last["a"], "2026-11-28T09:03:00.000Z");
    assert_eq!(last["b"], "2026-11-28T09:01:00.000Z");
    // The same as the records say, read whole.
    let records = AuditLog::at(dir.path()).records().unwrap();
    assert_eq!(records.len(), 4);
}
