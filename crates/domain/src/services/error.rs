//! The error of the domain's use cases; the web layer maps each variant to a status.

use crate::ErrorCode;
use crate::ports::{CredentialError, PlatformError, RepoError, ThrottleError};
use std::time::Duration;

/// One invalid input field and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// Input broke a rule; each field says which.
    #[error("invalid input")]
    Invalid(Vec<FieldError>),
    /// The request cannot be carried out as asked, for a reason named by `code`.
    #[error("{message}")]
    BadRequest { code: ErrorCode, message: String },
    /// A hosting platform call failed (after the adapter's retries).
    #[error("platform error: {0}")]
    Platform(#[from] PlatformError),
    /// No valid credentials were presented (missing, unknown, expired, revoked).
    #[error("authentication required")]
    Unauthenticated,
    /// A login with a wrong email or password.
    #[error("invalid email or password")]
    InvalidCredentials,
    /// Authenticated, but the action is not allowed for this caller.
    #[error("{0}")]
    Forbidden(String),
    /// The addressed thing does not exist (or is not visible to the caller).
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The action clashes with the current state.
    #[error("{0}")]
    Conflict(String),
    /// Too many attempts; retry after the duration.
    #[error("too many attempts")]
    Throttled { retry_after: Duration },
    /// A dependency (database, queue) is down.
    #[error("dependency unavailable: {0}")]
    Unavailable(String),
    /// A bug or unexpected failure; the cause is logged, never shown.
    #[error("internal error: {0}")]
    Internal(String),
}

impl ServiceError {
    pub fn invalid(field: &str, message: &str) -> Self {
        ServiceError::Invalid(vec![FieldError::new(field, message)])
    }

    /// Maps a repository error, naming what was not found.
    pub fn from_repo(err: RepoError, what: &'static str) -> Self {
        match err {
            RepoError::NotFound => ServiceError::NotFound(what),
            other => other.into(),
        }
    }
}

impl From<RepoError> for ServiceError {
    fn from(err: RepoError) -> Self {
        match err {
            RepoError::NotFound => ServiceError::NotFound("resource"),
            RepoError::Conflict(what) => ServiceError::Conflict(what),
            RepoError::Unavailable(why) => ServiceError::Unavailable(why),
            RepoError::Other(e) => ServiceError::Internal(e.to_string()),
        }
    }
}

impl From<CredentialError> for ServiceError {
    fn from(err: CredentialError) -> Self {
        ServiceError::Internal(err.to_string())
    }
}

impl From<ThrottleError> for ServiceError {
    fn from(err: ThrottleError) -> Self {
        match err {
            ThrottleError::Throttled { retry_after } => ServiceError::Throttled { retry_after },
            ThrottleError::Unavailable(why) => ServiceError::Unavailable(why),
        }
    }
}
