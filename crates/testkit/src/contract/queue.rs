//! The task queue and the webhook delivery log: at-least-once delivery, one consumer
//! per message until it goes silent, reclaim after an idle time, and delivery ids
//! remembered once per platform.

use reviewd_domain::ports::{Delivery, DeliveryLog, TaskQueue};
use std::collections::HashSet;
use std::time::Duration;
use uuid::Uuid;

/// Long enough for a concurrent push to land, short of the Redis client's response
/// timeout (as the workers' own pull block).
const BLOCK: Duration = Duration::from_millis(250);

/// Runs every case on one empty queue; each case leaves it empty again.
pub async fn run(queue: &dyn TaskQueue, log: &dyn DeliveryLog) {
    delivers_in_order_to_one_consumer_until_acknowledged(queue).await;
    a_push_wakes_a_waiting_pull(queue).await;
    an_unacknowledged_message_is_reclaimed_once_idle(queue).await;
    messages_never_delivered_are_pulled_not_reclaimed(queue).await;
    small_reclaims_reach_every_abandoned_message(queue).await;
    delivery_ids_are_seen_once_until_forgotten(log).await;
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
