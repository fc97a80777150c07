//! Project webhooks: created, verified, removed and cleared.

use super::GL_TOKEN;
use crate::helpers::{TestApp, create_gitlab_config, expect_error, json};
use reqwest::StatusCode;
use reviewd_testkit::FakeGitlab;
use serde_json::json;

#[tokio::test]
async fn webhooks_are_created_verified_removed_and_cleared() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(GL_TOKEN).await;
    gitlab.with_projects(2, "svc").await;
    gitlab.with_hooks(1, json!([])).await;
    gitlab
        .with_hooks(
            2,
            json!([{ "id": 77, "url": "https://reviewd.example.com/api/webhook/hostA" }]),
        )
        .await;
    let root = app.root().await;
    let gl = create_gitlab_config(&app, &gitlab).await;
    root.post(
        "/api/projects/sync/platform",
        json!({ "platformConfigId": gl }),
    )
    .await;
    let all = json(root.get("/api/projects").await, StatusCode::OK).await;
    let by_path = |p: &str| {
        all["data"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["fullPath"] == p)
            .unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (one, two) = (by_path("group/svc-1"), by_path("group/svc-2"));
    let unknown = uuid::Uuid::new_v4().to_string();

    let batch = json(
        root.post(
            "/api/projects/webhooks/batch",
            json!({ "projectIds": [one, two, unknown] }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        (
            batch["data"]["success"].clone(),
            batch["data"]["failed"].clone()
        ),
        (json!(2), json!(1))
    );
    let created = gitlab
        .requests()
        .await
        .into_iter()
        .filter(|r| r.method.as_str() == "POST" && r.url.path().ends_with("/hooks"))
        .collect::<Vec<_>>();
    assert_eq!(
        created.len(),
        1,
        "project 2 already had our hook: reused, not duplicated"
    );
    let hook = FakeGitlab::params(&created[0]);
    assert_eq!(hook["url"], "https://reviewd.example.com/api/webhook/hostA");
    assert_eq!(
        hook["token"], "hook-secret-a",
        "the config's webhook secret authenticates deliveries"
    );
    assert_eq!(
        (
            hook["merge_requests_events"].clone(),
            hook["note_events"].clone()
        ),
        (json!(true), json!(true))
    );
    let results = batch["data"]["results"].as_array().unwrap();
    assert_eq!(
        results
            .iter()
            .find(|r| r["projectId"] == two.as_str())
            .unwrap()["webhookId"],
        "77"
    );
    assert!(
        results
            .iter()
            .find(|r| r["projectId"] == unknown.as_str())
            .unwrap()["error"]
            .as_str()
            .unwrap()
            .contains("not found")
    );

    let active = json(
        root.get("/api/projects/paginated?webhookStatus=active")
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(active["meta"]["pagination"]["total"], 2);

    let verified = json(
        root.post("/api/projects/webhooks/verify", json!({})).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(verified["data"]["checked"], 2);
    assert_eq!(
        verified["data"]["inactive"], 1,
        "project 1's hook 9001 is not listed by the fake: gone"
    );
    assert_eq!(verified["data"]["active"], 1);

    let removed = json(
        root.post("/api/projects/webhooks/remove", json!({ "projectId": two }))
            .await,
        StatusCode::OK,
    )
    .await;
    assert!(removed["data"]["project"]["webhookStatus"].is_null());
    assert!(gitlab.requests().await.iter().any(|r| r.method.as_str() == "DELETE" && r.url.path() == "/api/v4/projects/2/hooks/77"));
    expect_error(
        root.post("/api/projects/webhooks/remove", json!({ "projectId": two }))
            .await,
        StatusCode::CONFLICT,
        "NO_WEBHOOK",
    )
    .await;

    let cleared = json(
        root.post(&format!("/api/projects/{one}/webhook/clear"), json!({}))
            .await,
        StatusCode::OK,
    )
    .await;
    assert!(cleared["data"]["project"]["webhookId"].is_null());
    expect_error(
        root.post("/api/projects/webhooks/batch", json!({ "projectIds": [] }))
            .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    let dev = app.user_with_role("developer").await;
    expect_error(
        dev.post("/api/projects/webhooks/verify", json!({})).await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
}
