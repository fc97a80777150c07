use crate::{HttpError, RetryPolicy};
use bytes::Bytes;
use reqwest::header::HeaderMap;
use reqwest::{Client, Method, RequestBuilder};
use serde::de::DeserializeOwned;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A response read in full.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl HttpResponse {
    /// # Errors
    /// `Decode` when the body is not the expected JSON.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, HttpError> {
        serde_json::from_slice(&self.body).map_err(|e| HttpError::Decode(e.to_string()))
    }

    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// A reqwest client with the retry policy applied to every call.
#[derive(Debug, Clone)]
pub struct HttpClient {
    client: Client,
    policy: RetryPolicy,
    /// Whether log lines show URL paths (off for webhooks whose path is a token).
    log_paths: bool,
}

impl HttpClient {
    /// # Errors
    /// `Connect` when the TLS backend cannot be initialised.
    pub fn new(policy: RetryPolicy) -> Result<Self, HttpError> {
        let client = Client::builder()
            .timeout(policy.timeout)
            .connect_timeout(policy.timeout.min(Duration::from_secs(10)))
            .user_agent(concat!("reviewd/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| HttpError::Connect(e.to_string()))?;
        Ok(Self {
            client,
            policy,
            log_paths: true,
        })
    }

    /// A client whose log lines name only the host of a URL: for chat webhooks
    /// (Discord, Feishu) whose path is the secret.
    #[must_use]
    pub fn without_paths_in_logs(mut self) -> Self {
        self.log_paths = false;
        self
    }

    #[must_use]
    pub fn policy(&self) -> RetryPolicy {
        self.policy
    }

    /// Sends the request built by `build`, retrying as the policy says. Idempotent
    /// methods are retried on 5xx and timeouts; a `POST` only when the server refused
    /// it before doing anything (429, or no connection), so a comment is never
    /// posted twice.
    ///
    /// # Errors
    /// The last failure: `Status` (with the rate-limit hint), `Timeout` or `Connect`.
    pub async fn send(
        &self,
        build: impl Fn(&Client) -> RequestBuilder,
    ) -> Result<HttpResponse, HttpError> {
        self.send_with(build, false).await
    }

    /// As [`HttpClient::send`], for a `POST` that is safe to repeat (a chat
    /// completion): 5xx and timeouts are retried for it too.
    ///
    /// # Errors
    /// As [`HttpClient::send`].
    pub async fn send_repeatable(
        &self,
        build: impl Fn(&Client) -> RequestBuilder,
    ) -> Result<HttpResponse, HttpError> {
        self.send_with(build, true).await
    }

    async fn send_with(
        &self,
        build: impl Fn(&Client) -> RequestBuilder,
        repeatable: bool,
    ) -> Result<HttpResponse, HttpError> {
        let mut attempt = 1;
        loop {
            let request = build(&self.client)
                .build()
                .map_err(|e| HttpError::Connect(e.to_string()))?;
            let idempotent = repeatable || request.method() != Method::POST;
            let url = if self.log_paths {
                redacted_url(request.url())
            } else {
                format!(
                    "{}://{}",
                    request.url().scheme(),
                    request.url().host_str().unwrap_or("")
                )
            };
            let method = request.method().clone();
            let outcome = match self.client.execute(request).await {
                Ok(response) => read(response).await,
                Err(e) => Err(transport_error(&e, self.policy.timeout)),
            };
            let error = match outcome {
                Ok(response) if (200..300).contains(&response.status) => return Ok(response),
                Ok(response) => status_error(&response),
                Err(e) => e,
            };
            let (retryable, hint) = match &error {
                HttpError::Status {
                    status,
                    rate_limited,
                    retry_after,
                    ..
                } => (
                    *rate_limited || (idempotent && matches!(status, 500 | 502 | 503 | 504)),
                    *retry_after,
                ),
                HttpError::Connect(_) => (true, None),
                HttpError::Timeout(_) => (idempotent, None),
                HttpError::Decode(_) => (false, None),
            };
            let delay = (retryable && attempt < self.policy.max_attempts)
                .then(|| self.policy.delay(attempt, hint))
                .flatten();
            let Some(delay) = delay else {
                tracing::warn!(http.method = %method, http.url = %url, attempts = attempt, error = %error, "http.call_failed");
                return Err(error);
            };
            tracing::info!(http.method = %method, http.url = %url, attempt, delay_ms = delay.as_millis() as u64, error = %error, "http.retrying");
            tokio::time::sleep(delay).await;
            attempt += 1;
        }
    }
}

async fn read(response: reqwest::Response) -> Result<HttpResponse, HttpError> {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response
        .bytes()
        .await
        .map_err(|e| HttpError::Connect(format!("reading the body: {e}")))?;
    Ok(HttpResponse {
        status,
        headers,
        body,
    })
}

fn transport_error(e: &reqwest::Error, timeout: Duration) -> HttpError {
    if e.is_timeout() {
        HttpError::Timeout(timeout)
    } else {
        HttpError::Connect(e.without_url_ref())
    }
}

trait WithoutUrl {
    fn without_url_ref(&self) -> String;
}

impl WithoutUrl for reqwest::Error {
    /// The error text without the URL, whose query could hold a token.
    fn without_url_ref(&self) -> String {
        let mut text = self.to_string();
        if let Some(url) = self.url() {
            text = text.replace(url.as_str(), &redacted_url(url));
        }
        text
    }
}

/// Scheme, host and path only: queries may carry tokens (OAuth codes, secrets).
fn redacted_url(url: &reqwest::Url) -> String {
    format!(
        "{}://{}{}",
        url.scheme(),
        url.host_str().unwrap_or(""),
        url.path()
    )
}

fn status_error(response: &HttpResponse) -> HttpError {
    let remaining_zero = response.header("x-ratelimit-remaining") == Some("0");
    let message = excerpt(&response.body);
    // GitHub signals both primary and secondary limits with 403 (or 429); a secondary
    // limit may come with neither header, only its message.
    let rate_limited = response.status == 429
        || (response.status == 403
            && (remaining_zero
                || response.header("retry-after").is_some()
                || message.to_lowercase().contains("rate limit")));
    let retry_after = response
        .header("retry-after")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_secs)
        .or_else(|| {
            if rate_limited {
                reset_in(response.header("x-ratelimit-reset")?)
            } else {
                None
            }
        });
    HttpError::Status {
        status: response.status,
        message,
        retry_after,
        rate_limited,
    }
}

/// Time until an epoch-seconds reset (GitHub's `x-ratelimit-reset`).
fn reset_in(value: &str) -> Option<Duration> {
    let reset = value.trim().parse::<u64>().ok()?;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(reset.saturating_sub(now).max(1)))
}

/// The server's own message when the body is JSON with one, else the start of the body.
fn excerpt(body: &[u8]) -> String {
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(body) {
        for key in ["message", "error_description", "error"] {
            if let Some(text) = value.get(key).and_then(|v| v.as_str()) {
                return text.chars().take(300).collect();
            }
        }
    }
    String::from_utf8_lossy(body).chars().take(300).collect()
}
