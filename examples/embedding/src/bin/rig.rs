//! Skills in a [rig](https://docs.rs/rig-agent) agent: an adapter from the skills provider's
//! tools to rig tools, and the one rule that makes it right — **one rig agent per run**.
//!
//! The provider's tools are made per run: [`SkillsProvider::context`] takes a snapshot of the
//! skills and returns the catalog (for the system prompt) together with the three tools
//! (`load_skill`, `read_skill_resource`, `run_skill_script`) that work on exactly that snapshot.
//! rig registers tools when an agent is built. So build the agent for each run, from that run's
//! [`RunContext`]: the catalog the model reads and the tools it calls then always agree, a skill
//! added or removed on disk shows up in the next run, and each session's context
//! ([`SourceContext::isolated`]) keeps its own script idempotency keys. Building a rig agent is
//! cheap (no task, no connection); the model client is made once and cloned into each agent.
//! Registering one run's tools into a long-lived agent would keep serving that first snapshot.
//!
//! Against any OpenAI-compatible server (`SKILLS_ENDPOINT`, default LM Studio's
//! `http://127.0.0.1:1234/v1`; `SKILLS_MODEL`; `SKILLS_API_KEY`):
//!
//! ```sh
//! cargo run -p skillful-embedding-examples --bin rig -- "A marathon is 26.2 miles. How many km?"
//! ```
//!
//! The skills come from `examples/skills`, read-only (no script runner: `run_skill_script` tells
//! the model scripts cannot run here; see `async_openai.rs` beside it on running them).
//!
//! Dependencies: `rig-core` and `rig-agent` 0.42 with `default-features = false`; the OpenAI
//! client is handed skillful's HTTP client (rustls on `ring`, see `skillful_http`) so that one
//! TLS set-up is linked.

use std::sync::Arc;

use rig_agent::completion::Prompt;
use rig_agent::{Agent, AgentBuilder};
use rig_core::client::CompletionClient;
use rig_core::completion::CompletionModel;
use rig_core::providers::openai;
use rig_core::tool::{PortableDynamicTool, ToolOutput};
use skillful::core::{SkillError, SourceContext};
use skillful::discovery::FileSkillsSource;
use skillful::provider::{RunContext, SkillsProvider};

/// The error of this example: any of the libraries' errors, as text.
type Error = Box<dyn std::error::Error + Send + Sync>;

/// At most this many model calls per question: a model may keep calling tools.
const MAX_MODEL_CALLS: usize = 8;

const PREAMBLE: &str = "You are a helpful assistant.";

const SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../skills");

#[tokio::main]
async fn main() -> Result<(), Error> {
    let question = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "A marathon is 26.2 miles. How many km?".to_owned());
    let endpoint =
        std::env::var("SKILLS_ENDPOINT").unwrap_or_else(|_| "http://127.0.0.1:1234/v1".to_owned());
    // Local servers answer with the model they have loaded, whatever the name.
    let model = std::env::var("SKILLS_MODEL").unwrap_or_else(|_| "local".to_owned());
    let key = std::env::var("SKILLS_API_KEY").unwrap_or_else(|_| "none".to_owned());
    let model = chat_model(&endpoint, &key, &model)?;

    // Built once: the source and the provider live as long as the application.
    let files = FileSkillsSource::builder().root(SKILLS).build()?;
    let provider = SkillsProvider::new(Arc::new(files));

    // Per run (here: per question), a fresh agent over a fresh snapshot.
    let agent = skills_agent(model, &provider, &SourceContext::default()).await?;
    println!(
        "{}",
        agent.prompt(question).max_turns(MAX_MODEL_CALLS).await?
    );
    Ok(())
}

/// rig's OpenAI chat completions model at `endpoint`, on skillful's HTTP client.
///
/// # Errors
/// The TLS set-up or the client cannot be built.
fn chat_model(
    endpoint: &str,
    key: &str,
    model: &str,
) -> Result<openai::completion::CompletionModel, Error> {
    let client = openai::CompletionsClient::builder()
        .api_key(key)
        .base_url(endpoint)
        .http_client(skillful_http::client_builder()?.build()?)
        .build()?;
    Ok(client.completion_model(model))
}

/// A rig agent for one run: the preamble with the run's catalog appended, and the run's tools.
///
/// # Errors
/// The skills source fails as a whole.
async fn skills_agent<M>(
    model: M,
    provider: &SkillsProvider,
    context: &SourceContext,
) -> Result<Agent, SkillError>
where
    M: CompletionModel + 'static,
{
    let run = provider.context(context).await?;
    let builder = AgentBuilder::new(model)
        .preamble(PREAMBLE)
        .append_preamble(run.instructions().unwrap_or_default());
    let mut tools = rig_tools(&run).into_iter();
    Ok(match tools.next() {
        // No skills: no catalog and no tools.
        None => builder.build(),
        Some(first) => tools
            .fold(builder.portable_dynamic_tool(first), |builder, tool| {
                builder.portable_dynamic_tool(tool)
            })
            .build(),
    })
}

/// The adapter: each of the run's tools as a rig tool with the same name, description and JSON
/// schema, whose call runs [`SkillTool::invoke`](skillful::provider::SkillTool::invoke).
///
/// A skill tool never fails as a Rust call: a mistake (an unknown skill, bad arguments) is an
/// error object with a hint that the model reads and acts on, so it goes back as the tool's
/// output, as it would from any other host.
fn rig_tools(run: &RunContext) -> Vec<PortableDynamicTool> {
    run.tools()
        .iter()
        .map(|tool| {
            let call = tool.clone();
            PortableDynamicTool::new(
                tool.name(),
                tool.description(),
                tool.parameters().clone(),
                move |arguments| {
                    let tool = call.clone();
                    Box::pin(async move {
                        Ok(ToolOutput::text(
                            tool.invoke(arguments).await.into_model_text(),
                        ))
                    })
                },
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::{Value, json};
    use skillful_test_server::{Reply, TestServer};

    use super::*;

    fn model(server: &TestServer) -> openai::completion::CompletionModel {
        chat_model(server.url(), "test-key", "local").unwrap()
    }

    fn provider(root: &Path) -> SkillsProvider {
        let files = FileSkillsSource::builder().root(root).build().unwrap();
        SkillsProvider::new(Arc::new(files))
    }

    /// The text of each message of `role` in a request: rig sends a string or text parts.
    fn texts(request: &Value, role: &str) -> Vec<String> {
        request["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|message| message["role"] == role)
            .map(|message| match &message["content"] {
                Value::String(text) => text.clone(),
                parts => parts
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|part| part["text"].as_str().unwrap())
                    .collect(),
            })
            .collect()
    }

    fn tool_names(request: &Value) -> Vec<String> {
        request["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|tool| tool["function"]["name"].as_str().unwrap().to_owned())
            .collect()
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn the_agent_gets_the_catalog_and_tools_and_its_calls_run() {
        let server = TestServer::start().await;
        server.push(Reply::tool_call(
            "c1",
            "load_skill",
            json!({"skillName": "unit-converter"}),
        ));
        server.push(Reply::tool_call(
            "c2",
            "read_skill_resource",
            json!({"skillName": "unit-converter", "resourceName": "references/conversion-table.md"}),
        ));
        server.push(Reply::text("About 42.16 km."));

        let agent = skills_agent(
            model(&server),
            &provider(Path::new(SKILLS)),
            &SourceContext::default(),
        )
        .await
        .unwrap();
        let answer = agent
            .prompt("A marathon in km?")
            .max_turns(MAX_MODEL_CALLS)
            .await
            .unwrap();
        assert_eq!(answer, "About 42.16 km.");

        let requests = server.requests();
        assert_eq!(requests.len(), 3);
        for request in &requests {
            assert_eq!(request.status, 200, "{:?}", request.body);
            let mut names = tool_names(&request.body);
            names.sort();
            assert_eq!(
                names,
                ["load_skill", "read_skill_resource", "run_skill_script"]
            );
            let system = &texts(&request.body, "system")[0];
            assert!(system.starts_with(PREAMBLE), "{system}");
            assert!(system.contains("<name>unit-converter</name>"), "{system}");
        }
        let results = texts(&requests[2].body, "tool");
        assert_eq!(results.len(), 2, "{:?}", requests[2].body);
        assert!(
            results[0].starts_with("---\nname: unit-converter"),
            "{}",
            results[0]
        );
        assert!(results[1].contains("1.609344"), "{}", results[1]);
    }

    fn write_skill(root: &Path, name: &str) {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: The {name} skill.\n---\nUse {name}.\n"),
        )
        .unwrap();
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn each_run_gets_an_agent_over_the_skills_of_that_moment() {
        let root = tempfile::tempdir().unwrap();
        write_skill(root.path(), "alpha");
        let provider = provider(root.path());
        let server = TestServer::start().await;
        let call_beta = Reply::tool_call("c1", "load_skill", json!({"skillName": "beta"}));
        let model = model(&server);

        let first = skills_agent(model.clone(), &provider, &SourceContext::default())
            .await
            .unwrap();
        // `beta` appears on disk while the first agent exists: its run keeps its snapshot.
        write_skill(root.path(), "beta");
        server.push(call_beta.clone());
        server.push(Reply::text("No beta."));
        first
            .prompt("Use beta.")
            .max_turns(MAX_MODEL_CALLS)
            .await
            .unwrap();

        let second = skills_agent(model, &provider, &SourceContext::default())
            .await
            .unwrap();
        server.push(call_beta);
        server.push(Reply::text("Used beta."));
        second
            .prompt("Use beta.")
            .max_turns(MAX_MODEL_CALLS)
            .await
            .unwrap();

        let requests = server.requests();
        assert_eq!(requests.len(), 4);
        let (first_catalog, second_catalog) = (
            &texts(&requests[0].body, "system")[0],
            &texts(&requests[2].body, "system")[0],
        );
        assert!(!first_catalog.contains("<name>beta</name>"));
        assert!(second_catalog.contains("<name>beta</name>"));
        let refused = &texts(&requests[1].body, "tool")[0];
        assert!(refused.contains(r#""error""#), "{refused}");
        let loaded = &texts(&requests[3].body, "tool")[0];
        assert!(loaded.contains("Use beta."), "{loaded}");
    }
}
