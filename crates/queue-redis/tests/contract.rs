//! The contract suites of the ports the Redis adapters implement
//! (`reviewd_testkit::contract::{queue, data_wipe, login_throttle, health_probe}`) on
//! the real Redis, each isolated by a random key prefix.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use deadpool_redis::{Config, Runtime};
use reviewd_domain::ports::{DeliveryLog, TaskQueue};
use reviewd_queue_redis::{
    RedisDataWipe, RedisDeliveryLog, RedisHealthProbe, RedisLoginThrottle, RedisPool,
    RedisTaskQueue, connect,
};
use reviewd_testkit::test_redis_url;
use std::time::Duration;
use uuid::Uuid;

async fn redis() -> (RedisPool, String) {
    let pool = connect(&test_redis_url(), Duration::from_secs(5))
        .await
        .unwrap();
    (pool, format!("reviewd-test:{}:", Uuid::new_v4().simple()))
}

/// The queue on the real Redis, which measures idle times in real time.
struct RedisQueueWorld {
    queue: RedisTaskQueue,
    log: RedisDeliveryLog,
    pool: RedisPool,
    prefix: String,
}

#[async_trait::async_trait]
impl reviewd_testkit::contract::queue::QueueWorld for RedisQueueWorld {
    fn queue(&self) -> &dyn TaskQueue {
        &self.queue
    }

    fn log(&self) -> &dyn DeliveryLog {
        &self.log
    }

    async fn wait(&self, time: Duration) {
        tokio::time::sleep(time).await;
    }

    /// Deletes the stream with its group, as `FLUSHALL` would, but only this test's.
    async fn lose_queue(&self) {
        let mut conn = self.pool.get().await.unwrap();
        let deleted: u64 = deadpool_redis::redis::cmd("DEL")
            .arg(format!("{}review-tasks", self.prefix))
            .query_async(&mut conn)
            .await
            .unwrap();
        assert_eq!(deleted, 1, "the queue's stream key");
    }
}

#[tokio::test]
async fn task_queue() {
    let (pool, prefix) = redis().await;
    let world = RedisQueueWorld {
        queue: RedisTaskQueue::new(pool.clone(), &prefix).await.unwrap(),
        log: RedisDeliveryLog::new(pool.clone(), &prefix),
        pool,
        prefix,
    };
    reviewd_testkit::contract::queue::run(&world).await;
}

#[tokio::test]
async fn queue_data_wipe() {
    let (pool, prefix) = redis().await;
    let queue = RedisTaskQueue::new(pool.clone(), &prefix).await.unwrap();
    let log = RedisDeliveryLog::new(pool.clone(), &prefix);
    let wipe = RedisDataWipe::new(pool, &prefix);
    reviewd_testkit::contract::data_wipe::queue(&wipe, &queue, &log).await;
}

#[tokio::test]
async fn login_throttle() {
    let (pool, prefix) = redis().await;
    reviewd_testkit::contract::login_throttle::run(&|window| {
        Box::new(RedisLoginThrottle::new(pool.clone(), &prefix, window))
    })
    .await;
}

#[tokio::test]
async fn health_probe() {
    let (pool, _) = redis().await;
    // `connect` refuses an unreachable server: the pool is built without its check.
    let unreachable = Config::from_url("redis://127.0.0.1:1")
        .create_pool(Some(Runtime::Tokio1))
        .unwrap();
    reviewd_testkit::contract::health_probe::run(
        &RedisHealthProbe::new(pool),
        &RedisHealthProbe::new(unreachable),
    )
    .await;
}
