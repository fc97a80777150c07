use super::conn;
use crate::PgPool;
use crate::error::{corrupt, map_diesel_error};
use crate::schema::health_checks;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use reviewd_domain::model::health::{CheckResult, CheckType, HealthHistoryFilter, HealthStatus};
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

type Row = (
    String,
    String,
    String,
    serde_json::Value,
    i64,
    DateTime<Utc>,
);

fn to_result(r: Row) -> Result<CheckResult, RepoError> {
    Ok(CheckResult {
        check_type: CheckType::parse(&r.0)
            .ok_or_else(|| corrupt(format!("check type `{}`", r.0)))?,
        check_name: r.1,
        status: HealthStatus::parse(&r.2)
            .ok_or_else(|| corrupt(format!("health status `{}`", r.2)))?,
        details: r.3,
        response_time: u64::try_from(r.4).unwrap_or(0),
        checked_at: r.5,
    })
}

macro_rules! columns {
    () => {
        (
            health_checks::check_type,
            health_checks::check_name,
            health_checks::status,
            health_checks::details,
            health_checks::response_time_ms,
            health_checks::checked_at,
        )
    };
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
        let rows: Vec<Row> = health_checks::table
            .distinct_on((health_checks::check_type, health_checks::check_name))
            .order((
                health_checks::check_type,
                health_checks::check_name,
                health_checks::checked_at.desc(),
            ))
            .select(columns!())
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter().map(to_result).collect()
    }

    async fn history(&self, f: &HealthHistoryFilter) -> Result<Vec<CheckResult>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let mut q = health_checks::table.select(columns!()).into_boxed();
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
        let rows: Vec<Row> = q
            .order(health_checks::checked_at.desc())
            .limit(i64::from(f.limit.max(1)))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter().map(to_result).collect()
    }
}
