//! The task queue and the webhook delivery log in memory, with the Redis adapters'
//! semantics (`crates/queue-redis`): at-least-once delivery, pending until acknowledged,
//! reclaim of messages idle for a while measured on the injected clock, and a queue
//! that can be lost (as Redis restarted without its data) until made again.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use reviewd_domain::ports::{
    Clock, DataWipe, Delivery, DeliveryLog, QueueError, RepoError, ResetCaller, TaskQueue,
};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::Notify;
use uuid::Uuid;

/// How long a webhook delivery id is remembered, as the Redis key's TTL.
const DELIVERY_MEMORY: chrono::TimeDelta = chrono::TimeDelta::days(7);

/// A message handed to a consumer and not yet acknowledged.
struct Pending {
    task_id: Uuid,
    consumer: String,
    /// When its idle time started: its delivery, reclaim or last renewal.
    delivered_at: DateTime<Utc>,
}

#[derive(Default)]
struct State {
    next_seq: u64,
    /// Pushed, never delivered, oldest first.
    undelivered: VecDeque<(u64, Uuid)>,
    /// Delivered and unacknowledged, by sequence (the order `XAUTOCLAIM` scans).
    pending: BTreeMap<u64, Pending>,
    /// Where the next reclaim scan starts, as the Redis adapter's cursor: repeated
    /// small reclaims walk the whole pending list instead of re-taking its head.
    reclaim_after: Option<u64>,
    /// The consumer group is gone (see [`MemoryQueue::lose_everything`]): reads fail
    /// with `Lost` until `ensure`, pushes still land.
    group_lost: bool,
    seen: HashMap<(String, String), DateTime<Utc>>,
}

/// An in-memory [`TaskQueue`] and [`DeliveryLog`] sharing one state; clones share it.
///
/// `pull` waits up to `block` of tokio time for a push, as `XREADGROUP BLOCK` does:
/// returning at once would turn a worker's pull loop into a busy loop that never
/// yields, and a push still wakes the wait at once. Tests that pull an empty queue
/// pass a small `block` or run on `tokio::time::pause`. Idle times (reclaim) and the
/// delivery log's memory are measured on the injected [`Clock`] instead.
#[derive(Clone)]
pub struct MemoryQueue {
    state: Arc<Mutex<State>>,
    pushed: Arc<Notify>,
    down: Arc<AtomicBool>,
    clock: Arc<dyn Clock>,
    /// Calls of `renew` with at least one id.
    renewals: Arc<AtomicUsize>,
}

impl MemoryQueue {
    #[must_use]
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self {
            state: Arc::default(),
            pushed: Arc::default(),
            down: Arc::default(),
            clock,
            renewals: Arc::default(),
        }
    }

    /// How many times messages were renewed (calls with at least one id).
    #[must_use]
    pub fn renewals(&self) -> usize {
        self.renewals.load(Ordering::SeqCst)
    }

    /// Simulates an outage: every call fails with `Unavailable` until set back.
    pub fn set_down(&self, down: bool) {
        self.down.store(down, Ordering::SeqCst);
    }

    /// Simulates Redis losing the queue (a restart without its data, `FLUSHALL`, a
    /// failover): every message is gone with the consumer group, and reads fail with
    /// `Lost` until [`TaskQueue::ensure`] makes the group again. A push meanwhile
    /// lands on a stream without a group and is delivered once the group is made, as
    /// Redis does. Remembered webhook deliveries are kept: only the queue is lost.
    pub fn lose_everything(&self) {
        let mut state = self.lock();
        state.undelivered.clear();
        state.pending.clear();
        state.reclaim_after = None;
        state.group_lost = true;
    }

    /// Task ids not yet acknowledged, delivered or not, in push order; delivers nothing.
    #[must_use]
    pub fn queued_tasks(&self) -> Vec<Uuid> {
        let state = self.lock();
        let pending = state.pending.iter().map(|(&seq, p)| (seq, p.task_id));
        let mut all: Vec<_> = state.undelivered.iter().copied().chain(pending).collect();
        all.sort_unstable_by_key(|&(seq, _)| seq);
        all.into_iter().map(|(_, task)| task).collect()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap()
    }

    /// The lock, unless the queue is down.
    fn up(&self) -> Result<MutexGuard<'_, State>, QueueError> {
        if self.down.load(Ordering::SeqCst) {
            return Err(QueueError::Unavailable(
                "the in-memory queue is down".into(),
            ));
        }
        Ok(self.lock())
    }

    /// The lock, unless the queue is down or its consumer group lost.
    fn group(&self) -> Result<MutexGuard<'_, State>, QueueError> {
        let state = self.up()?;
        if state.group_lost {
            return Err(QueueError::Lost(
                "the in-memory queue lost its consumer group".into(),
            ));
        }
        Ok(state)
    }

    /// Delivers up to `max` undelivered messages to `consumer`, if any.
    fn take_new(&self, consumer: &str, max: usize) -> Result<Vec<Delivery>, QueueError> {
        let now = self.clock.now();
        let mut state = self.group()?;
        let count = max.min(state.undelivered.len());
        let taken: Vec<_> = state.undelivered.drain(..count).collect();
        for &(seq, task_id) in &taken {
            let pending = Pending {
                task_id,
                consumer: consumer.to_owned(),
                delivered_at: now,
            };
            state.pending.insert(seq, pending);
        }
        Ok(taken.into_iter().map(delivery).collect())
    }
}

impl Default for MemoryQueue {
    /// On a frozen [`crate::fakes::FakeClock`].
    fn default() -> Self {
        Self::new(Arc::new(crate::fakes::FakeClock::default()))
    }
}

fn delivery((seq, task_id): (u64, Uuid)) -> Delivery {
    Delivery {
        id: message_id(seq),
        task_id,
    }
}

/// Ids shaped like a stream's, so nothing relies on them being numbers.
fn message_id(seq: u64) -> String {
    format!("{seq}-0")
}

fn parse_id(id: &str) -> Option<u64> {
    id.strip_suffix("-0")?.parse().ok()
}

#[async_trait]
impl TaskQueue for MemoryQueue {
    async fn push(&self, task_id: Uuid) -> Result<String, QueueError> {
        let seq = {
            let mut state = self.up()?;
            state.next_seq += 1;
            let seq = state.next_seq;
            state.undelivered.push_back((seq, task_id));
            seq
        };
        self.pushed.notify_waiters();
        Ok(message_id(seq))
    }

    async fn pull(
        &self,
        consumer: &str,
        max: usize,
        block: Duration,
    ) -> Result<Vec<Delivery>, QueueError> {
        // Redis reads at least one entry whatever the count.
        let max = max.max(1);
        let deadline = tokio::time::Instant::now().checked_add(block);
        loop {
            // Listening before looking, so a push between the two is not missed.
            let pushed = self.pushed.notified();
            tokio::pin!(pushed);
            pushed.as_mut().enable();
            let taken = self.take_new(consumer, max)?;
            if !taken.is_empty() {
                return Ok(taken);
            }
            let Some(deadline) = deadline else {
                // Beyond what an `Instant` holds: as good as forever.
                pushed.await;
                continue;
            };
            if tokio::time::timeout_at(deadline, pushed).await.is_err() {
                return Ok(Vec::new());
            }
        }
    }

    async fn reclaim(
        &self,
        consumer: &str,
        min_idle: Duration,
        max: usize,
    ) -> Result<Vec<Delivery>, QueueError> {
        let max = max.max(1);
        let now = self.clock.now();
        let min_idle = chrono::TimeDelta::from_std(min_idle).unwrap_or(chrono::TimeDelta::MAX);
        let mut state = self.group()?;
        let start = state.reclaim_after.map_or(0, |seq| seq + 1);
        let idle: Vec<u64> = state
            .pending
            .range(start..)
            .filter(|(_, p)| now - p.delivered_at >= min_idle)
            .map(|(&seq, _)| seq)
            .take(max)
            .collect();
        // As `XAUTOCLAIM`: a scan cut short by `max` resumes after its last claim; one
        // that reached the end starts over.
        let cut_short = idle.len() == max
            && idle
                .last()
                .is_some_and(|&seq| state.pending.range(seq + 1..).next().is_some());
        state.reclaim_after = idle.last().copied().filter(|_| cut_short);
        let mut out = Vec::with_capacity(idle.len());
        for seq in idle {
            if let Some(pending) = state.pending.get_mut(&seq) {
                // As `XAUTOCLAIM`: the claimer owns it now, idle from now.
                consumer.clone_into(&mut pending.consumer);
                pending.delivered_at = now;
                out.push(delivery((seq, pending.task_id)));
            }
        }
        Ok(out)
    }

    async fn pending(&self, consumer: &str, max: usize) -> Result<Vec<Delivery>, QueueError> {
        let now = self.clock.now();
        let mut state = self.group()?;
        let mut out = Vec::new();
        let own = state
            .pending
            .iter_mut()
            .filter(|(_, p)| p.consumer == consumer);
        // Redis reads at least one entry whatever the count, and a consumer reading
        // its pending entries again restarts their idle time.
        for (&seq, pending) in own.take(max.max(1)) {
            pending.delivered_at = now;
            out.push(delivery((seq, pending.task_id)));
        }
        Ok(out)
    }

    async fn renew(&self, consumer: &str, delivery_ids: &[String]) -> Result<(), QueueError> {
        // As the Redis adapter, which sends nothing for no ids.
        if delivery_ids.is_empty() {
            return Ok(());
        }
        let now = self.clock.now();
        let mut state = self.group()?;
        self.renewals.fetch_add(1, Ordering::SeqCst);
        for seq in delivery_ids.iter().filter_map(|id| parse_id(id)) {
            // As `XCLAIM`: only pending messages, now owned by the renewing consumer.
            if let Some(pending) = state.pending.get_mut(&seq) {
                consumer.clone_into(&mut pending.consumer);
                pending.delivered_at = now;
            }
        }
        Ok(())
    }

    async fn ensure(&self) -> Result<bool, QueueError> {
        let mut state = self.up()?;
        let created = state.group_lost;
        state.group_lost = false;
        Ok(created)
    }

    async fn ack(&self, delivery_id: &str) -> Result<(), QueueError> {
        let mut state = self.up()?;
        // Like `XACK` + `XDEL`: an id not yet delivered is deleted too.
        if let Some(seq) = parse_id(delivery_id) {
            state.pending.remove(&seq);
            state.undelivered.retain(|&(s, _)| s != seq);
        }
        Ok(())
    }

    async fn depth(&self) -> Result<u64, QueueError> {
        let state = self.up()?;
        Ok((state.undelivered.len() + state.pending.len()) as u64)
    }
}

#[async_trait]
impl DeliveryLog for MemoryQueue {
    async fn first_seen(&self, platform: &str, delivery_id: &str) -> Result<bool, QueueError> {
        let now = self.clock.now();
        let mut state = self.up()?;
        let key = (platform.to_owned(), delivery_id.to_owned());
        let remembered = state
            .seen
            .get(&key)
            .is_some_and(|&seen| now - seen < DELIVERY_MEMORY);
        if !remembered {
            state.seen.insert(key, now);
        }
        Ok(!remembered)
    }

    async fn forget(&self, platform: &str, delivery_id: &str) -> Result<(), QueueError> {
        let mut state = self.up()?;
        state
            .seen
            .remove(&(platform.to_owned(), delivery_id.to_owned()));
        Ok(())
    }
}

/// As `RedisDataWipe`: counts the stream (always there) and each delivery id as a
/// key. Message ids go on from where they were, as a recreated stream's do, so an
/// old id acknowledged late takes no new message.
#[async_trait]
impl DataWipe for MemoryQueue {
    fn store(&self) -> &'static str {
        "queue"
    }

    async fn wipe(&self, _caller: &ResetCaller) -> Result<u64, RepoError> {
        let mut state = self
            .up()
            .map_err(|e| RepoError::Unavailable(e.to_string()))?;
        let keys = 1 + state.seen.len() as u64;
        *state = State {
            next_seq: state.next_seq,
            ..State::default()
        };
        Ok(keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fakes::FakeClock;

    #[tokio::test]
    async fn a_queue_that_is_down_fails_every_call_until_up() {
        let queue = MemoryQueue::default();
        queue.set_down(true);
        let pushed = queue.push(Uuid::new_v4()).await;
        assert!(matches!(pushed, Err(QueueError::Unavailable(_))));
        let seen = queue.first_seen("hostA", "d-1").await;
        assert!(matches!(seen, Err(QueueError::Unavailable(_))));
        queue.set_down(false);
        queue.push(Uuid::new_v4()).await.unwrap();
        assert_eq!(queue.depth().await.unwrap(), 1);
    }

    #[tokio::test]
    async fn idle_times_and_remembered_deliveries_follow_the_clock() {
        let clock = Arc::new(FakeClock::default());
        let queue = MemoryQueue::new(clock.clone());
        let task = Uuid::new_v4();
        queue.push(task).await.unwrap();
        queue.pull("w", 1, Duration::ZERO).await.unwrap();
        assert!(queue.first_seen("hostA", "d-1").await.unwrap());
        let idle = Duration::from_secs(300);
        assert!(queue.reclaim("r", idle, 1).await.unwrap().is_empty());
        clock.advance(idle);
        let reclaimed = queue.reclaim("r", idle, 1).await.unwrap();
        assert_eq!(
            reclaimed.iter().map(|d| d.task_id).collect::<Vec<_>>(),
            [task]
        );
        assert!(!queue.first_seen("hostA", "d-1").await.unwrap());
        clock.advance(Duration::from_secs(7 * 24 * 3600));
        assert!(queue.first_seen("hostA", "d-1").await.unwrap(), "expired");
    }
}
