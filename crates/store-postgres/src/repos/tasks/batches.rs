//! Tasks queued at the same moment, inserted by one statement. PostgreSQL spends
//! most of a one-row insert on the statement itself (its round trip, executor start
//! and commit), not on the row: pgbench here gives about 10,000 one-row
//! `review_tasks` inserts a second, and 40,000 rows a second 16 at a time. So the
//! webhooks that arrive while a statement runs go into the next one, and each
//! caller is answered after the statement that holds its task has committed, as
//! before: an answered webhook's task is recorded.
//!
//! A batch holds at most one task per MR, so that the superseding of an MR's older
//! heads and the dedup check see what the tasks before it did. A statement that
//! fails (a task another statement queued meanwhile, a lost connection) answers
//! none of its tasks: each is then queued again by the one-task statement, which
//! gives it its own answer.

use super::{TASK_COLUMNS, insert_one};
use crate::PgPool;
use crate::error::map_diesel_error;
use crate::repos::conn;
use crate::rows::TaskRow;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{Array, BigInt, Bool, Integer, Nullable, Text, Untyped, Uuid as SqlUuid};
use diesel::{QueryResult, QueryableByName};
use diesel_async::RunQueryDsl;
use reviewd_domain::model::{NewReviewTask, ReviewTask};
use reviewd_domain::ports::{RepoError, TaskInsert};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, LazyLock};
use tokio::sync::{Semaphore, mpsc, oneshot};
use uuid::Uuid;

/// The most tasks one statement carries.
const MAX_BATCH: usize = 64;
/// Statements running at once, each on its own pooled connection: while one
/// commits, the next batch is already being inserted. More lanes make smaller
/// batches: with 4, the webhooks' closed loop gave 4,540-4,667/s, against
/// 5,046-5,714/s with 2, in alternate runs.
const LANES: usize = 2;

type Answer = Result<(TaskInsert, u64), RepoError>;

struct Request {
    task: NewReviewTask,
    reply: oneshot::Sender<Answer>,
}

pub(crate) struct QueueBatcher {
    pool: PgPool,
    requests: mpsc::UnboundedSender<Request>,
}

impl QueueBatcher {
    /// The batcher, on the current tokio runtime; `None` outside one (the caller
    /// then queues each task by its own statement).
    pub(crate) fn spawn(pool: PgPool) -> Option<QueueBatcher> {
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let (requests, received) = mpsc::unbounded_channel();
        runtime.spawn(dispatch(pool.clone(), received));
        Some(QueueBatcher { pool, requests })
    }

    /// Queues the task with those of the same moment; answers once its statement
    /// has committed.
    pub(crate) async fn queue(&self, task: NewReviewTask) -> Answer {
        let (reply, answer) = oneshot::channel();
        if let Err(mpsc::error::SendError(request)) = self.requests.send(Request { task, reply }) {
            // The dispatcher's runtime has stopped: nothing batches any more.
            return insert_one(&self.pool, &request.task).await;
        }
        answer.await.unwrap_or_else(|_| {
            Err(RepoError::Unavailable(
                "the task writer stopped before the task was queued".into(),
            ))
        })
    }
}

/// Forms batches from what waits, one per free lane.
async fn dispatch(pool: PgPool, mut requests: mpsc::UnboundedReceiver<Request>) {
    let lanes = Arc::new(Semaphore::new(LANES));
    let mut waiting = VecDeque::new();
    loop {
        let Ok(lane) = lanes.clone().acquire_owned().await else {
            return;
        };
        if waiting.is_empty() {
            match requests.recv().await {
                Some(request) => waiting.push_back(request),
                None => return,
            }
        }
        while let Ok(request) = requests.try_recv() {
            waiting.push_back(request);
        }
        let batch = take_batch(&mut waiting);
        let pool = pool.clone();
        tokio::spawn(async move {
            run(&pool, batch).await;
            drop(lane);
        });
    }
}

/// The first waiting task of each MR, oldest first, up to [`MAX_BATCH`]; the rest
/// keep their order for the next batch.
fn take_batch(waiting: &mut VecDeque<Request>) -> Vec<Request> {
    let mut batch = Vec::new();
    let mut mrs = HashSet::new();
    let mut rest = VecDeque::new();
    for request in waiting.drain(..) {
        if batch.len() < MAX_BATCH && mrs.insert((request.task.project_id, request.task.mr_iid)) {
            batch.push(request);
        } else {
            rest.push_back(request);
        }
    }
    *waiting = rest;
    batch
}

async fn run(pool: &PgPool, batch: Vec<Request>) {
    let ids: Vec<Uuid> = batch.iter().map(|_| Uuid::new_v4()).collect();
    let tasks: Vec<&NewReviewTask> = batch.iter().map(|r| &r.task).collect();
    let mut answers = match insert_batch(pool, &ids, &tasks).await {
        Ok(answers) => answers,
        Err(e) => {
            tracing::debug!(error = %e, tasks = batch.len(), "tasks.batch_failed");
            HashMap::new()
        }
    };
    for (request, id) in batch.into_iter().zip(ids) {
        let answer = match answers.remove(&id) {
            Some(answer) => answer,
            None => insert_one(pool, &request.task).await,
        };
        // The caller may have gone (its request was cancelled): the task stays queued.
        let _ = request.reply.send(answer);
    }
}

#[derive(QueryableByName)]
struct BatchRow {
    #[diesel(sql_type = SqlUuid)]
    input_id: Uuid,
    #[diesel(embed)]
    task: TaskRow,
    #[diesel(sql_type = Bool)]
    created: bool,
    #[diesel(sql_type = BigInt)]
    superseded: i64,
}

async fn insert_batch(
    pool: &PgPool,
    ids: &[Uuid],
    tasks: &[&NewReviewTask],
) -> Result<HashMap<Uuid, Answer>, RepoError> {
    let mut conn = conn(pool).await?;
    let rows: Vec<BatchRow> = QueueTasks::new(ids, tasks)
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
    let mut answers = HashMap::with_capacity(rows.len());
    for row in rows {
        let task: ReviewTask = row.task.try_into()?;
        let answer = if row.created {
            (
                TaskInsert::Created(task),
                u64::try_from(row.superseded).unwrap_or(0),
            )
        } else {
            (TaskInsert::Duplicate(task), 0)
        };
        answers.insert(row.input_id, Ok(answer));
    }
    Ok(answers)
}

/// What the one-task statement (`QUEUE_TASK`) does, for each row of the input: the
/// active task of the same head if there is one; otherwise the MR's queued tasks at
/// other heads superseded and the task inserted. Each row names the input it
/// answers. Tasks of one batch get their insert time in the batch's order.
static QUEUE_TASKS_TAIL: LazyLock<String> = LazyLock::new(|| {
    format!(
        ") WITH ORDINALITY AS i(id, dedup_key, head_sha, project_id, mr_iid, triggered_by, \
           send_to_platform, template_id, requested_by, max_attempts, n)), \
         dup AS (SELECT i.id AS input_id, d.* FROM input i CROSS JOIN LATERAL \
           (SELECT {TASK_COLUMNS} FROM review_tasks t WHERE t.dedup_key = i.dedup_key \
             AND t.status IN ('pending', 'queued', 'processing', 'in_progress') LIMIT 1) d), \
         sup AS (UPDATE review_tasks t SET status = 'superseded', dedup_key = NULL, \
             completed_at = now() FROM input i \
           WHERE i.head_sha IS NOT NULL AND t.project_id = i.project_id \
             AND t.mr_iid = i.mr_iid AND t.status IN ('queued', 'pending') \
             AND t.head_sha <> i.head_sha \
             AND NOT EXISTS (SELECT 1 FROM dup WHERE dup.input_id = i.id) \
           RETURNING i.id AS input_id), \
         ins AS (INSERT INTO review_tasks (id, triggered_by, project_id, mr_iid, head_sha, \
             status, send_to_platform, template_id, requested_by, max_attempts, dedup_key, \
             created_at, updated_at) \
           SELECT id, triggered_by, project_id, mr_iid, head_sha, 'queued', send_to_platform, \
             template_id, requested_by, max_attempts, dedup_key, at, at FROM input i \
           WHERE NOT EXISTS (SELECT 1 FROM dup WHERE dup.input_id = i.id) ORDER BY n \
           RETURNING {TASK_COLUMNS}) \
         SELECT ins.id AS input_id, ins.*, true AS created, \
           (SELECT count(*) FROM sup WHERE sup.input_id = ins.id) AS superseded FROM ins \
         UNION ALL SELECT dup.*, false, 0 FROM dup"
    )
});

/// The batch statement with its columns of values, as a query type of its own so
/// that diesel keeps it prepared on each connection.
struct QueueTasks<'a> {
    ids: &'a [Uuid],
    dedup_keys: Vec<Option<String>>,
    heads: Vec<Option<&'a str>>,
    projects: Vec<Uuid>,
    iids: Vec<i64>,
    triggered_by: Vec<&'a str>,
    send: Vec<bool>,
    templates: Vec<Option<Uuid>>,
    requested_by: Vec<Option<Uuid>>,
    max_attempts: Vec<i32>,
}

impl<'a> QueueTasks<'a> {
    fn new(ids: &'a [Uuid], tasks: &[&'a NewReviewTask]) -> Self {
        Self {
            ids,
            dedup_keys: tasks.iter().map(|t| t.dedup_key()).collect(),
            heads: tasks.iter().map(|t| t.head_sha.as_deref()).collect(),
            projects: tasks.iter().map(|t| t.project_id).collect(),
            iids: tasks.iter().map(|t| t.mr_iid).collect(),
            triggered_by: tasks.iter().map(|t| t.triggered_by.as_str()).collect(),
            send: tasks.iter().map(|t| t.send_to_platform).collect(),
            templates: tasks.iter().map(|t| t.template_id).collect(),
            requested_by: tasks.iter().map(|t| t.requested_by).collect(),
            max_attempts: tasks.iter().map(|t| t.max_attempts).collect(),
        }
    }
}

impl QueryId for QueueTasks<'_> {
    type QueryId = QueueTasks<'static>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl Query for QueueTasks<'_> {
    type SqlType = Untyped;
}

impl QueryFragment<Pg> for QueueTasks<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("WITH input AS (SELECT i.*, clock_timestamp() AS at FROM unnest(");
        out.push_bind_param::<Array<SqlUuid>, _>(&self.ids)?;
        out.push_sql("::uuid[], ");
        out.push_bind_param::<Array<Nullable<Text>>, _>(&self.dedup_keys)?;
        out.push_sql("::text[], ");
        out.push_bind_param::<Array<Nullable<Text>>, _>(&self.heads)?;
        out.push_sql("::text[], ");
        out.push_bind_param::<Array<SqlUuid>, _>(&self.projects)?;
        out.push_sql("::uuid[], ");
        out.push_bind_param::<Array<BigInt>, _>(&self.iids)?;
        out.push_sql("::int8[], ");
        out.push_bind_param::<Array<Text>, _>(&self.triggered_by)?;
        out.push_sql("::text[], ");
        out.push_bind_param::<Array<Bool>, _>(&self.send)?;
        out.push_sql("::bool[], ");
        out.push_bind_param::<Array<Nullable<SqlUuid>>, _>(&self.templates)?;
        out.push_sql("::uuid[], ");
        out.push_bind_param::<Array<Nullable<SqlUuid>>, _>(&self.requested_by)?;
        out.push_sql("::uuid[], ");
        out.push_bind_param::<Array<Integer>, _>(&self.max_attempts)?;
        out.push_sql("::int4[]");
        out.push_sql(&QUEUE_TASKS_TAIL);
        Ok(())
    }
}
