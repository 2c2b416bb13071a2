//! The marathon prompt against a real server (opt-in): `SKILLS_TEST_ENDPOINT=http://127.0.0.1:1234/v1
//! cargo test -p skillful-agent -- --ignored real_server` (optionally `SKILLS_TEST_MODEL`).

use std::sync::Arc;
use std::time::Duration;

use skillful_agent::{Agent, ApprovalRules, AutoApprove, Session};
use skillful_chat::{ChatOptions, OpenAiClient};

use crate::common::{CountingRunner, MARATHON, example_provider};

#[tokio::test]
#[ignore = "needs a real OpenAI-compatible server named by SKILLS_TEST_ENDPOINT"]
async fn the_marathon_prompt_against_a_real_server() {
    let endpoint = std::env::var("SKILLS_TEST_ENDPOINT")
        .expect("set SKILLS_TEST_ENDPOINT to the server's base URL, e.g. http://127.0.0.1:1234/v1");
    let mut builder = OpenAiClient::builder(endpoint).timeout(Duration::from_secs(300));
    if let Ok(model) = std::env::var("SKILLS_TEST_MODEL") {
        builder = builder.model(model);
    }
    let mut options = ChatOptions::default();
    options.temperature = Some(0.0);
    options.max_tokens = Some(512);
    let runner = Arc::new(CountingRunner::default());
    let agent = Agent::builder(builder.build().unwrap())
        .skills(example_provider(runner))
        .approval(ApprovalRules::new(AutoApprove::All).scripts_isolated(true))
        .options(options)
        .build();
    let mut session = Session::new();
    let response = agent.run(MARATHON, &mut session).await.unwrap();
    for message in session.messages() {
        eprintln!("{message:?}");
    }
    assert!(response.pending.is_empty());
    assert!(!response.text().trim().is_empty(), "the model answered");
}
