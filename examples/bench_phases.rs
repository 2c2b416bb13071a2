//! Times the phases of serving a skills tree, for comparison with the Python Microsoft Agent
//! Framework peer (`../shared/bench/peer_maf.py`), whose JSON keys it prints.
//!
//! ```text
//! cargo run --release --example bench_phases -- DIR [--repeat N]
//! ```
//!
//! Prints one JSON line: milliseconds (best of N, default 3) for
//! - `discover`: walk DIR, parse every frontmatter, list every skill's files;
//! - `catalog`: the system-prompt text that advertises every skill;
//! - `load_all`: the full content of every skill (what `load_skill` returns), read from disk;
//! - `load_all_cached`: the same again, from each skill's cache of its `SKILL.md` (revalidated
//!   by the file's stamp); MAF's `load_all` is always this case, as it keeps every skill's text
//!   from discovery on;
//! - `read_all`: the resource `references/ref-0.md` of every skill (what `read_skill_resource`
//!   returns);
//!
//! and `skills` (the number found), `catalog_bytes` (the size of the catalog text),
//! `listing_chars` (the size of its skills part, which the listing budget counts) and
//! `search_p50_ms` (the median of 200 `search_skills` calls with a three-word query, the index
//! built before).

use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use skillful::core::{Skill, SkillsSource, SourceContext};
use skillful::discovery::FileSkillsSource;
use skillful::inline::InlineSkillsSource;
use skillful::provider::{SkillsProvider, render_skill};

const USAGE: &str = "usage: bench_phases DIR [--repeat N]";

/// The resource every skill of the generated tree has.
const RESOURCE: &str = "references/ref-0.md";

struct Args {
    dir: PathBuf,
    repeat: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut dir = None;
    let mut repeat = 3;
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("--repeat") => {
                let value = args
                    .next()
                    .ok_or_else(|| format!("--repeat needs a number\n{USAGE}"))?;
                repeat = value
                    .to_str()
                    .and_then(|v| v.parse::<usize>().ok())
                    .filter(|&n| n > 0)
                    .ok_or_else(|| {
                        format!(
                            "--repeat needs a positive number, not {:?}\n{USAGE}",
                            value.to_string_lossy()
                        )
                    })?;
            }
            Some("-h" | "--help") => return Err(USAGE.to_owned()),
            Some(flag) if flag.starts_with("--") => {
                return Err(format!("unknown option {flag}\n{USAGE}"));
            }
            _ if dir.is_none() => dir = Some(PathBuf::from(arg)),
            _ => {
                return Err(format!(
                    "unexpected argument {:?}\n{USAGE}",
                    arg.to_string_lossy()
                ));
            }
        }
    }
    let dir = dir.ok_or_else(|| USAGE.to_owned())?;
    if !dir.is_dir() {
        return Err(format!("{} is not a directory", dir.display()));
    }
    Ok(Args { dir, repeat })
}

/// The durations of one run, in the order of [`PHASES`].
type Times = [Duration; 5];

const PHASES: [&str; 5] = [
    "discover",
    "catalog",
    "load_all",
    "load_all_cached",
    "read_all",
];

/// What `load_skill` returns for every skill, in order.
async fn load_all(skills: &[Arc<dyn Skill>]) -> Result<(), Box<dyn Error>> {
    for skill in skills {
        let document = skill.document().await?;
        std::hint::black_box(render_skill(skill.as_ref(), &document));
    }
    Ok(())
}

async fn once(source: &FileSkillsSource) -> Result<(Times, Sizes), Box<dyn Error>> {
    let t0 = Instant::now();
    let skills: Vec<Arc<dyn Skill>> = source
        .discover()
        .await
        .skills
        .into_iter()
        .map(|skill| skill as Arc<dyn Skill>)
        .collect();
    let discover = t0.elapsed();

    // The catalog over the skills already found, as the peer builds it from its list.
    let provider = SkillsProvider::new(Arc::new(InlineSkillsSource::from_skills(skills.clone())));
    let t0 = Instant::now();
    let run = provider.context(&SourceContext::default()).await?;
    let catalog_bytes = run.instructions().map_or(0, str::len);
    let catalog = t0.elapsed();
    let listing_chars = run.listing().chars;

    let search = run.tool("search_skills").ok_or("no search_skills tool")?;
    let query = serde_json::json!({"query": "convert report values"});
    search.invoke(query.clone()).await;
    let mut searches = Vec::with_capacity(200);
    for _ in 0..200 {
        let t0 = Instant::now();
        std::hint::black_box(search.invoke(query.clone()).await);
        searches.push(t0.elapsed());
    }
    searches.sort_unstable();
    let search_p50 = searches[searches.len() / 2];

    let t0 = Instant::now();
    load_all(&skills).await?;
    let load_all_first = t0.elapsed();

    let t0 = Instant::now();
    load_all(&skills).await?;
    let load_all_cached = t0.elapsed();

    let t0 = Instant::now();
    for skill in &skills {
        if let Some(resource) = skill.resource(RESOURCE) {
            std::hint::black_box(resource.read().await?);
        }
    }
    let read_all = t0.elapsed();

    Ok((
        [discover, catalog, load_all_first, load_all_cached, read_all],
        Sizes {
            skills: skills.len(),
            catalog_bytes,
            listing_chars,
            search_p50,
        },
    ))
}

/// What one run measured besides the phases.
#[derive(Default)]
struct Sizes {
    skills: usize,
    catalog_bytes: usize,
    listing_chars: usize,
    search_p50: Duration,
}

async fn run(args: Args) -> Result<String, Box<dyn Error>> {
    let source = FileSkillsSource::builder().root(&args.dir).build()?;
    // `SkillsSource` is what a provider would call; make sure the source is one.
    let _: &dyn SkillsSource = &source;
    let mut best: Option<Times> = None;
    let mut sizes = Sizes::default();
    for _ in 0..args.repeat {
        let (times, measured) = once(&source).await?;
        best = Some(match best {
            None => times,
            Some(best) => std::array::from_fn(|i| best[i].min(times[i])),
        });
        sizes = measured;
    }
    let best = best.unwrap_or_default();
    let mut line = String::from("{");
    for (name, time) in PHASES.iter().zip(best) {
        let ms = (time.as_secs_f64() * 1000.0 * 100.0).round() / 100.0;
        line.push_str(&format!("\"{name}\": {ms:?}, "));
    }
    line.push_str(&format!(
        "\"skills\": {}, \"catalog_bytes\": {}, \"listing_chars\": {}, \"search_p50_ms\": {:.4}}}",
        sizes.skills,
        sizes.catalog_bytes,
        sizes.listing_chars,
        sizes.search_p50.as_secs_f64() * 1000.0
    ));
    Ok(line)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("bench_phases: {message}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("bench_phases: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args)) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("bench_phases: {error}");
            ExitCode::FAILURE
        }
    }
}
