//! Tasks queued at the same moment, inserted by one statement. PostgreSQL spends
//! most of a one-row insert on the statement itself (its round trip, executor start
//! and commit), not on the row: pgbench here gives about 10,000 one-row
//! `review_tasks` inserts a second, and 40,000 rows a second 16 at a time. So a
//! batch starts as soon as a lane is free, and the webhooks that arrive while the
//! lanes are busy go into the next one. Each caller is answered after the
//! statement that holds its task has committed, as before: an answered webhook's
//! task is recorded.
//!
//! A batch holds at most one task per MR, and no two running batches share an MR:
//! the tasks of one MR are queued one after another, in their order, so the
//! superseding of older heads and the dedup check see what came before. A
//! statement the database refused (an unknown project, a head another process
//! queued meanwhile) wrote nothing: its tasks are queued again one by one, each by
//! the same statement with one row, and each gets its own answer. After a lost
//! connection nobody knows whether the statement committed; its callers are told
//! the store is unavailable, and the platform's redelivery finds the task if it was.

use super::{TASK_COLUMNS, insert_one};
use crate::PgPool;
use crate::error::map_diesel_error;
use crate::kept::{bind, kept};
use crate::repos::conn;
use crate::rows::TaskRow;
use diesel::QueryableByName;
use diesel::sql_types::{Array, BigInt, Bool, Integer, Nullable, Text, Uuid as SqlUuid};
use diesel_async::RunQueryDsl;
use reviewd_domain::model::{NewReviewTask, ReviewTask};
use reviewd_domain::ports::{RepoError, TaskInsert};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::LazyLock;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

/// The most tasks one statement carries.
const MAX_BATCH: usize = 64;
/// Statements running at once, each on its own pooled connection: while one
/// commits, the next batch is already being inserted, and one slow statement does
/// not hold every webhook. More lanes make smaller batches: in alternate runs of
/// the webhooks' closed loop, 4 gave 4,540-4,667/s against 5,046-5,714/s with 2;
/// 1 gave 5,320-5,337/s against 4,885-5,217/s with 2, but open-loop p50 2.4 ms
/// against 1.9 ms.
const LANES: usize = 2;

type Answer = Result<(TaskInsert, u64), RepoError>;

/// A merge request: a batch holds at most one task of each, and no two running
/// batches hold the same one.
type Mr = (Uuid, i64);

/// How long a task may wait for its statement before its caller is told the
/// store is unavailable (the pool's own wait bounded a webhook's wait before).
const MAX_WAIT: Duration = Duration::from_secs(5);

struct Request {
    task: NewReviewTask,
    reply: oneshot::Sender<Answer>,
    since: Instant,
}

impl Request {
    fn mr(&self) -> Mr {
        (self.task.project_id.0, self.task.mr_iid)
    }
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
        let request = Request {
            task,
            reply,
            since: Instant::now(),
        };
        if let Err(mpsc::error::SendError(request)) = self.requests.send(request) {
            // The dispatcher's runtime has stopped: nothing batches any more.
            return insert_one(&self.pool, &request.task).await;
        }
        answer.await.unwrap_or_else(|_| {
            Err(RepoError::Unavailable(
                "the task writer stopped while the task was being queued".into(),
            ))
        })
    }
}

/// Forms a batch whenever a lane is free and a waiting task's MR is in no running
/// batch. A batch's MRs are busy until it has answered every caller, its
/// task-by-task retry included, so two heads of one MR are never queued at once.
async fn dispatch(pool: PgPool, mut requests: mpsc::UnboundedReceiver<Request>) {
    let (finished, mut done) = mpsc::unbounded_channel::<Vec<Mr>>();
    let mut waiting = VecDeque::new();
    let mut busy: HashSet<Mr> = HashSet::new();
    let mut running = 0;
    let mut open = true;
    loop {
        while let Ok(request) = requests.try_recv() {
            waiting.push_back(request);
        }
        while running < LANES {
            let batch = take_batch(&mut waiting, &busy);
            if batch.is_empty() {
                break;
            }
            let guard = Finished {
                mrs: batch.iter().map(Request::mr).collect(),
                to: finished.clone(),
            };
            busy.extend(guard.mrs.iter().copied());
            running += 1;
            let pool = pool.clone();
            tokio::spawn(async move {
                run(&pool, batch).await;
                drop(guard);
            });
        }
        if !open && running == 0 && waiting.is_empty() {
            return;
        }
        tokio::select! {
            request = requests.recv(), if open => match request {
                Some(request) => waiting.push_back(request),
                None => open = false,
            },
            Some(mrs) = done.recv() => {
                running -= 1;
                for mr in mrs {
                    busy.remove(&mr);
                }
            }
        }
    }
}

/// Sends a batch's MRs back to the dispatcher when the batch ends, however it ends.
struct Finished {
    mrs: Vec<Mr>,
    to: mpsc::UnboundedSender<Vec<Mr>>,
}

impl Drop for Finished {
    fn drop(&mut self) {
        let _ = self.to.send(std::mem::take(&mut self.mrs));
    }
}

/// The first waiting task of each idle MR, oldest first, up to [`MAX_BATCH`]; the
/// rest keep their order for a later batch. A task whose caller has gone is
/// dropped (the platform sends the webhook again); one that waited too long is
/// answered that the store is unavailable.
fn take_batch(waiting: &mut VecDeque<Request>, busy: &HashSet<Mr>) -> Vec<Request> {
    let mut batch = Vec::new();
    let mut taken = HashSet::new();
    let mut rest = VecDeque::new();
    for request in waiting.drain(..) {
        if request.reply.is_closed() {
            continue;
        }
        if request.since.elapsed() > MAX_WAIT {
            let _ = request.reply.send(Err(RepoError::Unavailable(
                "the database did not take the task in time".into(),
            )));
            continue;
        }
        let mr = request.mr();
        if batch.len() < MAX_BATCH && !busy.contains(&mr) && taken.insert(mr) {
            batch.push(request);
        } else {
            rest.push_back(request);
        }
    }
    *waiting = rest;
    batch
}

/// Answers each caller of the batch. Only a statement the database refused (so
/// rolled back: a head another process queued meanwhile, an unknown project) is
/// tried again task by task; after a lost connection nobody knows whether it
/// committed, so its callers are told the store is unavailable.
async fn run(pool: &PgPool, batch: Vec<Request>) {
    let ids: Vec<Uuid> = batch.iter().map(|_| Uuid::new_v4()).collect();
    let tasks: Vec<&NewReviewTask> = batch.iter().map(|r| &r.task).collect();
    match insert_batch(pool, &ids, &tasks).await {
        Ok(mut answers) => {
            for (request, id) in batch.into_iter().zip(ids) {
                let answer = answers.remove(&id).unwrap_or(Err(RepoError::NotFound));
                let _ = request.reply.send(answer);
            }
        }
        Err(Failure::Refused(e)) => {
            tracing::debug!(error = %e, tasks = batch.len(), "tasks.batch_refused");
            for request in batch {
                let answer = insert_one(pool, &request.task).await;
                let _ = request.reply.send(answer);
            }
        }
        Err(Failure::Unavailable(e)) => {
            for request in batch {
                let _ = request.reply.send(Err(RepoError::Unavailable(e.clone())));
            }
        }
    }
}

/// Why a batch's statement gave no answers.
pub(super) enum Failure {
    /// The database refused the statement: nothing of it was written.
    Refused(diesel::result::Error),
    /// No connection, or it was lost: the statement may or may not have committed.
    Unavailable(String),
}

impl Failure {
    /// The store's error as the text of the callers' `Unavailable`, without a second
    /// "store unavailable:".
    fn unavailable(e: RepoError) -> Self {
        Self::Unavailable(match e {
            RepoError::Unavailable(message) => message,
            e => e.to_string(),
        })
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

pub(super) async fn insert_batch(
    pool: &PgPool,
    ids: &[Uuid],
    tasks: &[&NewReviewTask],
) -> Result<HashMap<Uuid, Answer>, Failure> {
    let mut conn = conn(pool).await.map_err(Failure::unavailable)?;
    let rows: Vec<BatchRow> = kept(
        &QUEUE_TASKS,
        (
            bind::<Array<SqlUuid>, _>(ids),
            bind::<Array<Nullable<Text>>, _>(
                tasks.iter().map(|t| t.dedup_key()).collect::<Vec<_>>(),
            ),
            bind::<Array<Nullable<Text>>, _>(
                tasks
                    .iter()
                    .map(|t| t.head_sha.as_deref())
                    .collect::<Vec<_>>(),
            ),
            bind::<Array<SqlUuid>, _>(tasks.iter().map(|t| t.project_id.0).collect::<Vec<_>>()),
            bind::<Array<BigInt>, _>(tasks.iter().map(|t| t.mr_iid).collect::<Vec<_>>()),
            bind::<Array<Text>, _>(
                tasks
                    .iter()
                    .map(|t| t.triggered_by.as_str())
                    .collect::<Vec<_>>(),
            ),
            bind::<Array<Bool>, _>(tasks.iter().map(|t| t.send_to_platform).collect::<Vec<_>>()),
            bind::<Array<Nullable<SqlUuid>>, _>(
                tasks.iter().map(|t| t.template_id).collect::<Vec<_>>(),
            ),
            bind::<Array<Nullable<SqlUuid>>, _>(
                tasks.iter().map(|t| t.requested_by).collect::<Vec<_>>(),
            ),
            bind::<Array<Integer>, _>(tasks.iter().map(|t| t.max_attempts).collect::<Vec<_>>()),
            bind::<Array<Nullable<SqlUuid>>, _>(
                tasks.iter().map(|t| t.conversation_id).collect::<Vec<_>>(),
            ),
            bind::<Array<Bool>, _>(tasks.iter().map(|t| t.full_review).collect::<Vec<_>>()),
        ),
    )
    .load(&mut conn)
    .await
    .map_err(|e| match e {
        diesel::result::Error::DatabaseError(kind, _)
            if !matches!(
                kind,
                diesel::result::DatabaseErrorKind::ClosedConnection
                    | diesel::result::DatabaseErrorKind::UnableToSendCommand
            ) =>
        {
            Failure::Refused(e)
        }
        e => Failure::unavailable(map_diesel_error(e)),
    })?;
    // Committed: from here each row answers its own caller, even with an error.
    Ok(rows
        .into_iter()
        .map(|row| {
            let answer = ReviewTask::try_from(row.task).map(|task| {
                if row.created {
                    (
                        TaskInsert::Created(task),
                        u64::try_from(row.superseded).unwrap_or(0),
                    )
                } else {
                    (TaskInsert::Duplicate(task), 0)
                }
            });
            (row.input_id, answer)
        })
        .collect())
}

/// For each row of the input: the active task of the same head (its dedup key) if
/// there is one; otherwise the MR's queued tasks at other heads superseded and the
/// task inserted. The check, the superseding and the insert see one snapshot and
/// commit together. Each row names the input it answers. Tasks of one batch get
/// their insert time in the batch's order. `Kept`, so prepared once per connection.
static QUEUE_TASKS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH input AS (SELECT i.*, clock_timestamp() AS at FROM unnest($1::uuid[], $2::text[], \
           $3::text[], $4::uuid[], $5::int8[], $6::text[], $7::bool[], $8::uuid[], $9::uuid[], \
           $10::int4[], $11::uuid[], $12::bool[]) WITH ORDINALITY AS i(id, dedup_key, head_sha, \
           project_id, mr_iid, triggered_by, send_to_platform, template_id, requested_by, \
           max_attempts, conversation_id, full_review, n)), \
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
             conversation_id, full_review, created_at, updated_at) \
           SELECT id, triggered_by, project_id, mr_iid, head_sha, 'queued', send_to_platform, \
             template_id, requested_by, max_attempts, dedup_key, conversation_id, full_review, \
             at, at \
           FROM input i \
           WHERE NOT EXISTS (SELECT 1 FROM dup WHERE dup.input_id = i.id) ORDER BY n \
           RETURNING {TASK_COLUMNS}) \
         SELECT ins.id AS input_id, ins.*, true AS created, \
           (SELECT count(*) FROM sup WHERE sup.input_id = ins.id) AS superseded FROM ins \
         UNION ALL SELECT dup.*, false, 0 FROM dup"
    )
});

#[cfg(test)]
mod tests {
    use super::*;
    use reviewd_domain::model::TriggeredBy;

    fn request(project: Uuid, mr_iid: i64) -> (Request, oneshot::Receiver<Answer>) {
        let (reply, answer) = oneshot::channel();
        let task = NewReviewTask {
            triggered_by: TriggeredBy::Auto,
            project_id: project.into(),
            mr_iid,
            head_sha: Some("aaa".into()),
            send_to_platform: true,
            template_id: None,
            requested_by: None,
            max_attempts: 3,
            conversation_id: None,
            full_review: false,
        };
        let since = Instant::now();
        (Request { task, reply, since }, answer)
    }

    fn mrs(requests: &[Request]) -> Vec<i64> {
        requests.iter().map(|r| r.task.mr_iid).collect()
    }

    #[test]
    fn a_batch_takes_one_task_of_each_idle_mr_in_order() {
        let project = Uuid::new_v4();
        let mut answers = Vec::new();
        let mut waiting = VecDeque::new();
        for mr in [1, 2, 1, 3, 2, 4] {
            let (r, a) = request(project, mr);
            waiting.push_back(r);
            answers.push(a);
        }
        let busy = HashSet::from([(project, 3)]);
        assert_eq!(mrs(&take_batch(&mut waiting, &busy)), [1, 2, 4]);
        assert_eq!(mrs(waiting.make_contiguous()), [1, 3, 2]);

        // While the first batch runs, its MRs are busy: only MR 3's task may go.
        let busy = HashSet::from([(project, 1), (project, 2)]);
        assert_eq!(mrs(&take_batch(&mut waiting, &busy)), [3]);
        assert_eq!(mrs(&take_batch(&mut waiting, &HashSet::new())), [1, 2]);
        assert!(waiting.is_empty());
    }

    #[test]
    fn a_gone_caller_is_dropped_and_a_late_one_told_the_store_is_unavailable() {
        let project = Uuid::new_v4();
        let (gone, answer) = request(project, 1);
        drop(answer);
        let (mut late, mut late_answer) = request(project, 2);
        late.since = Instant::now() - MAX_WAIT - Duration::from_secs(1);
        let (fresh, _answer) = request(project, 3);
        let mut waiting = VecDeque::from([gone, late, fresh]);

        assert_eq!(mrs(&take_batch(&mut waiting, &HashSet::new())), [3]);
        assert!(waiting.is_empty());
        assert!(matches!(
            late_answer.try_recv(),
            Ok(Err(RepoError::Unavailable(_)))
        ));
    }
}
