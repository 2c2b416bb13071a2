//! Discovery, catalog and load on generated skills trees of 1,000 and 10,000 skills.
//!
//! The trees are written at start by `../shared/bench/make_corpus.py` (python3) into a
//! temporary directory: each skill has a `SKILL.md` (frontmatter and a 4 KiB body), three
//! reference files and one script.
//!
//! - `discovery`: `FileSkillsSource::discover` of the whole tree (walk, frontmatter, file lists);
//! - `catalog`: `SkillsProvider::context` over the skills already discovered (the prompt text);
//! - `load`: `Skill::content` of every skill, one after the other (what `load_skill` returns).

use std::hint::black_box;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use skillful::core::{Skill, SourceContext};
use skillful::discovery::FileSkillsSource;
use skillful::inline::InlineSkillsSource;
use skillful::provider::{SkillsProvider, render_skill};
use tokio::runtime::Runtime;

const SIZES: [usize; 2] = [1_000, 10_000];

const MAKE_CORPUS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/bench/make_corpus.py"
);

/// Writes a tree of `skills` skills under `out`.
fn make_corpus(out: &Path, skills: usize) {
    let status = Command::new("python3")
        .arg(MAKE_CORPUS)
        .arg(out)
        .arg("--skills")
        .arg(skills.to_string())
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap_or_else(|error| panic!("cannot run python3 {MAKE_CORPUS}: {error}"));
    assert!(status.success(), "{MAKE_CORPUS} failed: {status}");
}

struct Tree {
    skills: usize,
    source: FileSkillsSource,
    found: Vec<Arc<dyn Skill>>,
    // Keeps the tree on disk until the benchmarks are done.
    _dir: tempfile::TempDir,
}

fn trees(runtime: &Runtime) -> Vec<Tree> {
    SIZES
        .into_iter()
        .map(|skills| {
            let dir = tempfile::tempdir().expect("a temporary directory");
            make_corpus(dir.path(), skills);
            let source = FileSkillsSource::builder()
                .root(dir.path())
                .build()
                .expect("a valid source");
            let found: Vec<Arc<dyn Skill>> = runtime
                .block_on(source.discover())
                .skills
                .into_iter()
                .map(|skill| skill as Arc<dyn Skill>)
                .collect();
            assert_eq!(found.len(), skills, "every generated skill is discovered");
            Tree {
                skills,
                source,
                found,
                _dir: dir,
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let trees = trees(&runtime);

    let mut group = c.benchmark_group("discovery");
    configure(&mut group);
    for tree in &trees {
        group.throughput(Throughput::Elements(tree.skills as u64));
        group.bench_with_input(BenchmarkId::from_parameter(tree.skills), tree, |b, tree| {
            b.iter(|| black_box(runtime.block_on(tree.source.discover())))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("catalog");
    configure(&mut group);
    for tree in &trees {
        let provider = SkillsProvider::new(Arc::new(InlineSkillsSource::from_skills(
            tree.found.clone(),
        )));
        group.throughput(Throughput::Elements(tree.skills as u64));
        group.bench_with_input(BenchmarkId::from_parameter(tree.skills), tree, |b, _| {
            b.iter(|| {
                let run = runtime
                    .block_on(provider.context(&SourceContext::default()))
                    .expect("the catalog");
                black_box(run.instructions().map(str::len))
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("load");
    configure(&mut group);
    for tree in &trees {
        group.throughput(Throughput::Elements(tree.skills as u64));
        group.bench_with_input(BenchmarkId::from_parameter(tree.skills), tree, |b, tree| {
            b.iter(|| {
                runtime.block_on(async {
                    for skill in &tree.found {
                        let document = skill.document().await.expect("the skill's document");
                        black_box(render_skill(skill.as_ref(), &document));
                    }
                })
            })
        });
    }
    group.finish();
}

/// Few samples and short runs: a 10,000-skill discovery takes a good fraction of a second.
fn configure<M: criterion::measurement::Measurement>(group: &mut criterion::BenchmarkGroup<'_, M>) {
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
}

criterion_group!(benches, bench);
criterion_main!(benches);
