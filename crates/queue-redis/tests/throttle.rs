//! The login throttle's counters on the real Redis, isolated by a random key prefix.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use reviewd_domain::ports::{LoginThrottle, ThrottleError};
use reviewd_queue_redis::{RedisLoginThrottle, ThrottleLimits, connect};
use reviewd_testkit::test_redis_url;
use std::time::Duration;

async fn throttle(max_failures: u32, window: Duration) -> RedisLoginThrottle {
    let pool = connect(&test_redis_url(), Duration::from_secs(5))
        .await
        .unwrap();
    let prefix = format!("reviewd-test:{}:", uuid_like());
    RedisLoginThrottle::new(
        pool,
        &prefix,
        ThrottleLimits {
            max_failures,
            window,
        },
    )
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
async fn blocks_after_the_limit_with_a_retry_time_and_resets() {
    let t = throttle(2, Duration::from_secs(600)).await;
    t.check("email:a").await.unwrap();
    t.record_failure("email:a").await.unwrap();
    t.check("email:a").await.unwrap();
    t.record_failure("email:a").await.unwrap();
    match t.check("email:a").await {
        Err(ThrottleError::Throttled { retry_after }) => {
            assert!(
                retry_after > Duration::from_secs(590) && retry_after <= Duration::from_secs(600)
            );
        }
        other => panic!("expected Throttled, got {other:?}"),
    }
    t.check("email:b").await.unwrap();
    t.reset("email:a").await.unwrap();
    t.check("email:a").await.unwrap();
}

#[tokio::test]
async fn the_window_expires() {
    let t = throttle(1, Duration::from_secs(1)).await;
    t.record_failure("ip:1").await.unwrap();
    assert!(t.check("ip:1").await.is_err());
    tokio::time::sleep(Duration::from_millis(2100)).await;
    t.check("ip:1").await.unwrap();
}

#[tokio::test]
async fn an_unreachable_server_is_reported_not_hidden() {
    let err = connect("redis://127.0.0.1:1", Duration::from_secs(2))
        .await
        .unwrap_err();
    assert!(!err.is_empty());
}
