//! Runners' results and heartbeats, and push subscriptions.

use super::*;

#[tokio::test]
async fn a_runner_result_with_a_rating_that_is_not_a_grade_is_refused() {
    let app = TestApp::spawn().await;
    let key = api_key(&app).await;
    let result = |rating: &str| {
        json!({ "runnerId": "r1", "status": "success", "files": [], "totalComments": 0, "rating": rating,
                "metrics": { "durationMs": 1, "containerPrepareMs": 0, "cloneMs": 0, "reviewMs": 1, "submitMs": 0 } })
    };
    let r = reqwest::Client::new()
        .post(app.url(&format!(
            "/api/runners/tasks/{}/result",
            uuid::Uuid::new_v4()
        )))
        .header("x-api-key", &key)
        .json(&result("Z"))
        .send()
        .await
        .unwrap();
    let body = expect_error(r, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(fields(&body), ["rating"]);
    // A grade passes the check (and the unknown task is then a 404).
    let r = reqwest::Client::new()
        .post(app.url(&format!(
            "/api/runners/tasks/{}/result",
            uuid::Uuid::new_v4()
        )))
        .header("x-api-key", &key)
        .json(&result("B"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_push_subscription_is_answered_200() {
    let app = TestApp::spawn_with(&[("NOTIFY_PUSH_ALLOW_PRIVATE", "true".to_owned())]).await;
    let root = app.root().await;
    let r = root
        .post(
            "/api/notifications/push/subscribe",
            json!({ "endpoint": "https://push.example.com/send/abc", "keys": push_keys() }),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_push_expiry_past_year_9999_is_refused_not_stored() {
    let app = TestApp::spawn_with(&[("NOTIFY_PUSH_ALLOW_PRIVATE", "true".to_owned())]).await;
    let root = app.root().await;
    expect_error(
        root.post(
            "/api/notifications/push/subscribe",
            json!({ "endpoint": "https://push.example.com/send/abc", "expirationTime": 3_162_240_000_000_000_i64, "keys": push_keys() }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
}

#[tokio::test]
async fn a_heartbeat_out_of_range_names_the_field_as_the_body_does() {
    let app = TestApp::spawn().await;
    let key = api_key(&app).await;
    let body = expect_error(
        app.with_api_key(&key)
            .post(
                "/api/runners/any-runner/heartbeat",
                json!({ "status": "online", "currentJobs": -1 }),
            )
            .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert_eq!(fields(&body), ["currentJobs"]);
}
