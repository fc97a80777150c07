//! What the commands that build no server read from the database: `reviewd migrate`,
//! the stored AI configuration `reviewd eval --ai` runs on, and the judged rounds
//! `reviewd export-eval` writes.

use super::{CONNECT_TIMEOUT, StartupError};
use crate::config::Config;
use reviewd_crypto::SecretBox;
use reviewd_domain::model::AiTarget;
use reviewd_domain::model::review_views::JudgedRound;
use reviewd_domain::ports::{AiConfigRepository, ReviewQueries};
use reviewd_store_postgres::{PgAiConfigRepository, PgPool, PgReviewQueries, run_migrations};

/// Applies pending migrations (`reviewd migrate`, and at every server start).
///
/// # Errors
/// `DATABASE_URL` when the database cannot be reached or a migration fails.
pub async fn migrate(config: &Config) -> Result<Vec<String>, StartupError> {
    run_migrations(config.database_url.expose())
        .await
        .map_err(|e| StartupError::new("DATABASE_URL", e.to_string()))
}

/// The stored AI configuration named `name_or_id` (its id or its name), key
/// decrypted, for `reviewd eval` to run cases against (no server is built).
///
/// # Errors
/// `DATABASE_URL` unreachable, or no configuration of that name or id.
pub async fn stored_ai_target(config: &Config, name_or_id: &str) -> Result<AiTarget, StartupError> {
    let secrets = SecretBox::from_config(
        config.encryption_key.as_ref().map(|k| k.expose()),
        config.auth_secret.expose(),
    );
    let repo = PgAiConfigRepository::new(pool(config).await?, secrets);
    let configs = repo
        .list()
        .await
        .map_err(|e| StartupError::new("DATABASE_URL", e.to_string()))?;
    let id = uuid::Uuid::parse_str(name_or_id).ok();
    configs
        .iter()
        .find(|c| Some(c.id) == id || c.name == name_or_id)
        .map(AiTarget::stored)
        .ok_or_else(|| {
            StartupError::new(
                "--ai",
                format!("no stored AI configuration is named `{name_or_id}`"),
            )
        })
}

/// The rounds of `project_id`'s reviews whose comments readers judged, newest
/// first, at most `limit`: what `reviewd export-eval` writes as eval cases.
///
/// # Errors
/// `DATABASE_URL` unreachable.
pub async fn judged_rounds(
    config: &Config,
    project_id: uuid::Uuid,
    limit: u32,
) -> Result<Vec<JudgedRound>, StartupError> {
    PgReviewQueries::new(pool(config).await?)
        .judged_rounds(project_id.into(), limit)
        .await
        .map_err(|e| StartupError::new("DATABASE_URL", e.to_string()))
}

/// A small pool: these commands make a handful of queries.
async fn pool(config: &Config) -> Result<PgPool, StartupError> {
    reviewd_store_postgres::connect(config.database_url.expose(), 2, CONNECT_TIMEOUT)
        .await
        .map_err(|e| StartupError::new("DATABASE_URL", format!("PostgreSQL {e}")))
}
