use super::RepoError;
use crate::model::{NewPlatformConfig, PlatformConfig, PlatformConfigChanges, PlatformType};
use async_trait::async_trait;
use uuid::Uuid;

/// Storage of platform configs; secrets are encrypted at rest by the adapter.
#[async_trait]
pub trait PlatformConfigRepository: Send + Sync {
    /// Configs ordered by creation, optionally of one type / only enabled ones.
    ///
    /// # Errors
    /// Only store failures.
    async fn list(
        &self,
        platform_type: Option<PlatformType>,
        enabled_only: bool,
    ) -> Result<Vec<PlatformConfig>, RepoError>;

    /// # Errors
    /// `NotFound` for an unknown id.
    async fn get(&self, id: Uuid) -> Result<PlatformConfig, RepoError>;

    /// Inserts a config; when it is the default, the previous default of its type
    /// stops being one, in the same transaction.
    ///
    /// # Errors
    /// Only store failures.
    async fn create(&self, config: NewPlatformConfig) -> Result<PlatformConfig, RepoError>;

    /// # Errors
    /// `NotFound` for an unknown id.
    async fn update(
        &self,
        id: Uuid,
        changes: PlatformConfigChanges,
    ) -> Result<PlatformConfig, RepoError>;

    /// Makes this config the one default of its type.
    ///
    /// # Errors
    /// `NotFound` for an unknown id.
    async fn set_default(&self, id: Uuid) -> Result<PlatformConfig, RepoError>;

    /// Projects synced through this config.
    ///
    /// # Errors
    /// Only store failures.
    async fn count_projects(&self, id: Uuid) -> Result<u64, RepoError>;

    /// Deletes the config and its projects in one transaction, and, when it was the
    /// default, makes the oldest remaining config of its type the default. Returns how
    /// many projects were deleted.
    ///
    /// # Errors
    /// `NotFound` for an unknown id.
    async fn delete_with_projects(&self, id: Uuid) -> Result<u64, RepoError>;
}
