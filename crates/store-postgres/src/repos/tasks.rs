//! Review tasks: queueing (dedup, superseding older heads), completion, and the
//! task list; a server worker's attempts are in `attempts`.

mod attempts;
mod batches;
mod stream_ids;

use super::{conn, found, paginate};
use crate::PgPool;
use crate::error::map_diesel_error;
use crate::rows::TaskRow;
use crate::schema::review_tasks;
use async_trait::async_trait;
use chrono::Utc;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::Untyped;
use diesel::sql_types::{BigInt, Bool, Integer, Nullable, Text, Uuid as SqlUuid};
use diesel_async::RunQueryDsl;
use reviewd_domain::model::{NewReviewTask, ReviewTask, TaskStatus, TriggeredBy};
use reviewd_domain::ports::{AttemptEnd, AttemptStart, RepoError, TaskInsert, TaskRepository};
use reviewd_domain::{Page, PageRequest};
use uuid::Uuid;

pub struct PgTaskRepository {
    pool: PgPool,
    stream_ids: Option<stream_ids::StreamIdWriter>,
    batches: Option<batches::QueueBatcher>,
}

impl PgTaskRepository {
    /// Within a tokio runtime, tasks queued at the same moment are inserted by one
    /// statement, and the message ids noted on the webhook path are written in
    /// batches, each by a task on that runtime.
    #[must_use]
    pub fn new(pool: PgPool) -> Self {
        Self {
            stream_ids: stream_ids::StreamIdWriter::spawn(pool.clone()),
            batches: batches::QueueBatcher::spawn(pool.clone()),
            pool,
        }
    }
}

/// Statuses that hold a dedup key (the partial unique index's condition).
const ACTIVE: [&str; 4] = ["pending", "queued", "processing", "in_progress"];

/// Queues a task unless an active one has its dedup key; a newer head supersedes
/// the MR's queued tasks at other heads. One row: the new task with `created` and
/// the count superseded, or the active task it duplicates. Values go where
/// [`Value`]s stand (each in its own placeholder).
const QUEUE_TASK: &[Part] = &[
    Sql("WITH dup AS (SELECT "),
    Sql(TASK_COLUMNS),
    Sql(" FROM review_tasks WHERE dedup_key = "),
    Value(Field::DedupKey),
    Sql(
        " AND status IN ('pending', 'queued', 'processing', 'in_progress') LIMIT 1), \
         sup AS (UPDATE review_tasks SET status = 'superseded', dedup_key = NULL, completed_at = now() \
          WHERE ",
    ),
    Value(Field::Head),
    Sql("::text IS NOT NULL AND project_id = "),
    Value(Field::Project),
    Sql(" AND mr_iid = "),
    Value(Field::Iid),
    Sql(" AND status IN ('queued', 'pending') AND head_sha <> "),
    Value(Field::Head),
    Sql(" AND NOT EXISTS (SELECT 1 FROM dup) RETURNING 1), \
         ins AS (INSERT INTO review_tasks (triggered_by, project_id, mr_iid, head_sha, status, \
          send_to_platform, template_id, requested_by, max_attempts, dedup_key) SELECT "),
    Value(Field::TriggeredBy),
    Sql(", "),
    Value(Field::Project),
    Sql(", "),
    Value(Field::Iid),
    Sql(", "),
    Value(Field::Head),
    Sql(", 'queued', "),
    Value(Field::Send),
    Sql(", "),
    Value(Field::Template),
    Sql(", "),
    Value(Field::RequestedBy),
    Sql(", "),
    Value(Field::MaxAttempts),
    Sql(", "),
    Value(Field::DedupKey),
    Sql(" WHERE NOT EXISTS (SELECT 1 FROM dup) RETURNING "),
    Sql(TASK_COLUMNS),
    Sql(") \
         SELECT ins.*, true AS created, (SELECT count(*) FROM sup) AS superseded FROM ins \
         UNION ALL SELECT dup.*, false, 0 FROM dup"),
];

/// [`TaskRow`]'s columns, named: a prepared statement with `*` would fail on every
/// connection once a migration changes the table ("cached plan must not change
/// result type"), as on the replicas of a rolling deploy.
const TASK_COLUMNS: &str = "id, triggered_by, project_id, review_id, mr_iid, head_sha, status, send_to_platform, template_id, requested_by, attempts, max_attempts, worker_id, error_message, created_at, updated_at, started_at, completed_at";

enum Part {
    Sql(&'static str),
    Value(Field),
}
use Part::{Sql, Value};

enum Field {
    DedupKey,
    Head,
    Project,
    Iid,
    TriggeredBy,
    Send,
    Template,
    RequestedBy,
    MaxAttempts,
}

/// [`QUEUE_TASK`] with its values, as a query type of its own: diesel keeps it
/// prepared on each connection, where a `sql_query` would be planned again at every
/// webhook (planning took twice as long as running it).
struct QueueTask<'a> {
    dedup_key: Option<&'a str>,
    task: &'a NewReviewTask,
}

impl QueryId for QueueTask<'_> {
    type QueryId = QueueTask<'static>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl Query for QueueTask<'_> {
    type SqlType = Untyped;
}

impl QueryFragment<Pg> for QueueTask<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let t = self.task;
        for part in QUEUE_TASK {
            match part {
                Sql(sql) => out.push_sql(sql),
                Value(Field::DedupKey) => {
                    out.push_bind_param::<Nullable<Text>, _>(&self.dedup_key)?;
                }
                Value(Field::Head) => out.push_bind_param::<Nullable<Text>, _>(&t.head_sha)?,
                Value(Field::Project) => out.push_bind_param::<SqlUuid, _>(&t.project_id)?,
                Value(Field::Iid) => out.push_bind_param::<BigInt, _>(&t.mr_iid)?,
                Value(Field::TriggeredBy) => {
                    out.push_bind_param::<Text, _>(t.triggered_by.as_str())?;
                }
                Value(Field::Send) => out.push_bind_param::<Bool, _>(&t.send_to_platform)?,
                Value(Field::Template) => {
                    out.push_bind_param::<Nullable<SqlUuid>, _>(&t.template_id)?;
                }
                Value(Field::RequestedBy) => {
                    out.push_bind_param::<Nullable<SqlUuid>, _>(&t.requested_by)?;
                }
                Value(Field::MaxAttempts) => {
                    out.push_bind_param::<Integer, _>(&t.max_attempts)?;
                }
            }
        }
        Ok(())
    }
}

#[derive(QueryableByName)]
struct Queued {
    #[diesel(embed)]
    task: TaskRow,
    #[diesel(sql_type = Bool)]
    created: bool,
    #[diesel(sql_type = BigInt)]
    superseded: i64,
}

/// Queues one task by its own statement: outside a runtime, and for the tasks of a
/// batch whose statement failed (each then gets its own answer).
async fn insert_one(pool: &PgPool, task: &NewReviewTask) -> Result<(TaskInsert, u64), RepoError> {
    let mut conn = conn(pool).await?;
    let dedup_key = task.dedup_key();
    // One statement, so one round trip and one commit per webhook: the check for
    // an active task of the same head, the superseding and the insert see one
    // snapshot and commit together.
    let result: Result<Vec<Queued>, diesel::result::Error> = QueueTask {
        dedup_key: dedup_key.as_deref(),
        task,
    }
    .load(&mut conn)
    .await;
    match result {
        Ok(rows) => {
            let row = rows.into_iter().next().ok_or(RepoError::NotFound)?;
            let superseded = u64::try_from(row.superseded).unwrap_or(0);
            let task: ReviewTask = row.task.try_into()?;
            Ok(if row.created {
                (TaskInsert::Created(task), superseded)
            } else {
                (TaskInsert::Duplicate(task), 0)
            })
        }
        // Two deliveries racing past the check: the unique index stops the second.
        Err(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            _,
        )) => {
            let existing: TaskRow = review_tasks::table
                .filter(review_tasks::dedup_key.eq(dedup_key.unwrap_or_default()))
                .filter(review_tasks::status.eq_any(ACTIVE))
                .select(TaskRow::as_select())
                .first(&mut conn)
                .await
                .map_err(map_diesel_error)?;
            Ok((TaskInsert::Duplicate(existing.try_into()?), 0))
        }
        Err(e) => Err(map_diesel_error(e)),
    }
}

#[async_trait]
impl TaskRepository for PgTaskRepository {
    async fn insert(&self, task: NewReviewTask) -> Result<(TaskInsert, u64), RepoError> {
        match &self.batches {
            Some(batches) => batches.queue(task).await,
            None => insert_one(&self.pool, &task).await,
        }
    }

    async fn get(&self, id: Uuid) -> Result<ReviewTask, RepoError> {
        let mut conn = conn(&self.pool).await?;
        review_tasks::table
            .find(id)
            .select(TaskRow::as_select())
            .first(&mut conn)
            .await
            .map_err(map_diesel_error)?
            .try_into()
    }

    async fn set_stream_id(&self, id: Uuid, stream_id: &str) -> Result<(), RepoError> {
        let mut conn = conn(&self.pool).await?;
        let n = diesel::update(review_tasks::table.find(id))
            .set(review_tasks::stream_message_id.eq(stream_id))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        found(n)
    }

    async fn note_stream_id(&self, id: Uuid, stream_id: &str) -> Result<(), RepoError> {
        match &self.stream_ids {
            Some(writer) if writer.note(id, stream_id) => Ok(()),
            _ => self.set_stream_id(id, stream_id).await,
        }
    }

    async fn claim_orphans(
        &self,
        older_than_secs: u64,
        limit: u32,
    ) -> Result<Vec<Uuid>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let cutoff = Utc::now()
            - chrono::Duration::seconds(i64::try_from(older_than_secs).unwrap_or(i64::MAX));
        #[derive(QueryableByName)]
        struct Claimed {
            #[diesel(sql_type = diesel::sql_types::Uuid)]
            id: Uuid,
        }
        let claimed: Vec<Claimed> = diesel::sql_query(
            "UPDATE review_tasks SET stream_message_id = 'requeueing'
              WHERE id IN (SELECT id FROM review_tasks
                            WHERE status = 'queued' AND stream_message_id IS NULL AND created_at < $1
                            LIMIT $2 FOR UPDATE SKIP LOCKED)
              RETURNING id",
        )
        .bind::<diesel::sql_types::Timestamptz, _>(cutoff)
        .bind::<diesel::sql_types::BigInt, _>(i64::from(limit))
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        Ok(claimed.into_iter().map(|c| c.id).collect())
    }

    async fn fail(&self, id: Uuid, error: &str) -> Result<(), RepoError> {
        let mut conn = conn(&self.pool).await?;
        let n = diesel::update(review_tasks::table.find(id))
            .set((
                review_tasks::status.eq("failed"),
                review_tasks::error_message.eq(error),
                review_tasks::dedup_key.eq(None::<String>),
                review_tasks::completed_at.eq(Utc::now()),
            ))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        found(n)
    }

    async fn begin_attempt(
        &self,
        id: Uuid,
        worker: &str,
        lease: std::time::Duration,
    ) -> Result<AttemptStart, RepoError> {
        attempts::begin(&self.pool, id, worker, lease).await
    }

    async fn renew_attempt(&self, id: Uuid, worker: &str) -> Result<bool, RepoError> {
        attempts::renew(&self.pool, id, worker).await
    }

    async fn finish_attempt(
        &self,
        id: Uuid,
        worker: &str,
        end: AttemptEnd<'_>,
    ) -> Result<bool, RepoError> {
        attempts::finish(&self.pool, id, worker, end).await
    }

    async fn unfinished(&self, after: Option<Uuid>, limit: u32) -> Result<Vec<Uuid>, RepoError> {
        attempts::unfinished(&self.pool, after, limit).await
    }

    async fn link_review(&self, id: Uuid, review_id: Uuid) -> Result<(), RepoError> {
        let mut conn = conn(&self.pool).await?;
        let n = diesel::update(review_tasks::table.find(id))
            .set(review_tasks::review_id.eq(review_id))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        found(n)
    }

    async fn complete(&self, id: Uuid, review_id: Option<Uuid>) -> Result<(), RepoError> {
        let mut conn = conn(&self.pool).await?;
        let n = diesel::update(review_tasks::table.find(id))
            .set((
                review_tasks::status.eq("completed"),
                review_tasks::review_id.eq(review_id),
                review_tasks::error_message.eq(None::<String>),
                review_tasks::dedup_key.eq(None::<String>),
                review_tasks::completed_at.eq(Utc::now()),
            ))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        found(n)
    }

    async fn requeue(&self, id: Uuid, error: &str) -> Result<(), RepoError> {
        let mut conn = conn(&self.pool).await?;
        let n = diesel::update(review_tasks::table.find(id))
            .set((
                review_tasks::status.eq("queued"),
                review_tasks::error_message.eq(error),
                // Back in the queue, no runner holds it any more.
                review_tasks::runner_id.eq(None::<String>),
                review_tasks::runner_phase.eq(None::<String>),
                review_tasks::lease_expires_at.eq(None::<chrono::DateTime<Utc>>),
                review_tasks::assignment.eq(None::<serde_json::Value>),
            ))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        found(n)
    }

    async fn list(
        &self,
        status: Option<TaskStatus>,
        triggered_by: Option<TriggeredBy>,
        page: PageRequest,
    ) -> Result<Page<ReviewTask>, RepoError> {
        let mut conn = conn(&self.pool).await?;
        let query = || {
            let mut q = review_tasks::table.into_boxed::<Pg>();
            if let Some(s) = status {
                q = q.filter(review_tasks::status.eq_any(stored_statuses(s)));
            }
            if let Some(t) = triggered_by {
                q = q.filter(review_tasks::triggered_by.eq(t.as_str()));
            }
            q
        };
        let rows = query()
            .select(TaskRow::as_select())
            .order((review_tasks::created_at.desc(), review_tasks::id.desc()));
        paginate(&mut conn, page, query().count(), rows, ReviewTask::try_from).await
    }
}

/// The stored values of a status: a task a runner's result is being concluded for is
/// stored `in_progress` and read as `processing`, so a filter on one takes both.
fn stored_statuses(status: TaskStatus) -> Vec<&'static str> {
    match status {
        TaskStatus::Processing => vec!["processing", "in_progress"],
        other => vec![other.as_str()],
    }
}
