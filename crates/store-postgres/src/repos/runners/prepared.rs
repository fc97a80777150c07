//! Rounds prepared ahead of runners' claims: which queued task a preparer takes
//! next, the hold it keeps on the task's MR meanwhile, and the tasks that were
//! prepared but will not run their round.
//!
//! A preparation is stored in `review_tasks.assignment` under the key `prepared`
//! (beside the round's own fields when one was begun); the partial index
//! `review_tasks_prepared_idx` keeps the tasks that carry one at hand. A claim
//! strips the key, so only queued tasks and orphans carry it.
//!
//! The hold is a session advisory lock on the MR's key (the one `locks.rs` gives
//! the MR's transaction-scoped locks), taken on a connection kept out of the pool
//! until the hold ends: runner claims (`pg_try_advisory_xact_lock`) skip the MR, a
//! worker's attempt (`pg_advisory_xact_lock`) waits for it. The same connection
//! keeps a transaction open with a `FOR KEY SHARE` lock on the task's row, so a
//! claim's `FOR UPDATE SKIP LOCKED` passes over the task being prepared and takes
//! the next one, where it would otherwise meet the MR's lock and wait. `KEY SHARE`
//! conflicts with nothing but `FOR UPDATE` and deletes: a webhook superseding the
//! task, or the engine writing to it, does not wait.

use crate::PgPool;
use crate::error::{corrupt, map_diesel_error};
use crate::kept::{Bind, bind, kept};
use crate::pool::PgConn;
use crate::repos::conn;
use crate::rows::TaskRow;
use crate::schema::review_tasks;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Jsonb, Nullable, Text, Timestamptz};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};
use reviewd_domain::model::ReviewTask;
use reviewd_domain::model::runner::RunnerAssignment;
use reviewd_domain::ports::{Orphaned, Preparation, PreparationBudget, RepoError, TaskReservation};
use uuid::Uuid;

/// Candidates looked at per reservation: the first whose MR is free is taken.
const CANDIDATES: i64 = 16;

/// The MR's advisory-lock key from SQL expressions for its project and number;
/// the same key as `locks::mr_lock`, so the session lock here and the
/// transaction-scoped ones there exclude each other.
pub(super) fn mr_key(project_id: &str, mr_iid: &str) -> String {
    format!("hashtext('reviewd-mr:' || {project_id}::text || ':' || {mr_iid}::text)")
}

/// Whether the task aliased `t` carries a preparation made at its current
/// attempts and after the timestamp expression `fresh_after`. False for no
/// assignment (never NULL, so it can be negated).
pub(super) fn fresh(t: &str, fresh_after: &str) -> String {
    format!(
        "COALESCE({t}.assignment ? 'prepared'
            AND ({t}.assignment->'prepared'->>'attempts')::int = {t}.attempts
            AND ({t}.assignment->'prepared'->>'at')::timestamptz > {fresh_after}, false)"
    )
}

#[derive(QueryableByName)]
struct Candidate {
    #[diesel(sql_type = diesel::sql_types::Uuid)]
    id: Uuid,
    #[diesel(sql_type = diesel::sql_types::Uuid)]
    project_id: Uuid,
    #[diesel(sql_type = BigInt)]
    mr_iid: i64,
}

#[derive(QueryableByName)]
struct Locked {
    #[diesel(sql_type = Bool)]
    locked: bool,
}

/// An MR's session advisory lock, held on `conn` (with, once the task is read, an
/// open transaction). Dropped without [`MrHold::unlock`], the connection is taken
/// out of the pool and closed, which ends the lock and the transaction with the
/// session: neither ever goes back to the pool.
struct MrHold {
    conn: Option<PgConn>,
    project_id: Uuid,
    mr_iid: i64,
    in_transaction: bool,
}

impl MrHold {
    fn conn(&mut self) -> Result<&mut PgConn, RepoError> {
        self.conn
            .as_mut()
            .ok_or_else(|| corrupt("the MR's hold was let go".to_owned()))
    }

    /// Opens the transaction whose row lock hides the task from claims.
    async fn begin(&mut self) -> Result<(), RepoError> {
        self.conn()?
            .batch_execute("BEGIN")
            .await
            .map_err(map_diesel_error)?;
        self.in_transaction = true;
        Ok(())
    }

    /// Commits what was written under the hold and lets the MR go, in one round
    /// trip; the connection, back, when that worked (else it is closed, which ends
    /// the lock all the same, and the transaction with it).
    async fn unlock(mut self) -> Option<PgConn> {
        let mut c = self.conn.take()?;
        let end = if self.in_transaction { "COMMIT; " } else { "" };
        // Literal values: a UUID and an integer, nothing a caller wrote.
        let key = mr_key(&format!("'{}'", self.project_id), &self.mr_iid.to_string());
        match c
            .batch_execute(&format!("{end}SELECT pg_advisory_unlock({key})"))
            .await
        {
            Ok(()) => Some(c),
            Err(_) => {
                drop(PgConn::take(c));
                None
            }
        }
    }
}

impl Drop for MrHold {
    fn drop(&mut self) {
        if let Some(c) = self.conn.take() {
            drop(PgConn::take(c));
        }
    }
}

/// A task held with its MR.
pub(super) struct PgReservation {
    hold: Option<MrHold>,
    task: ReviewTask,
}

impl PgReservation {
    fn conn(&mut self) -> Result<&mut PgConn, RepoError> {
        self.hold
            .as_mut()
            .ok_or_else(|| corrupt("the reservation was let go".to_owned()))?
            .conn()
    }

    /// Lets the MR go, the connection back to the pool.
    async fn unlock(&mut self) {
        if let Some(hold) = self.hold.take() {
            drop(hold.unlock().await);
        }
    }
}

#[async_trait]
impl TaskReservation for PgReservation {
    fn task(&self) -> &ReviewTask {
        &self.task
    }

    async fn save(
        mut self: Box<Self>,
        preparation: &Preparation,
        assignment: Option<&RunnerAssignment>,
    ) -> Result<bool, RepoError> {
        let result = async {
            let mut value = match assignment {
                Some(a) => serde_json::to_value(a).map_err(|e| RepoError::Other(e.into()))?,
                None => serde_json::json!({}),
            };
            value["prepared"] =
                serde_json::to_value(preparation).map_err(|e| RepoError::Other(e.into()))?;
            #[derive(QueryableByName)]
            struct Status {
                #[diesel(sql_type = Text)]
                status: String,
            }
            let (id, attempts, began) = (self.task.id, preparation.attempts, assignment.is_some());
            // A task superseded meanwhile keeps the round it was given, so the
            // orphan pass ends it; one taken or finished is not touched here (no
            // claim or attempt could take it while it was held).
            let stored: Option<Status> = diesel::sql_query(
                "UPDATE review_tasks SET assignment = $1
                  WHERE id = $2 AND ((status = 'queued' AND attempts = $3)
                                     OR ($4 AND status = 'superseded'))
                  RETURNING status",
            )
            .bind::<Jsonb, _>(value)
            .bind::<diesel::sql_types::Uuid, _>(id)
            .bind::<diesel::sql_types::Integer, _>(attempts)
            .bind::<Bool, _>(began)
            .get_result(self.conn()?)
            .await
            .optional()
            .map_err(map_diesel_error)?;
            Ok(stored.is_some_and(|s| s.status == "queued"))
        }
        .await;
        self.unlock().await;
        result
    }

    async fn forget(mut self: Box<Self>) -> Result<(), RepoError> {
        let id = self.task.id;
        let result = async {
            diesel::sql_query(
                "UPDATE review_tasks SET assignment = NULL
                  WHERE id = $1 AND status <> 'queued' AND assignment ? 'prepared'",
            )
            .bind::<diesel::sql_types::Uuid, _>(id)
            .execute(self.conn()?)
            .await
            .map_err(map_diesel_error)?;
            Ok(())
        }
        .await;
        self.unlock().await;
        result
    }

    async fn release(mut self: Box<Self>) {
        self.unlock().await;
    }
}

/// Which tasks a hold is wanted on.
#[derive(Clone, Copy)]
enum Wanted {
    /// Queued tasks to prepare (retry delay in ms, fresh after, heard after).
    ToPrepare(i64, DateTime<Utc>, DateTime<Utc>),
    /// Tasks no longer queued that still carry a preparation.
    Orphaned,
}

/// SQL: queued tasks aliased `t` that pass `filter` and may be prepared now, then
/// `tail` (an order and a limit, or nothing). `$1` is the retry delay in ms, `$2`
/// the freshness bound, `$3` the heartbeat bound: the retry delay is over, an
/// online runner has the task's tags, and no other task of its MR is in progress
/// or prepared.
fn to_prepare_sql(filter: &str, tail: &str) -> String {
    format!(
        "SELECT t.id, t.project_id, t.mr_iid FROM review_tasks t
          WHERE t.status = 'queued' AND t.conversation_id IS NULL AND {filter}
            AND (t.error_message IS NULL OR t.updated_at <= now() - ($1 * interval '1 millisecond'))
            AND EXISTS (SELECT 1 FROM runners r
                         WHERE r.status <> 'offline' AND r.last_heartbeat > $3
                           AND t.required_tags <@ r.tags)
            AND NOT EXISTS (SELECT 1 FROM review_tasks o
                             WHERE o.project_id = t.project_id AND o.mr_iid = t.mr_iid
                               AND o.id <> t.id AND o.conversation_id IS NULL
                               AND (o.status IN ('processing', 'in_progress')
                                    OR (o.status = 'queued' AND o.assignment ? 'prepared'
                                        AND {fresh_o})) OFFSET 0)
          {tail}",
        fresh_o = fresh("o", "$2"),
    )
}

/// The values of `to_prepare_sql`'s `$1` to `$3`, then a fourth as `$4`.
type ToPrepareBinds<B> = (
    Bind<BigInt, i64>,
    Bind<Timestamptz, DateTime<Utc>>,
    Bind<Timestamptz, DateTime<Utc>>,
    B,
);

fn to_prepare_binds<B>(
    retry_ms: i64,
    fresh_after: DateTime<Utc>,
    heard_after: DateTime<Utc>,
    fourth: B,
) -> ToPrepareBinds<B> {
    (
        bind::<BigInt, _>(retry_ms),
        bind::<Timestamptz, _>(fresh_after),
        bind::<Timestamptz, _>(heard_after),
        fourth,
    )
}

/// The oldest candidates, or (`only`) whether that one task still is one.
async fn candidates(
    c: &mut PgConn,
    wanted: Wanted,
    only: Option<Uuid>,
) -> Result<Vec<Candidate>, diesel::result::Error> {
    match wanted {
        Wanted::ToPrepare(retry_ms, fresh_after, heard_after) => match only {
            // By its key: in one statement with the list's (`$4 IS NULL OR t.id =
            // $4`), the kept plan walked the queue up to the task, past every task
            // already prepared.
            Some(id) => {
                kept(
                    &to_prepare_sql(&format!("t.id = $4 AND NOT {}", fresh("t", "$2")), ""),
                    to_prepare_binds(
                        retry_ms,
                        fresh_after,
                        heard_after,
                        bind::<diesel::sql_types::Uuid, _>(id),
                    ),
                )
                .load(c)
                .await
            }
            // In a transaction whose first statement turns bitmap scans off, as a
            // claim's does, and for the same reason: on statistics taken while the
            // queue was short, the planner read every unprepared task through a
            // bitmap and sorted them, 6,558 buffers a call for 16 candidates.
            None => {
                c.transaction(async move |c| {
                    c.batch_execute("SET LOCAL enable_bitmapscan = off").await?;
                    to_prepare(c, retry_ms, fresh_after, heard_after).await
                })
                .await
            }
        },
        Wanted::Orphaned => {
            diesel::sql_query(
                "SELECT t.id, t.project_id, t.mr_iid FROM review_tasks t
                  WHERE t.assignment ? 'prepared' AND t.status <> 'queued'
                    AND ($1::uuid IS NULL OR t.id = $1)
                  ORDER BY t.created_at LIMIT $2",
            )
            .bind::<Nullable<diesel::sql_types::Uuid>, _>(only)
            .bind::<BigInt, _>(CANDIDATES)
            .load(c)
            .await
        }
    }
}

/// The oldest queued tasks never prepared, through their own partial index; only
/// when there is none, the oldest whose preparation went stale (too old, or made
/// at another attempt), which is rare. Walking the queue in order read every
/// prepared task before the first that was not: 4,400 pages and 7.7 ms a call
/// with 4,000 of them, the largest statement cost of the claims bench.
async fn to_prepare(
    c: &mut AsyncPgConnection,
    retry_ms: i64,
    fresh_after: DateTime<Utc>,
    heard_after: DateTime<Utc>,
) -> Result<Vec<Candidate>, diesel::result::Error> {
    let tail = "ORDER BY t.created_at LIMIT $4";
    let stale = format!("t.assignment ? 'prepared' AND NOT {}", fresh("t", "$2"));
    for filter in ["(t.assignment ? 'prepared') IS NOT TRUE", stale.as_str()] {
        let found: Vec<Candidate> = kept(
            &to_prepare_sql(filter, tail),
            to_prepare_binds(
                retry_ms,
                fresh_after,
                heard_after,
                bind::<BigInt, _>(CANDIDATES),
            ),
        )
        .load(c)
        .await?;
        if !found.is_empty() {
            return Ok(found);
        }
    }
    Ok(Vec::new())
}

/// Holds the first wanted task whose MR lock is free and which is still wanted
/// once the lock is held (checked on a fresh snapshot).
async fn hold(pool: &PgPool, wanted: Wanted) -> Result<Option<PgReservation>, RepoError> {
    let mut c = conn(pool).await?;
    let found = candidates(&mut c, wanted, None)
        .await
        .map_err(map_diesel_error)?;
    for candidate in found {
        let locked: Locked = kept(
            &format!(
                "SELECT pg_try_advisory_lock({}) AS locked",
                mr_key("$1", "$2")
            ),
            (
                bind::<diesel::sql_types::Uuid, _>(candidate.project_id),
                bind::<BigInt, _>(candidate.mr_iid),
            ),
        )
        .get_result(&mut c)
        .await
        .map_err(map_diesel_error)?;
        if !locked.locked {
            continue;
        }
        // From here the lock is held: an error drops `hold`, which closes the
        // connection and so ends the lock.
        let mut hold = MrHold {
            conn: Some(c),
            project_id: candidate.project_id,
            mr_iid: candidate.mr_iid,
            in_transaction: false,
        };
        hold.begin().await?;
        let held = hold.conn()?;
        let still = !candidates(held, wanted, Some(candidate.id))
            .await
            .map_err(map_diesel_error)?
            .is_empty();
        let row: Option<TaskRow> = if still {
            review_tasks::table
                .find(candidate.id)
                .select(TaskRow::as_select())
                .for_key_share()
                .first(held)
                .await
                .optional()
                .map_err(map_diesel_error)?
        } else {
            None
        };
        if let Some(row) = row {
            return Ok(Some(PgReservation {
                task: row.try_into()?,
                hold: Some(hold),
            }));
        }
        // Changed before the lock was ours: let it go and try the next.
        let Some(back) = hold.unlock().await else {
            return Ok(None);
        };
        c = back;
    }
    Ok(None)
}

pub(super) async fn reserve_to_prepare(
    pool: &PgPool,
    retry_delay: std::time::Duration,
    fresh_after: DateTime<Utc>,
    heard_after: DateTime<Utc>,
) -> Result<Option<Box<dyn TaskReservation>>, RepoError> {
    let retry_ms = i64::try_from(retry_delay.as_millis()).unwrap_or(i64::MAX);
    let held = hold(pool, Wanted::ToPrepare(retry_ms, fresh_after, heard_after)).await?;
    Ok(held.map(|r| Box::new(r) as Box<dyn TaskReservation>))
}

pub(super) async fn reserve_orphaned(pool: &PgPool) -> Result<Option<Orphaned>, RepoError> {
    let Some(mut reservation) = hold(pool, Wanted::Orphaned).await? else {
        return Ok(None);
    };
    #[derive(QueryableByName)]
    struct Round {
        #[diesel(sql_type = Nullable<Jsonb>)]
        assignment: Option<serde_json::Value>,
        #[diesel(sql_type = Bool)]
        round_open: bool,
    }
    // The round is to be ended only while it is still the MR's open round and no
    // attempt on the MR (which begins its own round) is under way.
    let round: Round = diesel::sql_query(
        "SELECT t.assignment,
                COALESCE(EXISTS (SELECT 1 FROM review_rounds r
                                  WHERE r.id = (t.assignment->>'roundId')::uuid
                                    AND r.completed_at IS NULL)
                         AND NOT EXISTS (SELECT 1 FROM review_tasks o
                                          WHERE o.project_id = t.project_id AND o.mr_iid = t.mr_iid
                                            AND o.status IN ('processing', 'in_progress') OFFSET 0),
                         false) AS round_open
           FROM review_tasks t WHERE t.id = $1",
    )
    .bind::<diesel::sql_types::Uuid, _>(reservation.task.id)
    .get_result(reservation.conn()?)
    .await
    .map_err(map_diesel_error)?;
    let assignment = match round.assignment {
        Some(value) if value.get("roundId").is_some() => Some(
            serde_json::from_value::<RunnerAssignment>(value)
                .map_err(|e| corrupt(format!("task {}: assignment: {e}", reservation.task.id)))?,
        ),
        _ => None,
    };
    Ok(Some(Orphaned {
        reservation: Box::new(reservation),
        round_open: round.round_open && assignment.is_some(),
        assignment,
    }))
}

pub(super) async fn budget(
    pool: &PgPool,
    heard_after: DateTime<Utc>,
    fresh_after: DateTime<Utc>,
) -> Result<PreparationBudget, RepoError> {
    #[derive(QueryableByName)]
    struct Budget {
        #[diesel(sql_type = BigInt)]
        online: i64,
        #[diesel(sql_type = BigInt)]
        free: i64,
        #[diesel(sql_type = BigInt)]
        prepared: i64,
    }
    let mut c = conn(pool).await?;
    let b: Budget = kept(&format!(
        "WITH live AS (SELECT r.max_concurrent_jobs - (SELECT count(*) FROM review_tasks h
                                                        WHERE h.runner_id = r.id
                                                          AND h.status IN ('processing', 'in_progress')) AS free
                         FROM runners r WHERE r.status <> 'offline' AND r.last_heartbeat > $1)
         SELECT (SELECT count(*) FROM live) AS online,
                (SELECT COALESCE(sum(GREATEST(free, 0)), 0)::bigint FROM live) AS free,
                (SELECT count(*) FROM review_tasks t
                  WHERE t.status = 'queued' AND t.assignment ? 'prepared'
                    AND t.assignment ? 'roundId' AND {}) AS prepared",
        fresh("t", "$2")
    ), (
        bind::<Timestamptz, _>(heard_after),
        bind::<Timestamptz, _>(fresh_after),
    ))
    .get_result(&mut c)
    .await
    .map_err(map_diesel_error)?;
    let count = |n: i64| u64::try_from(n).unwrap_or(0);
    Ok(PreparationBudget {
        runners_online: count(b.online),
        free_capacity: count(b.free),
        prepared: count(b.prepared),
    })
}
