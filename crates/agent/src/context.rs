//! Context providers: what each run adds to the instructions and the tools.

use std::any::Any;
use std::fmt;

use async_trait::async_trait;
use skillful_chat::{SharedTool, Tool};
use skillful_provider::{SkillTool, ToolOutput};

use crate::error::AgentError;
use crate::session::Session;

/// What a [`ContextProvider`] adds to one run.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// Text appended to the system prompt.
    pub instructions: Option<String>,
    /// Tools offered to the model.
    pub tools: Vec<SharedTool>,
}

/// Adds instructions and tools to every run of an agent (the skills provider is one).
#[async_trait]
pub trait ContextProvider: Send + Sync + fmt::Debug {
    /// What to add to a run of `session`.
    ///
    /// # Errors
    /// The provider could not say (its source failed); the run does not start.
    async fn context(&self, session: &Session) -> Result<Context, AgentError>;
}

/// A [`SkillTool`] as a chat tool. The approval policy recognises the provider's tools by this
/// type and the tool's [`ToolId`](skillful_provider::ToolId), never by name.
#[derive(Debug)]
pub(crate) struct SkillFunction(pub(crate) SkillTool);

#[async_trait]
impl Tool for SkillFunction {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn description(&self) -> &str {
        self.0.description()
    }

    fn parameters(&self) -> &serde_json::Value {
        self.0.parameters()
    }

    async fn invoke(&self, arguments: serde_json::Value) -> Result<String, String> {
        crate::spans::record_skill(&self.0, &arguments);
        match self.0.invoke(arguments).await {
            ToolOutput::Text(text) => Ok(text),
            error @ ToolOutput::Error(_) => Err(error.into_model_text()),
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
