//! The row of a registered runner.

use crate::error::corrupt;
use crate::schema::runners;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use reviewd_domain::model::runner::{Runner, RunnerStatus};
use reviewd_domain::ports::RepoError;

#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = runners, check_for_backend(diesel::pg::Pg))]
pub(crate) struct RunnerRow {
    id: String,
    name: String,
    version: String,
    status: String,
    current_jobs: i32,
    max_concurrent_jobs: i32,
    total_jobs_completed: i64,
    total_jobs_failed: i64,
    tags: Vec<String>,
    last_heartbeat: Option<DateTime<Utc>>,
    registered_at: DateTime<Utc>,
}

impl TryFrom<RunnerRow> for Runner {
    type Error = RepoError;

    fn try_from(r: RunnerRow) -> Result<Self, RepoError> {
        Ok(Runner {
            status: RunnerStatus::parse(&r.status)
                .ok_or_else(|| corrupt(format!("runner {}: status `{}`", r.id, r.status)))?,
            id: r.id,
            name: r.name,
            version: r.version,
            current_jobs: r.current_jobs,
            max_concurrent_jobs: r.max_concurrent_jobs,
            total_jobs_completed: r.total_jobs_completed,
            total_jobs_failed: r.total_jobs_failed,
            tags: r.tags,
            last_heartbeat: r.last_heartbeat,
            registered_at: r.registered_at,
        })
    }
}
