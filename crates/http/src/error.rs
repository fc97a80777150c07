use reqwest::header::HeaderMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

#[derive(Debug, Clone, thiserror::Error)]
pub enum HttpError {
    /// The server answered with a non-success status (after any retries).
    #[error("HTTP {status}: {message}")]
    Status {
        status: u16,
        /// A short excerpt of the body, for logs and error messages.
        message: String,
        /// When the server said to come back (429, or a rate-limited 403).
        retry_after: Option<Duration>,
        rate_limited: bool,
    },
    /// No answer within the call's timeout (after any retries).
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    /// The connection failed (refused, DNS, TLS) after any retries: the request
    /// never reached the server.
    #[error("connection failed: {0}")]
    Connect(String),
    /// The exchange broke off after the request may have reached the server (a
    /// connection reset, an answer cut off): repeated only when the request is.
    #[error("the exchange broke off: {0}")]
    Interrupted(String),
    /// The body was not what the caller expected.
    #[error("unexpected response body: {0}")]
    Decode(String),
    /// The body is longer than the caller reads ([`crate::HttpClient::send_bounded`]).
    #[error("the answer is larger than {0} bytes")]
    TooLarge(u64),
}

impl HttpError {
    #[must_use]
    pub fn status(&self) -> Option<u16> {
        match self {
            HttpError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    #[must_use]
    pub fn is_rate_limited(&self) -> bool {
        matches!(
            self,
            HttpError::Status {
                rate_limited: true,
                ..
            }
        )
    }
}

/// The error for a non-success answer: whether it is a rate limit and when to come
/// back. Public so that a driver whose library hands back the final answer (octocrab's
/// GitHub error) reports it exactly as [`crate::HttpClient`] would.
#[must_use]
pub fn classify(status: u16, headers: &HeaderMap, body: &[u8]) -> HttpError {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let remaining_zero = header("x-ratelimit-remaining") == Some("0");
    let message = excerpt(body);
    // GitHub signals both primary and secondary limits with 403 (or 429); a secondary
    // limit may come with neither header, only its message.
    let rate_limited = status == 429
        || (status == 403
            && (remaining_zero
                || header("retry-after").is_some()
                || message.to_lowercase().contains("rate limit")));
    let retry_after = header("retry-after")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_secs)
        .or_else(|| {
            if rate_limited {
                reset_in(header("x-ratelimit-reset")?)
            } else {
                None
            }
        });
    HttpError::Status {
        status,
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

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            if let Ok(value) = HeaderValue::from_str(value) {
                map.insert(*name, value);
            }
        }
        map
    }

    fn parts(err: &HttpError) -> (bool, Option<Duration>, &str) {
        match err {
            HttpError::Status {
                rate_limited,
                retry_after,
                message,
                ..
            } => (*rate_limited, *retry_after, message),
            other => panic!("not a status error: {other:?}"),
        }
    }

    #[test]
    fn a_403_is_a_rate_limit_only_when_github_says_so() {
        let plain = classify(
            403,
            &HeaderMap::new(),
            br#"{"message":"Resource not accessible"}"#,
        );
        assert_eq!(parts(&plain), (false, None, "Resource not accessible"));

        let secondary = classify(
            403,
            &HeaderMap::new(),
            br#"{"message":"You have exceeded a secondary rate limit."}"#,
        );
        assert!(secondary.is_rate_limited());

        let primary = classify(403, &headers(&[("x-ratelimit-remaining", "0")]), b"");
        assert!(primary.is_rate_limited());

        let with_hint = classify(403, &headers(&[("retry-after", "7")]), b"");
        assert_eq!(parts(&with_hint), (true, Some(Duration::from_secs(7)), ""));
    }

    #[test]
    fn the_reset_time_is_the_hint_of_a_rate_limit_without_retry_after() {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let reset = (now + 120).to_string();
        let limited = classify(
            429,
            &headers(&[("x-ratelimit-reset", reset.as_str())]),
            b"slow down",
        );
        let (rate_limited, hint, message) = parts(&limited);
        assert!(rate_limited);
        assert_eq!(message, "slow down");
        let hint = hint.map_or(0, |d| d.as_secs());
        assert!((118..=120).contains(&hint), "{hint}");

        // A reset header on an answer that is no rate limit is no reason to wait.
        let not_found = classify(404, &headers(&[("x-ratelimit-reset", reset.as_str())]), b"");
        assert_eq!(parts(&not_found), (false, None, ""));
    }
}
