//! What a script can learn about the `skills` process that runs it, tried as an attacker would:
//! as an unprivileged user (root reads every process's `/proc` files whatever we do).

use std::fs;
use std::process::Command;

use crate::common::unprivileged::{as_unprivileged_user, open_to_everyone, reachable_binary};

/// For its parent and grandparent, the script prints `PID unreadable`, or `PID readable` and the
/// environment it read.
const PEEK: &str = r#"pid=$PPID
for generation in 1 2; do
  if environ=$(tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null); then
    echo "$pid readable"
    echo "$environ"
  else
    echo "$pid unreadable"
  fi
  read -r stat < "/proc/$pid/stat"
  set -- ${stat##*) }
  pid=$2
done
"#;

#[test]
fn a_script_cannot_read_the_environment_of_the_skills_process() {
    let prefix = match as_unprivileged_user() {
        Ok(prefix) => prefix,
        Err(reason) => {
            skillful_test_support::prerequisite_missing(&format!(
                "this test needs an unprivileged user, and {reason}"
            ));
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let skill = dir.path().join("root/peek");
    fs::create_dir_all(skill.join("scripts")).unwrap();
    fs::write(
        skill.join("SKILL.md"),
        "---\nname: peek\ndescription: Looks at its parent.\n---\nRun it.\n",
    )
    .unwrap();
    fs::write(skill.join("scripts/peek.sh"), PEEK).unwrap();
    // The working directory is not the home directory, which no write tier may write whole.
    fs::create_dir_all(dir.path().join("work")).unwrap();
    open_to_everyone(dir.path());
    let binary = reachable_binary(dir.path());

    let mut argv: Vec<std::ffi::OsString> = prefix.into_iter().map(Into::into).collect();
    argv.push(binary.into());
    let mut command = Command::new(&argv[0]);
    command
        .args(&argv[1..])
        .args(["run-script", "peek", "scripts/peek.sh"])
        .arg(dir.path().join("root"))
        .current_dir(dir.path().join("work"))
        .env("HOME", dir.path())
        .env("SKILLFUL_TEST_SECRET", "sk-secret-of-the-host")
        .env_remove("RUST_LOG");
    let output = command.output().expect("the skills binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        !stdout.contains("sk-secret-of-the-host"),
        "a script read the host's secret:\n{stdout}"
    );
    let verdicts: Vec<&str> = stdout
        .lines()
        .filter_map(|line| line.split_once(' '))
        .filter(|(pid, _)| pid.parse::<u32>().is_ok())
        .map(|(_, verdict)| verdict)
        .collect();
    assert_eq!(verdicts, ["unreadable", "unreadable"], "{stdout}");
}

#[test]
fn skills_read_pages_through_a_sparse_100_gib_resource_reading_only_each_page() {
    const SIZE: u64 = 100 * 1024 * 1024 * 1024;
    let dir = tempfile::tempdir().unwrap();
    let skill = dir.path().join("big");
    fs::create_dir_all(skill.join("references")).unwrap();
    fs::write(
        skill.join("SKILL.md"),
        "---\nname: big\ndescription: A huge file.\n---\nRead it.\n",
    )
    .unwrap();
    let huge = fs::File::create(skill.join("references/huge.md")).unwrap();
    huge.set_len(SIZE).unwrap();
    // The last bytes say where they are: a page near the end shows them.
    std::os::unix::fs::FileExt::write_at(&huge, b"the end\n", SIZE - 8).unwrap();
    let read = |extra: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_skills"))
            .args(["read", "big", "references/huge.md"])
            .arg(dir.path())
            .args(extra)
            .env("HOME", dir.path())
            .env_remove("RUST_LOG")
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        (output.status.code(), text)
    };

    // Reading it whole would take minutes and 100 GiB of memory: only the page is read.
    let (code, text) = read(&["--offset", &(SIZE - 10).to_string()]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("the end\n"), "{text}");
    assert!(
        text.contains(&format!(
            "[showing bytes {}-{SIZE} of {SIZE}: this is the end of the resource]",
            SIZE - 10
        )),
        "{text}"
    );
    let (code, text) = read(&["--limit", "16"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains(&format!(
            "[truncated: showing bytes 0-16 of {SIZE}; call read_skill_resource again with offset=16 to continue]"
        )),
        "{text}"
    );
}
