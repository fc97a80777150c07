use super::RepoError;
use crate::model::ReviewId;
use crate::model::{NewReviewTask, ReviewTask, TaskStatus, TriggeredBy};
use crate::{Page, PageRequest};
use async_trait::async_trait;
use uuid::Uuid;

/// The answer to a request to start an attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttemptStart {
    Started(ReviewTask),
    /// Another live attempt is reviewing the same MR: try again later.
    Busy,
    /// Superseded or finished: drop the delivery.
    NotRunnable,
    /// Out of attempts while still marked active (its worker died each time): the
    /// store has failed it; its review is to be closed as failed.
    GaveUp(ReviewTask),
}

/// How an attempt ended, recorded by [`TaskRepository::finish_attempt`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttemptEnd<'a> {
    /// Done, linked to its review (when it has one).
    Completed { review_id: Option<ReviewId> },
    /// A transient failure: `queued` again for another attempt.
    Requeued { error: &'a str },
    /// Failed for good.
    Failed { error: &'a str },
}

/// What happened when a task was offered to the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskInsert {
    Created(ReviewTask),
    /// An active task already covers the same MR head.
    Duplicate(ReviewTask),
}

/// The Postgres record of each queued task (status, attempts, timestamps).
#[async_trait]
pub trait TaskRepository: Send + Sync {
    /// Inserts the task unless an active one has the same dedup key; queued tasks of
    /// the same MR at another head become `superseded`, in the same transaction.
    /// Returns the inserted (or existing) task and how many were superseded.
    ///
    /// # Errors
    /// `NotFound` when the project is gone.
    async fn insert(&self, task: NewReviewTask) -> Result<(TaskInsert, u64), RepoError>;

    /// # Errors
    /// `NotFound` for an unknown id.
    async fn get(&self, id: Uuid) -> Result<ReviewTask, RepoError>;

    /// Records the queue's id for the task's message.
    ///
    /// # Errors
    /// `NotFound` for an unknown id.
    async fn set_stream_id(&self, id: Uuid, stream_id: &str) -> Result<(), RepoError>;

    /// As [`TaskRepository::set_stream_id`], but the record may follow a little
    /// later (a store may write many at once): what the webhook path uses, so that
    /// queueing a task costs one write. A record that never arrives is harmless:
    /// the orphan sweep queues such a task again, and a second message for a task
    /// is already handled.
    ///
    /// # Errors
    /// As `set_stream_id` when the record is written at once.
    async fn note_stream_id(&self, id: Uuid, stream_id: &str) -> Result<(), RepoError> {
        self.set_stream_id(id, stream_id).await
    }

    /// Claims up to `limit` tasks that are `queued` but have no queue message (their
    /// process died between recording and queueing them) and are older than
    /// `older_than_secs`. Claiming marks them, so two replicas never push one twice.
    ///
    /// # Errors
    /// Only store failures.
    async fn claim_orphans(&self, older_than_secs: u64, limit: u32)
    -> Result<Vec<Uuid>, RepoError>;

    /// Marks a task failed with a reason.
    ///
    /// # Errors
    /// `NotFound` for an unknown id.
    async fn fail(&self, id: Uuid, error: &str) -> Result<(), RepoError>;

    /// Starts an attempt for `worker` (a server process's stable name): a `queued`
    /// (or reclaimed `processing`) task becomes `processing`, held by `worker`, with
    /// one more attempt. One MR is reviewed by one attempt at a time: while an attempt
    /// on the same MR (this task's included) is still `processing` and its heartbeat
    /// ([`TaskRepository::renew_attempt`]) is less than `lease` old, the answer is
    /// `Busy` and nothing changes — except that this task held by `worker` itself is
    /// not busy for it (the worker resumes its own work after a restart or a failure
    /// to record an outcome; it never runs one task twice at once). `NotRunnable`
    /// when the task is superseded, finished or out of attempts.
    ///
    /// # Errors
    /// Store failures.
    async fn begin_attempt(
        &self,
        id: Uuid,
        worker: &str,
        lease: std::time::Duration,
    ) -> Result<AttemptStart, RepoError>;

    /// The heartbeat of an attempt at work: its lease starts again. `false` (and
    /// nothing changes) when the task is no longer `processing` for `worker` (it
    /// finished, or another worker took it over after this one went silent): the
    /// worker stops the attempt.
    ///
    /// # Errors
    /// Store failures.
    async fn renew_attempt(&self, id: Uuid, worker: &str) -> Result<bool, RepoError>;

    /// Records how `worker`'s attempt ended, only while the task is still
    /// `processing` for `worker`: the attempt of a worker that was taken over (a
    /// frozen or partitioned replica that came back) changes nothing and gets
    /// `false`. The worker stays named on a completed or failed task (who did it);
    /// a requeued one is nobody's, so no worker resumes it as its own.
    ///
    /// # Errors
    /// Store failures.
    async fn finish_attempt(
        &self,
        id: Uuid,
        worker: &str,
        end: AttemptEnd<'_>,
    ) -> Result<bool, RepoError>;

    /// Ids of the tasks the server's workers have yet to finish (`queued`, or
    /// `processing` and not held by a runner), after `after` in id order, up to
    /// `limit`: what is queued again when the queue lost its messages.
    ///
    /// # Errors
    /// Store failures.
    async fn unfinished(&self, after: Option<Uuid>, limit: u32) -> Result<Vec<Uuid>, RepoError>;

    /// Links the task to the review its attempt works on, as soon as that review
    /// exists, so that whoever follows the task can follow the review's progress.
    ///
    /// # Errors
    /// `NotFound` for an unknown id.
    async fn link_review(&self, id: Uuid, review_id: ReviewId) -> Result<(), RepoError>;

    /// Marks the task completed, linked to its review.
    ///
    /// # Errors
    /// `NotFound` for an unknown id.
    async fn complete(&self, id: Uuid, review_id: Option<ReviewId>) -> Result<(), RepoError>;

    /// Puts a task whose attempt failed transiently back to `queued`.
    ///
    /// # Errors
    /// `NotFound` for an unknown id.
    async fn requeue(&self, id: Uuid, error: &str) -> Result<(), RepoError>;

    /// Tasks newest first, optionally of one status and one trigger kind.
    ///
    /// # Errors
    /// Only store failures.
    async fn list(
        &self,
        status: Option<TaskStatus>,
        triggered_by: Option<TriggeredBy>,
        page: PageRequest,
    ) -> Result<Page<ReviewTask>, RepoError>;
}
