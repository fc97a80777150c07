//! Runners end to end: registration, claims, results, sweeps and the keys that
//! bind them. This module holds the registration and world set-up the cases share
//! (and `api_key`, which other modules borrow); each child is one topic.

mod access;
mod claims;
mod failures;
mod lifecycle;
mod prepared;
mod repo_config;

use crate::helpers::{TestApp, json};
use crate::review_pipeline::{gitlab_with_one_mr, setup_project};
use reqwest::StatusCode;
use serde_json::{Value, json};

pub(crate) async fn api_key(app: &TestApp) -> String {
    let created = json(
        app.root()
            .await
            .post("/api/api-keys", json!({ "name": "runner" }))
            .await,
        StatusCode::CREATED,
    )
    .await;
    created["data"]["apiKey"]["key"]
        .as_str()
        .unwrap()
        .to_owned()
}

pub(crate) async fn register(app: &TestApp, key: &str, id: &str, max: u32, tags: &str) -> Value {
    let r = reqwest::Client::new()
        .post(app.url("/api/runners/register"))
        .header("x-api-key", key)
        .header("x-runner-id", id)
        .header("x-runner-version", "1.2.3")
        .header("x-runner-max-concurrency", max.to_string())
        .header("x-runner-tags", tags)
        .send()
        .await
        .unwrap();
    json(r, StatusCode::OK).await["data"].clone()
}

/// The server with one synced project on the one-MR GitLab fake (kept alive with it),
/// an AI endpoint for the tasks to carry, and `extra` variables.
async fn runner_world(extra: &[(&str, String)]) -> (TestApp, reviewd_testkit::FakeGitlab) {
    let gitlab = gitlab_with_one_mr().await;
    let mut vars = vec![("PROVIDERA_ENDPOINT", "http://ai.invalid/v1".to_owned())];
    vars.extend(extra.iter().map(|(k, v)| (*k, v.clone())));
    let app = TestApp::spawn_with(&vars).await;
    setup_project(&app, &gitlab).await;
    (app, gitlab)
}

/// Periodic jobs on, ticking once a second (the collect interval bounds the tick),
/// and runners offline after 1.5 s of silence. Rounds are prepared on the claim:
/// these tests are about the sweep, and a claim meeting the preparer's hold on the
/// one task could answer empty on a slow machine (`runners/prepared.rs` covers it).
fn fast_sweep() -> Vec<(&'static str, String)> {
    vec![
        ("PERIODIC_JOBS_ENABLED", "true".to_owned()),
        ("RUNNER_PREPARED_MAX_AGE_SECS", "0".to_owned()),
        ("METRICS_COLLECT_INTERVAL_SECS", "1".to_owned()),
        ("RUNNER_HEARTBEAT_TIMEOUT_MS", "1500".to_owned()),
    ]
}

fn result_body(runner: &str, comments: Value) -> Value {
    let n = comments.as_array().map_or(0, Vec::len);
    json!({
        "runnerId": runner, "status": "success", "totalComments": n, "rating": "B",
        "files": [{ "filePath": "src/app.rs", "status": "success", "comments": comments, "summary": "Adds the runner." }],
        "metrics": { "durationMs": 900, "containerPrepareMs": 10, "cloneMs": 200, "reviewMs": 600, "submitMs": 5, "tokensUsed": 321 },
        "logs": ["review done"]
    })
}
