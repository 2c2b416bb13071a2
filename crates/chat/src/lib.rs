//! A chat model's side of an agent: the message model, the [`ChatClient`] trait every client
//! and decorator implements, and [`OpenAiClient`] for any OpenAI-compatible server.
//!
//! Messages hold text, tool calls, tool results, and the approval requests and answers that hold
//! a call back until a person says yes. A [`Tool`] is a declaration plus the code that runs it;
//! clients send the declaration, the function-invocation decorator runs the code.
//!
//! **It knows nothing of skills**, decorators or agents: those build on it.
//!
//! # Example
//! ```no_run
//! use skillful_chat::{ChatClient, ChatRequest, Message, OpenAiClient};
//!
//! # async fn demo() -> Result<(), skillful_chat::ChatError> {
//! let client = OpenAiClient::builder(skillful_chat::DEFAULT_BASE_URL).build()?;
//! let request = ChatRequest::new(vec![
//!     Message::system("Answer in one word."),
//!     Message::user("What colour is the sky?"),
//! ]);
//! let response = client.get_response(request).await?;
//! println!("{}", response.text());
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]

mod body;
mod client;
mod endpoint;
mod error;
mod message;
mod openai;
mod request;
mod tool;
mod wire;

pub use client::ChatClient;
pub use endpoint::check_base_url;
pub use error::ChatError;
pub use message::{
    ApprovalRequest, ApprovalResponse, Content, FunctionCall, FunctionResult, Message, Remember,
    Role,
};
pub use openai::{DEFAULT_BASE_URL, DEFAULT_MAX_RESPONSE_BYTES, OpenAiClient, OpenAiClientBuilder};
pub use request::{ChatOptions, ChatRequest, ChatResponse, ResponseFormat, ToolChoice, Usage};
pub use skillful_http::redact_url;
pub use tool::{SharedTool, Tool};

#[cfg(test)]
mod tests {
    /// Of the workspace, the chat client links the HTTP client set-up alone: nothing of skills,
    /// decorators or agents.
    #[test]
    fn the_chat_client_links_no_crate_of_skills_decorators_or_agents() {
        assert_eq!(
            skillful_test_support::skillful_dependencies(include_str!("../Cargo.toml")),
            ["skillful-http"]
        );
    }
}
