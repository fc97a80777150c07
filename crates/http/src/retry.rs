use crate::response::HttpResponse;
use crate::{HttpError, classify};
use reqwest::{Method, Url};
use std::future::Future;
use std::time::Duration;

/// How calls are bounded and retried.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub max_attempts: u32,
    /// Delay before the first retry; doubled for each further one.
    pub base_delay: Duration,
    /// Longest wait between attempts; a `Retry-After` beyond it ends the retries.
    pub max_delay: Duration,
    /// Timeout of each attempt.
    pub timeout: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            timeout: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// Quick settings for tests against local fake servers.
    #[must_use]
    pub fn fast() -> Self {
        Self {
            max_attempts: 3,
            base_delay: Duration::from_millis(10),
            max_delay: Duration::from_secs(2),
            timeout: Duration::from_secs(5),
        }
    }

    /// The wait before retry number `retry` (1-based), honouring a server's hint.
    /// `None` means: do not retry (the hint is longer than we are willing to wait).
    #[must_use]
    pub fn delay(&self, retry: u32, hint: Option<Duration>) -> Option<Duration> {
        match hint {
            Some(h) if h > self.max_delay => None,
            Some(h) => Some(h),
            None => {
                let factor = 2u32.saturating_pow(retry.saturating_sub(1));
                Some(self.base_delay.saturating_mul(factor).min(self.max_delay))
            }
        }
    }
}

/// Runs `attempt` until it answers with a 2xx or the policy says stop: the one retry
/// loop of reviewd, shared by [`crate::HttpClient`] and the drivers of the platform
/// libraries, so every outbound call follows the same rules (docs/platforms.md §1).
///
/// `attempt` makes one call and returns the answer whatever its status (a non-2xx
/// is classified here, with [`classify`]), or `Timeout`/`Connect` when none came.
/// Idempotent methods are retried on 5xx and timeouts; a `POST` only when the
/// server refused it before doing anything (a rate limit, or no connection), so a
/// comment is never posted twice, unless `repeatable` says it is safe to send again
/// (a chat completion). `method` and `url` name the call in the logs, without the
/// query, which may carry a token.
///
/// # Errors
/// The last failure: `Status` (with the rate-limit hint), `Timeout` or `Connect`;
/// a rate limit whose hint is longer than the policy waits is returned at once.
pub async fn run_with_policy<F, Fut>(
    policy: &RetryPolicy,
    method: &Method,
    url: &Url,
    repeatable: bool,
    attempt: F,
) -> Result<HttpResponse, HttpError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<HttpResponse, HttpError>>,
{
    run(policy, method, &redacted_url(url), repeatable, attempt).await
}

/// [`run_with_policy`] with the URL already as it may be logged (the client of chat
/// webhooks logs only the host).
pub(crate) async fn run<F, Fut>(
    policy: &RetryPolicy,
    method: &Method,
    log_url: &str,
    repeatable: bool,
    mut attempt: F,
) -> Result<HttpResponse, HttpError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<HttpResponse, HttpError>>,
{
    let idempotent = repeatable || *method != Method::POST;
    let mut number = 1;
    loop {
        let error = match attempt().await {
            Ok(response) if (200..300).contains(&response.status) => return Ok(response),
            Ok(response) => classify(response.status, &response.headers, &response.body),
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
            HttpError::Timeout(_) | HttpError::Interrupted(_) => (idempotent, None),
            HttpError::Decode(_) | HttpError::TooLarge(_) => (false, None),
        };
        let delay = (retryable && number < policy.max_attempts)
            .then(|| policy.delay(number, hint))
            .flatten();
        let Some(delay) = delay else {
            tracing::warn!(http.method = %method, http.url = %log_url, attempts = number, error = %error, "http.call_failed");
            return Err(error);
        };
        tracing::info!(http.method = %method, http.url = %log_url, attempt = number, delay_ms = delay.as_millis() as u64, error = %error, "http.retrying");
        tokio::time::sleep(delay).await;
        number += 1;
    }
}

/// Scheme, host and path only: queries may carry tokens (OAuth codes, secrets).
pub(crate) fn redacted_url(url: &Url) -> String {
    format!(
        "{}://{}{}",
        url.scheme(),
        url.host_str().unwrap_or(""),
        url.path()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap_and_respects_hints() {
        let p = RetryPolicy {
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(5),
            ..RetryPolicy::default()
        };
        assert_eq!(p.delay(1, None), Some(Duration::from_secs(1)));
        assert_eq!(p.delay(3, None), Some(Duration::from_secs(4)));
        assert_eq!(p.delay(5, None), Some(Duration::from_secs(5)));
        assert_eq!(
            p.delay(1, Some(Duration::from_secs(2))),
            Some(Duration::from_secs(2))
        );
        assert_eq!(p.delay(1, Some(Duration::from_secs(60))), None);
    }
}
