//! A runner's claim of the tasks it may take now, with the rounds prepared ahead for them:
//! the candidates read without locks, each MR's lock tried, the round handed over in the same
//! transaction; and the SQL conditions a claimable task meets, which `claims` shares.

use crate::PgPool;
use crate::error::{corrupt, map_diesel_error};
use crate::kept::{bind, kept};
use crate::repos::conn;
use crate::repos::locks::try_lock_mr;
use crate::rows::TaskRow;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Text, Timestamptz};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use reviewd_domain::model::ReviewTask;
use reviewd_domain::ports::{ClaimBatch, ClaimedRow, Preparation, PreparedRound, RepoError};
use uuid::Uuid;

/// SQL: no review of the MR of the task aliased `t` is in progress (an answer to a
/// conversation holds nothing up). `OFFSET 0` keeps
/// it a lookup per candidate (`review_tasks_mr_active_idx`), see `claim_ready`.
pub(super) fn mr_idle(t: &str) -> String {
    format!(
        "NOT EXISTS (SELECT 1 FROM review_tasks o
                      WHERE o.project_id = {t}.project_id AND o.mr_iid = {t}.mr_iid
                        AND o.status IN ('processing', 'in_progress')
                        AND o.conversation_id IS NULL OFFSET 0)"
    )
}

/// SQL: the task aliased `t` is queued and runner `$1` may take it now: its retry
/// delay (milliseconds, the parameter `retry`) is over after a failed attempt, the
/// runner has its tags, and no task of its MR is in progress. Answers to
/// conversations are the server's: a runner never claims one.
pub(super) fn claimable(retry: &str) -> String {
    format!(
        "t.status = 'queued' AND t.conversation_id IS NULL
         AND (t.error_message IS NULL OR t.updated_at <= now() - ({retry} * interval '1 millisecond'))
         AND t.required_tags <@ (SELECT tags FROM runners WHERE id = $1)
         AND {}",
        mr_idle("t")
    )
}

/// What a claim's transaction came to.
enum Taken {
    WrongKey,
    Held,
    Tasks(Vec<(ReviewTask, Option<serde_json::Value>)>),
}

#[derive(QueryableByName)]
struct ClaimCandidate {
    #[diesel(sql_type = diesel::sql_types::Uuid)]
    id: Uuid,
    #[diesel(sql_type = diesel::sql_types::Uuid)]
    project_id: Uuid,
    #[diesel(sql_type = BigInt)]
    mr_iid: i64,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    locked: bool,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Jsonb>)]
    assignment: Option<serde_json::Value>,
}

pub(super) async fn claim_ready(
    pool: &PgPool,
    runner_id: &str,
    caller_key: Uuid,
    limit: u32,
    lease: std::time::Duration,
    retry_delay: std::time::Duration,
    fresh_after: Option<DateTime<Utc>>,
) -> Result<ClaimBatch, RepoError> {
    let mut conn = conn(pool).await?;
    let runner_id = runner_id.to_owned();
    let lease_ms = i64::try_from(lease.as_millis()).unwrap_or(i64::MAX);
    let retry_ms = i64::try_from(retry_delay.as_millis()).unwrap_or(i64::MAX);
    let taken: Taken = conn
        .transaction(async move |conn| {
            // The runner's row lock serialises its own concurrent polls, so its
            // capacity is counted once; the caller's key is checked in the same
            // statement. It also turns bitmap scans off for the claim's transaction:
            // when a backlog builds faster than autovacuum analyses the table, the
            // planner believes a handful of tasks are queued and reads every queued
            // task through a bitmap, then sorts them all, where walking the queue's
            // index in order stops at the first free one: 7 ms a claim against
            // 0.2 ms with 1,000 queued, and so claims got slower as the backlog grew.
            #[derive(QueryableByName)]
            struct Capacity {
                #[diesel(sql_type = Integer)]
                free: i32,
                #[diesel(sql_type = diesel::sql_types::Bool)]
                other_key: bool,
            }
            let capacity: Option<Capacity> = kept(
                "SELECT r.max_concurrent_jobs - (SELECT count(*)::int FROM review_tasks
                          WHERE runner_id = r.id AND status IN ('processing', 'in_progress')) AS free,
                        COALESCE(r.api_key_id <> $2, false) AS other_key,
                        set_config('enable_bitmapscan', 'off', true) AS planner
                   FROM runners r WHERE r.id = $1 FOR UPDATE",
                (
                    bind::<Text, _>(&runner_id),
                    bind::<diesel::sql_types::Uuid, _>(caller_key),
                ),
            )
            .get_result(conn)
            .await
            .optional()?;
            let Some(capacity) = capacity else {
                return Err(diesel::result::Error::NotFound);
            };
            if capacity.other_key {
                return Ok(Taken::WrongKey);
            }
            let take = i64::from(capacity.free.max(0)).min(i64::from(limit));
            if take == 0 {
                return Ok(Taken::Tasks(Vec::new()));
            }
            // Prepared tasks first: fresh, made at the task's attempts, their round
            // still open (not replaced by another task's round of the MR). Here and
            // below, `OFFSET 0` keeps each "no task of this MR in progress" check a
            // lookup per candidate (`review_tasks_mr_active_idx`): as an anti-join,
            // with statistics older than the claims, the planner read every task in
            // progress at each claim (16 ms with 10k of them). With preparation off,
            // none can be fresh: a round trip saved.
            let prepared: Vec<ClaimCandidate> = match fresh_after {
                Some(fresh_after) => kept(&format!(
                "SELECT c.id, c.project_id, c.mr_iid, c.assignment, {lock} AS locked
                   FROM (SELECT t.id, t.project_id, t.mr_iid, t.created_at, t.assignment
                           FROM review_tasks t
                          WHERE t.status = 'queued' AND t.assignment ? 'prepared'
                            AND t.assignment ? 'roundId' AND {fresh}
                            AND t.required_tags <@ (SELECT tags FROM runners WHERE id = $1)
                            AND {idle}
                            AND EXISTS (SELECT 1 FROM review_rounds r
                                         WHERE r.id = (t.assignment->>'roundId')::uuid
                                           AND r.completed_at IS NULL)
                          ORDER BY t.created_at
                          LIMIT $2 FOR UPDATE SKIP LOCKED) c
                  ORDER BY c.created_at",
                lock = try_lock_mr("c.project_id", "c.mr_iid"),
                fresh = super::prepared::fresh("t", "$3"),
                idle = mr_idle("t"),
            ), (
                bind::<Text, _>(&runner_id),
                bind::<BigInt, _>(take),
                bind::<Timestamptz, _>(fresh_after),
            ))
            .load(conn)
            .await?,
                None => Vec::new(),
            };
            let (candidates, from_prepared) = if prepared.iter().any(|c| c.locked) {
                (prepared, true)
            } else {
                // Nothing prepared: the oldest queued tasks, prepared by the caller.
                // Exactly `take` rows: rows locked here but not claimed would be
                // hidden from other runners polling at the same moment.
                let queued: Vec<ClaimCandidate> = kept(&format!(
                    "SELECT c.id, c.project_id, c.mr_iid, NULL::jsonb AS assignment,
                            {} AS locked
                       FROM (SELECT t.id, t.project_id, t.mr_iid, t.created_at FROM review_tasks t
                              WHERE {claimable}
                              ORDER BY t.created_at
                              LIMIT $2 FOR UPDATE SKIP LOCKED) c
                      ORDER BY c.created_at",
                    try_lock_mr("c.project_id", "c.mr_iid"),
                    claimable = claimable("$3"),
                ), (
                    bind::<Text, _>(&runner_id),
                    bind::<BigInt, _>(take),
                    bind::<BigInt, _>(retry_ms),
                ))
                .load(conn)
                .await?;
                (queued, false)
            };
            // Nothing to lock: the queued tasks this runner could take, if any, are
            // locked by a preparer (its row lock) or by other claims under way.
            // Held: the caller waits a moment for them rather than answer empty.
            let passed_over = candidates.is_empty() && claimable_exists(conn, &runner_id, retry_ms).await?;
            // One task per MR, and only with the MR's lock (which workers' attempts
            // and preparers take too). A row skipped here stays queued.
            let held = passed_over
                || (!candidates.is_empty() && candidates.iter().all(|c| !c.locked));
            let mut seen = std::collections::HashSet::new();
            let mut stored = std::collections::HashMap::new();
            let chosen: Vec<Uuid> = candidates
                .into_iter()
                .filter(|c| c.locked && seen.insert((c.project_id, c.mr_iid)))
                .take(usize::try_from(take).unwrap_or(usize::MAX))
                .map(|c| {
                    stored.insert(c.id, c.assignment);
                    c.id
                })
                .collect();
            if chosen.is_empty() {
                return Ok(if held { Taken::Held } else { Taken::Tasks(Vec::new()) });
            }
            // Checked again under the MR locks, on a fresh snapshot (a new
            // statement). A prepared task keeps its round (the preparation's mark
            // goes: only queued tasks carry one) and takes its head; another is
            // prepared by the caller. The runner's count moves in the same
            // statement: one round trip, planned once per connection.
            let rows: Vec<TaskRow> = kept(
                &format!(
                    "WITH taken AS (
                       UPDATE review_tasks SET
                              status = 'processing', runner_id = $1, runner_phase = NULL,
                              attempts = attempts + 1, claimed_at = now(), heartbeat_at = now(),
                              started_at = COALESCE(started_at, now()),
                              lease_expires_at = now() + ($2 * interval '1 millisecond'),
                              assignment = CASE WHEN $3 THEN assignment - 'prepared' END,
                              head_sha = CASE WHEN $3
                                              THEN COALESCE(assignment->>'headSha', head_sha)
                                              ELSE head_sha END
                        WHERE id = ANY($4) AND status = 'queued' AND {idle}
                        RETURNING {columns}),
                     counted AS (
                       UPDATE runners SET current_jobs = current_jobs + n.taken,
                              last_heartbeat = now(),
                              status = CASE WHEN current_jobs + n.taken >= max_concurrent_jobs
                                            THEN 'busy' ELSE 'online' END
                         FROM (SELECT count(*)::int AS taken FROM taken) n
                        WHERE id = $1 AND n.taken > 0)
                     SELECT * FROM taken",
                    idle = mr_idle("review_tasks"),
                    columns = crate::repos::tasks::TASK_COLUMNS,
                ),
                (
                    bind::<Text, _>(&runner_id),
                    bind::<BigInt, _>(lease_ms),
                    bind::<diesel::sql_types::Bool, _>(from_prepared),
                    bind::<diesel::sql_types::Array<diesel::sql_types::Uuid>, _>(&chosen),
                ),
            )
            .load(conn)
            .await?;
            let mut tasks = Vec::with_capacity(rows.len());
            for row in rows {
                let task =
                    ReviewTask::try_from(row).map_err(|_| diesel::result::Error::NotFound)?;
                let value = stored.remove(&task.id).flatten();
                tasks.push((task, value));
            }
            tasks.sort_by_key(|(t, _)| t.created_at);
            Ok(Taken::Tasks(tasks))
        })
        .await
        .map_err(map_diesel_error)?;
    let tasks = match taken {
        Taken::WrongKey => return Ok(ClaimBatch::WrongKey),
        Taken::Held => return Ok(ClaimBatch::Held),
        Taken::Tasks(tasks) => tasks,
    };
    let mut claimed = Vec::with_capacity(tasks.len());
    for (task, value) in tasks {
        let prepared = match value {
            Some(value) => Some(prepared_round(task.id, value)?),
            None => None,
        };
        claimed.push(ClaimedRow { task, prepared });
    }
    Ok(ClaimBatch::Claimed(claimed))
}

/// Whether a queued task the runner could take exists, locked or not: its MR has no
/// task in progress, its tags are the runner's, its retry delay is over.
async fn claimable_exists(
    conn: &mut AsyncPgConnection,
    runner_id: &str,
    retry_ms: i64,
) -> Result<bool, diesel::result::Error> {
    #[derive(QueryableByName)]
    struct Exists {
        #[diesel(sql_type = diesel::sql_types::Bool)]
        exists: bool,
    }
    let found: Exists = kept(
        &format!(
            "SELECT EXISTS (SELECT 1 FROM review_tasks t
                         WHERE {claimable}) AS exists",
            claimable = claimable("$2")
        ),
        (bind::<Text, _>(runner_id), bind::<BigInt, _>(retry_ms)),
    )
    .get_result(conn)
    .await?;
    Ok(found.exists)
}

/// The round and payload of a preparation as stored.
fn prepared_round(task_id: Uuid, mut value: serde_json::Value) -> Result<PreparedRound, RepoError> {
    let bad = |e: serde_json::Error| corrupt(format!("task {task_id}: prepared round: {e}"));
    let preparation = value
        .as_object_mut()
        .and_then(|o| o.remove("prepared"))
        .unwrap_or_default();
    let preparation: Preparation = serde_json::from_value(preparation).map_err(bad)?;
    let payload = preparation.payload.ok_or_else(|| {
        corrupt(format!(
            "task {task_id}: prepared round without its payload"
        ))
    })?;
    Ok(PreparedRound {
        assignment: serde_json::from_value(value).map_err(bad)?,
        payload,
    })
}
