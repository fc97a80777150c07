//! `run_with_policy` driven by a closure, as a library's driver runs it: no network,
//! and tokio's paused clock, so every wait is measured rather than slept.
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

mod limits;
mod retries;

use reqwest::header::{HeaderMap, HeaderValue};
use reqwest::{Method, Url};
use reviewd_http::{HttpError, HttpResponse, RetryPolicy, run_with_policy};
use std::cell::Cell;
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
