//! Who may write platform configs.

use super::TOKEN;
use crate::helpers::{TestApp, expect_error, json};
use reqwest::StatusCode;
use reviewd_testkit::FakeGitlab;
use serde_json::json;

#[tokio::test]
async fn permissions_on_config_writes() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(TOKEN).await;
    let viewer = app.user_with_role("viewer").await;
    let body = json!({ "name": "G", "platformType": "hostA", "baseUrl": gitlab.base_url(), "accessToken": TOKEN });
    expect_error(
        viewer.post("/api/platform-configs", body.clone()).await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    expect_error(
        app.client()
            .post("/api/platform-configs", body.clone())
            .await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    )
    .await;
    let maintainer = app.user_with_role("maintainer").await;
    let created = json(
        maintainer.post("/api/platform-configs", body).await,
        StatusCode::OK,
    )
    .await;
    let id = created["data"]["config"]["id"].as_str().unwrap();
    expect_error(
        viewer.delete(&format!("/api/platform-configs/{id}")).await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    assert!(
        gitlab
            .requests()
            .await
            .iter()
            .all(|r| r.url.path() != "/api/v4/projects"),
        "a refused call reaches no platform"
    );
}
