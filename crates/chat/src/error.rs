//! Why a chat request failed.

use std::time::Duration;

/// Why a chat request failed. Every variant names the URL it was sent to, as
/// [`redact_url`](crate::redact_url) shows it (never the API key, userinfo or query string).
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
    /// The server's answer is longer than the client accepts
    /// ([`OpenAiClientBuilder::max_response_bytes`](crate::OpenAiClientBuilder::max_response_bytes));
    /// reading stopped there.
    #[error(
        "{url} sent a response larger than {} (the client's limit); a chat completion is never \
         that long, so the server is broken or hostile",
        size(*limit)
    )]
    ResponseTooLarge {
        /// The URL the request was sent to.
        url: String,
        /// The limit, in bytes.
        limit: u64,
    },
    /// The base URL is not an `http://` or `https://` URL the client can post to.
    #[error(
        "{url} is not a usable endpoint: {reason}; give the server's base URL, e.g. http://127.0.0.1:1234/v1"
    )]
    InvalidUrl {
        /// The base URL as given (redacted).
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Credentials (an API key, or a user and password in the URL) would travel over plain
    /// `http://` to a host that is not this machine, readable by anyone on the way.
    #[error(
        "refusing to send credentials (the API key, or the user and password in the URL) to \
         {url} over plain http://: anyone on the network path could read them; use https://, \
         or a loopback address (127.0.0.1, [::1], localhost) for a local server, or send no key"
    )]
    InsecureCredentials {
        /// The URL the credentials would have gone to.
        url: String,
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

/// `bytes` for a person: in MiB or KiB when it is a whole number of them.
fn size(bytes: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * KIB;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} bytes")
    }
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
