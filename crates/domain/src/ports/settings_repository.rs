use super::RepoError;
use crate::model::GlobalSettings;
use async_trait::async_trait;
use uuid::Uuid;

/// Global settings and the AI configurations projects may point at.
#[async_trait]
pub trait SettingsRepository: Send + Sync {
    /// # Errors
    /// Only store failures.
    async fn global(&self) -> Result<GlobalSettings, RepoError>;

    /// Whether an AI configuration with this id exists.
    ///
    /// # Errors
    /// Only store failures.
    async fn ai_config_exists(&self, id: Uuid) -> Result<bool, RepoError>;

    /// The stored default AI configuration, if an admin has set one.
    ///
    /// # Errors
    /// Only store failures.
    async fn default_ai_config_id(&self) -> Result<Option<Uuid>, RepoError>;
}
