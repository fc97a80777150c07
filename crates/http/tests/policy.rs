//! `run_with_policy` driven by a closure, as a library's driver runs it: no network,
//! and tokio's paused clock, so every wait is measured rather than slept.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reqwest::header::{HeaderMap, HeaderValue};
use reqwest::{Method, Url};
use reviewd_http::{HttpError, HttpResponse, RetryPolicy, run_with_policy};
use std::cell::Cell;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;

/// What the "server" does on one attempt.
#[derive(Clone, Copy)]
enum Step {
    Answer(u16, &'static [(&'static str, &'static str)]),
    TimedOut,
    Refused,
}

/// A server that plays `steps` in order (the last one again once they run out).
struct Script {
    steps: Vec<Step>,
    calls: Cell<usize>,
}

impl Script {
    fn new(steps: &[Step]) -> Self {
        Self {
            steps: steps.to_vec(),
            calls: Cell::new(0),
        }
    }

    fn calls(&self) -> usize {
        self.calls.get()
    }

    /// One attempt, as a driver's closure makes it.
    fn attempt(&self) -> impl Future<Output = Result<HttpResponse, HttpError>> + use<> {
        let n = self.calls.get();
        self.calls.set(n + 1);
        let step = self.steps[n.min(self.steps.len() - 1)];
        async move {
            match step {
                Step::Answer(status, headers) => {
                    let mut map = HeaderMap::new();
                    for (name, value) in headers {
                        map.insert(*name, HeaderValue::from_static(value));
                    }
                    Ok(HttpResponse {
                        status,
                        headers: map,
                        body: format!("answer {}", n + 1).into(),
                    })
                }
                Step::TimedOut => Err(HttpError::Timeout(Duration::from_secs(30))),
                Step::Refused => Err(HttpError::Connect("connection refused".into())),
            }
        }
    }

    async fn run(
        &self,
        policy: &RetryPolicy,
        method: Method,
        repeatable: bool,
    ) -> Result<HttpResponse, HttpError> {
        let url =
            Url::parse("https://gitlab.example/api/v4/projects?private_token=secret").unwrap();
        run_with_policy(policy, &method, &url, repeatable, || self.attempt()).await
    }
}

const OK: Step = Step::Answer(200, &[]);
const UNAVAILABLE: Step = Step::Answer(503, &[]);

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

/// Log lines written while it is the default subscriber.
#[derive(Clone, Default)]
struct Logs(Arc<Mutex<Vec<u8>>>);

impl Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(start_paused = true)]
async fn retries_and_the_final_failure_are_logged_without_the_query() {
    let logs = Logs::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = Script::new(&[UNAVAILABLE]);
    server
        .run(&RetryPolicy::default(), Method::GET, false)
        .await
        .unwrap_err();

    let text = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert_eq!(text.matches("http.retrying").count(), 2, "{text}");
    assert_eq!(text.matches("http.call_failed").count(), 1, "{text}");
    assert!(
        text.contains("https://gitlab.example/api/v4/projects"),
        "{text}"
    );
    assert!(
        !text.contains("secret"),
        "the query is never logged: {text}"
    );
}
