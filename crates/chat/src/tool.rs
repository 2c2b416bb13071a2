//! A tool a model may call: its declaration for the model and the code that runs it.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;

/// A tool offered to the model: a name, a description and a JSON schema of its parameters, and
/// [`Tool::invoke`] to run it.
///
/// Clients send the declaration; the function-invocation decorator runs the tool. Identity is the
/// instance: [`Tool::as_any`] lets a policy recognise its own tools whatever they are called.
#[async_trait]
pub trait Tool: Send + Sync + fmt::Debug {
    /// The name the model calls it by.
    fn name(&self) -> &str;

    /// What it does, for the model.
    fn description(&self) -> &str;

    /// The JSON schema of its arguments.
    fn parameters(&self) -> &serde_json::Value;

    /// Runs the tool on the model's arguments: `Ok` with the text for the model, or `Err` with an
    /// error the model is shown instead.
    async fn invoke(&self, arguments: serde_json::Value) -> Result<String, String>;

    /// The tool as [`Any`], so that code which made it can recognise it.
    fn as_any(&self) -> &dyn Any;
}

/// A shared tool.
pub type SharedTool = Arc<dyn Tool>;
