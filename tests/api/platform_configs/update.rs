//! Changing configs: one default per type, patches that keep masked secrets, deletes
//! that need force.

use super::TOKEN;
use crate::helpers::{TestApp, create_gitlab_config, expect_error, json};
use reqwest::StatusCode;
use reviewd_testkit::FakeGitlab;
use serde_json::{Value, json};

#[tokio::test]
async fn exactly_one_default_per_type() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(TOKEN).await;
    let root = app.root().await;
    let first = create_gitlab_config(&app, &gitlab).await;
    let second = json(
        root.post("/api/platform-configs", json!({ "name": "Second", "platformType": "hostA", "baseUrl": gitlab.base_url(), "accessToken": TOKEN, "isDefault": true })).await,
        StatusCode::OK,
    )
    .await["data"]["config"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let defaults = |items: &Value| {
        items
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["isDefault"] == true)
            .map(|c| c["id"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let listed = json(root.get("/api/platform-configs").await, StatusCode::OK).await;
    assert_eq!(defaults(&listed["data"]["items"]), vec![second.clone()]);

    expect_error(
        root.patch(
            &format!("/api/platform-configs/{second}"),
            json!({ "isDefault": false }),
        )
        .await,
        StatusCode::CONFLICT,
        "CONFLICT",
    )
    .await;
    let switched = json(
        root.post(&format!("/api/platform-configs/{first}/default"), json!({}))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(switched["data"]["config"]["isDefault"], true);
    let listed = json(root.get("/api/platform-configs").await, StatusCode::OK).await;
    assert_eq!(defaults(&listed["data"]["items"]), vec![first.clone()]);
    let default = json(
        root.get("/api/platform-configs/default").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(default["data"]["config"]["id"], first.as_str());

    // Deleting the default hands the role to the remaining config.
    json(
        root.delete(&format!("/api/platform-configs/{first}")).await,
        StatusCode::OK,
    )
    .await;
    let remaining = json(
        root.get(&format!("/api/platform-configs/{second}")).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(remaining["data"]["config"]["isDefault"], true);
}

#[tokio::test]
async fn patch_keeps_masked_secrets_and_rechecks_new_tokens() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(TOKEN).await;
    let root = app.root().await;
    let id = create_gitlab_config(&app, &gitlab).await;
    let patched = json(
        root.patch(
            &format!("/api/platform-configs/{id}"),
            json!({ "name": "Renamed", "accessToken": "***", "webhookSecret": "***" }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(patched["data"]["config"]["name"], "Renamed");
    let raw = json(
        root.get(&format!("/api/platform-configs/{id}/access-token"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(raw["data"]["accessToken"], TOKEN, "*** means unchanged");

    expect_error(
        root.patch(
            &format!("/api/platform-configs/{id}"),
            json!({ "accessToken": "revoked-token" }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    let raw = json(
        root.get(&format!("/api/platform-configs/{id}/access-token"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        raw["data"]["accessToken"], TOKEN,
        "a refused patch changes nothing"
    );
    expect_error(
        root.patch(
            &format!("/api/platform-configs/{id}"),
            json!({ "platformType": "hostB" }),
        )
        .await,
        StatusCode::CONFLICT,
        "CONFLICT",
    )
    .await;
    expect_error(
        root.patch(
            &format!("/api/platform-configs/{id}"),
            json!({ "colour": "red" }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "INVALID_BODY",
    )
    .await;
    expect_error(
        root.patch(
            &format!("/api/platform-configs/{}", uuid::Uuid::new_v4()),
            json!({ "name": "x" }),
        )
        .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
}

#[tokio::test]
async fn delete_needs_force_when_projects_are_linked() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(TOKEN).await;
    gitlab.with_projects(3, "svc").await;
    let root = app.root().await;
    let id = create_gitlab_config(&app, &gitlab).await;
    json(
        root.post(
            "/api/projects/sync/platform",
            json!({ "platformConfigId": id }),
        )
        .await,
        StatusCode::OK,
    )
    .await;

    expect_error(
        root.delete(&format!("/api/platform-configs/{id}")).await,
        StatusCode::BAD_REQUEST,
        "PROJECTS_LINKED",
    )
    .await;
    assert_eq!(
        json(root.get("/api/projects").await, StatusCode::OK).await["data"]["items"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    let deleted = json(
        root.delete(&format!("/api/platform-configs/{id}?force=true"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        deleted["data"],
        json!({ "success": true, "deletedProjects": 3 })
    );
    assert_eq!(
        json(root.get("/api/projects").await, StatusCode::OK).await["data"]["items"],
        json!([])
    );
    expect_error(
        root.delete(&format!("/api/platform-configs/{id}")).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
}
