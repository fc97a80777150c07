//! What is retried, after how long, and what is sent once.

use super::*;

#[tokio::test(start_paused = true)]
async fn a_get_answered_503_is_retried_after_the_backoff_and_succeeds() {
    let server = Script::new(&[UNAVAILABLE, UNAVAILABLE, OK]);
    let started = Instant::now();
    let response = server
        .run(&RetryPolicy::default(), Method::GET, false)
        .await
        .unwrap();
    assert_eq!(response.status, 200);
    assert_eq!(&response.body[..], b"answer 3");
    assert_eq!(server.calls(), 3);
    // 0.5 s, then doubled: 1 s.
    assert_eq!(started.elapsed(), Duration::from_millis(1500));
}

#[tokio::test(start_paused = true)]
async fn a_post_answered_503_or_timing_out_is_sent_once() {
    for step in [UNAVAILABLE, Step::TimedOut] {
        let server = Script::new(&[step, OK]);
        let err = server
            .run(&RetryPolicy::default(), Method::POST, false)
            .await
            .unwrap_err();
        assert!(
            matches!(
                err,
                HttpError::Status { status: 503, .. } | HttpError::Timeout(_)
            ),
            "{err:?}"
        );
        assert_eq!(server.calls(), 1, "a comment must never be posted twice");
    }
}

#[tokio::test(start_paused = true)]
async fn a_repeatable_post_is_retried_like_a_get() {
    let server = Script::new(&[UNAVAILABLE, Step::TimedOut, OK]);
    let response = server
        .run(&RetryPolicy::default(), Method::POST, true)
        .await
        .unwrap();
    assert_eq!(response.status, 200);
    assert_eq!(server.calls(), 3);
}

#[tokio::test(start_paused = true)]
async fn a_post_is_retried_on_429_after_retry_after_and_on_a_refused_connection() {
    let server = Script::new(&[
        Step::Answer(429, &[("retry-after", "7")]),
        Step::Refused,
        Step::Answer(201, &[]),
    ]);
    let started = Instant::now();
    let response = server
        .run(&RetryPolicy::default(), Method::POST, false)
        .await
        .unwrap();
    assert_eq!(response.status, 201);
    assert_eq!(server.calls(), 3);
    // Retry-After, then the second backoff step (1 s).
    assert_eq!(started.elapsed(), Duration::from_secs(8));
}
