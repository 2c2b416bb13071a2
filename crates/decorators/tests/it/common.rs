//! Tools and a policy for the decorator tests.

use std::any::Any;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use skillful_chat::{
    ApprovalResponse, ChatClient, ChatRequest, ChatResponse, Content, Message, OpenAiClient,
    Remember, Role, SharedTool, Tool,
};
use skillful_decorators::{ApprovalPolicy, Decision, RememberError};
use skillful_test_server::{Reply, TestServer};
use tokio::sync::Barrier;

/// What a test tool does when called.
#[derive(Debug)]
pub(crate) enum Behaviour {
    /// Answers `called NAME with ARGS`.
    Echo,
    /// Fails with this message.
    Fail(&'static str),
    /// Waits until another call of a tool sharing the barrier arrives.
    Meet(Arc<Barrier>),
}

/// A tool that counts its calls.
#[derive(Debug)]
pub(crate) struct TestTool {
    name: &'static str,
    schema: Value,
    behaviour: Behaviour,
    calls: AtomicUsize,
}

impl TestTool {
    pub(crate) fn new(name: &'static str, behaviour: Behaviour) -> Arc<Self> {
        Arc::new(Self {
            name,
            schema: json!({"type": "object"}),
            behaviour,
            calls: AtomicUsize::new(0),
        })
    }

    pub(crate) fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl Tool for TestTool {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "A test tool."
    }
    fn parameters(&self) -> &Value {
        &self.schema
    }
    async fn invoke(&self, arguments: Value) -> Result<String, String> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        match &self.behaviour {
            Behaviour::Echo => Ok(format!("called {} with {arguments}", self.name)),
            Behaviour::Fail(message) => Err((*message).to_owned()),
            Behaviour::Meet(barrier) => {
                barrier.wait().await;
                Ok("met".to_owned())
            }
        }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Approves `echo`, refuses `danger`, asks for everything else unless approved for good (by tool
/// name, or by tool name and arguments), which it remembers in memory.
#[derive(Debug, Default)]
pub(crate) struct TestPolicy {
    remembered: Mutex<Vec<(String, Option<Value>)>>,
}

impl TestPolicy {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Whether a call of `name` with `arguments` is approved for good.
    pub(crate) fn covers(&self, name: &str, arguments: &Value) -> bool {
        self.remembered.lock().unwrap().iter().any(|(tool, exact)| {
            tool == name && exact.as_ref().is_none_or(|exact| exact == arguments)
        })
    }
}

#[async_trait]
impl ApprovalPolicy for TestPolicy {
    async fn decide(&self, tool: &dyn Tool, arguments: &Value) -> Decision {
        match tool.name() {
            "echo" => Decision::Approve("echo rule".to_owned()),
            "danger" => Decision::Refuse("it deletes things".to_owned()),
            name if self.covers(name, arguments) => {
                Decision::Approve("remembered approval".to_owned())
            }
            _ => Decision::Ask,
        }
    }

    async fn remember(
        &self,
        tool: &dyn Tool,
        arguments: &Value,
        remember: Remember,
    ) -> Result<(), RememberError> {
        let exact = (remember == Remember::ToolWithArguments).then(|| arguments.clone());
        self.remembered
            .lock()
            .unwrap()
            .push((tool.name().to_owned(), exact));
        Ok(())
    }
}

/// The person's message that answers approval requests with `responses`.
pub(crate) fn answer(responses: Vec<ApprovalResponse>) -> Message {
    Message::new(
        Role::User,
        responses
            .into_iter()
            .map(Content::ApprovalResponse)
            .collect(),
    )
}

/// One turn of `client` over `messages`, offering `tools`.
pub(crate) async fn turn(
    client: &impl ChatClient,
    messages: Vec<Message>,
    tools: &[&Arc<TestTool>],
) -> ChatResponse {
    client.get_response(request(messages, tools)).await.unwrap()
}

pub(crate) fn base(url: &str) -> OpenAiClient {
    OpenAiClient::builder(url)
        .retry_backoff(Duration::from_millis(1))
        .max_retries(0)
        .build()
        .unwrap()
}

pub(crate) fn request(messages: Vec<Message>, tools: &[&Arc<TestTool>]) -> ChatRequest {
    let tools: Vec<SharedTool> = tools
        .iter()
        .map(|tool| Arc::clone(*tool) as SharedTool)
        .collect();
    ChatRequest::new(messages).with_tools(tools)
}

/// A model that calls `name` with the same arguments four times (ids `c1`..`c4`), then answers a
/// text no guarded run should ask for.
pub(crate) fn repeating_model(server: &TestServer, name: &str) {
    for n in 1..=4 {
        server.push(Reply::tool_call(
            &format!("c{n}"),
            name,
            json!({"skillName": "unit-converter"}),
        ));
    }
    server.repeat(Reply::text("never asked"));
}
