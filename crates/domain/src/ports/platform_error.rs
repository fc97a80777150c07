//! How a platform call fails, for every port that reaches a platform (its API, its code).

use std::time::Duration;

/// Failures of a platform call, after the adapter's own bounded retries.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlatformError {
    /// The token is missing, invalid, expired or revoked (401).
    #[error("the platform rejected the token: {0}")]
    Unauthorized(String),
    /// The token is valid but lacks a permission or scope (403).
    #[error("the platform refused the operation: {0}")]
    Forbidden(String),
    #[error("not found on the platform: {0}")]
    NotFound(String),
    /// The platform refused the input (400/422), e.g. a comment on a line outside the diff.
    #[error("the platform rejected the request: {0}")]
    Rejected(String),
    /// Still rate limited after retrying; `retry_after` when the platform said.
    #[error("rate limited by the platform")]
    RateLimited { retry_after: Option<Duration> },
    /// 5xx, timeouts or network failures, after retrying.
    #[error("the platform is unavailable: {0}")]
    Unavailable(String),
    /// The platform does not offer this operation.
    #[error("not supported by {0}")]
    Unsupported(&'static str),
    /// An answer that could not be understood.
    #[error("unexpected answer from the platform: {0}")]
    InvalidResponse(String),
}
