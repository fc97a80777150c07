//! Health check results: a round saved, the latest of each check, history.

use super::conn;
use crate::PgPool;
use crate::error::map_diesel_error;
use crate::rows::HealthCheckRow;
use crate::schema::health_checks;
use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use reviewd_domain::model::health::{CheckResult, HealthHistoryFilter};
use reviewd_domain::ports::{HealthCheckRepository, RepoError};

pub struct PgHealthCheckRepository {
    pool: PgPool,
}

impl PgHealthCheckRepository {
    #[must_use]
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

#[async_trait]
impl HealthCheckRepository for PgHealthCheckRepository {
    async fn save(&self, results: &[CheckResult]) -> Result<(), RepoError> {
        if results.is_empty() {
            return Ok(());
        }
        let mut conn = conn(&self.pool).await?;
        let rows: Vec<_> = results
            .iter()
            .map(|r| {
                (
                    health_checks::check_type.eq(r.check_type.as_str()),
                    health_checks::check_name.eq(r.check_name.clone()),
                    health_checks::status.eq(r.status.as_str()),
                    health_checks::details.eq(r.details.clone()),
                    health_checks::response_time_ms
                        .eq(i64::try_from(r.response_time).unwrap_or(i64::MAX)),
                    health_checks::checked_at.eq(r.checked_at),
                )
            })
            .collect();
        diesel::insert_into(health_checks::table)
            .values(rows)
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(())
    }

    async fn latest(&self) -> Result<Vec<CheckResult>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let rows: Vec<HealthCheckRow> = health_checks::table
            .distinct_on((health_checks::check_type, health_checks::check_name))
            .order((
                health_checks::check_type,
                health_checks::check_name,
                health_checks::checked_at.desc(),
            ))
            .select(HealthCheckRow::as_select())
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter().map(CheckResult::try_from).collect()
    }

    async fn history(&self, f: &HealthHistoryFilter) -> Result<Vec<CheckResult>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let mut q = health_checks::table
            .select(HealthCheckRow::as_select())
            .into_boxed();
        if let Some(t) = f.check_type {
            q = q.filter(health_checks::check_type.eq(t.as_str()));
        }
        if let Some(s) = f.status {
            q = q.filter(health_checks::status.eq(s.as_str()));
        }
        if let Some(start) = f.start_date {
            q = q.filter(health_checks::checked_at.ge(start));
        }
        if let Some(end) = f.end_date {
            q = q.filter(health_checks::checked_at.le(end));
        }
        let rows: Vec<HealthCheckRow> = q
            .order(health_checks::checked_at.desc())
            .limit(i64::from(f.limit.max(1)))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter().map(CheckResult::try_from).collect()
    }
}
