//! `run_skill_script`'s idempotency key: a retry returns the first result, once per session.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use skillful_core::{Skill, SourceContext};
use skillful_inline::{InlineSkill, InlineSkillsSource};
use skillful_provider::{ProviderError, RunContext, SkillsProvider, ToolErrorCode};

use crate::common::{call, expect_error, expect_text};

#[derive(Deserialize, JsonSchema)]
struct Step {
    #[serde(default)]
    amount: u32,
    #[serde(default)]
    fail: bool,
}

/// A provider over one skill whose scripts `count` and `other` add `amount` to `runs` and say
/// how many times they ran; `fail: true` fails instead (after counting).
fn counting_provider(runs: &Arc<AtomicUsize>, keys: usize) -> SkillsProvider {
    let script = |runs: Arc<AtomicUsize>| {
        move |step: Step| {
            let runs = Arc::clone(&runs);
            async move {
                let total = runs.fetch_add(1, Ordering::SeqCst) + 1;
                if step.fail {
                    return Err(skillful_core::SkillError::Other("flaky".into()));
                }
                Ok(format!("run {total} added {}", step.amount))
            }
        }
    };
    let skill = InlineSkill::builder("counter", "Counts runs.")
        .instructions("Count.")
        .script("count", "Counts.", script(Arc::clone(runs)))
        .script("other", "Counts too.", script(Arc::clone(runs)))
        .build()
        .unwrap();
    let skills = vec![Arc::new(skill) as Arc<dyn Skill>];
    SkillsProvider::builder(Arc::new(InlineSkillsSource::from_skills(skills)))
        .idempotency_keys(keys)
        .build()
        .unwrap()
}

async fn session(provider: &SkillsProvider, key: Option<&str>) -> RunContext {
    let context = key.map(SourceContext::isolated).unwrap_or_default();
    provider.context(&context).await.unwrap()
}

/// The run counter, a counting provider remembering `keys` keys, and a run of its shared session.
async fn counting(keys: usize) -> (Arc<AtomicUsize>, SkillsProvider, RunContext) {
    let runs = Arc::new(AtomicUsize::new(0));
    let provider = counting_provider(&runs, keys);
    let run = session(&provider, None).await;
    (runs, provider, run)
}

fn counted(script: &str, key: &str, arguments: Value) -> Value {
    json!({"skillName": "counter", "scriptName": script, "arguments": arguments, "idempotencyKey": key})
}

const REPLAYED: &str = "\n\n[replayed: idempotencyKey 'k1' was already used for this call; this is the first call's result, and the script did not run again]";

#[tokio::test]
async fn a_repeated_key_returns_the_first_result_without_running_again() {
    let (runs, provider, run) = counting(10).await;
    let call_once = counted("count", "k1", json!({"amount": 2, "fail": false}));
    let first = expect_text(call(&run, "run_skill_script", call_once.clone()).await);
    assert_eq!(first, "run 1 added 2");
    // A later run of the same session (a new RunContext) still replays, with the arguments
    // in another key order.
    let again = session(&provider, None).await;
    let retry = counted("count", "k1", json!({"fail": false, "amount": 2}));
    let second = expect_text(call(&again, "run_skill_script", retry).await);
    assert_eq!(second, format!("run 1 added 2{REPLAYED}"));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    // Without a key, or with a new one, the script runs.
    let unkeyed =
        json!({"skillName": "counter", "scriptName": "count", "arguments": {"amount": 2}});
    assert_eq!(
        expect_text(call(&run, "run_skill_script", unkeyed).await),
        "run 2 added 2"
    );
    let fresh = counted("count", "k2", json!({"amount": 2}));
    assert_eq!(
        expect_text(call(&run, "run_skill_script", fresh).await),
        "run 3 added 2"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_repeats_wait_for_the_first_call_and_run_the_script_once() {
    let runs = Arc::new(AtomicUsize::new(0));
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let skill = {
        let (runs, gate) = (Arc::clone(&runs), Arc::clone(&gate));
        InlineSkill::builder("counter", "Counts runs.")
            .instructions("Count.")
            .script("count", "Counts.", move |_: Step| {
                let (runs, gate) = (Arc::clone(&runs), Arc::clone(&gate));
                async move {
                    let total = runs.fetch_add(1, Ordering::SeqCst) + 1;
                    // Held open until the test has started every call.
                    drop(gate.acquire().await.unwrap());
                    Ok(format!("run {total}"))
                }
            })
            .build()
            .unwrap()
    };
    let provider = SkillsProvider::new(Arc::new(InlineSkillsSource::new([skill])));
    let run = session(&provider, None).await;
    let tool = run.tool("run_skill_script").unwrap().clone();
    let calls: Vec<_> = (0..8)
        .map(|_| {
            let tool = tool.clone();
            tokio::spawn(async move { tool.invoke(counted("count", "k1", json!(null))).await })
        })
        .collect();
    while runs.load(Ordering::SeqCst) == 0 {
        tokio::task::yield_now().await;
    }
    // Give the other calls time to arrive while the first one is still running.
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    gate.add_permits(8);
    let mut texts = Vec::new();
    for handle in calls {
        texts.push(expect_text(handle.await.unwrap()));
    }
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(texts.iter().filter(|text| *text == "run 1").count(), 1);
    assert!(
        texts.iter().all(|text| text.starts_with("run 1")),
        "{texts:?}"
    );
}

#[tokio::test]
async fn a_key_reused_for_another_call_is_refused_with_a_hint() {
    let (runs, _provider, run) = counting(10).await;
    expect_text(
        call(
            &run,
            "run_skill_script",
            counted("count", "k1", json!({"amount": 1})),
        )
        .await,
    );
    for conflicting in [
        counted("count", "k1", json!({"amount": 5})),
        counted("other", "k1", json!({"amount": 1})),
    ] {
        let error = expect_error(call(&run, "run_skill_script", conflicting).await);
        assert_eq!(error.code, ToolErrorCode::IdempotencyKeyReused);
        assert_eq!(
            error.message,
            "Error: idempotencyKey 'k1' was already used for a different call (script 'count' of skill 'counter' with arguments {\"amount\":1})."
        );
        assert!(error.hint.contains("Use a new idempotencyKey"));
        assert!(!error.retryable);
    }
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(
        error_code_name(ToolErrorCode::IdempotencyKeyReused),
        "\"idempotency_key_reused\""
    );
}

fn error_code_name(code: ToolErrorCode) -> String {
    serde_json::to_string(&code).unwrap()
}

#[tokio::test]
async fn sessions_do_not_share_keys() {
    let runs = Arc::new(AtomicUsize::new(0));
    let provider = counting_provider(&runs, 10);
    let arguments = counted("count", "k1", json!({"amount": 1}));
    for tenant in [None, Some("alice"), Some("bob")] {
        let run = session(&provider, tenant).await;
        expect_text(call(&run, "run_skill_script", arguments.clone()).await);
    }
    assert_eq!(runs.load(Ordering::SeqCst), 3);
    // Another provider remembers nothing of this one.
    let other = counting_provider(&runs, 10);
    let run = session(&other, None).await;
    assert_eq!(
        expect_text(call(&run, "run_skill_script", arguments).await),
        "run 4 added 1"
    );
}

#[tokio::test]
async fn a_failed_call_is_not_remembered_so_a_retry_runs_again() {
    let (runs, _provider, run) = counting(10).await;
    let failing = counted("count", "k1", json!({"fail": true}));
    let error = expect_error(call(&run, "run_skill_script", failing.clone()).await);
    assert_eq!(error.code, ToolErrorCode::ScriptFailed);
    expect_error(call(&run, "run_skill_script", failing).await);
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn only_the_most_recently_used_keys_are_remembered() {
    let (runs, _provider, run) = counting(1).await;
    for key in ["k1", "k2", "k1"] {
        expect_text(call(&run, "run_skill_script", counted("count", key, json!(null))).await);
    }
    assert_eq!(runs.load(Ordering::SeqCst), 3);
    let error = SkillsProvider::builder(Arc::new(InlineSkillsSource::default()))
        .idempotency_keys(0)
        .build()
        .unwrap_err();
    assert_eq!(error, ProviderError::ZeroIdempotencyKeys);
}

#[tokio::test]
async fn a_blank_key_is_an_invalid_argument_and_the_schema_offers_the_key() {
    let (runs, _provider, run) = counting(10).await;
    let error =
        expect_error(call(&run, "run_skill_script", counted("count", " ", json!(null))).await);
    assert_eq!(error.code, ToolErrorCode::InvalidArguments);
    assert_eq!(error.message, "Error: idempotencyKey cannot be empty.");
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    let schema = run.tool("run_skill_script").unwrap().parameters();
    assert_eq!(schema["properties"]["idempotencyKey"]["type"], "string");
    assert!(
        !schema["required"]
            .as_array()
            .unwrap()
            .contains(&json!("idempotencyKey"))
    );
}
