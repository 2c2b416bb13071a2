//! Measures what large libraries cost (issue "Large skill libraries", section Measured) on a
//! tree written by `../shared/bench/make_corpus.py`:
//!
//! ```text
//! cargo run --release --example bench_large --features watch -- DIR [--repeat N]
//! ```
//!
//! Prints one JSON line:
//! - `discover_ms`, `index_ms`: a warm discovery, and building the search index over the skills
//!   found (best of N);
//! - `rediscover_one_ms`: discovering again after one `SKILL.md` was rewritten, told which
//!   (median of N);
//! - `reload_ms`: from rewriting one `SKILL.md` to the [`WatchedSource`] announcing the reload,
//!   with a 10 ms debounce (median of N).
//!
//! What the discovered set holds in memory is measured by `examples/bench_memory.rs`, whose
//! instrumented allocator would slow these timings down.

use std::error::Error;
use std::fs;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use skillful::core::Skill;
use skillful::discovery::FileSkillsSource;
use skillful::provider::search::{SearchDocument, SearchIndex};
use skillful::watch::WatchedSource;

const USAGE: &str = "usage: bench_large DIR [--repeat N]";

fn parse_args() -> Result<(PathBuf, usize), String> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().ok_or(USAGE)?;
    let repeat = match (args.next().as_deref(), args.next()) {
        (None, _) => 5,
        (Some("--repeat"), Some(n)) => n.parse::<usize>().ok().filter(|&n| n > 0).ok_or(USAGE)?,
        _ => return Err(USAGE.to_owned()),
    };
    Ok((PathBuf::from(dir), repeat))
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

fn ms(time: Duration) -> f64 {
    (time.as_secs_f64() * 1000.0 * 100.0).round() / 100.0
}

async fn run(dir: PathBuf, repeat: usize) -> Result<String, Box<dyn Error>> {
    let source = FileSkillsSource::builder().root(&dir).build()?;

    let mut found = source.discover().await;
    let mut discover = Duration::MAX;
    let mut index = Duration::MAX;
    for _ in 0..repeat {
        let t0 = Instant::now();
        found = source.discover().await;
        discover = discover.min(t0.elapsed());
        let documents: Vec<SearchDocument> = found
            .skills
            .iter()
            .map(|skill| SearchDocument::new(skill.name(), skill.description()))
            .collect();
        let t0 = Instant::now();
        std::hint::black_box(SearchIndex::new(documents));
        index = index.min(t0.elapsed());
    }

    let touched = found
        .skills
        .get(found.skills.len() / 2)
        .ok_or("no skills found")?
        .skill_md_path();
    let text = fs::read(&touched)?;
    let mut rediscover = Vec::new();
    for _ in 0..repeat {
        fs::write(&touched, &text)?;
        let t0 = Instant::now();
        found = source
            .rediscover(&found, std::slice::from_ref(&touched))
            .await;
        rediscover.push(t0.elapsed());
    }

    let watched = WatchedSource::builder(source)
        .debounce(Duration::from_millis(10))
        .start()
        .await;
    let mut reloads = watched.reloads();
    let mut reload = Vec::new();
    for _ in 0..repeat {
        let t0 = Instant::now();
        fs::write(&touched, &text)?;
        tokio::time::timeout(Duration::from_secs(30), reloads.changed()).await??;
        reload.push(t0.elapsed());
        // Let the watcher's last events of this write pass before the next one.
        tokio::time::sleep(Duration::from_millis(200)).await;
        reloads.borrow_and_update();
    }

    Ok(format!(
        "{{\"skills\": {}, \"discover_ms\": {}, \"index_ms\": {}, \"rediscover_one_ms\": {}, \"reload_ms\": {}}}",
        found.skills.len(),
        ms(discover),
        ms(index),
        ms(median(rediscover)),
        ms(median(reload)),
    ))
}

fn main() -> ExitCode {
    let (dir, repeat) = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("bench_large: {message}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("bench_large: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(dir, repeat)) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("bench_large: {error}");
            ExitCode::FAILURE
        }
    }
}
