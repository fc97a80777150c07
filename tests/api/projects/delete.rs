//! Deleting projects one at a time or in a batch.

use super::{GL_TOKEN, ids};
use crate::helpers::{TestApp, create_gitlab_config, expect_error, json};
use reqwest::StatusCode;
use reviewd_testkit::FakeGitlab;
use serde_json::json;

#[tokio::test]
async fn deleting_projects_one_or_many() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(GL_TOKEN).await;
    gitlab.with_projects(4, "svc").await;
    let root = app.root().await;
    let gl = create_gitlab_config(&app, &gitlab).await;
    root.post(
        "/api/projects/sync/platform",
        json!({ "platformConfigId": gl }),
    )
    .await;
    let all = ids(&json(root.get("/api/projects").await, StatusCode::OK).await);

    let dev = app.user_with_role("developer").await;
    expect_error(
        dev.delete(&format!("/api/projects/{}", all[0])).await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    json(
        root.delete(&format!("/api/projects/{}", all[0])).await,
        StatusCode::OK,
    )
    .await;
    expect_error(
        root.delete(&format!("/api/projects/{}", all[0])).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;

    let ghost = uuid::Uuid::new_v4().to_string();
    let batch = json(
        root.post(
            "/api/projects/delete/batch",
            json!({ "projectIds": [all[1], all[2], ghost] }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(batch["data"]["deleted"], 2);
    assert_eq!(batch["data"]["notFound"], json!([ghost]));
    assert_eq!(
        ids(&json(root.get("/api/projects").await, StatusCode::OK).await),
        vec![all[3].clone()]
    );
    expect_error(
        root.post("/api/projects/delete/batch", json!({ "projectIds": [] }))
            .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
}
