use super::RepoError;
use crate::model::{NewSession, Session, User};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// Storage of dashboard sessions, addressed by the keyed hash of their token.
#[async_trait]
pub trait SessionRepository: Send + Sync {
    /// # Errors
    /// `NotFound` when the user does not exist; `Conflict` for a token hash in use;
    /// otherwise store failures.
    async fn create(&self, session: NewSession) -> Result<Session, RepoError>;

    /// The unexpired session with this token hash and its user (disabled users included;
    /// the service decides).
    ///
    /// # Errors
    /// Only store failures; an unknown or expired token is `Ok(None)`.
    async fn find_active(
        &self,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<(Session, User)>, RepoError>;

    /// Deletes the session; returns whether one existed.
    ///
    /// # Errors
    /// Only store failures.
    async fn delete(&self, token_hash: &str) -> Result<bool, RepoError>;

    /// Deletes sessions expired at `now` (expiring at `now` included, as
    /// `find_active` no longer finds them); returns how many.
    ///
    /// # Errors
    /// Only store failures.
    async fn delete_expired(&self, now: DateTime<Utc>) -> Result<u64, RepoError>;
}
