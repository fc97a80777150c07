//! Runners that go silent or die, and tasks given back after a failed attempt.

use super::{api_key, fast_sweep, register, result_body, runner_world};
use crate::helpers::{expect_error, json};
use crate::review_pipeline::{fixture, send_webhook};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

#[tokio::test]
async fn a_silent_runner_goes_offline_and_its_task_is_finished_by_another() {
    let (app, _gitlab) = runner_world(&fast_sweep()).await;
    let task_id = send_webhook(&app, &fixture()).await;
    let key = api_key(&app).await;
    let runner = app.with_api_key(&key);
    register(&app, &key, "doomed", 1, "").await;
    register(&app, &key, "survivor", 1, "").await;
    let first = json(
        runner
            .get("/api/runners/tasks/pending?runnerId=doomed")
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(first["data"][0]["id"], task_id.as_str());
    // `doomed` dies here: no heartbeat, no result. `survivor` keeps beating and polling.
    let deadline = Instant::now() + Duration::from_secs(30);
    let claimed = loop {
        json(
            runner
                .post(
                    "/api/runners/survivor/heartbeat",
                    json!({ "status": "online", "currentJobs": 0 }),
                )
                .await,
            StatusCode::OK,
        )
        .await;
        let got = json(
            runner
                .get("/api/runners/tasks/pending?runnerId=survivor")
                .await,
            StatusCode::OK,
        )
        .await;
        if let Some(task) = got["data"].as_array().and_then(|a| a.first()) {
            break task.clone();
        }
        assert!(Instant::now() < deadline, "the task never came back");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(claimed["id"], task_id.as_str());
    assert_eq!(claimed["attempt"], 2, "the second attempt");
    let gone = json(runner.get("/api/runners/doomed").await, StatusCode::OK).await;
    assert_eq!(gone["data"]["status"], "offline");
    // A late result of the dead runner changes nothing.
    expect_error(
        runner
            .post(
                &format!("/api/runners/tasks/{task_id}/result"),
                result_body("doomed", json!([])),
            )
            .await,
        StatusCode::CONFLICT,
        "CONFLICT",
    )
    .await;
    let done = json(
        runner
            .post(
                &format!("/api/runners/tasks/{task_id}/result"),
                result_body("survivor", json!([])),
            )
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(done["data"]["taskStatus"], "completed");
}

#[tokio::test]
async fn a_task_whose_runner_dies_on_its_last_attempt_fails_its_review_and_says_so() {
    let hooks = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(wiremock::ResponseTemplate::new(200))
        .mount(&hooks)
        .await;
    let (app, _gitlab) = runner_world(&fast_sweep()).await;
    json(
        app.root()
            .await
            .patch(
                "/api/notifications/config",
                json!({ "webhookEnabled": true, "webhookUrls": [format!("{}/events", hooks.uri())] }),
            )
            .await,
        StatusCode::OK,
    )
    .await;
    let task_id = send_webhook(&app, &fixture()).await;
    app.sql(&format!(
        "UPDATE review_tasks SET max_attempts = 1 WHERE id = '{task_id}'"
    ));
    let key = api_key(&app).await;
    register(&app, &key, "last-try", 1, "").await;
    let claimed = json(
        app.with_api_key(&key)
            .get("/api/runners/tasks/pending?runnerId=last-try")
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(claimed["data"][0]["id"], task_id.as_str());
    let review_id = claimed["data"][0]["reviewId"].as_str().unwrap().to_owned();
    // The runner dies: the sweep fails the task (no attempt left) and closes the review.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let state = app.sql(&format!(
            "SELECT t.status || ' ' || r.status FROM review_tasks t, reviews r \
             WHERE t.id = '{task_id}' AND r.id = '{review_id}'"
        ));
        if state == "failed failed" {
            break;
        }
        assert!(Instant::now() < deadline, "not closed: {state}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let error = app.sql(&format!(
        "SELECT error_message FROM reviews WHERE id = '{review_id}'"
    ));
    assert!(error.contains("went silent"), "{error}");
    let deadline = Instant::now() + Duration::from_secs(10);
    let events: Vec<Value> = loop {
        let got: Vec<Value> = hooks
            .received_requests()
            .await
            .unwrap()
            .iter()
            .map(|r| serde_json::from_slice(&r.body).unwrap())
            .collect();
        if !got.is_empty() || Instant::now() > deadline {
            break got;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["event"], "review_failed");
    assert_eq!(events[0]["review"]["reviewId"], review_id.as_str());
}

#[tokio::test]
async fn a_task_given_back_after_a_failed_attempt_waits_the_retry_delay() {
    let (app, _gitlab) = runner_world(&[("QUEUE_RETRY_DELAY_SECS", "2".to_owned())]).await;
    let task_id = send_webhook(&app, &fixture()).await;
    let key = api_key(&app).await;
    let runner = app.with_api_key(&key);
    register(&app, &key, "r1", 1, "").await;
    let claim = || async {
        json(
            runner.get("/api/runners/tasks/pending?runnerId=r1").await,
            StatusCode::OK,
        )
        .await["data"]
            .as_array()
            .unwrap()
            .clone()
    };
    assert_eq!(claim().await.len(), 1, "a fresh task is claimed at once");
    let mut failed = result_body("r1", json!([]));
    failed["status"] = json!("failed");
    failed["error"] = json!("the AI provider was unavailable");
    json(
        runner
            .post(&format!("/api/runners/tasks/{task_id}/result"), failed)
            .await,
        StatusCode::OK,
    )
    .await;
    let given_back = Instant::now();
    assert!(claim().await.is_empty(), "not at once after a failure");
    let again = loop {
        let got = claim().await;
        if !got.is_empty() {
            break got;
        }
        assert!(
            given_back.elapsed() < Duration::from_secs(10),
            "never claimable again"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(
        given_back.elapsed() >= Duration::from_millis(1500),
        "{:?}",
        given_back.elapsed()
    );
    assert_eq!(again[0]["id"], task_id.as_str());
    assert_eq!(again[0]["attempt"], 2);
}
