use super::conn;
use crate::PgPool;
use crate::error::map_diesel_error;
use async_trait::async_trait;
use diesel::QueryableByName;
use diesel::sql_types::Text;
use diesel_async::RunQueryDsl;
use reviewd_domain::ports::{DataWipe, RepoError};

/// Empties every table of the current schema but diesel's migration record, in one
/// `TRUNCATE` (atomic: all tables or none).
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

    async fn wipe(&self) -> Result<u64, RepoError> {
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
        // Names come from the catalogue, quoted by `quote_ident`.
        diesel::sql_query(format!(
            "TRUNCATE TABLE {} RESTART IDENTITY CASCADE",
            names.join(", ")
        ))
        .execute(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(u64::try_from(names.len()).unwrap_or(0))
    }
}
