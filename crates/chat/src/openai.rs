//! The OpenAI-compatible HTTP client (`POST {base}/chat/completions`).

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use reqwest::StatusCode;
use reqwest::header::{HeaderMap, RETRY_AFTER};

use crate::body::{BodyError, read_capped};
use crate::client::ChatClient;
use crate::endpoint::Endpoint;
use crate::error::ChatError;
use crate::request::{ChatRequest, ChatResponse};
use crate::wire;

/// LM Studio's default address.
pub const DEFAULT_BASE_URL: &str = "http://127.0.0.1:1234/v1";

/// The longest response body a client reads by default (32 MiB): a chat completion is a few KiB.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 32 * 1024 * 1024;

/// The longest wait a `Retry-After` header can ask for, whatever it says (60 s).
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// A client for any server that speaks OpenAI's chat completions: OpenAI, LM Studio,
/// llama.cpp's `llama-server`, Ollama, vLLM.
///
/// Retries 429 and 5xx answers with exponential backoff, waiting what `Retry-After` asks when the
/// server says (capped by [`OpenAiClientBuilder::max_retry_delay`]). The API key is sent as a
/// bearer token and never printed, logged or put in an error; it never travels over plain
/// `http://` except to this machine (loopback). URLs are shown without userinfo or query string
/// ([`redact_url`](crate::redact_url)). A response body longer than
/// [`OpenAiClientBuilder::max_response_bytes`] is an error, found without reading past it.
///
/// # Example
/// ```
/// use skillful_chat::OpenAiClient;
/// use std::time::Duration;
///
/// let client = OpenAiClient::builder("http://127.0.0.1:1234/v1")
///     .model("qwen2.5-7b-instruct")
///     .api_key("sk-local")
///     .timeout(Duration::from_secs(120))
///     .build()
///     .unwrap();
/// assert_eq!(client.url(), "http://127.0.0.1:1234/v1/chat/completions");
/// assert!(!format!("{client:?}").contains("sk-local"));
/// ```
#[derive(Clone)]
pub struct OpenAiClient {
    http: reqwest::Client,
    endpoint: Endpoint,
    api_key: Option<String>,
    model: Option<String>,
    timeout: Duration,
    max_retries: u32,
    retry_backoff: Duration,
    max_retry_delay: Duration,
    max_response_bytes: usize,
    /// Whether the server takes `response_format`, as learned from its answers (or declared):
    /// shared by the client's clones, so it is found out once per endpoint.
    structured: Arc<AtomicU8>,
}

/// [`OpenAiClient`]'s knowledge of the server's structured outputs.
const STRUCTURED_UNKNOWN: u8 = 0;
const STRUCTURED_TAKEN: u8 = 1;
const STRUCTURED_REFUSED: u8 = 2;

impl OpenAiClient {
    /// Starts configuring a client for the server at `base_url` (e.g. `http://127.0.0.1:1234/v1`).
    pub fn builder(base_url: impl Into<String>) -> OpenAiClientBuilder {
        OpenAiClientBuilder {
            base_url: base_url.into(),
            api_key: None,
            model: None,
            timeout: Duration::from_secs(300),
            connect_timeout: Duration::from_secs(10),
            max_retries: 3,
            retry_backoff: Duration::from_millis(500),
            max_retry_delay: Duration::from_secs(30),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            structured_outputs: true,
        }
    }

    /// Whether the server takes structured outputs (`response_format` with a JSON Schema):
    /// `Some(false)` once it refused a request for carrying one (or the builder said so; such
    /// requests then go without it), `Some(true)` once it answered one, `None` before either.
    /// A server that ignores the field answers as if it took it: a caller checks the reply
    /// against its schema whatever this says.
    pub fn structured_outputs(&self) -> Option<bool> {
        match self.structured.load(Ordering::Relaxed) {
            STRUCTURED_TAKEN => Some(true),
            STRUCTURED_REFUSED => Some(false),
            _ => None,
        }
    }

    /// The URL requests go to, as it may be shown: without userinfo or query string (which are
    /// still sent).
    pub fn url(&self) -> &str {
        &self.endpoint.shown
    }

    /// Whether the server is on this machine (`127.0.0.0/8`, `::1`, `localhost`): a local engine,
    /// typically a small model, rather than a remote service.
    pub fn is_loopback(&self) -> bool {
        self.endpoint.is_loopback()
    }

    /// The model requests name when they do not name one.
    pub fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    /// The ids of the models the server offers (`GET {base}/models`, the OpenAI list every
    /// compatible server answers): whether the server answers, and with what, before a chat
    /// depends on it (`skills doctor`). One request, no retries, the client's timeout and
    /// response limit.
    ///
    /// # Errors
    /// As a chat request's: [`ChatError::Connect`], [`ChatError::Timeout`],
    /// [`ChatError::Status`] (an API key refused, no `/models` route),
    /// [`ChatError::ResponseTooLarge`]; [`ChatError::InvalidResponse`] for a body that is not
    /// the list (`{"data": [{"id": …}, …]}`).
    pub async fn models(&self) -> Result<Vec<String>, ChatError> {
        let endpoint = self.endpoint.models();
        let mut request = self.http.get(endpoint.url.clone());
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let mut response = request
            .send()
            .await
            .map_err(|error| self.transport(error, &endpoint.shown))?;
        let status = response.status();
        let body = read_capped(&mut response, self.max_response_bytes)
            .await
            .map_err(|error| match error {
                BodyError::TooLarge => ChatError::ResponseTooLarge {
                    url: endpoint.shown.clone(),
                    limit: self.max_response_bytes as u64,
                },
                BodyError::Transport(error) => self.transport(error, &endpoint.shown),
            })?;
        if !status.is_success() {
            return Err(ChatError::Status {
                url: endpoint.shown,
                status: status.as_u16(),
                message: wire::error_message(&body),
            });
        }
        #[derive(serde::Deserialize)]
        struct Listed {
            id: String,
        }
        #[derive(serde::Deserialize)]
        struct List {
            data: Vec<Listed>,
        }
        let list: List =
            serde_json::from_slice(&body).map_err(|error| ChatError::InvalidResponse {
                url: endpoint.shown,
                message: format!("not a list of models: {error}"),
            })?;
        Ok(list.data.into_iter().map(|model| model.id).collect())
    }

    async fn send_once(&self, body: &serde_json::Value) -> Result<Answer, ChatError> {
        let mut request = self.http.post(self.endpoint.url.clone()).json(body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let mut response = request
            .send()
            .await
            .map_err(|error| self.transport(error, &self.endpoint.shown))?;
        let status = response.status();
        let headers = response.headers().clone();
        let body = read_capped(&mut response, self.max_response_bytes)
            .await
            .map_err(|error| match error {
                BodyError::TooLarge => ChatError::ResponseTooLarge {
                    url: self.endpoint.shown.clone(),
                    limit: self.max_response_bytes as u64,
                },
                BodyError::Transport(error) => self.transport(error, &self.endpoint.shown),
            })?;
        Ok(Answer {
            status,
            headers,
            body,
        })
    }

    /// `error` of a request to `url` (as it may be shown).
    fn transport(&self, error: reqwest::Error, url: &str) -> ChatError {
        // reqwest's own message names the URL, credentials and all.
        let error = error.without_url();
        let url = url.to_owned();
        if error.is_timeout() {
            ChatError::Timeout {
                url,
                timeout: self.timeout,
            }
        } else if error.is_connect() {
            ChatError::Connect {
                url,
                reason: root_cause(&error),
            }
        } else {
            ChatError::Transport {
                url,
                reason: root_cause(&error),
            }
        }
    }

    /// How long to wait before retry number `attempt` (0-based).
    fn retry_delay(&self, attempt: u32, headers: &HeaderMap) -> Duration {
        let asked = headers
            .get(RETRY_AFTER)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| retry_after(value, SystemTime::now()));
        let backoff = self
            .retry_backoff
            .saturating_mul(2u32.saturating_pow(attempt));
        asked.unwrap_or(backoff).min(self.max_retry_delay)
    }
}

/// `Retry-After` as seconds (`120`) or as an HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`), read
/// at `now`, and never more than [`MAX_RETRY_AFTER`]; a date in the past asks for no wait.
/// Negative, infinite or not-a-number seconds ask for nothing (the backoff applies).
fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    let asked = match value.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds >= 0.0 => {
            // Too large for a `Duration` is more than the cap.
            Duration::try_from_secs_f64(seconds).unwrap_or(MAX_RETRY_AFTER)
        }
        Ok(_) => return None,
        Err(_) => {
            let at = httpdate::parse_http_date(value).ok()?;
            at.duration_since(now).unwrap_or(Duration::ZERO)
        }
    };
    Some(asked.min(MAX_RETRY_AFTER))
}

struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Vec<u8>,
}

fn retryable(status: StatusCode) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error()
}

/// The innermost cause, which says what happened ("Connection refused (os error 111)").
fn root_cause(error: &reqwest::Error) -> String {
    let mut cause: &dyn std::error::Error = error;
    while let Some(source) = cause.source() {
        cause = source;
    }
    cause.to_string()
}

#[async_trait]
impl ChatClient for OpenAiClient {
    async fn get_response(&self, mut request: ChatRequest) -> Result<ChatResponse, ChatError> {
        if self.structured.load(Ordering::Relaxed) == STRUCTURED_REFUSED {
            request.options.response_format = None;
        }
        let mut body = wire::request_body(&request, self.model.as_deref());
        let mut attempt = 0;
        loop {
            let answer = self.send_once(&body).await?;
            let constrained = body.get("response_format").is_some();
            if answer.status.is_success() {
                if constrained {
                    self.structured.store(STRUCTURED_TAKEN, Ordering::Relaxed);
                }
                return wire::parse_response(&answer.body).map_err(|message| {
                    ChatError::InvalidResponse {
                        url: self.endpoint.shown.clone(),
                        message,
                    }
                });
            }
            let message = wire::error_message(&answer.body);
            if constrained && refuses_structured_outputs(answer.status, &message) {
                // Found out once per endpoint: later requests go without the field, and whoever
                // asked for it checks the reply against its schema.
                tracing::warn!(
                    url = %self.endpoint.shown,
                    status = answer.status.as_u16(),
                    "the server refused a reply constrained to a JSON Schema (structured outputs); sending such requests without it"
                );
                self.structured.store(STRUCTURED_REFUSED, Ordering::Relaxed);
                if let Some(fields) = body.as_object_mut() {
                    fields.remove("response_format");
                }
                continue;
            }
            if retryable(answer.status) && attempt < self.max_retries {
                let delay = self.retry_delay(attempt, &answer.headers);
                tracing::debug!(
                    url = %self.endpoint.shown,
                    status = answer.status.as_u16(),
                    delay_ms = delay.as_millis() as u64,
                    "retrying chat request"
                );
                tokio::time::sleep(delay).await;
                attempt += 1;
                continue;
            }
            return Err(ChatError::Status {
                url: self.endpoint.shown.clone(),
                status: answer.status.as_u16(),
                message,
            });
        }
    }

    fn server_is_local(&self) -> Option<bool> {
        Some(self.is_loopback())
    }
}

/// Whether an error answer to a request carrying `response_format` says the server does not
/// take it: a client error (400, 422) or "not implemented" (501) whose message names the
/// field, JSON schemas, grammars or structured outputs.
fn refuses_structured_outputs(status: StatusCode, message: &str) -> bool {
    let client_error = matches!(status.as_u16(), 400 | 422 | 501);
    let message = message.to_ascii_lowercase();
    client_error
        && [
            "response_format",
            "json_schema",
            "schema",
            "grammar",
            "structured",
        ]
        .iter()
        .any(|word| message.contains(word))
}

impl fmt::Debug for OpenAiClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiClient")
            .field("url", &self.endpoint.shown)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .finish_non_exhaustive()
    }
}

/// Configures an [`OpenAiClient`].
#[must_use]
pub struct OpenAiClientBuilder {
    base_url: String,
    api_key: Option<String>,
    model: Option<String>,
    timeout: Duration,
    connect_timeout: Duration,
    max_retries: u32,
    retry_backoff: Duration,
    max_retry_delay: Duration,
    max_response_bytes: usize,
    structured_outputs: bool,
}

impl OpenAiClientBuilder {
    /// The API key, sent as `Authorization: Bearer`; local servers usually need none.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// The model requests name by default. Without one, requests name none and local servers
    /// use the model they have loaded.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The most one request may take, answer included (default 300 s: local models are slow).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The most connecting may take (default 10 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How many times a 429 or 5xx answer is retried (default 3).
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    /// The first retry's delay when the server sends no `Retry-After`; it doubles each retry
    /// (default 500 ms).
    pub fn retry_backoff(mut self, delay: Duration) -> Self {
        self.retry_backoff = delay;
        self
    }

    /// The longest wait before a retry, whatever `Retry-After` asks (default 30 s; a
    /// `Retry-After` counts for at most 60 s whatever this says).
    pub fn max_retry_delay(mut self, delay: Duration) -> Self {
        self.max_retry_delay = delay;
        self
    }

    /// The longest response body read (default [`DEFAULT_MAX_RESPONSE_BYTES`], 32 MiB); a longer
    /// one is [`ChatError::ResponseTooLarge`], found without reading past the limit.
    pub fn max_response_bytes(mut self, limit: usize) -> Self {
        self.max_response_bytes = limit;
        self
    }

    /// Whether to send structured-output requests as such (default `true`). `false` for a
    /// server known not to take `response_format`: the field is left out and callers check
    /// replies against their schema. With `true`, a server that refuses the field once is
    /// not sent it again ([`OpenAiClient::structured_outputs`]).
    pub fn structured_outputs(mut self, send: bool) -> Self {
        self.structured_outputs = send;
        self
    }

    /// Builds the client.
    ///
    /// # Errors
    /// [`ChatError::InvalidUrl`] when the base URL is no `http://` or `https://` URL;
    /// [`ChatError::InsecureCredentials`] when an API key (or userinfo in the URL) would be sent
    /// over plain `http://` to a host other than loopback; [`ChatError::Transport`] when the HTTP
    /// stack cannot start (TLS set-up).
    pub fn build(self) -> Result<OpenAiClient, ChatError> {
        let endpoint = Endpoint::completions(&self.base_url, self.api_key.is_some())?;
        let cannot_start = |reason: String| ChatError::Transport {
            url: endpoint.shown.clone(),
            reason,
        };
        let http = skillful_http::client_builder()
            .map_err(|error| cannot_start(error.to_string()))?
            .timeout(self.timeout)
            .connect_timeout(self.connect_timeout)
            .build()
            .map_err(|error| cannot_start(root_cause(&error.without_url())))?;
        Ok(OpenAiClient {
            http,
            endpoint,
            api_key: self.api_key,
            model: self.model,
            timeout: self.timeout,
            max_retries: self.max_retries,
            retry_backoff: self.retry_backoff,
            max_retry_delay: self.max_retry_delay,
            max_response_bytes: self.max_response_bytes,
            structured: Arc::new(AtomicU8::new(if self.structured_outputs {
                STRUCTURED_UNKNOWN
            } else {
                STRUCTURED_REFUSED
            })),
        })
    }
}

impl fmt::Debug for OpenAiClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiClientBuilder")
            .field("base_url", &crate::redact_url(&self.base_url))
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn client() -> OpenAiClient {
        OpenAiClient::builder("http://127.0.0.1:1/v1/")
            .retry_backoff(Duration::from_millis(100))
            .max_retry_delay(Duration::from_secs(5))
            .build()
            .unwrap()
    }

    #[test]
    fn retry_delay_honours_retry_after_within_the_cap() {
        let client = client();
        let mut headers = HeaderMap::new();
        assert_eq!(client.retry_delay(0, &headers), Duration::from_millis(100));
        assert_eq!(client.retry_delay(2, &headers), Duration::from_millis(400));
        assert_eq!(client.retry_delay(10, &headers), Duration::from_secs(5));
        headers.insert(RETRY_AFTER, HeaderValue::from_static("2"));
        assert_eq!(client.retry_delay(0, &headers), Duration::from_secs(2));
        headers.insert(RETRY_AFTER, HeaderValue::from_static("3600"));
        assert_eq!(client.retry_delay(0, &headers), Duration::from_secs(5));
        headers.insert(
            RETRY_AFTER,
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(client.retry_delay(0, &headers), Duration::ZERO);
        let now = httpdate::parse_http_date("Wed, 21 Oct 2015 07:27:58 GMT").unwrap();
        assert_eq!(
            retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now),
            Some(Duration::from_secs(2))
        );
        headers.insert(RETRY_AFTER, HeaderValue::from_static("soon, please"));
        assert_eq!(client.retry_delay(1, &headers), Duration::from_millis(200));
    }

    #[test]
    fn retry_after_never_panics_and_never_asks_for_more_than_a_minute() {
        let now = SystemTime::UNIX_EPOCH;
        for (value, asked) in [
            ("1e300", Some(MAX_RETRY_AFTER)),
            ("99999999999999999999999999", Some(MAX_RETRY_AFTER)),
            ("18446744073709551616", Some(MAX_RETRY_AFTER)),
            ("3600", Some(MAX_RETRY_AFTER)),
            ("1.5", Some(Duration::from_millis(1500))),
            ("-0", Some(Duration::ZERO)),
            ("-5", None),
            ("-1e300", None),
            ("NaN", None),
            ("nan", None),
            ("inf", None),
            ("-infinity", None),
            ("Fri, 31 Dec 9999 23:59:59 GMT", Some(MAX_RETRY_AFTER)),
        ] {
            assert_eq!(retry_after(value, now), asked, "Retry-After: {value}");
        }
    }
}
