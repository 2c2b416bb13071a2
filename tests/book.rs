//! The book's Rust code is tested: every chapter under `docs/src` with a Rust code block is one
//! of the facade's doctest items (`mod book` in `src/lib.rs`), so a chapter cannot gain untested
//! code.

use std::fs;
use std::path::{Path, PathBuf};

fn chapters(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            chapters(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "md") {
            out.push(path);
        }
    }
}

#[test]
fn every_chapter_with_rust_code_is_a_doctest() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let mut found = Vec::new();
    chapters(&root.join("docs/src"), &mut found);
    let mut untested = Vec::new();
    for chapter in found {
        if fs::read_to_string(&chapter).unwrap().contains("```rust") {
            let relative = chapter
                .strip_prefix(root)
                .unwrap()
                .to_str()
                .unwrap()
                .to_owned();
            if !lib.contains(&format!("include_str!(\"../{relative}\")")) {
                untested.push(relative);
            }
        }
    }
    assert!(
        untested.is_empty(),
        "chapters whose Rust code no doctest runs; add them to `mod book` in src/lib.rs: {untested:?}"
    );
}
