use std::time::Duration;

#[derive(Debug, thiserror::Error)]
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
    /// The connection failed (refused, DNS, TLS) after any retries.
    #[error("connection failed: {0}")]
    Connect(String),
    /// The body was not what the caller expected.
    #[error("unexpected response body: {0}")]
    Decode(String),
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
