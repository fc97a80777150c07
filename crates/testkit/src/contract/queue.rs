//! The task queue and the webhook delivery log: at-least-once delivery, one consumer
//! per message until it goes silent, reclaim after an idle time unless renewed, a
//! consumer's unfinished work given back after its restart, a lost queue reported
//! until made again, and delivery ids remembered once per platform.

use crate::fakes::FakeClock;
use crate::fakes::queue::MemoryQueue;
use async_trait::async_trait;
use reviewd_domain::ports::{Delivery, DeliveryLog, QueueError, TaskQueue};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

/// Long enough for a concurrent push to land, short of the Redis client's response
/// timeout (as the workers' own pull block).
const BLOCK: Duration = Duration::from_millis(250);

/// Idle long enough to be reclaimed in [`a_renewed_message_is_not_reclaimed`], and
/// the wait that makes a message that idle: short, as the suite waits for real
/// against a real store, yet far from the few milliseconds between two calls.
const MIN_IDLE: Duration = Duration::from_millis(50);
const IDLE: Duration = Duration::from_millis(100);

/// A queue and its delivery log, with the means to let time pass for its idle times
/// and to make its store lose the queue.
#[async_trait]
pub trait QueueWorld: Sync {
    fn queue(&self) -> &dyn TaskQueue;

    fn log(&self) -> &dyn DeliveryLog;

    /// Lets `time` pass as the queue measures idle times: a real wait against a
    /// real store, the clock moved for a fake one.
    async fn wait(&self, time: Duration);

    /// Makes the store lose the queue, stream and consumer group, as a restart
    /// without its data or a `FLUSHALL` does.
    async fn lose_queue(&self);
}

/// Runs every case on one empty queue; each case leaves it empty again.
pub async fn run(world: &impl QueueWorld) {
    let queue = world.queue();
    delivers_in_order_to_one_consumer_until_acknowledged(queue).await;
    a_push_wakes_a_waiting_pull(queue).await;
    an_unacknowledged_message_is_reclaimed_once_idle(queue).await;
    messages_never_delivered_are_pulled_not_reclaimed(queue).await;
    small_reclaims_reach_every_abandoned_message(queue).await;
    a_consumer_gets_back_its_own_unfinished_work(queue).await;
    a_renewed_message_is_not_reclaimed(world).await;
    a_queue_in_place_is_left_as_it_is(queue).await;
    a_lost_queue_is_reported_until_made_again(world).await;
    delivery_ids_are_seen_once_until_forgotten(world.log()).await;
}

/// The world of [`MemoryQueue`]: idle times on a fake clock that `wait` moves.
pub struct MemoryQueueWorld {
    queue: MemoryQueue,
    clock: Arc<FakeClock>,
}

impl MemoryQueueWorld {
    #[must_use]
    pub fn new(clock: Arc<FakeClock>) -> Self {
        Self {
            queue: MemoryQueue::new(clock.clone()),
            clock,
        }
    }
}

#[async_trait]
impl QueueWorld for MemoryQueueWorld {
    fn queue(&self) -> &dyn TaskQueue {
        &self.queue
    }

    fn log(&self) -> &dyn DeliveryLog {
        &self.queue
    }

    async fn wait(&self, time: Duration) {
        self.clock.advance(time);
    }

    async fn lose_queue(&self) {
        self.queue.lose_everything();
    }
}

fn tasks(deliveries: &[Delivery]) -> Vec<Uuid> {
    deliveries.iter().map(|d| d.task_id).collect()
}

async fn ack_all(queue: &dyn TaskQueue, deliveries: &[Delivery]) {
    for d in deliveries {
        queue.ack(&d.id).await.unwrap();
    }
    assert_eq!(
        queue.depth().await.unwrap(),
        0,
        "every message acknowledged"
    );
}

async fn delivers_in_order_to_one_consumer_until_acknowledged(queue: &dyn TaskQueue) {
    let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
    let id_a = queue.push(a).await.unwrap();
    queue.push(b).await.unwrap();
    assert_eq!(queue.depth().await.unwrap(), 2);
    let first = queue.pull("w1", 1, BLOCK).await.unwrap();
    let second = queue.pull("w2", 5, BLOCK).await.unwrap();
    assert_eq!(tasks(&first), vec![a], "oldest first, at most `max`");
    assert_eq!(first[0].id, id_a, "delivered under the id push returned");
    assert_eq!(tasks(&second), vec![b], "no message goes to two consumers");
    let none = queue
        .pull("w3", 5, Duration::from_millis(10))
        .await
        .unwrap();
    assert!(none.is_empty(), "nothing new: the block runs out");
    assert_eq!(
        queue.depth().await.unwrap(),
        2,
        "delivered is still pending"
    );
    queue.ack(&first[0].id).await.unwrap();
    assert_eq!(
        queue.depth().await.unwrap(),
        1,
        "acknowledged leaves the queue"
    );
    queue.ack(&first[0].id).await.unwrap();
    assert_eq!(
        queue.depth().await.unwrap(),
        1,
        "a second ack changes nothing"
    );
    ack_all(queue, &second).await;
}

async fn a_push_wakes_a_waiting_pull(queue: &dyn TaskQueue) {
    let task = Uuid::new_v4();
    let (pulled, pushed) = tokio::join!(queue.pull("waiter", 1, BLOCK), queue.push(task));
    pushed.unwrap();
    let pulled = pulled.unwrap();
    assert_eq!(tasks(&pulled), vec![task]);
    ack_all(queue, &pulled).await;
}

async fn an_unacknowledged_message_is_reclaimed_once_idle(queue: &dyn TaskQueue) {
    let task = Uuid::new_v4();
    queue.push(task).await.unwrap();
    let taken = queue.pull("dies-mid-task", 1, BLOCK).await.unwrap();
    assert_eq!(tasks(&taken), vec![task]);
    let early = queue.reclaim("rescuer", Duration::from_secs(60), 10);
    assert!(early.await.unwrap().is_empty(), "not idle long enough yet");
    let rescued = queue.reclaim("rescuer", Duration::ZERO, 10).await.unwrap();
    assert_eq!(
        rescued, taken,
        "the same message, acknowledged by the same id"
    );
    assert_eq!(
        queue.depth().await.unwrap(),
        1,
        "reclaimed is still pending"
    );
    ack_all(queue, &rescued).await;
    let again = queue.reclaim("rescuer", Duration::ZERO, 10).await.unwrap();
    assert!(
        again.is_empty(),
        "an acknowledged message is never reclaimed"
    );
}

async fn messages_never_delivered_are_pulled_not_reclaimed(queue: &dyn TaskQueue) {
    let task = Uuid::new_v4();
    queue.push(task).await.unwrap();
    let reclaimed = queue.reclaim("rescuer", Duration::ZERO, 10).await.unwrap();
    assert!(
        reclaimed.is_empty(),
        "only delivered messages can be abandoned"
    );
    let pulled = queue.pull("w", 10, BLOCK).await.unwrap();
    assert_eq!(tasks(&pulled), vec![task]);
    ack_all(queue, &pulled).await;
}

async fn small_reclaims_reach_every_abandoned_message(queue: &dyn TaskQueue) {
    let pushed = [Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4()];
    for task in pushed {
        queue.push(task).await.unwrap();
    }
    let taken = queue.pull("dies-mid-task", 3, BLOCK).await.unwrap();
    assert_eq!(tasks(&taken), pushed);
    let first = queue.reclaim("rescuer", Duration::ZERO, 2).await.unwrap();
    let second = queue.reclaim("rescuer", Duration::ZERO, 2).await.unwrap();
    assert_eq!(first.len(), 2, "at most `max`");
    let rescued: HashSet<Uuid> = tasks(&first).into_iter().chain(tasks(&second)).collect();
    assert_eq!(
        rescued,
        HashSet::from(pushed),
        "the next reclaim goes on where the last stopped"
    );
    ack_all(queue, &taken).await;
}

async fn a_consumer_gets_back_its_own_unfinished_work(queue: &dyn TaskQueue) {
    let pushed = [Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4()];
    for task in pushed {
        queue.push(task).await.unwrap();
    }
    let own = queue.pull("restarts", 2, BLOCK).await.unwrap();
    let other = queue.pull("keeps-going", 1, BLOCK).await.unwrap();
    assert_eq!(tasks(&own), pushed[..2]);
    assert_eq!(tasks(&other), pushed[2..]);
    let back = queue.pending("restarts", 10).await.unwrap();
    assert_eq!(back, own, "its own, oldest first, under the same ids");
    let first = queue.pending("restarts", 1).await.unwrap();
    assert_eq!(first, own[..1], "at most `max`");
    let none = queue.pending("never-pulled", 10).await.unwrap();
    assert!(none.is_empty(), "nothing was delivered to it");
    queue.ack(&own[0].id).await.unwrap();
    let left = queue.pending("restarts", 10).await.unwrap();
    assert_eq!(left, own[1..], "an acknowledged message is done");
    assert_eq!(queue.pending("keeps-going", 10).await.unwrap(), other);
    ack_all(queue, &[&own[1..], &other[..]].concat()).await;
}

async fn a_renewed_message_is_not_reclaimed(world: &impl QueueWorld) {
    let queue = world.queue();
    let (renewed, abandoned, done) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
    for task in [renewed, abandoned, done] {
        queue.push(task).await.unwrap();
    }
    let taken = queue.pull("slow", 3, BLOCK).await.unwrap();
    assert_eq!(tasks(&taken), [renewed, abandoned, done]);
    queue.ack(&taken[2].id).await.unwrap();
    world.wait(IDLE).await;
    queue.renew("slow", &[]).await.unwrap();
    let ids = [taken[0].id.clone(), taken[2].id.clone()];
    queue.renew("slow", &ids).await.unwrap();
    assert_eq!(
        queue.depth().await.unwrap(),
        2,
        "renewing an acknowledged message leaves it done"
    );
    let rescued = queue.reclaim("rescuer", MIN_IDLE, 10).await.unwrap();
    assert_eq!(
        tasks(&rescued),
        [abandoned],
        "only the message idle since its delivery"
    );
    let still_slow = queue.pending("slow", 10).await.unwrap();
    assert_eq!(
        tasks(&still_slow),
        [renewed],
        "the renewed one stays its own"
    );
    ack_all(queue, &taken[..2]).await;
}

async fn a_queue_in_place_is_left_as_it_is(queue: &dyn TaskQueue) {
    let task = Uuid::new_v4();
    queue.push(task).await.unwrap();
    assert!(!queue.ensure().await.unwrap(), "nothing had to be made");
    let pulled = queue.pull("w", 10, BLOCK).await.unwrap();
    assert_eq!(tasks(&pulled), [task], "nothing queued is lost");
    ack_all(queue, &pulled).await;
}

fn assert_lost<T: std::fmt::Debug>(result: Result<T, QueueError>, call: &str) {
    assert!(
        matches!(result, Err(QueueError::Lost(_))),
        "{call}: expected Lost, got {result:?}"
    );
}

async fn a_lost_queue_is_reported_until_made_again(world: &impl QueueWorld) {
    let queue = world.queue();
    queue.push(Uuid::new_v4()).await.unwrap();
    let working = queue.pull("w", 1, BLOCK).await.unwrap();
    queue.push(Uuid::new_v4()).await.unwrap();
    world.lose_queue().await;

    assert_lost(queue.pull("w", 1, BLOCK).await, "pull");
    assert_lost(queue.reclaim("w", Duration::ZERO, 10).await, "reclaim");
    assert_lost(queue.pending("w", 10).await, "pending");
    assert_lost(queue.renew("w", &[working[0].id.clone()]).await, "renew");
    let task = Uuid::new_v4();
    queue.push(task).await.unwrap();
    assert_lost(queue.pull("w", 1, BLOCK).await, "pull after a push");

    assert!(queue.ensure().await.unwrap(), "the queue had to be made");
    assert!(!queue.ensure().await.unwrap(), "made once");
    assert!(queue.pending("w", 10).await.unwrap().is_empty(), "gone");
    let pulled = queue.pull("w", 10, BLOCK).await.unwrap();
    assert_eq!(
        tasks(&pulled),
        [task],
        "what was pushed after the loss, and only that"
    );
    ack_all(queue, &pulled).await;
}

async fn delivery_ids_are_seen_once_until_forgotten(log: &dyn DeliveryLog) {
    let id = Uuid::new_v4().to_string();
    assert!(log.first_seen("hostB", &id).await.unwrap());
    assert!(!log.first_seen("hostB", &id).await.unwrap(), "a redelivery");
    assert!(log.first_seen("hostA", &id).await.unwrap(), "per platform");
    log.forget("hostB", &id).await.unwrap();
    assert!(
        log.first_seen("hostB", &id).await.unwrap(),
        "forgotten: seen anew"
    );
    assert!(
        !log.first_seen("hostA", &id).await.unwrap(),
        "only that platform's"
    );
}
