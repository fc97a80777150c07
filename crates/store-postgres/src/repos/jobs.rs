//! The ledger of periodic job runs (`job_runs`).

use super::conn;
use super::locks::lock_job;
use crate::PgPool;
use crate::error::map_diesel_error;
use crate::schema::job_runs;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use reviewd_domain::ports::{JobLedger, JobOutcome, RepoError};
use uuid::Uuid;

/// Periodic job runs in `job_runs`. `begin` takes a transaction-scoped advisory lock
/// keyed by the job's name, so the check "has it run this period?" and the insert of
/// the new run cannot interleave between replicas; the lock is released at commit,
/// long before the job itself finishes, so no connection is held while it runs.
pub struct PgJobLedger {
    pool: PgPool,
}

impl PgJobLedger {
    #[must_use]
    pub fn new(pool: PgPool) -> Self {
        Self { pool }
    }
}

/// How long a failed run keeps its job from being tried again within the same
/// period: an outage is retried once a minute, not on every scheduler tick.
const FAILED_COOLDOWN: chrono::TimeDelta = chrono::TimeDelta::seconds(60);

#[async_trait]
impl JobLedger for PgJobLedger {
    async fn begin(
        &self,
        name: &str,
        instance: &str,
        due_since: DateTime<Utc>,
        stale_after: chrono::Duration,
    ) -> Result<Option<Uuid>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let (name, instance) = (name.to_owned(), instance.to_owned());
        let stale_before = Utc::now() - stale_after;
        let cooled_before = Utc::now() - FAILED_COOLDOWN;
        conn.transaction::<_, diesel::result::Error, _>(async move |conn| {
            lock_job(conn, &name).await?;
            // A run blocks a new one when it succeeded this period, is still going,
            // or failed within the cool-down; an older failure or a run abandoned by a
            // dead replica does not.
            let blocking: i64 = job_runs::table
                .filter(job_runs::name.eq(&name))
                .filter(
                    job_runs::status
                        .eq("succeeded")
                        .and(job_runs::started_at.ge(due_since))
                        .or(job_runs::status
                            .eq("running")
                            .and(job_runs::started_at.ge(stale_before)))
                        .or(job_runs::status
                            .eq("failed")
                            .and(job_runs::started_at.ge(due_since))
                            .and(job_runs::finished_at.ge(cooled_before))),
                )
                .count()
                .get_result(conn)
                .await?;
            if blocking > 0 {
                return Ok(None);
            }
            let id: Uuid = diesel::insert_into(job_runs::table)
                .values((
                    job_runs::name.eq(&name),
                    job_runs::instance.eq(&instance),
                    job_runs::status.eq("running"),
                ))
                .returning(job_runs::id)
                .get_result(conn)
                .await?;
            Ok(Some(id))
        })
        .await
        .map_err(map_diesel_error)
    }

    async fn finish(&self, run: Uuid, outcome: &JobOutcome) -> Result<(), RepoError> {
        let mut conn = conn(&self.pool).await?;
        let (status, message) = match outcome {
            JobOutcome::Succeeded(m) => ("succeeded", m),
            JobOutcome::Failed(m) => ("failed", m),
        };
        diesel::update(job_runs::table.find(run))
            .set((
                job_runs::status.eq(status),
                job_runs::message.eq(message),
                job_runs::finished_at.eq(Utc::now()),
            ))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(())
    }
}
