//! What a discovered library keeps in memory: the heap the discovered set holds, counted by an
//! instrumented allocator, against the bytes of the skills' frontmatter (the large-libraries
//! target is at most twice as much). One test per binary: the allocator counts every thread.

#[path = "it/common.rs"]
mod common;

use std::alloc::System;

use common::Tree;
use skillful_core::{RiskTier, Skill};
use skillful_discovery::FileSkillsSource;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static ALLOCATOR: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const SKILLS: usize = 300;

/// A `SKILL.md` shaped like those of `../shared/bench/make_corpus.py`: every specification
/// field but `allowed-tools`, a folded block, a metadata block, and a body.
fn skill_md(index: usize) -> String {
    format!(
        "---\nname: skill-{index:05}\ndescription: \"Skill number {index}: converts, checks and reports values for domain {}.\"\nlicense: Apache-2.0\ncompatibility: >\n  Needs python3 on PATH.\n  Works offline.\nmetadata:\n  version: \"1.{}.0\"\n  owner: bench\n---\n## Usage\n{}",
        index % 97,
        index % 10,
        "Follow the steps in order.\n".repeat(100)
    )
}

/// The bytes of a `SKILL.md` up to and including its closing `---` line.
fn frontmatter_bytes(text: &str) -> usize {
    let end = text[4..].find("\n---\n").unwrap();
    4 + end + 5
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_discovered_library_holds_at_most_twice_its_frontmatter() {
    let tree = Tree::new();
    let mut frontmatter = 0;
    for index in 0..SKILLS {
        let name = format!("skill-{index:05}");
        let text = skill_md(index);
        frontmatter += frontmatter_bytes(&text);
        tree.write(&format!("{name}/SKILL.md"), &text);
        for reference in 0..3 {
            tree.write(
                &format!("{name}/references/ref-{reference}.md"),
                "# Reference\n",
            );
        }
        tree.write(&format!("{name}/scripts/run_0.py"), "print(1)\n");
    }
    let source = FileSkillsSource::builder()
        .root(&tree.root)
        .build()
        .unwrap();
    // A first discovery starts the blocking pool's threads, which live on between runs.
    drop(source.discover().await);

    let region = Region::new(ALLOCATOR);
    let found = source.discover().await;
    let change = region.change();
    // A reallocation is counted in these two as well.
    let held = change
        .bytes_allocated
        .saturating_sub(change.bytes_deallocated);

    assert_eq!(found.skills.len(), SKILLS);
    assert!(
        held <= 2 * frontmatter,
        "{SKILLS} skills hold {held} bytes of heap for {frontmatter} bytes of frontmatter"
    );

    // Nothing was given up for it: every field, file and tier is there when asked for.
    let skill = &found.skills[42];
    assert_eq!(skill.name(), "skill-00042");
    assert_eq!(
        skill.description(),
        "Skill number 42: converts, checks and reports values for domain 42."
    );
    let typed = skill.frontmatter();
    assert_eq!(typed.license.as_deref(), Some("Apache-2.0"));
    assert_eq!(
        typed.compatibility.as_deref(),
        Some("Needs python3 on PATH. Works offline.\n")
    );
    assert_eq!(typed.metadata["version"], "1.2.0");
    assert_eq!(typed.metadata["owner"], "bench");
    assert_eq!(
        skill.file_names(),
        [
            "SKILL.md",
            "references/ref-0.md",
            "references/ref-1.md",
            "references/ref-2.md",
            "scripts/run_0.py"
        ]
    );
    assert_eq!(skill.scripts()[0].risk_tier(), RiskTier::SCRIPT_DEFAULT);
    assert_eq!(
        skill.origin().location.as_deref(),
        Some(skill.dir().to_str().unwrap())
    );
}
