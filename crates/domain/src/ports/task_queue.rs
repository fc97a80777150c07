use async_trait::async_trait;
use std::time::Duration;
use uuid::Uuid;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueueError {
    #[error("queue store unavailable: {0}")]
    Unavailable(String),
    #[error("malformed queue entry {0}")]
    Malformed(String),
    /// The queue itself is gone (its store restarted empty, was flushed, or failed
    /// over to a replica without it): [`TaskQueue::ensure`] makes it again, and the
    /// tasks whose messages went with it are queued again from their records.
    #[error("the task queue is gone from its store: {0}")]
    Lost(String),
}

/// One delivery of a queued task to a consumer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// The queue's id of the message, used to acknowledge it.
    pub id: String,
    pub task_id: Uuid,
}

/// The durable task queue (`QUEUE_STORE_URL`), shared by every replica and runner.
/// Delivery is at least once: a message stays pending until acknowledged, and one
/// whose consumer went silent can be reclaimed by another.
#[async_trait]
pub trait TaskQueue: Send + Sync {
    /// Appends a task; returns its message id.
    ///
    /// # Errors
    /// `Unavailable` when the store cannot be reached.
    async fn push(&self, task_id: Uuid) -> Result<String, QueueError>;

    /// Up to `max` new messages for `consumer`, waiting up to `block` for the first.
    ///
    /// # Errors
    /// `Unavailable`; `Lost` when the queue is gone; `Malformed` is logged and the
    /// entry acknowledged by adapters.
    async fn pull(
        &self,
        consumer: &str,
        max: usize,
        block: Duration,
    ) -> Result<Vec<Delivery>, QueueError>;

    /// Takes over messages held unacknowledged for `min_idle` by any consumer, the
    /// caller included (callers skip what they are still working on). Reads at least
    /// one message even when `max` is 0.
    ///
    /// # Errors
    /// `Unavailable`; `Lost` when the queue is gone.
    async fn reclaim(
        &self,
        consumer: &str,
        min_idle: Duration,
        max: usize,
    ) -> Result<Vec<Delivery>, QueueError>;

    /// Messages delivered to `consumer` and not yet acknowledged, oldest first: the
    /// unfinished work of a process that had this consumer name before a restart.
    ///
    /// # Errors
    /// `Unavailable`; `Lost` when the queue is gone.
    async fn pending(&self, consumer: &str, max: usize) -> Result<Vec<Delivery>, QueueError>;

    /// The heartbeat of a consumer at work: the messages' idle time starts again, so
    /// no [`TaskQueue::reclaim`] takes them while their consumer is alive, however
    /// long the work. Ids that are no longer pending are ignored.
    ///
    /// # Errors
    /// `Unavailable`; `Lost` when the queue is gone.
    async fn renew(&self, consumer: &str, delivery_ids: &[String]) -> Result<(), QueueError>;

    /// Makes the queue ready to deliver, creating it when missing. Returns `true`
    /// when it had to be created: any message queued before is gone, and the caller
    /// queues the active tasks again from their records.
    ///
    /// # Errors
    /// `Unavailable`.
    async fn ensure(&self) -> Result<bool, QueueError>;

    /// Acknowledges (and drops) a message once its result is stored.
    ///
    /// # Errors
    /// `Unavailable`.
    async fn ack(&self, delivery_id: &str) -> Result<(), QueueError>;

    /// Messages not yet delivered plus those delivered and unacknowledged.
    ///
    /// # Errors
    /// `Unavailable`.
    async fn depth(&self) -> Result<u64, QueueError>;
}

/// Remembers webhook delivery ids so a redelivered webhook is processed once.
#[async_trait]
pub trait DeliveryLog: Send + Sync {
    /// `true` the first time a `(platform, delivery id)` is seen.
    ///
    /// # Errors
    /// `Unavailable`.
    async fn first_seen(&self, platform: &str, delivery_id: &str) -> Result<bool, QueueError>;

    /// Forgets a delivery whose processing failed, so the platform's retry is processed.
    ///
    /// # Errors
    /// `Unavailable`.
    async fn forget(&self, platform: &str, delivery_id: &str) -> Result<(), QueueError>;
}
