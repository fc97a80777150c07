use async_trait::async_trait;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum ThrottleError {
    /// Too many failures for this key; try again after the duration.
    #[error("too many attempts; retry after {retry_after:?}")]
    Throttled { retry_after: Duration },
    #[error("throttle store unavailable: {0}")]
    Unavailable(String),
}

/// Counts failed login attempts per key over a window (the store's); the limits
/// are the caller's (`services::login_guard`).
#[async_trait]
pub trait LoginThrottle: Send + Sync {
    /// The failures counted for `key` in its window.
    ///
    /// # Errors
    /// `Throttled`, with the rest of the window, once they reach `max_failures`;
    /// `Unavailable` when the counter store is down.
    async fn check(&self, key: &str, max_failures: u32) -> Result<u32, ThrottleError>;

    /// Counts one failed attempt for `key`.
    ///
    /// # Errors
    /// `Unavailable` when the counter store is down.
    async fn record_failure(&self, key: &str) -> Result<(), ThrottleError>;

    /// Forgets the failures of `key` (after a successful login).
    ///
    /// # Errors
    /// `Unavailable` when the counter store is down.
    async fn reset(&self, key: &str) -> Result<(), ThrottleError>;
}
