//! Class-skill plugins: how long loading one takes, and what a call into one costs.
//!
//! The example plugins are built first (release, by a nested `cargo build`).
//!
//! - `load/cold`: [`PluginSkill::load`] of a library never loaded before (a fresh copy each
//!   time): open and relocate it, check its interface, read its description. Measured by hand
//!   over a few copies (each copy stays mapped for the life of the process), printed first;
//! - `load/warm`: the same for a library already mapped (the interface check and description);
//! - `call/inline-echo`: an inline script returning its argument, for the baseline of a script
//!   call on the same runtime (argument decoding, the async call);
//! - `call/spawn-blocking-noop`: a `spawn_blocking` of nothing, the hop every plugin call makes
//!   off the async runtime's threads;
//! - `call/boundary-script`: the same script called straight through the root module, on this
//!   thread: the boundary (an `extern "C"` call, the plugin's `catch_unwind`, the result's
//!   `RString`) plus the script's own work (decoding its arguments, converting, formatting);
//! - `call/plugin-script`: `convert-temperature` of `temperature-converter` through
//!   [`SkillScript::run`](skillful::core::SkillScript::run): to JSON text, `spawn_blocking`,
//!   across the boundary, the plugin's own argument decoding and work, and back;
//! - `call/plugin-resource`: a read of `clock`'s dynamic `current-time`.
//!
//! The call overhead of a plugin is `call/plugin-*` minus the script's own work; most of it is
//! the `spawn_blocking` hop (two thread wake-ups), the rest the boundary itself.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use abi_stable::library::lib_header_from_path;
use abi_stable::std_types::RStr;
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use skillful::core::{Skill, SkillError};
use skillful::inline::InlineSkill;
use skillful::plugins::PluginSkill;
use skillful_plugin_abi::ffi::SkillPluginRef;
use skillful_plugin_build::PluginBuild;
use tokio::runtime::Runtime;

const COLD_LOADS: u32 = 20;

/// The release builds of the example plugins, by library name.
fn libraries() -> Vec<(String, PathBuf)> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    PluginBuild::new()
        .manifest_path(workspace)
        .package("temperature-converter")
        .package("clock")
        .release(true)
        .run()
        .unwrap_or_else(|error| panic!("{error}"))
        .into_iter()
        .map(|library| (library.name, library.path))
        .collect()
}

fn library<'a>(libraries: &'a [(String, PathBuf)], name: &str) -> &'a Path {
    &libraries
        .iter()
        .find(|(found, _)| found == name)
        .expect("built")
        .1
}

/// Loads `COLD_LOADS` fresh copies of `library` and prints the mean and fastest load.
fn cold_loads(library: &Path) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut times = Vec::new();
    for copy in 0..COLD_LOADS {
        let path = dir
            .path()
            .join(format!("libcopy{copy}.{}", std::env::consts::DLL_EXTENSION));
        std::fs::copy(library, &path).expect("a copy of the plugin");
        let start = Instant::now();
        black_box(PluginSkill::load(&path).expect("the plugin loads"));
        times.push(start.elapsed());
    }
    let mean = times.iter().sum::<Duration>() / COLD_LOADS;
    let fastest = times.iter().min().expect("some loads");
    println!(
        "plugins/load/cold: mean {mean:?}, fastest {fastest:?} over {COLD_LOADS} fresh copies"
    );
}

fn plugins(c: &mut Criterion) {
    let libraries = libraries();
    let converter = library(&libraries, "temperature_converter");
    cold_loads(converter);

    let mut group = c.benchmark_group("plugins");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(2));

    group.bench_function("load/warm", |b| {
        b.iter(|| PluginSkill::load(black_box(converter)).expect("the plugin loads"))
    });

    let module = lib_header_from_path(converter)
        .and_then(|header| header.init_root_module::<SkillPluginRef>())
        .expect("the plugin loads");
    group.bench_function("call/boundary-script", |b| {
        let run = module.run_script();
        let arguments = r#"{"value":100,"from":"C","to":"F"}"#;
        b.iter(|| {
            run(
                RStr::from("convert-temperature"),
                RStr::from(black_box(arguments)),
            )
            .into_result()
            .expect("the script succeeds")
        })
    });

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .expect("a runtime");
    let echo = InlineSkill::builder("echo", "Echoes.")
        .instructions("Echo.")
        .script(
            "echo",
            "Returns its text.",
            |args: serde_json::Value| async move { Ok::<_, SkillError>(args.to_string()) },
        )
        .build()
        .expect("a valid skill");
    let skill = PluginSkill::load(converter).expect("the plugin loads");
    let clock = PluginSkill::load(library(&libraries, "clock")).expect("the plugin loads");
    let arguments = json!({"value": 100, "from": "C", "to": "F"});
    bench_call(&mut group, &runtime, "call/inline-echo", || {
        let script = echo.script("echo").expect("listed");
        let arguments = arguments.clone();
        async move { script.run(arguments).await.map(drop) }
    });
    bench_call(&mut group, &runtime, "call/spawn-blocking-noop", || async {
        tokio::task::spawn_blocking(|| ())
            .await
            .map_err(|error| SkillError::Other(error.to_string()))
    });
    bench_call(&mut group, &runtime, "call/plugin-script", || {
        let script = skill.script("convert-temperature").expect("listed");
        let arguments = arguments.clone();
        async move { script.run(arguments).await.map(drop) }
    });
    bench_call(&mut group, &runtime, "call/plugin-resource", || {
        let resource = clock.resource("current-time").expect("listed");
        async move { resource.read().await.map(drop) }
    });
    group.finish();
}

/// Benchmarks `call` run to completion on `runtime`, as an agent's tool call would be.
fn bench_call<F, Fut>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    runtime: &Runtime,
    name: &str,
    call: F,
) where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<(), SkillError>>,
{
    group.bench_function(name, |b| {
        b.iter(|| runtime.block_on(call()).expect("the call succeeds"))
    });
}

criterion_group!(benches, plugins);
criterion_main!(benches);
