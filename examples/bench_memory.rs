//! Measures what a discovered library holds in memory (issue "Large skill libraries", section
//! Measured: at most twice the bytes of the skills' frontmatter) on a tree written by
//! `../shared/bench/make_corpus.py`:
//!
//! ```text
//! cargo run --release --example bench_memory -- DIR
//! ```
//!
//! Prints one JSON line:
//! - `heap_bytes`: the heap the discovered set holds: what one discovery allocated and did not
//!   free while its result is kept, counted by an instrumented allocator (after a first
//!   discovery started the blocking pool's threads);
//! - `frontmatter_bytes`: the bytes of every `SKILL.md` found, up to its closing `---`;
//! - `first_resident_bytes`: how much the process's resident memory grew during its first
//!   discovery (Linux): the set, the allocator's own overhead, the threads started, and pages
//!   the allocator keeps after discovery's temporary buffers were freed;
//! - `resident_bytes`: the same for the measured discovery, which reuses those pages.

use std::alloc::System;
use std::error::Error;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use skillful::discovery::FileSkillsSource;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static ALLOCATOR: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// The process's resident memory, in bytes (Linux; 0 elsewhere).
fn resident_bytes() -> u64 {
    let statm = fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|field| field.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

/// The bytes of `SKILL.md` up to and including its closing `---` line.
fn frontmatter_bytes(skill_md: &Path) -> u64 {
    let text = fs::read_to_string(skill_md).unwrap_or_default();
    let mut bytes = 0;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        bytes += line.len() as u64;
        if index > 0 && line.trim_end() == "---" {
            break;
        }
    }
    bytes
}

async fn run(dir: PathBuf) -> Result<String, Box<dyn Error>> {
    let source = FileSkillsSource::builder().root(&dir).build()?;
    // Starts the blocking pool's threads, which live on between discoveries.
    let before = resident_bytes();
    let warm_up = source.discover().await;
    let first_resident = resident_bytes().saturating_sub(before);
    let skills = warm_up.skills.len();
    drop(warm_up);

    let before = resident_bytes();
    let region = Region::new(ALLOCATOR);
    let found = source.discover().await;
    let change = region.change();
    let resident = resident_bytes().saturating_sub(before);
    // A reallocation is counted in these two as well.
    let heap = change
        .bytes_allocated
        .saturating_sub(change.bytes_deallocated);
    if found.skills.len() != skills {
        return Err("the tree changed while it was measured".into());
    }
    let frontmatter: u64 = found
        .skills
        .iter()
        .map(|skill| frontmatter_bytes(&skill.skill_md_path()))
        .sum();
    Ok(format!(
        "{{\"skills\": {skills}, \"heap_bytes\": {heap}, \"frontmatter_bytes\": {frontmatter}, \"first_resident_bytes\": {first_resident}, \"resident_bytes\": {resident}}}"
    ))
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(dir), None) = (args.next(), args.next()) else {
        eprintln!("bench_memory: usage: bench_memory DIR");
        return ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("bench_memory: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(PathBuf::from(dir))) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("bench_memory: {error}");
            ExitCode::FAILURE
        }
    }
}
