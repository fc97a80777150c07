//! The runner registry: registration, heartbeats, listing, and runners going
//! offline (deregistered, or silent too long), their tasks given back.

use super::claims::release_tasks_of_offline;
use crate::PgPool;
use crate::error::map_diesel_error;
use crate::repos::conn;
use crate::rows::RunnerRow;
use crate::schema::{review_tasks, runners};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text, Timestamptz};
use diesel_async::{AsyncConnection, RunQueryDsl};
use reviewd_domain::model::runner::{Runner, RunnerOutcome, RunnerRegistration, RunnerStatus};
use reviewd_domain::ports::{RepoError, SweepReport};
use uuid::Uuid;

pub(super) async fn upsert(pool: &PgPool, r: &RunnerRegistration) -> Result<Runner, RepoError> {
    let mut conn = conn(pool).await?;
    let now = Utc::now();
    let row: RunnerRow = diesel::insert_into(runners::table)
        .values((
            runners::id.eq(&r.id),
            runners::name.eq(&r.name),
            runners::version.eq(&r.version),
            runners::status.eq("online"),
            runners::max_concurrent_jobs.eq(r.max_concurrent_jobs),
            runners::tags.eq(&r.tags),
            runners::api_key_id.eq(r.api_key_id),
            runners::last_heartbeat.eq(now),
        ))
        .on_conflict(runners::id)
        .do_update()
        .set((
            runners::name.eq(&r.name),
            runners::version.eq(&r.version),
            runners::status.eq("online"),
            runners::max_concurrent_jobs.eq(r.max_concurrent_jobs),
            runners::tags.eq(&r.tags),
            runners::api_key_id.eq(r.api_key_id),
            runners::last_heartbeat.eq(now),
        ))
        .returning(RunnerRow::as_returning())
        .get_result(&mut conn)
        .await
        .map_err(map_diesel_error)?;
    row.try_into()
}

pub(super) async fn heartbeat(
    pool: &PgPool,
    id: &str,
    status: RunnerStatus,
    current_jobs: i32,
) -> Result<Runner, RepoError> {
    let mut conn = conn(pool).await?;
    let row: Option<RunnerRow> = diesel::update(runners::table.find(id))
        .set((
            runners::status.eq(status.as_str()),
            runners::current_jobs.eq(current_jobs),
            runners::last_heartbeat.eq(Utc::now()),
        ))
        .returning(RunnerRow::as_returning())
        .get_result(&mut conn)
        .await
        .optional()
        .map_err(map_diesel_error)?;
    // A heartbeat keeps the runner's tasks alive too.
    if row.is_some() {
        diesel::update(
            review_tasks::table
                .filter(review_tasks::runner_id.eq(id))
                .filter(review_tasks::status.eq("processing")),
        )
        .set(review_tasks::heartbeat_at.eq(Utc::now()))
        .execute(&mut conn)
        .await
        .map_err(map_diesel_error)?;
    }
    row.ok_or(RepoError::NotFound)?.try_into()
}

pub(super) async fn get(pool: &PgPool, id: &str) -> Result<Runner, RepoError> {
    let mut conn = conn(pool).await?;
    let row: RunnerRow = runners::table
        .find(id)
        .select(RunnerRow::as_select())
        .first(&mut conn)
        .await
        .optional()
        .map_err(map_diesel_error)?
        .ok_or(RepoError::NotFound)?;
    row.try_into()
}

pub(super) async fn key_of(pool: &PgPool, id: &str) -> Result<Option<Uuid>, RepoError> {
    let mut conn = conn(pool).await?;
    runners::table
        .find(id)
        .select(runners::api_key_id)
        .first::<Option<Uuid>>(&mut conn)
        .await
        .optional()
        .map_err(map_diesel_error)?
        .ok_or(RepoError::NotFound)
}

pub(super) async fn list(pool: &PgPool) -> Result<Vec<Runner>, RepoError> {
    let mut conn = conn(pool).await?;
    let rows: Vec<RunnerRow> = runners::table
        .order((runners::last_heartbeat.desc().nulls_last(), runners::id))
        .select(RunnerRow::as_select())
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
    rows.into_iter().map(Runner::try_from).collect()
}

pub(super) async fn deregister(pool: &PgPool, id: &str) -> Result<SweepReport, RepoError> {
    let mut conn = conn(pool).await?;
    let id = id.to_owned();
    conn.transaction(async move |conn| {
        let n = diesel::update(runners::table.find(&id))
            .set((runners::status.eq("offline"), runners::current_jobs.eq(0)))
            .execute(conn)
            .await?;
        if n == 0 {
            return Err(diesel::result::Error::NotFound);
        }
        let mut report =
            release_tasks_of_offline(conn, Some(&id), "the runner went offline", false).await?;
        report.runners_offline = 1;
        Ok(report)
    })
    .await
    .map_err(map_diesel_error)
}

pub(super) async fn count_finished(
    pool: &PgPool,
    runner_id: &str,
    outcome: RunnerOutcome,
) -> Result<(), RepoError> {
    let mut conn = conn(pool).await?;
    let (done, failed) = match outcome {
        RunnerOutcome::Success => (1_i64, 0_i64),
        RunnerOutcome::Failed => (0, 1),
    };
    diesel::sql_query(
        "UPDATE runners SET current_jobs = GREATEST(current_jobs - 1, 0),
                total_jobs_completed = total_jobs_completed + $2,
                total_jobs_failed = total_jobs_failed + $3,
                status = CASE WHEN status = 'busy' AND current_jobs - 1 < max_concurrent_jobs THEN 'online' ELSE status END
          WHERE id = $1",
    )
    .bind::<Text, _>(runner_id)
    .bind::<BigInt, _>(done)
    .bind::<BigInt, _>(failed)
    .execute(&mut conn)
    .await
    .map_err(map_diesel_error)?;
    Ok(())
}

pub(super) async fn sweep_silent(
    pool: &PgPool,
    silent_before: DateTime<Utc>,
) -> Result<SweepReport, RepoError> {
    let mut conn = conn(pool).await?;
    conn.transaction(async move |conn| {
        let offline = diesel::sql_query(
            "UPDATE runners SET status = 'offline', current_jobs = 0
              WHERE status <> 'offline' AND (last_heartbeat IS NULL OR last_heartbeat < $1)",
        )
        .bind::<Timestamptz, _>(silent_before)
        .execute(conn)
        .await?;
        let mut report = release_tasks_of_offline(
            conn,
            None,
            "the runner holding it went silent or let its lease run out",
            true,
        )
        .await?;
        report.runners_offline = u64::try_from(offline).unwrap_or(0);
        Ok(report)
    })
    .await
    .map_err(map_diesel_error)
}
