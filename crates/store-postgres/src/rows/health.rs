//! The row of one health check result.

use crate::error::corrupt;
use crate::schema::health_checks;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use reviewd_domain::model::health::{CheckResult, CheckType, HealthStatus};
use reviewd_domain::ports::RepoError;

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = health_checks, check_for_backend(diesel::pg::Pg))]
pub(crate) struct HealthCheckRow {
    check_type: String,
    check_name: String,
    status: String,
    details: serde_json::Value,
    response_time_ms: i64,
    checked_at: DateTime<Utc>,
}

impl TryFrom<HealthCheckRow> for CheckResult {
    type Error = RepoError;

    fn try_from(r: HealthCheckRow) -> Result<Self, RepoError> {
        Ok(CheckResult {
            check_type: CheckType::parse(&r.check_type)
                .ok_or_else(|| corrupt(format!("check type `{}`", r.check_type)))?,
            check_name: r.check_name,
            status: HealthStatus::parse(&r.status)
                .ok_or_else(|| corrupt(format!("health status `{}`", r.status)))?,
            details: r.details,
            response_time: u64::try_from(r.response_time_ms).unwrap_or(0),
            checked_at: r.checked_at,
        })
    }
}
