//! Retries and the final failure logged without the query. A test binary of its own: the
//! log lines are read from a subscriber set as this thread's default, and `tracing` caches
//! whether a callsite logs at all process-wide, so another test hitting the same callsites
//! at the same moment on a thread without a subscriber could leave them cached as silent
//! (it did, about one run in fifteen, when this test shared the `policy` binary).
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reqwest::{Method, Url};
use reviewd_http::{HttpResponse, RetryPolicy, run_with_policy};
use std::io::Write;
use std::sync::{Arc, Mutex};

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

    // Every attempt is answered 503.
    let url = Url::parse("https://gitlab.example/api/v4/projects?private_token=secret").unwrap();
    run_with_policy(
        &RetryPolicy::default(),
        &Method::GET,
        &url,
        false,
        || async {
            Ok(HttpResponse {
                status: 503,
                headers: reqwest::header::HeaderMap::new(),
                body: "unavailable".into(),
            })
        },
    )
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
