//! The `LoginThrottle` contract: a key's failures are counted in its window and it
//! is throttled once they reach the caller's limit, with the time left to wait; keys
//! count apart; a reset or the end of the window forgets the failures.

use super::seed;
use reviewd_domain::ports::{LoginThrottle, ThrottleError};
use std::time::Duration;

/// Makes a throttle keeping failures for a window of the given length.
pub type MakeThrottle<'a> = &'a dyn Fn(Duration) -> Box<dyn LoginThrottle>;

pub async fn run(make: MakeThrottle<'_>) {
    blocks_at_the_limit_until_reset(make).await;
    keys_count_apart(make).await;
    failures_outside_the_window_do_not_count(make).await;
}

/// A key no other case (or other run on a shared store) uses.
fn key(kind: &str) -> String {
    format!("{kind}:{}", seed::unique())
}

async fn blocks_at_the_limit_until_reset(make: MakeThrottle<'_>) {
    let window = Duration::from_secs(600);
    let throttle = make(window);
    let key = key("email");
    for counted in 0..2 {
        assert_eq!(throttle.check(&key, 2).await.unwrap(), counted);
        throttle.record_failure(&key).await.unwrap();
    }
    assert_eq!(
        throttle.check(&key, 3).await.unwrap(),
        2,
        "the limit is the caller's"
    );
    match throttle.check(&key, 2).await {
        Err(ThrottleError::Throttled { retry_after }) => assert!(
            retry_after > window - Duration::from_secs(10) && retry_after <= window,
            "the rest of the window: {retry_after:?}"
        ),
        other => panic!("expected Throttled, got {other:?}"),
    }
    throttle.reset(&key).await.unwrap();
    assert_eq!(throttle.check(&key, 2).await.unwrap(), 0);
}

async fn keys_count_apart(make: MakeThrottle<'_>) {
    let throttle = make(Duration::from_secs(600));
    let (email, ip) = (key("email"), key("ip"));
    throttle.record_failure(&email).await.unwrap();
    assert!(throttle.check(&email, 1).await.is_err());
    assert_eq!(throttle.check(&ip, 1).await.unwrap(), 0);
    throttle.reset(&ip).await.unwrap();
    assert!(
        throttle.check(&email, 1).await.is_err(),
        "another key's reset"
    );
}

/// A zero window has ended as soon as it starts: the failure in it is forgotten.
async fn failures_outside_the_window_do_not_count(make: MakeThrottle<'_>) {
    let throttle = make(Duration::ZERO);
    let key = key("ip");
    throttle.record_failure(&key).await.unwrap();
    assert_eq!(throttle.check(&key, 1).await.unwrap(), 0);
}
