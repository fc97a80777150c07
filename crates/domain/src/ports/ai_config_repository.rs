use super::RepoError;
use crate::model::ProjectId;
use crate::model::{AiConfig, AiConfigChanges, NewAiConfig};
use async_trait::async_trait;
use uuid::Uuid;

/// Storage of AI configurations; keys are encrypted at rest by the adapter. At most
/// one configuration is the default.
#[async_trait]
pub trait AiConfigRepository: Send + Sync {
    /// Every configuration, in creation order.
    ///
    /// # Errors
    /// Only store failures.
    async fn list(&self) -> Result<Vec<AiConfig>, RepoError>;

    /// # Errors
    /// `NotFound` for an unknown id.
    async fn get(&self, id: Uuid) -> Result<AiConfig, RepoError>;

    /// Inserts a configuration; when it is the default, the previous default stops
    /// being one, in the same transaction.
    ///
    /// # Errors
    /// Only store failures.
    async fn create(&self, config: NewAiConfig) -> Result<AiConfig, RepoError>;

    /// Applies the changes (the default is left as it is) and stamps `updated_at`.
    ///
    /// # Errors
    /// `NotFound` for an unknown id.
    async fn update(&self, id: Uuid, changes: AiConfigChanges) -> Result<AiConfig, RepoError>;

    /// Makes this configuration the one default.
    ///
    /// # Errors
    /// `NotFound` for an unknown id.
    async fn set_default(&self, id: Uuid) -> Result<AiConfig, RepoError>;

    /// Makes this configuration no longer the default (no other one becomes it);
    /// nothing changes when it was not.
    ///
    /// # Errors
    /// `NotFound` for an unknown id.
    async fn clear_default(&self, id: Uuid) -> Result<AiConfig, RepoError>;

    /// The default configuration, if one is.
    ///
    /// # Errors
    /// Only store failures.
    async fn default_config(&self) -> Result<Option<AiConfig>, RepoError>;

    /// The projects bound to this configuration (`aiConfigId`), as `(id, fullPath)`
    /// ordered by path. Projects that only inherit the default are not among them.
    ///
    /// # Errors
    /// Only store failures.
    async fn projects_using(&self, id: Uuid) -> Result<Vec<(ProjectId, String)>, RepoError>;

    /// Deletes the configuration; projects still bound to it fall back to the
    /// default (their `aiConfigId` becomes null). The default is not handed on.
    ///
    /// # Errors
    /// `NotFound` for an unknown id.
    async fn delete(&self, id: Uuid) -> Result<(), RepoError>;
}
