//! Diesel's and the pool's errors as the ports' `RepoError`.

use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel_async::pooled_connection::deadpool::PoolError;
use reviewd_domain::ports::RepoError;

/// Maps diesel's errors onto the port's: unique violations are conflicts named by
/// their constraint, missing rows and broken foreign keys are `NotFound`.
pub fn map_diesel_error(err: DieselError) -> RepoError {
    match err {
        DieselError::NotFound => RepoError::NotFound,
        DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
            RepoError::Conflict(
                info.constraint_name()
                    .unwrap_or("unique constraint")
                    .to_owned(),
            )
        }
        // A CHECK between columns (the default template is global) that the request
        // broke against what is stored: a conflict, never a 500.
        DieselError::DatabaseError(DatabaseErrorKind::CheckViolation, info) => RepoError::Conflict(
            info.constraint_name()
                .unwrap_or("check constraint")
                .to_owned(),
        ),
        DieselError::DatabaseError(DatabaseErrorKind::ForeignKeyViolation, _) => {
            RepoError::NotFound
        }
        DieselError::DatabaseError(DatabaseErrorKind::ClosedConnection, info) => {
            RepoError::Unavailable(info.message().to_owned())
        }
        other => RepoError::Other(Box::new(other)),
    }
}

pub(crate) fn map_pool_error(err: PoolError) -> RepoError {
    RepoError::Unavailable(err.to_string())
}

/// A stored value the domain cannot represent (e.g. an unknown role string).
pub(crate) fn corrupt(what: String) -> RepoError {
    RepoError::Other(what.into())
}
