//! What only the Redis queue has (raw stream entries, the consumer group), isolated by
//! a random prefix; the port's behaviour is the contract suite in `contract.rs`.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reviewd_domain::ports::TaskQueue;
use reviewd_queue_redis::{RedisTaskQueue, connect};
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
