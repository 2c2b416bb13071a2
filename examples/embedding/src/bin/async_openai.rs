//! Skills in an agent you already have: the skills provider wired into `async-openai`'s chat
//! completions loop. The catalog goes into the system prompt, the three tools (`load_skill`,
//! `read_skill_resource`, `run_skill_script`) into every request, and each tool call the model
//! makes is run with [`SkillTool::invoke`](skillful::provider::SkillTool::invoke) and answered with a `tool` message.
//!
//! Against any OpenAI-compatible server (`SKILLS_ENDPOINT`, default LM Studio's
//! `http://127.0.0.1:1234/v1`; `SKILLS_MODEL`, default: the server's loaded model;
//! `SKILLS_API_KEY`):
//!
//! ```sh
//! cargo run -p skillful-embedding-examples --bin async_openai -- "A marathon is 26.2 miles. How many km?"
//! ```
//!
//! The skills come from `examples/skills`, read-only: no script runner is configured, so
//! `run_skill_script` tells the model that scripts cannot run here. To run scripts, give the file
//! source a runner (`skillful::scripts::ProcessRunner`, feature `scripts`) and ask before each
//! `run_skill_script` call, by the call's [`SkillTool::risk_tier`](skillful::provider::SkillTool::risk_tier), as the `agent` feature's tool
//! loop does.
//!
//! Dependencies: `async-openai` with `default-features = false, features = ["chat-completion",
//! "rustls-no-provider"]`, handed skillful's HTTP client (rustls on `ring`, see
//! `skillful_http`) so that one TLS set-up is linked. With async-openai's default features,
//! `Client::with_config(config)` works as well.

use std::sync::Arc;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::types::chat::{
    ChatCompletionMessageToolCalls, ChatCompletionRequestAssistantMessage,
    ChatCompletionRequestMessage, ChatCompletionRequestSystemMessage,
    ChatCompletionRequestToolMessage, ChatCompletionRequestUserMessage, ChatCompletionTool,
    ChatCompletionTools, CreateChatCompletionRequestArgs, FunctionObject,
};
use skillful::core::SourceContext;
use skillful::discovery::FileSkillsSource;
use skillful::provider::{RunContext, SkillsProvider};

/// The error of this example: any of the libraries' errors, as text.
type Error = Box<dyn std::error::Error + Send + Sync>;

/// At most this many model calls per question: a model may keep calling tools.
const MAX_MODEL_CALLS: usize = 8;

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
    let mut config = OpenAIConfig::new().with_api_base(endpoint);
    if let Ok(key) = std::env::var("SKILLS_API_KEY") {
        config = config.with_api_key(key);
    }
    let client = Client::build(skillful_http::client_builder()?.build()?, config);

    // Built once: the source and the provider live as long as the application.
    let files = FileSkillsSource::builder().root(SKILLS).build()?;
    let provider = SkillsProvider::new(Arc::new(files));

    println!("{}", answer(&client, &model, &provider, &question).await?);
    Ok(())
}

/// Asks `model` through `client`, with the skills of `provider`: the chat completions loop, until
/// the model answers without calling a tool.
///
/// # Errors
/// The skills source fails as a whole, the server fails, or the model is still calling tools
/// after [`MAX_MODEL_CALLS`] calls.
async fn answer(
    client: &Client<OpenAIConfig>,
    model: &str,
    provider: &SkillsProvider,
    question: &str,
) -> Result<String, Error> {
    // One snapshot of the skills per question: the catalog the model reads and the tools it calls
    // belong together, so both come from the same `RunContext`. A skill added on disk shows up in
    // the next question's snapshot. A session id here (`SourceContext::isolated`) keeps one
    // user's script idempotency keys apart from another's.
    let run = provider.context(&SourceContext::default()).await?;
    let system = format!(
        "You are a helpful assistant.\n\n{}",
        run.instructions().unwrap_or_default()
    );
    let mut messages: Vec<ChatCompletionRequestMessage> = vec![
        ChatCompletionRequestSystemMessage::from(system).into(),
        ChatCompletionRequestUserMessage::from(question).into(),
    ];
    for _ in 0..MAX_MODEL_CALLS {
        let mut request = CreateChatCompletionRequestArgs::default();
        request.model(model).messages(messages.clone());
        if !run.is_empty() {
            request.tools(declarations(&run));
        }
        let response = client.chat().create(request.build()?).await?;
        let message = response
            .choices
            .into_iter()
            .next()
            .ok_or("the server answered with no choice")?
            .message;
        let calls = message.tool_calls.unwrap_or_default();
        if calls.is_empty() {
            return Ok(message.content.unwrap_or_default());
        }
        messages.push(
            ChatCompletionRequestAssistantMessage {
                content: message.content.map(Into::into),
                tool_calls: Some(calls.clone()),
                ..Default::default()
            }
            .into(),
        );
        // Every call is answered, in order, before the next model call.
        for call in calls {
            let (id, output) = match call {
                ChatCompletionMessageToolCalls::Function(call) => {
                    let output = run_tool(&run, &call.function.name, call.function.arguments).await;
                    (call.id, output)
                }
                ChatCompletionMessageToolCalls::Custom(call) => (
                    call.id,
                    format!("`{}` is not a tool here.", call.custom_tool.name),
                ),
            };
            messages.push(
                ChatCompletionRequestToolMessage {
                    content: output.into(),
                    tool_call_id: id,
                }
                .into(),
            );
        }
    }
    Err(format!("the model was still calling tools after {MAX_MODEL_CALLS} calls").into())
}

/// The run's three tools as chat completions function declarations.
fn declarations(run: &RunContext) -> Vec<ChatCompletionTools> {
    run.tools()
        .iter()
        .map(|tool| {
            ChatCompletionTools::Function(ChatCompletionTool {
                function: FunctionObject {
                    name: tool.name().to_owned(),
                    description: Some(tool.description().to_owned()),
                    parameters: Some(tool.parameters().clone()),
                    strict: None,
                },
            })
        })
        .collect()
}

/// Runs the model's call of `name` on this run's skills. The arguments go in as the JSON text
/// the model wrote; mistakes (an unknown skill, arguments that are not JSON) come back as text the
/// model can act on, never as a Rust error.
async fn run_tool(run: &RunContext, name: &str, arguments: String) -> String {
    match run.tool(name) {
        Some(tool) => tool
            .invoke(serde_json::Value::String(arguments))
            .await
            .into_model_text(),
        None => format!(
            "`{name}` is not a tool here; the tools are {}.",
            run.tools()
                .iter()
                .map(|tool| tool.name())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use skillful_test_server::{Reply, TestServer};

    use super::*;

    fn provider() -> SkillsProvider {
        let files = FileSkillsSource::builder().root(SKILLS).build().unwrap();
        SkillsProvider::new(Arc::new(files))
    }

    fn client(server: &TestServer) -> Client<OpenAIConfig> {
        let config = OpenAIConfig::new().with_api_base(server.url());
        Client::build(
            skillful_http::client_builder().unwrap().build().unwrap(),
            config,
        )
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn the_model_gets_the_catalog_and_tools_and_its_calls_are_answered() {
        let server = TestServer::start().await;
        server.push(Reply::tool_call(
            "c1",
            "load_skill",
            json!({"skillName": "unit-converter"}),
        ));
        server.push(Reply::tool_calls(&[
            (
                "c2",
                "read_skill_resource",
                json!({"skillName": "unit-converter", "resourceName": "references/conversion-table.md"}),
            ),
            ("c3", "search_the_web", json!({"query": "marathon"})),
        ]));
        server.push(Reply::text("About 42.16 km."));

        let answer = answer(&client(&server), "local", &provider(), "A marathon in km?")
            .await
            .unwrap();
        assert_eq!(answer, "About 42.16 km.");

        // The strict server accepted every request: each call answered by its id, in order.
        let requests = server.requests();
        assert_eq!(requests.len(), 3);
        assert!(requests.iter().all(|request| request.status == 200));
        for request in &requests {
            let tools: Vec<&str> = request.body["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|tool| tool["function"]["name"].as_str().unwrap())
                .collect();
            assert_eq!(
                tools,
                ["load_skill", "read_skill_resource", "run_skill_script"]
            );
            assert!(request.contents("system")[0].contains("<name>unit-converter</name>"));
            assert_eq!(request.contents("user"), ["A marathon in km?"]);
        }
        let results = requests[2].contents("tool");
        assert!(
            results[0].starts_with("---\nname: unit-converter"),
            "{}",
            results[0]
        );
        assert!(results[1].contains("1.609344"), "{}", results[1]);
        assert_eq!(
            results[2],
            "`search_the_web` is not a tool here; the tools are load_skill, \
             read_skill_resource, run_skill_script."
        );
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_model_that_keeps_calling_tools_is_stopped() {
        let server = TestServer::start().await;
        server.repeat(Reply::tool_call(
            "c1",
            "load_skill",
            json!({"skillName": "no-such-skill"}),
        ));
        let error = answer(&client(&server), "local", &provider(), "Loop.")
            .await
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "the model was still calling tools after 8 calls"
        );
        let requests = server.requests();
        assert_eq!(requests.len(), MAX_MODEL_CALLS);
        // A mistake is text the model can act on: the error object, with a hint.
        let result = &requests[1].contents("tool")[0];
        assert!(result.contains(r#""error""#), "{result}");
    }
}
