//! The `ChatClient` trait every client and decorator implements.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;

use crate::error::ChatError;
use crate::request::{ChatRequest, ChatResponse};

/// Something that answers chat requests: a model server, or a decorator around another client.
#[async_trait]
pub trait ChatClient: Send + Sync + fmt::Debug {
    /// Sends `request` and returns the new messages.
    ///
    /// # Errors
    /// The server could not be reached, answered with an error, or sent something unreadable.
    async fn get_response(&self, request: ChatRequest) -> Result<ChatResponse, ChatError>;

    /// Whether the model's server is on this machine (loopback), when the client knows: a
    /// local engine, typically a small model, rather than a remote service. The default: `None`
    /// (not known).
    fn server_is_local(&self) -> Option<bool> {
        None
    }
}

#[async_trait]
impl<C: ChatClient + ?Sized> ChatClient for Arc<C> {
    async fn get_response(&self, request: ChatRequest) -> Result<ChatResponse, ChatError> {
        (**self).get_response(request).await
    }

    fn server_is_local(&self) -> Option<bool> {
        (**self).server_is_local()
    }
}

#[async_trait]
impl<C: ChatClient + ?Sized> ChatClient for Box<C> {
    async fn get_response(&self, request: ChatRequest) -> Result<ChatResponse, ChatError> {
        (**self).get_response(request).await
    }

    fn server_is_local(&self) -> Option<bool> {
        (**self).server_is_local()
    }
}
