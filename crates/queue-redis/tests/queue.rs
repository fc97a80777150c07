//! The task queue and delivery log on the real Redis, isolated by a random prefix.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use reviewd_domain::ports::{DeliveryLog, TaskQueue};
use reviewd_queue_redis::{RedisDeliveryLog, RedisTaskQueue, connect};
use reviewd_testkit::test_redis_url;
use std::time::Duration;
use uuid::Uuid;

async fn queue() -> (RedisTaskQueue, deadpool_redis::Pool, String) {
    let pool = connect(&test_redis_url(), Duration::from_secs(5))
        .await
        .unwrap();
    let prefix = format!("reviewd-test:{}:", Uuid::new_v4().simple());
    (
        RedisTaskQueue::new(pool.clone(), &prefix).await.unwrap(),
        pool,
        prefix,
    )
}

#[tokio::test]
async fn delivers_in_order_once_per_consumer_group_and_ack_removes() {
    let (q, _, _) = queue().await;
    let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
    q.push(a).await.unwrap();
    q.push(b).await.unwrap();
    assert_eq!(q.depth().await.unwrap(), 2);
    let first = q.pull("w1", 1, Duration::from_millis(50)).await.unwrap();
    let second = q.pull("w2", 5, Duration::from_millis(50)).await.unwrap();
    assert_eq!(first.iter().map(|d| d.task_id).collect::<Vec<_>>(), vec![a]);
    assert_eq!(
        second.iter().map(|d| d.task_id).collect::<Vec<_>>(),
        vec![b],
        "no message goes to two consumers"
    );
    assert!(
        q.pull("w3", 5, Duration::from_millis(50))
            .await
            .unwrap()
            .is_empty(),
        "empty queue: the block times out"
    );
    q.ack(&first[0].id).await.unwrap();
    assert_eq!(
        q.depth().await.unwrap(),
        1,
        "acknowledged work leaves the queue; unacknowledged stays"
    );
}

#[tokio::test]
async fn a_silent_consumers_task_is_reclaimed_by_another() {
    let (q, _, _) = queue().await;
    let task = Uuid::new_v4();
    q.push(task).await.unwrap();
    let taken = q
        .pull("dies-mid-task", 1, Duration::from_millis(50))
        .await
        .unwrap();
    assert_eq!(taken.len(), 1);
    assert!(
        q.reclaim("rescuer", Duration::from_secs(60), 10)
            .await
            .unwrap()
            .is_empty(),
        "not idle long enough yet"
    );
    tokio::time::sleep(Duration::from_millis(150)).await;
    let rescued = q
        .reclaim("rescuer", Duration::from_millis(100), 10)
        .await
        .unwrap();
    assert_eq!(
        rescued.iter().map(|d| d.task_id).collect::<Vec<_>>(),
        vec![task]
    );
    q.ack(&rescued[0].id).await.unwrap();
    assert_eq!(q.depth().await.unwrap(), 0);
}

#[tokio::test]
async fn a_malformed_entry_is_dropped_not_redelivered_forever() {
    let (q, pool, prefix) = queue().await;
    let mut conn = pool.get().await.unwrap();
    let _: String = deadpool_redis::redis::cmd("XADD")
        .arg(format!("{prefix}review-tasks"))
        .arg("*")
        .arg("task")
        .arg("not-a-uuid")
        .query_async(&mut conn)
        .await
        .unwrap();
    let good = Uuid::new_v4();
    q.push(good).await.unwrap();
    let got = q.pull("w", 10, Duration::from_millis(50)).await.unwrap();
    assert_eq!(
        got.iter().map(|d| d.task_id).collect::<Vec<_>>(),
        vec![good]
    );
    assert_eq!(
        q.depth().await.unwrap(),
        1,
        "the malformed entry was acknowledged and deleted"
    );
}

#[tokio::test]
async fn creating_the_group_twice_is_fine() {
    let (_, pool, prefix) = queue().await;
    RedisTaskQueue::new(pool, &prefix).await.unwrap();
}

#[tokio::test]
async fn delivery_ids_are_seen_once_until_forgotten() {
    let pool = connect(&test_redis_url(), Duration::from_secs(5))
        .await
        .unwrap();
    let log = RedisDeliveryLog::new(pool, &format!("reviewd-test:{}:", Uuid::new_v4().simple()));
    assert!(log.first_seen("hostB", "d-1").await.unwrap());
    assert!(!log.first_seen("hostB", "d-1").await.unwrap());
    assert!(
        log.first_seen("hostA", "d-1").await.unwrap(),
        "per platform"
    );
    log.forget("hostB", "d-1").await.unwrap();
    assert!(log.first_seen("hostB", "d-1").await.unwrap());
}
