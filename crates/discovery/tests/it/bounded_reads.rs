//! Reading the files of a skill never blocks, never reads more than a cap, and never follows a
//! hard link out of the skill: a huge sparse file, a FIFO swapped in during reads, a hard link
//! to a file elsewhere.

#![cfg(unix)]

use crate::common;

use std::fs;
use std::path::Path;
use std::sync::Arc;

use common::Tree;
use skillful_core::{ResourceContent, Skill, SkillError};
use skillful_discovery::{FileSkill, FileSkillsSource, FileSkillsSourceBuilder};

const GIB: u64 = 1024 * 1024 * 1024;

async fn only_skill(builder: FileSkillsSourceBuilder, root: &Path) -> Arc<FileSkill> {
    let mut found = builder.root(root).build().unwrap().discover().await;
    assert_eq!(found.skills.len(), 1, "{:?}", found.diagnostics);
    found.skills.remove(0)
}

async fn read(skill: &FileSkill, name: &str) -> Result<ResourceContent, SkillError> {
    skill.resource(name).expect("listed").read().await
}

#[tokio::test]
async fn a_sparse_100_gib_resource_is_refused_whole_and_read_in_a_window_at_its_end() {
    let tree = Tree::new();
    tree.skill("big");
    let huge = tree.write("big/references/huge.txt", "");
    let file = fs::OpenOptions::new().write(true).open(&huge).unwrap();
    file.set_len(100 * GIB).unwrap();
    std::os::unix::fs::FileExt::write_all_at(&file, b"the end\n", 100 * GIB - 8).unwrap();
    drop(file);
    let skill = only_skill(FileSkillsSource::builder(), &tree.root).await;

    let error = read(&skill, "references/huge.txt").await.unwrap_err();
    assert!(
        matches!(&error, SkillError::TooLarge { what, .. } if what.ends_with("references/huge.txt")),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .contains("over the limit of 16777216 bytes"),
        "{error}"
    );

    let (bytes, total) = skill
        .read_window("references/huge.txt", 100 * GIB - 8, 4096)
        .await
        .unwrap();
    assert_eq!((bytes.as_slice(), total), (&b"the end\n"[..], 100 * GIB));
    let (bytes, _) = skill
        .read_window("references/huge.txt", 50 * GIB, 64 * 1024 * 1024)
        .await
        .unwrap();
    assert_eq!(bytes.len(), 16 * 1024 * 1024, "a window is capped too");
    assert!(bytes.iter().all(|&byte| byte == 0));
    let (bytes, total) = skill
        .read_window("references/huge.txt", 200 * GIB, 10)
        .await
        .unwrap();
    assert_eq!((bytes.len(), total), (0, 100 * GIB));
}

#[tokio::test]
async fn the_read_cap_is_configurable_and_applies_to_windows() {
    let tree = Tree::new();
    tree.skill("small");
    tree.write("small/references/ten.txt", "0123456789");
    tree.write("small/references/eleven.txt", "0123456789A");
    let skill = only_skill(FileSkillsSource::builder().max_read_bytes(10), &tree.root).await;
    assert_eq!(
        read(&skill, "references/ten.txt").await.unwrap(),
        ResourceContent::Text("0123456789".into())
    );
    let error = read(&skill, "references/eleven.txt").await.unwrap_err();
    assert!(
        error.to_string().contains("over the limit of 10 bytes"),
        "{error}"
    );
    let (bytes, total) = skill
        .read_window("references/eleven.txt", 1, 100)
        .await
        .unwrap();
    assert_eq!((bytes.as_slice(), total), (&b"123456789A"[..], 11));
}

#[tokio::test]
async fn a_hard_link_to_a_file_outside_the_skill_is_refused_unless_allowed() {
    let tree = Tree::new();
    tree.skill("linked");
    let secret = tree.write("secret.txt", "the user's secret\n");
    fs::create_dir_all(tree.path("linked/references")).unwrap();
    fs::hard_link(&secret, tree.path("linked/references/notes.md")).unwrap();

    let skill = only_skill(FileSkillsSource::builder(), &tree.root).await;
    let error = read(&skill, "references/notes.md").await.unwrap_err();
    match &error {
        SkillError::Refused { what, reason } => {
            assert!(what.ends_with("references/notes.md"), "{what:?}");
            assert!(reason.contains("2 hard links"), "{reason}");
        }
        other => panic!("not refused as unsafe: {other:?}"),
    }
    let window = skill.read_window("references/notes.md", 0, 100).await;
    assert!(
        matches!(window, Err(SkillError::Refused { .. })),
        "{window:?}"
    );

    let skill = only_skill(
        FileSkillsSource::builder().allow_hard_links(true),
        &tree.root,
    )
    .await;
    assert_eq!(
        read(&skill, "references/notes.md").await.unwrap(),
        ResourceContent::Text("the user's secret\n".into())
    );
}

/// Makes a FIFO at `path`.
fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: `name` is a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
}

/// Opens `path` for writing without blocking and closes it at once: a reader blocked opening
/// the FIFO there is let go.
fn release_readers(path: &Path) {
    use std::os::unix::fs::OpenOptionsExt;
    let _ = fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path);
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifo_swapped_in_during_reads_is_refused_and_never_blocks_the_reader() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    let tree = Tree::new();
    tree.skill("swap");
    let data = tree.write("swap/references/data.md", "data\n");
    let skill = only_skill(FileSkillsSource::builder(), &tree.root).await;
    let fifo = tree.path("fifo");
    mkfifo(&fifo);

    // Exchanges the resource and the FIFO, atomically, over and over.
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = exchange_until(&stop, &data, &fifo);

    let reads = async {
        let (mut read_whole, mut refused) = (0, 0);
        for _ in 0..3000 {
            match read(&skill, "references/data.md").await {
                Ok(content) => {
                    assert_eq!(content, ResourceContent::Text("data\n".into()));
                    read_whole += 1;
                }
                Err(SkillError::Refused { .. }) => refused += 1,
                Err(other) => panic!("neither read nor refused: {other:?}"),
            }
        }
        (read_whole, refused)
    };
    let outcome = tokio::time::timeout(Duration::from_secs(60), reads).await;
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    if outcome.is_err() {
        release_readers(&data);
        release_readers(&fifo);
        panic!("a read blocked opening the FIFO that was swapped in");
    }
    let (read_whole, refused) = outcome.unwrap();
    assert_eq!(read_whole + refused, 3000);
}

/// Exchanges the files at `a` and `b`, atomically, over and over, until `stop` is set.
#[cfg(target_os = "linux")]
fn exchange_until(
    stop: &Arc<std::sync::atomic::AtomicBool>,
    a: &Path,
    b: &Path,
) -> std::thread::JoinHandle<()> {
    let stop = Arc::clone(stop);
    let (a, b) = (
        std::ffi::CString::new(a.to_str().unwrap()).unwrap(),
        std::ffi::CString::new(b.to_str().unwrap()).unwrap(),
    );
    std::thread::spawn(move || {
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            // SAFETY: two NUL-terminated paths that outlive the call.
            let exchanged = unsafe {
                libc::renameat2(
                    libc::AT_FDCWD,
                    a.as_ptr(),
                    libc::AT_FDCWD,
                    b.as_ptr(),
                    libc::RENAME_EXCHANGE,
                )
            };
            assert_eq!(exchanged, 0, "{}", std::io::Error::last_os_error());
        }
    })
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifo_swapped_in_for_skill_md_during_discovery_never_blocks_it() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    let tree = Tree::new();
    let skill_md = tree.skill("swap").join("SKILL.md");
    let fifo = tree.path("fifo");
    mkfifo(&fifo);
    let source = FileSkillsSource::builder()
        .root(&tree.root)
        .build()
        .unwrap();

    // The walk sees a regular SKILL.md; by the time its head is opened, it may be the FIFO.
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = exchange_until(&stop, &skill_md, &fifo);
    let discoveries = async {
        for _ in 0..500 {
            let found = source.discover().await;
            assert!(
                found.skills.len() == 1 || !found.diagnostics.is_empty(),
                "the skill was neither found nor reported"
            );
        }
    };
    let outcome = tokio::time::timeout(Duration::from_secs(60), discoveries).await;
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    if outcome.is_err() {
        release_readers(&skill_md);
        release_readers(&fifo);
        panic!("discovery blocked opening the FIFO swapped in for SKILL.md");
    }
}
