//! Runner calls are bound to the registering key and need an admin key.

use super::{api_key, register, runner_world};
use crate::helpers::{expect_error, json};
use crate::review_pipeline::{fixture, send_webhook};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn runner_calls_are_bound_to_the_registering_key_and_need_an_admin_key() {
    let (app, _gitlab) = runner_world(&[]).await;
    let task_id = send_webhook(&app, &fixture()).await;
    let (owner, other) = (api_key(&app).await, api_key(&app).await);
    register(&app, &owner, "r1", 2, "").await;

    // Another key (even the same admin's) cannot drive r1 or take its work.
    let intruder = app.with_api_key(&other);
    expect_error(
        intruder
            .post(
                "/api/runners/r1/heartbeat",
                json!({ "status": "online", "currentJobs": 0 }),
            )
            .await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    expect_error(
        intruder.get("/api/runners/tasks/pending?runnerId=r1").await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    let taken = reqwest::Client::new()
        .post(app.url("/api/runners/register"))
        .header("x-api-key", &other)
        .header("x-runner-id", "r1")
        .send()
        .await
        .unwrap();
    expect_error(taken, StatusCode::CONFLICT, "CONFLICT").await;
    assert_eq!(
        app.sql(&format!(
            "SELECT status FROM review_tasks WHERE id = '{task_id}'"
        )),
        "queued",
        "nothing was claimed by the refused calls"
    );

    // The owner claims; the other key cannot report on the claimed task.
    let claimed = json(
        app.with_api_key(&owner)
            .get("/api/runners/tasks/pending?runnerId=r1")
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(claimed["data"][0]["id"], task_id.as_str());
    expect_error(
        intruder
            .post(
                &format!("/api/runners/tasks/{task_id}/status"),
                json!({ "status": "cloning" }),
            )
            .await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;

    // A viewer's key may read runners but not register one (tasks carry tokens).
    let viewer = app.user_with_role("viewer").await;
    let created = json(
        viewer
            .post("/api/api-keys", json!({ "name": "mine" }))
            .await,
        StatusCode::CREATED,
    )
    .await;
    let viewer_key = created["data"]["apiKey"]["key"].as_str().unwrap();
    let refused = reqwest::Client::new()
        .post(app.url("/api/runners/register"))
        .header("x-api-key", viewer_key)
        .header("x-runner-id", "v1")
        .send()
        .await
        .unwrap();
    expect_error(refused, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    assert_eq!(
        app.with_api_key(viewer_key)
            .get("/api/runners")
            .await
            .status(),
        StatusCode::OK
    );
}
