use super::RepoError;
use crate::model::{NewUser, User, UserChanges};
use crate::{Page, PageRequest};
use async_trait::async_trait;
use uuid::Uuid;

/// Storage of users and their password hashes.
#[async_trait]
pub trait UserRepository: Send + Sync {
    /// Inserts a user.
    ///
    /// # Errors
    /// `Conflict` when the email (or a second root) already exists.
    async fn create(&self, user: NewUser) -> Result<User, RepoError>;

    /// # Errors
    /// `NotFound` when no user has this id.
    async fn get(&self, id: Uuid) -> Result<User, RepoError>;

    /// The user with this (normalized) email and their password hash, if any.
    ///
    /// # Errors
    /// Only store failures; an unknown email is `Ok(None)`.
    async fn find_credentials(&self, email: &str) -> Result<Option<(User, String)>, RepoError>;

    /// Users ordered by creation time.
    ///
    /// # Errors
    /// Only store failures.
    async fn list(&self, page: PageRequest) -> Result<Page<User>, RepoError>;

    /// Applies the changes and bumps `updated_at`.
    ///
    /// # Errors
    /// `NotFound` for an unknown id, `Conflict` when the new email is taken.
    async fn update(&self, id: Uuid, changes: UserChanges) -> Result<User, RepoError>;

    /// Whether the root user has been created.
    ///
    /// # Errors
    /// Only store failures.
    async fn root_exists(&self) -> Result<bool, RepoError>;
}
