//! Queueing review tasks: a Postgres record for the API, a message on the durable
//! queue for the workers and runners.

use super::ServiceError;
use crate::model::{NewReviewTask, ReviewTask, TaskStatus, TriggeredBy};
use crate::ports::{TaskInsert, TaskQueue, TaskRepository};
use crate::{Page, PageRequest};
use std::sync::Arc;
use uuid::Uuid;

/// Attempts a task gets before it is failed for good.
pub const DEFAULT_MAX_ATTEMPTS: i32 = 3;

/// What became of a task offered to the queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Enqueued {
    Queued(ReviewTask),
    /// An active task already covers this MR head; nothing new was queued.
    AlreadyActive(ReviewTask),
    /// Recorded, but the queue could not take it: the task is `failed`.
    QueueFailed(ReviewTask),
}

impl Enqueued {
    #[must_use]
    pub fn task(&self) -> &ReviewTask {
        match self {
            Enqueued::Queued(t) | Enqueued::AlreadyActive(t) | Enqueued::QueueFailed(t) => t,
        }
    }
}

pub struct TaskService {
    tasks: Arc<dyn TaskRepository>,
    queue: Arc<dyn TaskQueue>,
}

impl TaskService {
    pub fn new(tasks: Arc<dyn TaskRepository>, queue: Arc<dyn TaskQueue>) -> Self {
        Self { tasks, queue }
    }

    /// Records the task (superseding queued ones of the same MR at an older head) and
    /// pushes it on the queue. A queue failure leaves a `failed` record, never a task
    /// that looks queued but is not.
    ///
    /// # Errors
    /// `NotFound` for a vanished project; store failures.
    pub async fn enqueue(&self, task: NewReviewTask) -> Result<Enqueued, ServiceError> {
        let (inserted, superseded) = self
            .tasks
            .insert(task)
            .await
            .map_err(|e| ServiceError::from_repo(e, "project"))?;
        let task = match inserted {
            TaskInsert::Duplicate(existing) => {
                tracing::info!(task.id = %existing.id, "task.duplicate_ignored");
                return Ok(Enqueued::AlreadyActive(existing));
            }
            TaskInsert::Created(task) => task,
        };
        if superseded > 0 {
            tracing::info!(task.id = %task.id, superseded, "task.superseded_older");
        }
        match self.queue.push(task.id).await {
            Ok(stream_id) => {
                self.tasks.note_stream_id(task.id, &stream_id).await?;
                tracing::info!(task.id = %task.id, project.id = %task.project_id, mr.iid = task.mr_iid, "task.queued");
                Ok(Enqueued::Queued(task))
            }
            Err(err) => {
                let reason = format!("could not be queued: {err}");
                tracing::error!(task.id = %task.id, error = %err, "task.queue_failed");
                self.tasks.fail(task.id, &reason).await?;
                let failed = ReviewTask {
                    status: TaskStatus::Failed,
                    error_message: Some(reason),
                    ..task
                };
                Ok(Enqueued::QueueFailed(failed))
            }
        }
    }

    /// Queues tasks recorded but never queued (a crash between the two), so no review
    /// waits forever. Returns how many were queued again.
    ///
    /// # Errors
    /// Store failures; a queue failure leaves the rest for the next sweep.
    pub async fn requeue_orphans(&self, older_than_secs: u64) -> Result<usize, ServiceError> {
        let orphans = self.tasks.claim_orphans(older_than_secs, 100).await?;
        let mut queued = 0;
        for id in orphans {
            match self.queue.push(id).await {
                Ok(stream_id) => {
                    self.tasks.set_stream_id(id, &stream_id).await?;
                    queued += 1;
                }
                Err(e) => {
                    tracing::error!(task.id = %id, error = %e, "task.orphan_requeue_failed");
                    self.tasks
                        .fail(id, &format!("could not be queued: {e}"))
                        .await?;
                }
            }
        }
        if queued > 0 {
            tracing::warn!(count = queued, "tasks.orphans_requeued");
        }
        Ok(queued)
    }

    /// After the queue lost its messages (its store restarted empty or was flushed):
    /// every task the workers have yet to finish gets a new message. A task still
    /// running somewhere gets one too; its second delivery finds it busy or done.
    /// Returns how many were queued.
    ///
    /// # Errors
    /// Store failures; `Unavailable` when the queue is down (the caller retries).
    pub async fn requeue_lost(&self) -> Result<usize, ServiceError> {
        let mut after = None;
        let mut queued = 0;
        loop {
            let ids = self.tasks.unfinished(after, 500).await?;
            let Some(last) = ids.last().copied() else {
                break;
            };
            for id in ids {
                self.push_again(id).await?;
                queued += 1;
            }
            after = Some(last);
        }
        if queued > 0 {
            tracing::warn!(count = queued, "tasks.lost_requeued");
        }
        Ok(queued)
    }

    /// Queues a task again that is `queued` in Postgres but has no live message
    /// (given back by a runner).
    ///
    /// # Errors
    /// `Unavailable` when the queue store is down (the orphan sweep queues it later).
    pub async fn push_again(&self, id: Uuid) -> Result<(), ServiceError> {
        let stream_id = self
            .queue
            .push(id)
            .await
            .map_err(|e| ServiceError::Unavailable(e.to_string()))?;
        self.tasks.set_stream_id(id, &stream_id).await?;
        Ok(())
    }

    /// Messages waiting or in flight on the queue.
    ///
    /// # Errors
    /// `Unavailable` when the queue store is down.
    pub async fn queue_depth(&self) -> Result<u64, ServiceError> {
        self.queue
            .depth()
            .await
            .map_err(|e| ServiceError::Unavailable(e.to_string()))
    }

    /// # Errors
    /// `NotFound` for an unknown id.
    pub async fn get(&self, id: Uuid) -> Result<ReviewTask, ServiceError> {
        self.tasks
            .get(id)
            .await
            .map_err(|e| ServiceError::from_repo(e, "task"))
    }

    /// # Errors
    /// Store failures.
    pub async fn list(
        &self,
        status: Option<TaskStatus>,
        triggered_by: Option<TriggeredBy>,
        page: PageRequest,
    ) -> Result<Page<ReviewTask>, ServiceError> {
        Ok(self.tasks.list(status, triggered_by, page).await?)
    }
}
