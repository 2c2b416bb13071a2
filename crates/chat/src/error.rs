//! Why a chat request failed.

use std::time::Duration;

/// Why a chat request failed. Every variant names the URL it was sent to (never the API key).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChatError {
    /// Nothing answered at the URL (connection refused, unknown host).
    #[error("cannot connect to {url}: {reason}")]
    Connect {
        /// The URL the request was sent to.
        url: String,
        /// What the network layer said.
        reason: String,
    },
    /// The server took longer than the client's timeout.
    #[error("no answer from {url} within {} s", timeout.as_secs_f64())]
    Timeout {
        /// The URL the request was sent to.
        url: String,
        /// The timeout that ran out.
        timeout: Duration,
    },
    /// The server answered with an error status (after any retries).
    #[error("{url} answered HTTP {status}: {message}")]
    Status {
        /// The URL the request was sent to.
        url: String,
        /// The HTTP status code.
        status: u16,
        /// The server's own message (its `error.message`, or the body).
        message: String,
    },
    /// The server answered 200 with something that is not a chat completion.
    #[error("{url} sent a response that is not a chat completion: {message}")]
    InvalidResponse {
        /// The URL the request was sent to.
        url: String,
        /// What is wrong with it.
        message: String,
    },
    /// The request failed in transit for another reason.
    #[error("request to {url} failed: {reason}")]
    Transport {
        /// The URL the request was sent to.
        url: String,
        /// What the network layer said.
        reason: String,
    },
}

impl ChatError {
    /// The HTTP status, when the server answered with an error.
    pub fn status(&self) -> Option<u16> {
        match self {
            ChatError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}
