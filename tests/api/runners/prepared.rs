//! Rounds prepared ahead: with the periodic jobs on, the server's preparer begins a
//! queued task's round once a runner is online, so the claim hands it out without
//! asking GitLab anything, and the runner's result concludes it as before.

use super::{api_key, register};
use crate::helpers::{TestApp, json};
use crate::review_pipeline::{HEAD_1, fixture, gitlab_with_one_mr, send_webhook, setup_project};
use reqwest::StatusCode;
use std::time::{Duration, Instant};

#[tokio::test]
async fn a_prepared_round_is_claimed_without_a_call_to_gitlab() {
    let gitlab = gitlab_with_one_mr().await;
    let app = TestApp::spawn_with(&[
        ("PROVIDERA_ENDPOINT", "http://ai.invalid/v1".to_owned()),
        ("PERIODIC_JOBS_ENABLED", "true".to_owned()),
        ("RUNNER_PREPARED_MAX_AGE_SECS", "300".to_owned()),
    ])
    .await;
    setup_project(&app, &gitlab).await;
    let task_id = send_webhook(&app, &fixture()).await;
    let key = api_key(&app).await;
    register(&app, &key, "r1", 1, "").await;

    let prepared = "SELECT count(*) FROM review_tasks WHERE status = 'queued' \
                    AND assignment ? 'prepared' AND assignment ? 'roundId'";
    let waited = Instant::now();
    while app.sql(prepared) != "1" {
        assert!(
            waited.elapsed() < Duration::from_secs(20),
            "the preparer never prepared the task"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let calls = gitlab.server.received_requests().await.unwrap().len();
    let claimed = json(
        app.with_api_key(&key)
            .get("/api/runners/tasks/pending?runnerId=r1&limit=1")
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        gitlab.server.received_requests().await.unwrap().len(),
        calls,
        "the claim called GitLab"
    );
    let task = &claimed["data"][0];
    assert_eq!(task["id"], task_id.as_str(), "{claimed}");
    assert_eq!(task["commitSha"], HEAD_1);
    assert_eq!(task["attempt"], 1);
    assert_eq!(
        app.sql(&format!(
            "SELECT count(*) FROM review_tasks WHERE id = '{task_id}' AND assignment ? 'prepared'"
        )),
        "0",
        "a claimed task carries no preparation"
    );
}
