//! Runners' hold on review tasks: claiming queued tasks under each MR's lock,
//! the assignment and phase of a held task, its result, and giving tasks back.

use super::claim_ready::{claimable, mr_idle};
use crate::PgPool;
use crate::error::{corrupt, map_diesel_error};
use crate::repos::locks::try_lock_mr;
use crate::repos::{conn, found};
use crate::rows::TaskRow;
use crate::schema::review_tasks;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Text, Timestamptz};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use reviewd_domain::model::ReviewTask;
use reviewd_domain::model::runner::{RunnerAssignment, RunnerPhase};
use reviewd_domain::ports::{HeldTask, RepoError, SweepReport};
use uuid::Uuid;

#[derive(QueryableByName)]
struct IdRow {
    #[diesel(sql_type = diesel::sql_types::Uuid)]
    id: Uuid,
    #[diesel(sql_type = Text)]
    outcome: String,
}

/// Gives the `processing` tasks of offline runners (of `runner` only, when given)
/// back to the queue (attempts left) or fails them, in one statement. With
/// `expired`, also any runner-held task past its lease: a claim whose answer the
/// runner never received, or a result whose conclusion died with its replica.
pub(super) async fn release_tasks_of_offline(
    conn: &mut AsyncPgConnection,
    runner: Option<&str>,
    reason: &str,
    expired: bool,
) -> Result<SweepReport, diesel::result::Error> {
    let rows: Vec<IdRow> = diesel::sql_query(
        "UPDATE review_tasks t SET
            status = CASE WHEN t.attempts < t.max_attempts THEN 'queued' ELSE 'failed' END,
            error_message = $2,
            runner_id = NULL, runner_phase = NULL, lease_expires_at = NULL, assignment = NULL,
            stream_message_id = CASE WHEN t.attempts < t.max_attempts THEN NULL ELSE t.stream_message_id END,
            dedup_key = CASE WHEN t.attempts < t.max_attempts THEN t.dedup_key ELSE NULL END,
            completed_at = CASE WHEN t.attempts < t.max_attempts THEN NULL ELSE now() END
          WHERE (t.status = 'processing'
                 AND t.runner_id IN (SELECT id FROM runners
                                      WHERE status = 'offline' AND ($1::text IS NULL OR id = $1)))
             OR ($3 AND t.runner_id IS NOT NULL AND t.status IN ('processing', 'in_progress')
                 AND t.lease_expires_at < now())
          RETURNING t.id, t.status AS outcome",
    )
    .bind::<diesel::sql_types::Nullable<Text>, _>(runner)
    .bind::<Text, _>(reason)
    .bind::<diesel::sql_types::Bool, _>(expired)
    .load(conn)
    .await?;
    let mut report = SweepReport::default();
    for row in rows {
        if row.outcome == "queued" {
            report.requeued.push(row.id);
        } else {
            report.failed.push(row.id);
        }
    }
    Ok(report)
}

pub(super) async fn claim(
    pool: &PgPool,
    runner_id: &str,
    limit: u32,
    lease: std::time::Duration,
    retry_delay: std::time::Duration,
) -> Result<Vec<ReviewTask>, RepoError> {
    let mut conn = conn(pool).await?;
    let runner_id = runner_id.to_owned();
    let lease_ms = i64::try_from(lease.as_millis()).unwrap_or(i64::MAX);
    let retry_ms = i64::try_from(retry_delay.as_millis()).unwrap_or(i64::MAX);
    let ids: Vec<Uuid> = conn
        .transaction(async move |conn| {
            // The runner's row lock serialises its own concurrent polls, so its
            // capacity is counted once; other runners' claims proceed in parallel.
            #[derive(QueryableByName)]
            struct Capacity {
                #[diesel(sql_type = Integer)]
                free: i32,
            }
            let capacity: Option<Capacity> = diesel::sql_query(
                "SELECT r.max_concurrent_jobs - (SELECT count(*)::int FROM review_tasks
                          WHERE runner_id = r.id AND status IN ('processing', 'in_progress')) AS free
                   FROM runners r WHERE r.id = $1 FOR UPDATE",
            )
            .bind::<Text, _>(&runner_id)
            .get_result(conn)
            .await
            .optional()?;
            let Some(capacity) = capacity else {
                return Err(diesel::result::Error::NotFound);
            };
            let take = i64::from(capacity.free.max(0)).min(i64::from(limit));
            if take == 0 {
                return Ok(Vec::new());
            }
            #[derive(QueryableByName)]
            struct Candidate {
                #[diesel(sql_type = diesel::sql_types::Uuid)]
                id: Uuid,
                #[diesel(sql_type = diesel::sql_types::Uuid)]
                project_id: Uuid,
                #[diesel(sql_type = BigInt)]
                mr_iid: i64,
                #[diesel(sql_type = diesel::sql_types::Bool)]
                locked: bool,
            }
            // SKIP LOCKED: runners polling at once look at different rows. Exactly
            // `take` of them: rows locked here but not claimed would be hidden from
            // other runners polling at the same moment. Each row's MR lock is tried
            // (never awaited, so claims never wait on each other) on the rows the
            // inner query returned, and only on those.
            let candidates: Vec<Candidate> = diesel::sql_query(format!(
                "SELECT c.id, c.project_id, c.mr_iid,
                        {} AS locked
                   FROM (SELECT t.id, t.project_id, t.mr_iid, t.created_at FROM review_tasks t
                          WHERE {claimable}
                          ORDER BY t.created_at
                          LIMIT $2 FOR UPDATE SKIP LOCKED) c
                  ORDER BY c.created_at",
                try_lock_mr("c.project_id", "c.mr_iid"),
                claimable = claimable("$3"),
            ))
            .bind::<Text, _>(&runner_id)
            .bind::<BigInt, _>(take)
            .bind::<BigInt, _>(retry_ms)
            .load(conn)
            .await?;
            // One task per MR, and only with the MR's lock (which workers' attempts
            // take too): two tasks of one MR never run at once. A row skipped here
            // stays queued for the next poll.
            let mut seen = std::collections::HashSet::new();
            let chosen: Vec<Uuid> = candidates
                .into_iter()
                .filter(|c| c.locked && seen.insert((c.project_id, c.mr_iid)))
                .map(|c| c.id)
                .collect();
            if chosen.is_empty() {
                return Ok(Vec::new());
            }
            #[derive(QueryableByName)]
            struct Claimed {
                #[diesel(sql_type = diesel::sql_types::Uuid)]
                id: Uuid,
            }
            // Checked again under the MR locks, on a fresh snapshot.
            let claimed: Vec<Claimed> = diesel::sql_query(format!(
                "UPDATE review_tasks t SET status = 'processing', runner_id = $1, runner_phase = NULL,
                        attempts = attempts + 1, claimed_at = now(), heartbeat_at = now(),
                        started_at = COALESCE(started_at, now()),
                        lease_expires_at = now() + ($3 * interval '1 millisecond')
                  WHERE t.id = ANY($2) AND t.status = 'queued'
                    AND {}
                  RETURNING t.id",
                mr_idle("t")
            ))
            .bind::<Text, _>(&runner_id)
            .bind::<diesel::sql_types::Array<diesel::sql_types::Uuid>, _>(&chosen)
            .bind::<BigInt, _>(lease_ms)
            .load(conn)
            .await?;
            if !claimed.is_empty() {
                diesel::sql_query(
                    "UPDATE runners SET current_jobs = current_jobs + $2, last_heartbeat = now(),
                            status = CASE WHEN current_jobs + $2 >= max_concurrent_jobs THEN 'busy' ELSE 'online' END
                      WHERE id = $1",
                )
                .bind::<Text, _>(&runner_id)
                .bind::<Integer, _>(i32::try_from(claimed.len()).unwrap_or(i32::MAX))
                .execute(conn)
                .await?;
            }
            Ok(claimed.into_iter().map(|c| c.id).collect())
        })
        .await
        .map_err(map_diesel_error)?;
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<TaskRow> = review_tasks::table
        .filter(review_tasks::id.eq_any(&ids))
        .order(review_tasks::created_at)
        .select(TaskRow::as_select())
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
    rows.into_iter().map(ReviewTask::try_from).collect()
}

pub(super) async fn save_assignment(
    pool: &PgPool,
    task_id: Uuid,
    assignment: &RunnerAssignment,
) -> Result<(), RepoError> {
    let mut conn = conn(pool).await?;
    let value = serde_json::to_value(assignment).map_err(|e| RepoError::Other(e.into()))?;
    diesel::update(review_tasks::table.find(task_id))
        .set((
            review_tasks::assignment.eq(value),
            review_tasks::review_id.eq(assignment.review_id.0),
            review_tasks::head_sha.eq(&assignment.head_sha),
        ))
        .execute(&mut conn)
        .await
        .map_err(map_diesel_error)?;
    Ok(())
}

pub(super) async fn held(pool: &PgPool, task_id: Uuid) -> Result<HeldTask, RepoError> {
    let mut conn = conn(pool).await?;
    let row: Option<(TaskRow, Option<String>, Option<serde_json::Value>)> = review_tasks::table
        .find(task_id)
        .filter(review_tasks::status.eq("processing"))
        .filter(review_tasks::runner_id.is_not_null())
        .select((
            TaskRow::as_select(),
            review_tasks::runner_id,
            review_tasks::assignment,
        ))
        .first(&mut conn)
        .await
        .optional()
        .map_err(map_diesel_error)?;
    let (row, runner_id, assignment) = row.ok_or(RepoError::NotFound)?;
    let assignment = assignment
        .map(serde_json::from_value)
        .transpose()
        .map_err(|e| corrupt(format!("task {task_id}: assignment: {e}")))?;
    Ok(HeldTask {
        task: row.try_into()?,
        runner_id: runner_id.unwrap_or_default(),
        assignment,
    })
}

pub(super) async fn set_phase(
    pool: &PgPool,
    task_id: Uuid,
    runner_id: &str,
    phase: RunnerPhase,
) -> Result<(), RepoError> {
    let mut conn = conn(pool).await?;
    let n = diesel::update(
        review_tasks::table
            .find(task_id)
            .filter(review_tasks::status.eq("processing"))
            .filter(review_tasks::runner_id.eq(runner_id)),
    )
    .set((
        review_tasks::runner_phase.eq(phase.as_str()),
        review_tasks::heartbeat_at.eq(Utc::now()),
    ))
    .execute(&mut conn)
    .await
    .map_err(map_diesel_error)?;
    found(n)
}

pub(super) async fn accept_result(
    pool: &PgPool,
    task_id: Uuid,
    runner_id: &str,
    result: &serde_json::Value,
    metrics: &serde_json::Value,
) -> Result<(), RepoError> {
    let mut conn = conn(pool).await?;
    let n = diesel::update(
        review_tasks::table
            .find(task_id)
            .filter(review_tasks::status.eq("processing"))
            .filter(review_tasks::runner_id.eq(runner_id)),
    )
    .set((
        review_tasks::status.eq("in_progress"),
        review_tasks::result.eq(result),
        review_tasks::metrics.eq(metrics),
        // A fresh lease of the same length for the conclusion (posting the
        // comments), so the sweep does not take the task back mid-way.
        review_tasks::lease_expires_at.eq(diesel::dsl::sql::<
            diesel::sql_types::Nullable<Timestamptz>,
        >("now() + (lease_expires_at - claimed_at)")),
    ))
    .execute(&mut conn)
    .await
    .map_err(map_diesel_error)?;
    found(n)
}

pub(super) async fn release(
    pool: &PgPool,
    task_id: Uuid,
    runner_id: &str,
    error: &str,
) -> Result<(), RepoError> {
    let mut conn = conn(pool).await?;
    let (task_id, runner_id, error) = (task_id, runner_id.to_owned(), error.to_owned());
    conn.transaction(async move |conn| {
        // The claim's attempt is given back: preparation failing is not the task's fault.
        let n = diesel::update(
            review_tasks::table
                .find(task_id)
                .filter(review_tasks::status.eq("processing"))
                .filter(review_tasks::runner_id.eq(&runner_id)),
        )
        .set((
            review_tasks::status.eq("queued"),
            review_tasks::runner_id.eq(None::<String>),
            review_tasks::runner_phase.eq(None::<String>),
            review_tasks::assignment.eq(None::<serde_json::Value>),
            review_tasks::attempts.eq(review_tasks::attempts - 1),
            review_tasks::error_message.eq(&error),
        ))
        .execute(conn)
        .await?;
        if n > 0 {
            diesel::sql_query(
                "UPDATE runners SET current_jobs = GREATEST(current_jobs - 1, 0) WHERE id = $1",
            )
            .bind::<Text, _>(&runner_id)
            .execute(conn)
            .await?;
        }
        Ok(())
    })
    .await
    .map_err(map_diesel_error)
}

pub(super) async fn runner_can_take(
    pool: &PgPool,
    task_id: Uuid,
    queued_after: DateTime<Utc>,
    heard_after: DateTime<Utc>,
) -> Result<bool, RepoError> {
    #[derive(QueryableByName)]
    struct Answer {
        #[diesel(sql_type = diesel::sql_types::Bool)]
        waits: bool,
    }
    let mut conn = conn(pool).await?;
    let answer: Answer = diesel::sql_query(
        "SELECT EXISTS (
            SELECT 1 FROM review_tasks t JOIN runners r ON t.required_tags <@ r.tags
             WHERE t.id = $1 AND t.status = 'queued' AND t.updated_at > $2
               AND r.status <> 'offline' AND r.last_heartbeat > $3
               AND r.max_concurrent_jobs > (SELECT count(*) FROM review_tasks h
                     WHERE h.runner_id = r.id AND h.status IN ('processing', 'in_progress'))
         ) AS waits",
    )
    .bind::<diesel::sql_types::Uuid, _>(task_id)
    .bind::<Timestamptz, _>(queued_after)
    .bind::<Timestamptz, _>(heard_after)
    .get_result(&mut conn)
    .await
    .map_err(map_diesel_error)?;
    Ok(answer.waits)
}
