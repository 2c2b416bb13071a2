//! Parser throughput on real SKILL.md files and on a large synthetic frontmatter.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use skillful::frontmatter::{FrontmatterLoader, ParseOptions, ValidationMode, parse};

fn corpus() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpora");
    let mut files = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == "SKILL.md") {
                let dir = path
                    .parent()
                    .unwrap()
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                files.push((dir, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    files
}

fn bench(c: &mut Criterion) {
    let files = corpus();
    let loader = FrontmatterLoader::new(ValidationMode::Lenient);
    let bytes: usize = files.iter().map(|(_, text)| text.len()).sum();
    let mut group = c.benchmark_group("frontmatter");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("load corpus (lenient)", |b| {
        b.iter(|| {
            for (dir, text) in &files {
                let _ = black_box(loader.load(text, Some(dir)));
            }
        })
    });
    let synthetic: String = std::iter::once("---\nname: big\ndescription: >-\n".to_owned())
        .chain((0..2000).map(|i| format!("  line {i} of a long folded description\n")))
        .chain((0..500).map(|i| format!("key{i}: [a, \"b\", {{c: {i}}}]\n")))
        .chain(std::iter::once("---\n".to_owned()))
        .collect();
    let options = ParseOptions::default().with_max_frontmatter_bytes(synthetic.len());
    group.throughput(Throughput::Bytes(synthetic.len() as u64));
    group.bench_function("parse 100 KiB frontmatter", |b| {
        b.iter(|| black_box(parse(&synthetic, &options).unwrap()))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
