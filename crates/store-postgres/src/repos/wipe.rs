//! Wiping the deployment's data, the caller's account kept.

use super::conn;
use crate::PgPool;
use crate::error::map_diesel_error;
use async_trait::async_trait;
use diesel::QueryableByName;
use diesel::sql_types::{Nullable, Text, Uuid as DieselUuid};
use diesel_async::{AsyncConnection, RunQueryDsl};
use reviewd_domain::ports::{DataWipe, RepoError, ResetCaller};

/// Tables whose rows are deleted around the caller's own instead of truncated.
const KEPT_FOR_CALLER: [&str; 3] = ["users", "sessions", "api_keys"];

/// One-row tables whose row the migrations create: put back after the wipe.
const DEFAULT_ROWS: [&str; 2] = ["global_settings", "notification_configs"];

/// Empties every table of the current schema but diesel's migration record, in one
/// transaction: the caller's user, session or API key are kept, and the one-row tables
/// the migrations fill (`global_settings`, `notification_configs`) get their defaults
/// back, so the instance works on at once.
pub struct PgDataWipe {
    pool: PgPool,
}

impl PgDataWipe {
    #[must_use]
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

#[derive(QueryableByName)]
struct TableName {
    #[diesel(sql_type = Text)]
    name: String,
}

#[async_trait]
impl DataWipe for PgDataWipe {
    fn store(&self) -> &'static str {
        "database"
    }

    async fn wipe(&self, caller: &ResetCaller) -> Result<u64, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let tables: Vec<TableName> = diesel::sql_query(
            "SELECT quote_ident(tablename) AS name FROM pg_tables \
             WHERE schemaname = current_schema() AND tablename <> '__diesel_schema_migrations'",
        )
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        if tables.is_empty() {
            return Ok(0);
        }
        let names: Vec<String> = tables.into_iter().map(|t| t.name).collect();
        // The caller's rows are deleted around rather than truncated.
        let truncated: Vec<&String> = names
            .iter()
            .filter(|n| !KEPT_FOR_CALLER.contains(&n.as_str()))
            .collect();
        let caller = *caller;
        conn.transaction(async move |conn| {
            // Names come from the catalogue, quoted by `quote_ident`.
            diesel::sql_query(format!(
                "TRUNCATE TABLE {} RESTART IDENTITY CASCADE",
                truncated
                    .iter()
                    .map(|n| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .execute(conn)
            .await?;
            diesel::sql_query("DELETE FROM sessions WHERE id IS DISTINCT FROM $1")
                .bind::<Nullable<DieselUuid>, _>(caller.session_id)
                .execute(conn)
                .await?;
            diesel::sql_query("DELETE FROM api_keys WHERE id IS DISTINCT FROM $1")
                .bind::<Nullable<DieselUuid>, _>(caller.api_key_id)
                .execute(conn)
                .await?;
            diesel::sql_query("DELETE FROM users WHERE id <> $1")
                .bind::<DieselUuid, _>(caller.user_id)
                .execute(conn)
                .await?;
            for table in DEFAULT_ROWS {
                diesel::sql_query(format!("INSERT INTO {table} DEFAULT VALUES"))
                    .execute(conn)
                    .await?;
            }
            Ok::<_, diesel::result::Error>(())
        })
        .await
        .map_err(map_diesel_error)?;
        Ok(u64::try_from(names.len()).unwrap_or(0))
    }
}
