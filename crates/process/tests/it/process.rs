//! What the crate guarantees, over real processes (`sh`, `sleep`): a child's tree ends with it,
//! on an exit, a timeout, a stop and a drop, even when it ignores `SIGTERM`; its environment holds
//! only what it was given; output past the bound is cut and reported.
#![cfg(target_os = "linux")]

use std::ffi::OsString;
use std::time::Duration;

use skillful_process::{
    ChildCommand, Running, Signal, detached_command, filter_environment, signal_group,
};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

fn environment() -> Vec<(OsString, OsString)> {
    let host: Vec<(OsString, OsString)> = std::env::vars_os().collect();
    filter_environment(&host, &["PATH".to_owned()], &[])
}

fn shell(script: &str) -> Running {
    let mut command = ChildCommand::new("sh", &environment());
    command.command_mut().args(["-c", script]);
    command.spawn().expect("sh starts")
}

/// Whether process `pid` is gone: no longer listed, or a zombie waiting to be reaped.
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, fields)| fields.trim_start().starts_with('Z')),
    }
}

/// Waits until process `pid` has exited, for at most a minute; whether it did.
fn exits(pid: u32) -> bool {
    skillful_test_support::wait::gone_within(pid, Duration::from_secs(60))
}

/// The pids a child printed, one a line, until its output ends.
fn pids(text: &str) -> Vec<u32> {
    text.lines()
        .filter_map(|line| line.trim().parse().ok())
        .collect()
}

#[tokio::test]
async fn a_grandchild_left_behind_is_killed_when_its_parent_exits() {
    // The inner shell starts `sleep` and exits: `sleep` is orphaned, outside the child's reach.
    let mut child = shell("sh -c 'sleep 1000 & echo $!'; exit 0");
    let finished = child.collect(None, 1024).await.unwrap();
    assert_eq!(finished.status.code(), Some(0));
    let pids = pids(&finished.stdout.into_text());
    assert_eq!(pids.len(), 1, "the grandchild's pid was printed");
    assert!(
        gone(pids[0]),
        "the orphaned grandchild was killed with its parent"
    );
}

#[tokio::test]
async fn a_timeout_ends_the_child_and_its_children() {
    let mut child = shell("sleep 1000 & echo $!; echo $$; wait");
    // Long enough for the shell to print both pids on a loaded 2-core machine (300 ms may not
    // be); the timeout is what ends it.
    let finished = child
        .collect(Some(Duration::from_secs(2)), 1024)
        .await
        .unwrap();
    assert!(finished.timed_out);
    let pids = pids(&finished.stdout.into_text());
    assert_eq!(pids.len(), 2);
    assert!(pids.iter().all(|pid| gone(*pid)), "{pids:?} are gone");
}

#[tokio::test]
async fn a_child_that_ignores_sigterm_is_still_gone_after_a_stop_and_a_drop() {
    for drop_it in [false, true] {
        let mut child = shell("trap '' TERM; sleep 1000 & echo $!; echo $$; wait; wait");
        let stdout = child.child_mut().stdout.take().unwrap();
        let mut lines = BufReader::new(stdout);
        let mut printed = String::new();
        for _ in 0..2 {
            lines.read_line(&mut printed).await.unwrap();
        }
        if drop_it {
            drop(child);
        } else {
            child.stop().await.unwrap();
        }
        // The pipe ends once every process holding it is dead.
        lines.read_to_string(&mut printed).await.unwrap();
        let pids = pids(&printed);
        assert_eq!(pids.len(), 2, "{printed}");
        let how = if drop_it { "dropped" } else { "stopped" };
        for pid in pids {
            assert!(exits(pid), "process {pid} outlived a {how} child");
        }
    }
}

#[tokio::test]
async fn the_environment_holds_only_what_the_child_was_given() {
    let host = [
        (OsString::from("PATH"), OsString::from("/usr/bin:/bin")),
        (
            OsString::from("OPENAI_API_KEY"),
            OsString::from("sk-secret"),
        ),
        (OsString::from("LANG"), OsString::from("C.UTF-8")),
    ];
    let given = filter_environment(
        &host,
        &["PATH".to_owned(), "HOME".to_owned()],
        &[(OsString::from("SKILL_MODE"), OsString::from("test"))],
    );
    let command = ChildCommand::new("/usr/bin/env", &given);
    let finished = command.spawn().unwrap().collect(None, 4096).await.unwrap();
    let mut names: Vec<String> = finished
        .stdout
        .into_text()
        .lines()
        .map(|line| line.split('=').next().unwrap().to_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["PATH", "SKILL_MODE"]);
}

#[tokio::test]
async fn a_child_gets_no_descriptor_the_host_inherited_but_the_standard_streams() {
    // A descriptor without close-on-exec, as a shell's `3>>~/.bashrc` leaves one to the host.
    let file = tempfile::NamedTempFile::new().unwrap();
    let opened = std::fs::OpenOptions::new()
        .append(true)
        .open(file.path())
        .unwrap();
    const INHERITED: i32 = 871;
    // SAFETY: dup2 onto a number this test owns; the copy has no close-on-exec flag.
    let copied = unsafe { libc::dup2(std::os::fd::AsRawFd::as_raw_fd(&opened), INHERITED) };
    assert_eq!(copied, INHERITED);

    let finished = shell("ls /proc/self/fd").collect(None, 4096).await.unwrap();

    // SAFETY: closing the copy made above.
    unsafe { libc::close(INHERITED) };
    let descriptors: Vec<String> = finished
        .stdout
        .into_text()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    // 0-2, and the one `ls` opened to list the directory.
    assert_eq!(descriptors, ["0", "1", "2", "3"], "{:?}", finished.stderr);
}

#[test]
fn a_blocking_run_collects_the_output_and_stops_a_child_past_its_time() {
    let mut quick = ChildCommand::new("sh", &environment());
    quick
        .command_mut()
        .args(["-c", "echo done; echo oops >&2; exit 4"]);
    let finished = quick.run_blocking(Duration::from_secs(20), 1024).unwrap();
    assert_eq!(finished.status.code(), Some(4));
    assert_eq!(finished.stdout.into_text(), "done\n");
    assert_eq!(finished.stderr.into_text(), "oops\n");
    assert!(!finished.timed_out);

    // From inside an async runtime too, and a child past its time is stopped with its own.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let finished = runtime.block_on(async {
        let mut slow = ChildCommand::new("sh", &environment());
        slow.command_mut().args(["-c", "sleep 30 & echo $!; wait"]);
        slow.run_blocking(Duration::from_millis(300), 1024).unwrap()
    });
    assert!(finished.timed_out);
    let sleeper = pids(&finished.stdout.into_text())[0];
    assert!(exits(sleeper), "the child's own child is gone too");
}

#[tokio::test]
async fn output_past_the_bound_is_cut_and_reported() {
    let mut child = shell("head -c 100000 /dev/zero | tr '\\0' a; echo done >&2");
    let finished = child.collect(None, 1000).await.unwrap();
    assert_eq!(finished.status.code(), Some(0));
    assert_eq!(finished.stdout.bytes(), vec![b'a'; 1000].as_slice());
    assert!(finished.stdout.truncated());
    assert_eq!(finished.stdout.discarded(), 99_000);
    assert!(!finished.stderr.truncated());
    assert_eq!(finished.stderr.into_text(), "done\n");
}

#[test]
fn a_detached_child_gets_only_its_environment_and_its_group_ends_together() {
    let host = [
        (
            OsString::from("OPENAI_API_KEY"),
            OsString::from("sk-secret"),
        ),
        (OsString::from("PATH"), OsString::from("/usr/bin:/bin")),
    ];
    let given = filter_environment(&host, &["PATH".to_owned()], &[]);
    let mut child = detached_command("sh", &given)
        .args([
            "-c",
            "trap '' TERM; echo ${OPENAI_API_KEY:-none}; sleep 1000 & echo $!; wait",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut key = String::new();
    let mut sleeper = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut key).unwrap();
    std::io::BufRead::read_line(&mut stdout, &mut sleeper).unwrap();
    assert_eq!(key, "none\n");
    assert!(signal_group(child.id(), Signal::Terminate).unwrap());
    assert!(signal_group(child.id(), Signal::Kill).unwrap());
    assert!(!child.wait().unwrap().success());
    let sleeper: u32 = sleeper.trim().parse().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    // Its output ended: the sleeper of the group is dead (init's to reap).
    assert!(exits(sleeper));
}

#[tokio::test]
async fn a_watched_child_shows_its_output_as_it_comes_and_stops_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let gate = dir.path().join("gate");
    // The child says its own child's pid on this pipe once that runs.
    let mut said = skillful_test_support::wait::Fifo::create(dir.path().join("pid"));
    // The second line waits for a file the observer of the first creates: the child can only
    // finish if its output is shown while it runs.
    let mut child = shell(&format!(
        "echo first; while [ ! -e '{}' ]; do sleep 0.05; done; echo second >&2; sleep 300 & echo $! > '{}'; wait",
        gate.display(),
        said.path().display()
    ));
    let seen = std::sync::Mutex::new(Vec::new());
    let on_stdout = |chunk: &[u8]| {
        if chunk.starts_with(b"first") {
            std::fs::write(&gate, "").unwrap();
        }
        seen.lock().unwrap().push(("out", chunk.to_vec()));
    };
    let on_stderr = |chunk: &[u8]| seen.lock().unwrap().push(("err", chunk.to_vec()));
    let sleeper = std::sync::OnceLock::new();
    let stop = async {
        let pid = tokio::task::spawn_blocking(move || {
            said.line_within(Duration::from_secs(60), |_| true)
        })
        .await
        .unwrap();
        if let Some(pid) = pid {
            sleeper.set(pid.trim().parse::<u32>().unwrap()).unwrap();
        }
    };
    let watch = skillful_process::Watch {
        stdout: Some(&on_stdout),
        stderr: Some(&on_stderr),
        stop: Some(Box::pin(stop)),
    };
    let finished = child
        .collect_watched(Some(Duration::from_secs(60)), 1024, watch)
        .await
        .unwrap();
    assert!(finished.stopped && !finished.timed_out, "{finished:?}");
    assert_eq!(finished.stdout.into_text(), "first\n");
    assert_eq!(
        *seen.lock().unwrap(),
        [("out", b"first\n".to_vec()), ("err", b"second\n".to_vec())]
    );
    let sleeper = *sleeper.get().expect("the child said its own child's pid");
    assert!(exits(sleeper), "the stopped child's own child still runs");
}

#[tokio::test]
async fn output_written_before_a_stop_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let mut ready = skillful_test_support::wait::Fifo::create(dir.path().join("ready"));
    let mut child = shell(&format!(
        "echo last words; echo last error >&2; echo ready > '{}'; sleep 300",
        ready.path().display()
    ));
    // The stop blocks the runtime's only thread until the child has written everything, so its
    // output is still unread in the pipes when the stop is asked for.
    let stop = async move {
        ready
            .line_within(Duration::from_secs(60), |_| true)
            .expect("the child says it is ready");
    };
    let watch = skillful_process::Watch {
        stop: Some(Box::pin(stop)),
        ..skillful_process::Watch::default()
    };
    let finished = child
        .collect_watched(Some(Duration::from_secs(60)), 1024, watch)
        .await
        .unwrap();
    assert!(finished.stopped && !finished.timed_out, "{finished:?}");
    assert_eq!(finished.stdout.into_text(), "last words\n");
    assert_eq!(finished.stderr.into_text(), "last error\n");
}
