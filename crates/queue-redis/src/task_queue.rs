use crate::RedisPool;
use async_trait::async_trait;
use deadpool_redis::redis::aio::MultiplexedConnection;
use deadpool_redis::redis::streams::{StreamAutoClaimReply, StreamId, StreamReadReply};
use deadpool_redis::redis::{self, Value};
use reviewd_domain::ports::{Delivery, QueueError, TaskQueue};
use std::time::Duration;
use uuid::Uuid;

/// Consumer group shared by every server replica (runners claim through the API).
const GROUP: &str = "reviewd-workers";

/// The task queue as a Redis stream with a consumer group: a message stays in the
/// group's pending list until acknowledged, so a consumer that dies mid-task leaves
/// it for `reclaim` (`XAUTOCLAIM`) instead of losing it.
pub struct RedisTaskQueue {
    pool: RedisPool,
    key: String,
    /// Where the next `XAUTOCLAIM` scan starts: each call looks at a bounded slice of
    /// the pending list, so the scan walks it round after round instead of always
    /// re-reading its head.
    cursor: std::sync::Mutex<String>,
    /// The connection pushes go through, cloned for each: one multiplexed socket
    /// that the pushes of a moment share. A pool checkout costs a round trip, as
    /// deadpool-redis proves each connection it hands out with `PING`: that was half
    /// of a webhook's Redis round trips. Taken from the pool at the first push, and
    /// again, proven, after it failed.
    push_conn: std::sync::Mutex<Option<MultiplexedConnection>>,
}

fn unavailable(e: impl std::fmt::Display) -> QueueError {
    QueueError::Unavailable(e.to_string())
}

/// The stream key of the task queue under `prefix`.
pub(crate) fn stream_key(prefix: &str) -> String {
    format!("{prefix}review-tasks")
}

/// A failed call on the group: `NOGROUP` means the stream or its group is gone (the
/// server restarted without its data, was flushed, or failed over), which no retry
/// mends; anything else is the store being unreachable.
fn group_error(e: redis::RedisError) -> QueueError {
    let message = e.to_string();
    if message.contains("NOGROUP") {
        QueueError::Lost(message)
    } else {
        QueueError::Unavailable(message)
    }
}

/// Creates the stream and its consumer group unless they exist; `true` when the group
/// had to be created. It reads from id 0, so messages pushed onto a stream that lost
/// its group are still delivered.
pub(crate) async fn ensure_group(pool: &RedisPool, key: &str) -> Result<bool, QueueError> {
    let mut conn = pool.get().await.map_err(unavailable)?;
    let created: Result<(), redis::RedisError> = redis::cmd("XGROUP")
        .arg("CREATE")
        .arg(key)
        .arg(GROUP)
        .arg("0")
        .arg("MKSTREAM")
        .query_async(&mut conn)
        .await;
    match created {
        Ok(()) => Ok(true),
        Err(e) if e.to_string().contains("BUSYGROUP") => Ok(false),
        Err(e) => Err(unavailable(e)),
    }
}

impl RedisTaskQueue {
    /// The queue under `prefix`, creating the stream and its group when missing.
    ///
    /// # Errors
    /// `Unavailable` when Redis cannot be reached.
    pub async fn new(pool: RedisPool, prefix: &str) -> Result<Self, QueueError> {
        let queue = Self::open(pool, prefix);
        queue.ensure().await?;
        Ok(queue)
    }

    /// The queue under `prefix`, as it is: the server's first [`TaskQueue::ensure`]
    /// creates what is missing and so learns whether the queue was lost while it
    /// was down.
    #[must_use]
    pub fn open(pool: RedisPool, prefix: &str) -> Self {
        Self {
            pool,
            key: stream_key(prefix),
            cursor: std::sync::Mutex::new("0-0".to_owned()),
            push_conn: std::sync::Mutex::new(None),
        }
    }

    /// The push connection, taken from the pool when there is none.
    async fn push_connection(&self) -> Result<MultiplexedConnection, QueueError> {
        if let Some(conn) = self.push_conn.lock().ok().and_then(|c| c.clone()) {
            return Ok(conn);
        }
        let conn = deadpool_redis::Connection::take(self.conn().await?);
        if let Ok(mut slot) = self.push_conn.lock() {
            *slot = Some(conn.clone());
        }
        Ok(conn)
    }

    fn forget_push_connection(&self) {
        if let Ok(mut slot) = self.push_conn.lock() {
            *slot = None;
        }
    }

    async fn xadd(
        &self,
        conn: &mut MultiplexedConnection,
        task_id: Uuid,
    ) -> Result<String, redis::RedisError> {
        redis::cmd("XADD")
            .arg(&self.key)
            .arg("*")
            .arg("task")
            .arg(task_id.to_string())
            .query_async(conn)
            .await
    }

    /// `XREADGROUP` for `consumer` from `from` (`>`: new messages; `0`: its own
    /// pending ones), waiting up to `block` when given.
    async fn read_group(
        &self,
        consumer: &str,
        max: usize,
        block: Option<Duration>,
        from: &str,
    ) -> Result<Vec<Delivery>, QueueError> {
        let mut conn = self.conn().await?;
        let mut cmd = redis::cmd("XREADGROUP");
        cmd.arg("GROUP")
            .arg(GROUP)
            .arg(consumer)
            .arg("COUNT")
            .arg(max.max(1));
        if let Some(block) = block {
            cmd.arg("BLOCK")
                .arg(u64::try_from(block.as_millis()).unwrap_or(u64::MAX).max(1));
        }
        let reply: Option<StreamReadReply> = cmd
            .arg("STREAMS")
            .arg(&self.key)
            .arg(from)
            .query_async(&mut conn)
            .await
            .map_err(group_error)?;
        drop(conn);
        let entries = reply
            .map(|r| r.keys.into_iter().flat_map(|k| k.ids).collect())
            .unwrap_or_default();
        self.deliveries(entries).await
    }

    async fn conn(&self) -> Result<deadpool_redis::Connection, QueueError> {
        self.pool.get().await.map_err(unavailable)
    }

    /// Turns entries into deliveries; an entry without a readable task id cannot be
    /// processed by anyone, so it is acknowledged and dropped (and logged).
    async fn deliveries(&self, entries: Vec<StreamId>) -> Result<Vec<Delivery>, QueueError> {
        let mut out = Vec::with_capacity(entries.len());
        for entry in entries {
            let task_id = match entry.map.get("task") {
                Some(Value::BulkString(bytes)) => std::str::from_utf8(bytes)
                    .ok()
                    .and_then(|s| Uuid::parse_str(s).ok()),
                Some(Value::SimpleString(s)) => Uuid::parse_str(s).ok(),
                _ => None,
            };
            match task_id {
                Some(task_id) => out.push(Delivery {
                    id: entry.id,
                    task_id,
                }),
                None => {
                    tracing::error!(queue.entry = %entry.id, "queue.malformed_entry_dropped");
                    self.ack(&entry.id).await?;
                }
            }
        }
        Ok(out)
    }
}

#[async_trait]
impl TaskQueue for RedisTaskQueue {
    async fn push(&self, task_id: Uuid) -> Result<String, QueueError> {
        let mut conn = self.push_connection().await?;
        match self.xadd(&mut conn, task_id).await {
            // The connection is gone (Redis restarted or failed over, the network cut
            // it): once more, on a connection the pool proves. Should the first
            // have been added after all, the task's second message is handled as
            // any repeated delivery is.
            Err(e) if e.is_unrecoverable_error() => {
                self.forget_push_connection();
                let mut conn = self.push_connection().await?;
                self.xadd(&mut conn, task_id).await.map_err(unavailable)
            }
            pushed => pushed.map_err(unavailable),
        }
    }

    async fn pull(
        &self,
        consumer: &str,
        max: usize,
        block: Duration,
    ) -> Result<Vec<Delivery>, QueueError> {
        self.read_group(consumer, max, Some(block), ">").await
    }

    async fn reclaim(
        &self,
        consumer: &str,
        min_idle: Duration,
        max: usize,
    ) -> Result<Vec<Delivery>, QueueError> {
        let mut conn = self.conn().await?;
        let reply: StreamAutoClaimReply = redis::cmd("XAUTOCLAIM")
            .arg(&self.key)
            .arg(GROUP)
            .arg(consumer)
            .arg(u64::try_from(min_idle.as_millis()).unwrap_or(u64::MAX))
            .arg(
                self.cursor
                    .lock()
                    .map(|c| c.clone())
                    .unwrap_or_else(|_| "0-0".to_owned()),
            )
            .arg("COUNT")
            .arg(max.max(1))
            .query_async(&mut conn)
            .await
            .map_err(group_error)?;
        if let Ok(mut cursor) = self.cursor.lock() {
            *cursor = reply.next_stream_id.clone();
        }
        self.deliveries(reply.claimed).await
    }

    async fn pending(&self, consumer: &str, max: usize) -> Result<Vec<Delivery>, QueueError> {
        // Reading from id 0 instead of `>` gives the consumer's own pending entries
        // (and restarts their idle time, as the consumer is back at them). An entry
        // whose data was deleted comes back without fields: `deliveries` drops it.
        self.read_group(consumer, max, None, "0").await
    }

    async fn renew(&self, consumer: &str, delivery_ids: &[String]) -> Result<(), QueueError> {
        if delivery_ids.is_empty() {
            return Ok(());
        }
        let mut conn = self.conn().await?;
        // A claim with no minimum idle time sets the idle time back to zero; JUSTID
        // keeps the delivery counter as it is, since nothing was delivered again.
        // Ids no longer pending are not claimed.
        let _: Value = redis::cmd("XCLAIM")
            .arg(&self.key)
            .arg(GROUP)
            .arg(consumer)
            .arg(0)
            .arg(delivery_ids)
            .arg("JUSTID")
            .query_async(&mut conn)
            .await
            .map_err(group_error)?;
        Ok(())
    }

    async fn ensure(&self) -> Result<bool, QueueError> {
        let created = ensure_group(&self.pool, &self.key).await?;
        if created && let Ok(mut cursor) = self.cursor.lock() {
            // The old scan position means nothing in a new pending list.
            *cursor = "0-0".to_owned();
        }
        Ok(created)
    }

    async fn ack(&self, delivery_id: &str) -> Result<(), QueueError> {
        let mut conn = self.conn().await?;
        let _: () = redis::pipe()
            .atomic()
            .cmd("XACK")
            .arg(&self.key)
            .arg(GROUP)
            .arg(delivery_id)
            .ignore()
            .cmd("XDEL")
            .arg(&self.key)
            .arg(delivery_id)
            .ignore()
            .query_async(&mut conn)
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    async fn depth(&self) -> Result<u64, QueueError> {
        let mut conn = self.conn().await?;
        // Acknowledged entries are deleted, so the length is what is left to finish.
        redis::cmd("XLEN")
            .arg(&self.key)
            .query_async(&mut conn)
            .await
            .map_err(unavailable)
    }
}
