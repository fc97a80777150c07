use async_trait::async_trait;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ProbeError(pub String);

/// A dependency whose reachability is reported by the health endpoints.
#[async_trait]
pub trait HealthProbe: Send + Sync {
    /// Short stable name, e.g. `database` or `queue`.
    fn name(&self) -> &'static str;

    /// One round trip; returns how long it took.
    ///
    /// # Errors
    /// When the dependency does not answer correctly.
    async fn ping(&self) -> Result<Duration, ProbeError>;
}
