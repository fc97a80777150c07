//! A server worker's attempts on review tasks: starting one under the MR's lock,
//! its heartbeat, how it ended, and the tasks still to finish. The worker's name
//! (`worker_id`) fences each attempt: once another worker took the task over, the
//! first one's heartbeats and outcome change nothing.

use super::ACTIVE;
use crate::PgPool;
use crate::error::map_diesel_error;
use crate::repos::conn;
use crate::repos::locks::lock_mr;
use crate::rows::TaskRow;
use crate::schema::{projects, review_tasks};
use chrono::Utc;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use reviewd_domain::model::ReviewTask;
use reviewd_domain::ports::{AttemptEnd, AttemptStart, RepoError};
use uuid::Uuid;

/// The stored status of a worker's attempt (`in_progress` is a runner's result
/// being concluded).
const PROCESSING: &str = "processing";

/// The task while `worker`'s attempt holds it: `processing`, held by `worker`, and
/// not by a runner (whose claim may follow an old-style requeue that kept the name).
#[diesel::dsl::auto_type]
fn held_by<'a>(id: Uuid, worker: &'a str) -> _ {
    let processing: &'static str = PROCESSING;
    review_tasks::table
        .find(id)
        .filter(review_tasks::status.eq(processing))
        .filter(review_tasks::worker_id.eq(worker))
        .filter(review_tasks::runner_id.is_null())
}

pub(super) async fn begin(
    pool: &PgPool,
    id: Uuid,
    worker: &str,
    lease: std::time::Duration,
) -> Result<AttemptStart, RepoError> {
    let mut conn = conn(pool).await?;
    let now = Utc::now();
    let live_since = now - chrono::Duration::from_std(lease).unwrap_or(chrono::Duration::MAX);
    conn.transaction(async move |conn| {
        let Some((project_id, mr_iid, conversation)): Option<(Uuid, i64, Option<Uuid>)> =
            review_tasks::table
                .find(id)
                .select((
                    review_tasks::project_id,
                    review_tasks::mr_iid,
                    review_tasks::conversation_id,
                ))
                .first(conn)
                .await
                .optional()?
        else {
            return Ok(AttemptStart::NotRunnable);
        };
        // Serialises attempts on the project's MRs across replicas.
        projects::table
            .find(project_id)
            .select(projects::id)
            .for_update()
            .first::<Uuid>(conn)
            .await
            .optional()?;
        // The MR's lock, as runner claims take it: a claim and this attempt
        // never both see the MR free.
        lock_mr(conn, project_id, mr_iid).await?;
        // An answer to a conversation neither waits for the MR's review nor holds
        // it up: only reviews are one at a time per MR.
        let busy: bool = conversation.is_none()
            && diesel::select(diesel::dsl::exists(
                review_tasks::table
                    .filter(review_tasks::project_id.eq(project_id))
                    .filter(review_tasks::mr_iid.eq(mr_iid))
                    .filter(review_tasks::conversation_id.is_null())
                    .filter(review_tasks::status.eq_any(["processing", "in_progress"]))
                    // A worker's attempt is live while it beats; a runner's task while
                    // the runner holds it (the runner sweep and its lease decide), however old.
                    .filter(
                        review_tasks::heartbeat_at
                            .gt(live_since)
                            .or(review_tasks::runner_id.is_not_null().nullable()),
                    )
                    // This task held by `worker` is its own work, resumed (after a
                    // restart, or an outcome it failed to record), not another attempt.
                    .filter(
                        review_tasks::id
                            .ne(id)
                            .or(review_tasks::worker_id.is_distinct_from(worker))
                            .or(review_tasks::runner_id.is_not_null()),
                    ),
            ))
            .get_result(conn)
            .await?;
        if busy {
            return Ok(AttemptStart::Busy);
        }
        // A task a runner holds is the runner's (its claim may have committed
        // after the check above): never started, nor given up, here.
        let row: Option<TaskRow> = diesel::update(review_tasks::table.find(id))
            .filter(review_tasks::status.eq_any(ACTIVE))
            .filter(review_tasks::runner_id.is_null())
            .filter(review_tasks::attempts.lt(review_tasks::max_attempts))
            .set((
                review_tasks::status.eq(PROCESSING),
                review_tasks::attempts.eq(review_tasks::attempts + 1),
                review_tasks::started_at.eq(now),
                review_tasks::heartbeat_at.eq(now),
                review_tasks::worker_id.eq(worker),
            ))
            .returning(TaskRow::as_returning())
            .get_result(conn)
            .await
            .optional()?;
        let Some(row) = row else {
            // Out of attempts while still marked active (its worker died each time): fail it.
            let failed: Option<TaskRow> = diesel::update(review_tasks::table.find(id))
                .filter(review_tasks::status.eq_any(ACTIVE))
                .filter(review_tasks::runner_id.is_null())
                .set((
                    review_tasks::status.eq("failed"),
                    review_tasks::error_message.eq("gave up after the maximum number of attempts"),
                    review_tasks::dedup_key.eq(None::<String>),
                    review_tasks::completed_at.eq(now),
                ))
                .returning(TaskRow::as_returning())
                .get_result(conn)
                .await
                .optional()?;
            return Ok(match failed.map(ReviewTask::try_from) {
                Some(Ok(task)) => AttemptStart::GaveUp(task),
                _ => AttemptStart::NotRunnable,
            });
        };
        ReviewTask::try_from(row)
            .map(AttemptStart::Started)
            .map_err(|_| diesel::result::Error::NotFound)
    })
    .await
    .map_err(map_diesel_error)
}

pub(super) async fn renew(pool: &PgPool, id: Uuid, worker: &str) -> Result<bool, RepoError> {
    let mut conn = conn(pool).await?;
    let n = diesel::update(held_by(id, worker))
        .set(review_tasks::heartbeat_at.eq(Utc::now()))
        .execute(&mut conn)
        .await
        .map_err(map_diesel_error)?;
    Ok(n > 0)
}

/// The effects of `complete`, `requeue` and `fail`, each in one statement fenced
/// by [`held_by`]. The worker's name stays on a finished task (who did it), and is
/// cleared on a requeued one: whoever starts it next, it is no one's own work.
pub(super) async fn finish(
    pool: &PgPool,
    id: Uuid,
    worker: &str,
    end: AttemptEnd<'_>,
) -> Result<bool, RepoError> {
    let mut conn = conn(pool).await?;
    let now = Utc::now();
    let fenced = || diesel::update(held_by(id, worker));
    let n = match end {
        AttemptEnd::Completed { review_id } => {
            fenced()
                .set((
                    review_tasks::status.eq("completed"),
                    review_tasks::review_id.eq(review_id.map(Uuid::from)),
                    review_tasks::error_message.eq(None::<String>),
                    review_tasks::dedup_key.eq(None::<String>),
                    review_tasks::completed_at.eq(now),
                ))
                .execute(&mut conn)
                .await
        }
        AttemptEnd::Requeued { error } => {
            fenced()
                .set((
                    review_tasks::status.eq("queued"),
                    review_tasks::error_message.eq(error),
                    review_tasks::worker_id.eq(None::<String>),
                    review_tasks::runner_phase.eq(None::<String>),
                    review_tasks::lease_expires_at.eq(None::<chrono::DateTime<Utc>>),
                    review_tasks::assignment.eq(None::<serde_json::Value>),
                ))
                .execute(&mut conn)
                .await
        }
        AttemptEnd::Failed { error } => {
            fenced()
                .set((
                    review_tasks::status.eq("failed"),
                    review_tasks::error_message.eq(error),
                    review_tasks::dedup_key.eq(None::<String>),
                    review_tasks::completed_at.eq(now),
                ))
                .execute(&mut conn)
                .await
        }
    }
    .map_err(map_diesel_error)?;
    Ok(n > 0)
}

pub(super) async fn unfinished(
    pool: &PgPool,
    after: Option<Uuid>,
    limit: u32,
) -> Result<Vec<Uuid>, RepoError> {
    let mut conn = conn(pool).await?;
    let mut query = review_tasks::table
        .select(review_tasks::id)
        .filter(
            review_tasks::status
                .eq_any(["queued", "pending"])
                .or(review_tasks::status
                    .eq(PROCESSING)
                    .and(review_tasks::runner_id.is_null())),
        )
        .order(review_tasks::id)
        .limit(i64::from(limit))
        .into_boxed::<Pg>();
    if let Some(after) = after {
        query = query.filter(review_tasks::id.gt(after));
    }
    query.load(&mut conn).await.map_err(map_diesel_error)
}
