//! The queue contract suite (`reviewd_testkit::contract::queue`) on the real Redis,
//! isolated by a random key prefix.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use reviewd_queue_redis::{RedisDeliveryLog, RedisTaskQueue, connect};
use reviewd_testkit::test_redis_url;
use std::time::Duration;
use uuid::Uuid;

#[tokio::test]
async fn task_queue() {
    let pool = connect(&test_redis_url(), Duration::from_secs(5))
        .await
        .unwrap();
    let prefix = format!("reviewd-test:{}:", Uuid::new_v4().simple());
    let queue = RedisTaskQueue::new(pool.clone(), &prefix).await.unwrap();
    let log = RedisDeliveryLog::new(pool, &prefix);
    reviewd_testkit::contract::queue::run(&queue, &log).await;
}
