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
use diesel_async::RunQueryDsl;
use reviewd_domain::model::ReviewId;
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

/// [`TaskRow`]'s columns, named: a prepared statement with `*` would fail on every
/// connection once a migration changes the table ("cached plan must not change
/// result type"), as on the replicas of a rolling deploy.
pub(crate) const TASK_COLUMNS: &str = "id, triggered_by, project_id, review_id, mr_iid, head_sha, status, send_to_platform, template_id, requested_by, attempts, max_attempts, worker_id, conversation_id, full_review, error_message, created_at, updated_at, started_at, completed_at";

/// Queues one task by itself, with the batch statement: outside a runtime, and for
/// the tasks of a batch the database refused (each then gets its own answer).
async fn insert_one(pool: &PgPool, task: &NewReviewTask) -> Result<(TaskInsert, u64), RepoError> {
    let id = Uuid::new_v4();
    match batches::insert_batch(pool, &[id], &[task]).await {
        Ok(mut answers) => answers.remove(&id).unwrap_or(Err(RepoError::NotFound)),
        // Two deliveries racing past the check: the unique index stops the second.
        Err(batches::Failure::Refused(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            _,
        ))) => {
            let mut conn = conn(pool).await?;
            let existing: TaskRow = review_tasks::table
                .filter(review_tasks::dedup_key.eq(task.dedup_key().unwrap_or_default()))
                .filter(review_tasks::status.eq_any(ACTIVE))
                .select(TaskRow::as_select())
                .first(&mut conn)
                .await
                .map_err(map_diesel_error)?;
            Ok((TaskInsert::Duplicate(existing.try_into()?), 0))
        }
        Err(batches::Failure::Refused(e)) => Err(map_diesel_error(e)),
        Err(batches::Failure::Unavailable(e)) => Err(RepoError::Unavailable(e)),
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

    async fn link_review(&self, id: Uuid, review_id: ReviewId) -> Result<(), RepoError> {
        let mut conn = conn(&self.pool).await?;
        let n = diesel::update(review_tasks::table.find(id))
            .set(review_tasks::review_id.eq(review_id.0))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        found(n)
    }

    async fn complete(&self, id: Uuid, review_id: Option<ReviewId>) -> Result<(), RepoError> {
        let mut conn = conn(&self.pool).await?;
        let n = diesel::update(review_tasks::table.find(id))
            .set((
                review_tasks::status.eq("completed"),
                review_tasks::review_id.eq(review_id.map(Uuid::from)),
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
