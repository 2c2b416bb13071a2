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
}

#[async_trait]
impl<C: ChatClient + ?Sized> ChatClient for Arc<C> {
    async fn get_response(&self, request: ChatRequest) -> Result<ChatResponse, ChatError> {
        (**self).get_response(request).await
    }
}

#[async_trait]
impl<C: ChatClient + ?Sized> ChatClient for Box<C> {
    async fn get_response(&self, request: ChatRequest) -> Result<ChatResponse, ChatError> {
        (**self).get_response(request).await
    }
}
