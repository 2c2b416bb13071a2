//! Ensure-user-message: strict chat templates need a user query in every request.

use std::fmt;
use std::num::NonZeroUsize;
use std::sync::Mutex;

use async_trait::async_trait;
use lru::LruCache;
use skillful_chat::{ChatClient, ChatError, ChatRequest, ChatResponse, Message, Role};

use crate::layer::Layer;

/// How many conversations' queries an [`EnsureUserMessage`] remembers by default; the least
/// recently used is forgotten first.
pub const DEFAULT_REMEMBERED_CONVERSATIONS: NonZeroUsize = NonZeroUsize::new(1024).unwrap();

/// Remembers the last user query of each conversation (keyed by
/// [`ChatOptions::conversation_id`](skillful_chat::ChatOptions)) and puts it back, after the
/// leading system messages, into a request that has none.
///
/// Local engines with Qwen-family templates answer `No user query found in messages.` to a
/// request whose messages hold tool calls and results but no user message whose content is a
/// plain non-empty string. A request that already has one is passed on unchanged, so the query is
/// never duplicated.
///
/// Memory is bounded: the queries of the [`DEFAULT_REMEMBERED_CONVERSATIONS`] most recently used
/// conversations are kept ([`EnsureUserMessage::with_capacity`] sets another number). A request
/// without a conversation id is passed on as it is and nothing is remembered from it: requests
/// of different conversations never share a query.
///
/// # Example
/// ```
/// use skillful_decorators::{EnsureUserMessageLayer, Layer};
/// use skillful_chat::OpenAiClient;
///
/// let client = EnsureUserMessageLayer.layer(OpenAiClient::builder("http://127.0.0.1:1234/v1").build().unwrap());
/// # let _ = client;
/// ```
pub struct EnsureUserMessage<C> {
    inner: C,
    queries: Mutex<LruCache<String, String>>,
}

impl<C> EnsureUserMessage<C> {
    /// Wraps `inner`, remembering the queries of [`DEFAULT_REMEMBERED_CONVERSATIONS`]
    /// conversations.
    pub fn new(inner: C) -> Self {
        Self::with_capacity(inner, DEFAULT_REMEMBERED_CONVERSATIONS)
    }

    /// Wraps `inner`, remembering the queries of the `conversations` most recently used
    /// conversations.
    pub fn with_capacity(inner: C, conversations: NonZeroUsize) -> Self {
        Self {
            inner,
            queries: Mutex::new(LruCache::new(conversations)),
        }
    }
}

impl<C: fmt::Debug> fmt::Debug for EnsureUserMessage<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EnsureUserMessage")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl<C: ChatClient> ChatClient for EnsureUserMessage<C> {
    async fn get_response(&self, mut request: ChatRequest) -> Result<ChatResponse, ChatError> {
        if let Some(key) = request.options.conversation_id.clone() {
            let query = request.messages.iter().rev().find_map(Message::user_query);
            let mut queries = self
                .queries
                .lock()
                .unwrap_or_else(|poison| poison.into_inner());
            match query {
                Some(query) => {
                    queries.put(key, query);
                }
                None => {
                    if let Some(query) = queries.get(&key) {
                        let at = request
                            .messages
                            .iter()
                            .take_while(|message| message.role == Role::System)
                            .count();
                        request.messages.insert(at, Message::user(query.clone()));
                    }
                }
            }
        }
        self.inner.get_response(request).await
    }
}

/// Builds [`EnsureUserMessage`] with the default capacity.
#[derive(Debug, Clone, Copy, Default)]
pub struct EnsureUserMessageLayer;

impl<C> Layer<C> for EnsureUserMessageLayer {
    type Client = EnsureUserMessage<C>;

    fn layer(&self, inner: C) -> EnsureUserMessage<C> {
        EnsureUserMessage::new(inner)
    }
}
