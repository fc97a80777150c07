//! The login throttle on the real Redis, isolated by a random key prefix: what the
//! port's contract suite (`tests/contract.rs`) cannot show without waiting, a window
//! that Redis ends by itself.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reviewd_domain::ports::LoginThrottle;
use reviewd_queue_redis::{RedisLoginThrottle, connect};
use reviewd_testkit::test_redis_url;
use std::time::Duration;

async fn throttle(window: Duration) -> RedisLoginThrottle {
    let pool = connect(&test_redis_url(), Duration::from_secs(5))
        .await
        .unwrap();
    let prefix = format!("reviewd-test:{}:", uuid_like());
    RedisLoginThrottle::new(pool, &prefix, window)
}

fn uuid_like() -> String {
    format!(
        "{:x}{:x}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}

#[tokio::test]
async fn the_window_expires() {
    let t = throttle(Duration::from_secs(1)).await;
    t.record_failure("ip:1").await.unwrap();
    assert!(t.check("ip:1", 1).await.is_err());
    tokio::time::sleep(Duration::from_millis(2100)).await;
    assert_eq!(t.check("ip:1", 1).await.unwrap(), 0);
}

#[tokio::test]
async fn an_unreachable_server_is_reported_not_hidden() {
    let err = connect("redis://127.0.0.1:1", Duration::from_secs(2))
        .await
        .unwrap_err();
    assert!(!err.is_empty());
}
