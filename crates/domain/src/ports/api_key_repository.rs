use super::RepoError;
use crate::model::{ApiKey, NewApiKey, User};
use crate::{Page, PageRequest};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// Storage of API keys, addressed by the hash of the key.
#[async_trait]
pub trait ApiKeyRepository: Send + Sync {
    /// # Errors
    /// `Conflict` if the hash already exists (a broken random source); `NotFound`
    /// for an unknown user.
    async fn create(&self, key: NewApiKey) -> Result<ApiKey, RepoError>;

    /// Keys of one user, newest first, revoked ones included.
    ///
    /// # Errors
    /// Only store failures.
    async fn list_for_user(
        &self,
        user_id: Uuid,
        page: PageRequest,
    ) -> Result<Page<ApiKey>, RepoError>;

    /// The key with this hash, neither revoked nor expired at `now`, and its owner.
    ///
    /// # Errors
    /// Only store failures; an unknown, revoked or expired key is `Ok(None)`.
    async fn find_active(
        &self,
        key_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<(ApiKey, User)>, RepoError>;

    /// Revokes a key of `owner` (any owner when `None`).
    ///
    /// # Errors
    /// `NotFound` when no such unrevoked key exists for that owner.
    async fn revoke(
        &self,
        id: Uuid,
        owner: Option<Uuid>,
        now: DateTime<Utc>,
    ) -> Result<(), RepoError>;

    /// Records a use; implementations may skip the write when the last one is recent.
    ///
    /// # Errors
    /// Only store failures.
    async fn touch(&self, id: Uuid, now: DateTime<Utc>) -> Result<(), RepoError>;
}
