//! The embedded migrations (`migrations/` at the root), run and reverted.

use diesel::Connection;
use diesel::connection::SimpleConnection;
use diesel_async::AsyncPgConnection;
use diesel_async::async_connection_wrapper::AsyncConnectionWrapper;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations");
/// Serialises migrations of replicas starting together (an arbitrary constant).
const MIGRATION_LOCK_ID: i64 = 0x7265_7669_6577_6400;

#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("cannot connect: {0}")]
    Connect(String),
    #[error("migration failed: {0}")]
    Failed(String),
}

/// Applies pending migrations under an advisory lock; returns the names applied.
///
/// # Errors
/// `Connect` when the database cannot be reached, `Failed` when a migration fails
/// (its transaction is rolled back).
pub async fn run_migrations(database_url: &str) -> Result<Vec<String>, MigrateError> {
    let url = database_url.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut conn = AsyncConnectionWrapper::<AsyncPgConnection>::establish(&url)
            .map_err(|e| MigrateError::Connect(e.to_string()))?;
        conn.batch_execute(&format!("SELECT pg_advisory_lock({MIGRATION_LOCK_ID})"))
            .map_err(|e| MigrateError::Failed(e.to_string()))?;
        let applied = conn
            .run_pending_migrations(MIGRATIONS)
            .map(|versions| versions.iter().map(ToString::to_string).collect())
            .map_err(|e| MigrateError::Failed(e.to_string()));
        let _ = conn.batch_execute(&format!("SELECT pg_advisory_unlock({MIGRATION_LOCK_ID})"));
        applied
    })
    .await
    .map_err(|e| MigrateError::Failed(e.to_string()))?
}

/// Reverts every migration (used by the migration round-trip test and by operators
/// who want an empty schema). Destroys all data.
///
/// # Errors
/// As [`run_migrations`].
pub async fn revert_all_migrations(database_url: &str) -> Result<usize, MigrateError> {
    let url = database_url.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut conn = AsyncConnectionWrapper::<AsyncPgConnection>::establish(&url)
            .map_err(|e| MigrateError::Connect(e.to_string()))?;
        conn.revert_all_migrations(MIGRATIONS)
            .map(|v| v.len())
            .map_err(|e| MigrateError::Failed(e.to_string()))
    })
    .await
    .map_err(|e| MigrateError::Failed(e.to_string()))?
}
