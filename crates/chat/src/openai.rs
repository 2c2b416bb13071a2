//! The OpenAI-compatible HTTP client (`POST {base}/chat/completions`).

use std::fmt;
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use reqwest::StatusCode;
use reqwest::header::{HeaderMap, RETRY_AFTER};

use crate::client::ChatClient;
use crate::error::ChatError;
use crate::request::{ChatRequest, ChatResponse};
use crate::wire;

/// LM Studio's default address.
pub const DEFAULT_BASE_URL: &str = "http://127.0.0.1:1234/v1";

/// A client for any server that speaks OpenAI's chat completions: OpenAI, LM Studio,
/// llama.cpp's `llama-server`, Ollama, vLLM.
///
/// Retries 429 and 5xx answers with exponential backoff, waiting what `Retry-After` asks when the
/// server says (capped by [`OpenAiClientBuilder::max_retry_delay`]). The API key is sent as a
/// bearer token and never printed, logged or put in an error.
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
    url: String,
    api_key: Option<String>,
    model: Option<String>,
    timeout: Duration,
    max_retries: u32,
    retry_backoff: Duration,
    max_retry_delay: Duration,
}

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
        }
    }

    /// The URL requests go to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The model requests name when they do not name one.
    pub fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    async fn send_once(&self, body: &serde_json::Value) -> Result<Answer, ChatError> {
        let mut request = self.http.post(&self.url).json(body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let response = request
            .send()
            .await
            .map_err(|error| self.transport(&error))?;
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response
            .bytes()
            .await
            .map_err(|error| self.transport(&error))?;
        Ok(Answer {
            status,
            headers,
            body: bytes.to_vec(),
        })
    }

    fn transport(&self, error: &reqwest::Error) -> ChatError {
        let url = self.url.clone();
        if error.is_timeout() {
            ChatError::Timeout {
                url,
                timeout: self.timeout,
            }
        } else if error.is_connect() {
            ChatError::Connect {
                url,
                reason: root_cause(error),
            }
        } else {
            ChatError::Transport {
                url,
                reason: root_cause(error),
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
/// at `now`; a date in the past asks for no wait.
fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
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
    async fn get_response(&self, request: ChatRequest) -> Result<ChatResponse, ChatError> {
        let body = wire::request_body(&request, self.model.as_deref());
        let mut attempt = 0;
        loop {
            let answer = self.send_once(&body).await?;
            if answer.status.is_success() {
                return wire::parse_response(&answer.body).map_err(|message| {
                    ChatError::InvalidResponse {
                        url: self.url.clone(),
                        message,
                    }
                });
            }
            if retryable(answer.status) && attempt < self.max_retries {
                let delay = self.retry_delay(attempt, &answer.headers);
                tracing::debug!(
                    url = %self.url,
                    status = answer.status.as_u16(),
                    delay_ms = delay.as_millis() as u64,
                    "retrying chat request"
                );
                tokio::time::sleep(delay).await;
                attempt += 1;
                continue;
            }
            return Err(ChatError::Status {
                url: self.url.clone(),
                status: answer.status.as_u16(),
                message: wire::error_message(&answer.body),
            });
        }
    }
}

impl fmt::Debug for OpenAiClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiClient")
            .field("url", &self.url)
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

    /// The longest wait before a retry, whatever `Retry-After` asks (default 30 s).
    pub fn max_retry_delay(mut self, delay: Duration) -> Self {
        self.max_retry_delay = delay;
        self
    }

    /// Builds the client.
    ///
    /// # Errors
    /// [`ChatError::Transport`] when the HTTP stack cannot start (TLS set-up).
    pub fn build(self) -> Result<OpenAiClient, ChatError> {
        let url = format!("{}/chat/completions", self.base_url.trim_end_matches('/'));
        let http = reqwest::Client::builder()
            .timeout(self.timeout)
            .connect_timeout(self.connect_timeout)
            .build()
            .map_err(|error| ChatError::Transport {
                url: url.clone(),
                reason: root_cause(&error),
            })?;
        Ok(OpenAiClient {
            http,
            url,
            api_key: self.api_key,
            model: self.model,
            timeout: self.timeout,
            max_retries: self.max_retries,
            retry_backoff: self.retry_backoff,
            max_retry_delay: self.max_retry_delay,
        })
    }
}

impl fmt::Debug for OpenAiClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiClientBuilder")
            .field("base_url", &self.base_url)
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
}
