//! Long rate limits reported at once, bounded attempts, client errors not retried.

use super::*;

#[tokio::test(start_paused = true)]
async fn a_rate_limit_longer_than_30_s_is_reported_at_once() {
    let server = Script::new(&[
        Step::Answer(
            403,
            &[("x-ratelimit-remaining", "0"), ("retry-after", "31")],
        ),
        OK,
    ]);
    let started = Instant::now();
    let err = server
        .run(&RetryPolicy::default(), Method::GET, false)
        .await
        .unwrap_err();
    assert!(err.is_rate_limited(), "{err:?}");
    assert!(
        matches!(err, HttpError::Status { status: 403, retry_after: Some(d), .. } if d == Duration::from_secs(31)),
        "{err:?}"
    );
    assert_eq!(server.calls(), 1);
    assert_eq!(started.elapsed(), Duration::ZERO);

    // A hint of exactly 30 s is still waited for.
    let server = Script::new(&[Step::Answer(429, &[("retry-after", "30")]), OK]);
    let started = Instant::now();
    server
        .run(&RetryPolicy::default(), Method::GET, false)
        .await
        .unwrap();
    assert_eq!(started.elapsed(), Duration::from_secs(30));
}

#[tokio::test(start_paused = true)]
async fn attempts_are_bounded_and_the_last_failure_is_returned() {
    let policy = RetryPolicy {
        max_attempts: 4,
        ..RetryPolicy::default()
    };
    let server = Script::new(&[
        UNAVAILABLE,
        UNAVAILABLE,
        UNAVAILABLE,
        Step::Answer(502, &[]),
    ]);
    let started = Instant::now();
    let err = server.run(&policy, Method::GET, false).await.unwrap_err();
    assert!(
        matches!(&err, HttpError::Status { status: 502, message, .. } if message == "answer 4"),
        "{err:?}"
    );
    assert_eq!(server.calls(), 4);
    assert_eq!(started.elapsed(), Duration::from_millis(500 + 1000 + 2000));

    let server = Script::new(&[Step::Refused]);
    let err = server.run(&policy, Method::POST, false).await.unwrap_err();
    assert!(matches!(err, HttpError::Connect(_)), "{err:?}");
    assert_eq!(server.calls(), 4);

    // One attempt in all: nothing is retried.
    let once = RetryPolicy {
        max_attempts: 1,
        ..RetryPolicy::default()
    };
    let server = Script::new(&[Step::Answer(429, &[("retry-after", "1")]), OK]);
    assert!(
        server
            .run(&once, Method::GET, false)
            .await
            .unwrap_err()
            .is_rate_limited()
    );
    assert_eq!(server.calls(), 1);
}

#[tokio::test(start_paused = true)]
async fn other_client_errors_are_not_retried() {
    for status in [400, 401, 403, 404, 422] {
        let server = Script::new(&[Step::Answer(status, &[]), OK]);
        let err = server
            .run(&RetryPolicy::default(), Method::GET, false)
            .await
            .unwrap_err();
        assert_eq!(err.status(), Some(status));
        assert!(!err.is_rate_limited());
        assert_eq!(server.calls(), 1, "HTTP {status}");
    }
}
