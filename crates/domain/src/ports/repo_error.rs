//! The error every repository port returns.

/// Failures of a repository. Callers branch on `NotFound` and `Conflict`; the
/// rest is opaque and ends as a 500 (or 503 when the store is unreachable).
#[derive(Debug, thiserror::Error)]
pub enum RepoError {
    /// The addressed row does not exist.
    #[error("not found")]
    NotFound,
    /// A uniqueness rule was violated; the text names what clashed.
    #[error("conflict: {0}")]
    Conflict(String),
    /// The store could not be reached (pool exhausted, connection refused, timeout).
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// Anything else: a bug or an unexpected database answer.
    #[error("store error: {0}")]
    Other(#[source] Box<dyn std::error::Error + Send + Sync>),
}
