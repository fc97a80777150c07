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

/// A Redis server of the test's own, so that cutting its clients touches no other
/// test's connections.
struct PrivateRedis {
    server: std::process::Child,
    url: String,
}

impl PrivateRedis {
    async fn start() -> PrivateRedis {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let server = std::process::Command::new("redis-server")
            .args([
                "--port",
                &port.to_string(),
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("redis-server (scripts/services.sh installs it): {e}"));
        // Owned at once, so that a failed start is still stopped and reaped.
        let redis = PrivateRedis {
            server,
            url: format!("redis://127.0.0.1:{port}"),
        };
        for _ in 0..100 {
            if connect(&redis.url, Duration::from_secs(1)).await.is_ok() {
                return redis;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("redis-server on port {port} did not answer");
    }
}

impl Drop for PrivateRedis {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

/// Pushes share one connection. When Redis drops it (a restart, a failover, a
/// timeout on its side), the next push still succeeds: it is sent again on a
/// connection the pool proves, and the webhook behind it is answered as queued.
#[tokio::test]
async fn a_push_after_redis_dropped_the_connection_is_queued() {
    let redis = PrivateRedis::start().await;
    let pool = connect(&redis.url, Duration::from_secs(5)).await.unwrap();
    let q = RedisTaskQueue::new(pool.clone(), "reviewd-test:")
        .await
        .unwrap();
    let (first, second) = (Uuid::new_v4(), Uuid::new_v4());
    q.push(first).await.unwrap();

    let client = deadpool_redis::redis::Client::open(redis.url.as_str()).unwrap();
    let mut admin = client.get_multiplexed_async_connection().await.unwrap();
    let killed: i64 = deadpool_redis::redis::cmd("CLIENT")
        .arg(&["KILL", "TYPE", "normal", "SKIPME", "yes"][..])
        .query_async(&mut admin)
        .await
        .unwrap();
    assert!(killed >= 1, "the queue's connections were cut");

    q.push(second).await.unwrap();
    let pulled = q.pull("w", 10, Duration::from_millis(50)).await.unwrap();
    assert_eq!(
        pulled.iter().map(|d| d.task_id).collect::<Vec<_>>(),
        vec![first, second]
    );
}
