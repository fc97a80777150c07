mod api_stats;
mod backups;
mod collect;
mod jobs;
mod metrics;
mod restore;

use crate::helpers::{TestApp, expect_error, json};
use reqwest::StatusCode;
use serde_json::Value;
use std::time::{Duration, Instant};

async fn wait_until(what: &str, timeout: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
