//! Stamps first: a manifest made with a `DigestCache` reads only files whose stamp changed, and
//! is the same manifest `of_dir` makes.

use std::fs;
use std::path::Path;

use skillful_manifest::{DigestCache, Limits, Manifest};

fn write(dir: &Path, relative: &str, bytes: &[u8]) {
    let path = dir.join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

fn tree() -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    write(temp.path(), "SKILL.md", b"---\nname: demo\n---\nBody\n");
    write(temp.path(), "scripts/run.py", b"print('hi')\n");
    write(temp.path(), "references/a.md", b"A\n");
    temp
}

#[test]
fn an_unchanged_tree_is_not_rehashed() {
    let temp = tree();
    let dir = temp.path();
    let limits = Limits::default();
    let mut cache = DigestCache::new();
    let first = Manifest::of_dir_cached(dir, &limits, &mut cache).unwrap();
    assert_eq!(first, Manifest::of_dir(dir, &limits).unwrap());
    assert_eq!(cache.hashed(), 3);
    assert!(cache.is_changed());

    // Saved and loaded, as a host keeps it between runs.
    let state = tempfile::tempdir().unwrap();
    let file = state.path().join("digests.json");
    cache.save(&file).unwrap();
    let mut cache = DigestCache::load(&file);
    let again = Manifest::of_dir_cached(dir, &limits, &mut cache).unwrap();
    assert_eq!(again, first);
    assert_eq!(cache.hashed(), 0, "an unchanged tree is read again");
    assert!(!cache.is_changed());
}

#[test]
fn a_changed_file_is_rehashed_even_with_its_old_size_and_mtime() {
    let temp = tree();
    let dir = temp.path();
    let limits = Limits::default();
    let mut cache = DigestCache::new();
    Manifest::of_dir_cached(dir, &limits, &mut cache).unwrap();
    let before = cache.hashed();

    // Same size, and the old modification time given back: only the change time moved.
    let path = dir.join("scripts/run.py");
    let old = fs::metadata(&path).unwrap().modified().unwrap();
    fs::write(&path, b"print('HI')\n").unwrap();
    fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(old)
        .unwrap();
    // A new file and a removed one.
    write(dir, "references/b.md", b"B\n");
    fs::remove_file(dir.join("references/a.md")).unwrap();

    let now = Manifest::of_dir_cached(dir, &limits, &mut cache).unwrap();
    assert_eq!(now, Manifest::of_dir(dir, &limits).unwrap());
    assert_eq!(cache.hashed() - before, 2, "the rewritten and the new file");
    assert!(cache.is_changed());
}

#[test]
fn a_cache_from_elsewhere_never_gives_a_wrong_digest() {
    // Two trees whose files have the same names: entries are kept per directory.
    let one = tree();
    let two = tree();
    write(two.path(), "SKILL.md", b"---\nname: other\n---\n");
    let limits = Limits::default();
    let mut cache = DigestCache::new();
    let first = Manifest::of_dir_cached(one.path(), &limits, &mut cache).unwrap();
    let second = Manifest::of_dir_cached(two.path(), &limits, &mut cache).unwrap();
    assert_ne!(first.digest(), second.digest());
    assert_eq!(second, Manifest::of_dir(two.path(), &limits).unwrap());

    // Forgetting a directory means hashing it again.
    cache.retain(|dir| dir != one.path());
    let hashed = cache.hashed();
    Manifest::of_dir_cached(one.path(), &limits, &mut cache).unwrap();
    assert_eq!(cache.hashed() - hashed, 3);

    // A corrupt or missing cache file is an empty cache.
    let file = one.path().join("cache.json");
    fs::write(&file, b"{not json").unwrap();
    assert_eq!(DigestCache::load(&file).hashed(), 0);
}
