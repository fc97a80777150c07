use super::RepoError;
use crate::model::health::{CheckResult, HealthHistoryFilter};
use async_trait::async_trait;
use std::path::Path;

/// Persisted health check results.
#[async_trait]
pub trait HealthCheckRepository: Send + Sync {
    /// # Errors
    /// Store failures.
    async fn save(&self, results: &[CheckResult]) -> Result<(), RepoError>;

    /// The latest result of each (type, name).
    ///
    /// # Errors
    /// Store failures.
    async fn latest(&self) -> Result<Vec<CheckResult>, RepoError>;

    /// Results newest first.
    ///
    /// # Errors
    /// Store failures.
    async fn history(&self, filter: &HealthHistoryFilter) -> Result<Vec<CheckResult>, RepoError>;
}

/// Space on the filesystem holding a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiskSpace {
    pub total_bytes: u64,
    pub available_bytes: u64,
}

/// Reads filesystem usage.
#[async_trait]
pub trait DiskUsage: Send + Sync {
    /// # Errors
    /// A message when the path's filesystem cannot be read.
    async fn usage(&self, path: &Path) -> Result<DiskSpace, String>;
}
