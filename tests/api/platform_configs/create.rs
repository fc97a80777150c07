//! Creating a config: the token checked, stored encrypted and always masked; bad tokens
//! and unreachable platforms refused.

use super::TOKEN;
use crate::helpers::{TestApp, expect_error, json};
use reqwest::StatusCode;
use reviewd_testkit::FakeGitlab;
use serde_json::json;

#[tokio::test]
async fn a_gitlab_config_is_checked_stored_encrypted_and_always_masked() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(TOKEN).await;
    let root = app.root().await;
    let created = json(
        root.post(
            "/api/platform-configs",
            json!({ "name": "GitLab", "platformType": "hostA", "baseUrl": format!("{}/", gitlab.base_url()),
                    "accessToken": TOKEN, "webhookSecret": "whsec-1" }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let config = &created["data"]["config"];
    assert_eq!(config["accessToken"], "***");
    assert_eq!(config["webhookSecret"], "***");
    assert_eq!(
        config["isDefault"], true,
        "the first config of a type is its default"
    );
    assert_eq!(
        config["baseUrl"],
        gitlab.base_url(),
        "trailing slash trimmed"
    );
    assert!(
        config["tokenScopes"]
            .as_array()
            .unwrap()
            .contains(&json!("api"))
    );
    let id = config["id"].as_str().unwrap();

    for path in [
        "/api/platform-configs",
        "/api/platform-configs/enabled",
        "/api/platform-configs/type/hostA",
        "/api/platform-configs/default",
        &format!("/api/platform-configs/{id}"),
    ] {
        let text = root.get(path).await.text().await.unwrap();
        assert!(
            !text.contains(TOKEN) && !text.contains("whsec-1"),
            "{path} leaks a secret: {text}"
        );
        assert!(text.contains("***"), "{path}: {text}");
    }
    let raw = json(
        root.get(&format!("/api/platform-configs/{id}/access-token"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(raw["data"]["accessToken"], TOKEN);

    let maintainer = app.user_with_role("maintainer").await;
    expect_error(
        maintainer
            .get(&format!("/api/platform-configs/{id}/access-token"))
            .await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    let empty = json(
        root.get("/api/platform-configs/type/hostB").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(empty["data"]["configs"], json!([]));
    expect_error(
        root.get("/api/platform-configs/type/hostC").await,
        StatusCode::BAD_REQUEST,
        "INVALID_PATH",
    )
    .await;
}

#[tokio::test]
async fn a_token_without_the_api_scope_or_rejected_is_refused_and_nothing_is_stored() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(TOKEN).await;
    gitlab.with_scopes(&["read_api"]).await;
    let root = app.root().await;
    let body = expect_error(
        root.post("/api/platform-configs", json!({ "name": "G", "platformType": "hostA", "baseUrl": gitlab.base_url(), "accessToken": TOKEN })).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    let message = body["error"]["details"]["fields"]["accessToken"][0]
        .as_str()
        .unwrap();
    assert!(
        message.contains("api") && message.contains("read_api"),
        "{message}"
    );
    assert!(!body.to_string().contains(TOKEN));

    let body = expect_error(
        root.post("/api/platform-configs", json!({ "name": "G", "platformType": "hostA", "baseUrl": gitlab.base_url(), "accessToken": "wrong" })).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert!(body["error"]["details"]["fields"]["accessToken"].is_array());
    let missing = expect_error(
        root.post(
            "/api/platform-configs",
            json!({ "name": "G", "platformType": "hostA", "baseUrl": gitlab.base_url() }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert!(missing["error"]["details"]["fields"]["accessToken"].is_array());
    let listed = json(root.get("/api/platform-configs").await, StatusCode::OK).await;
    assert_eq!(listed["data"]["items"], json!([]));
}

#[tokio::test]
async fn an_unreachable_platform_is_a_clear_400_after_bounded_retries() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(TOKEN).await;
    gitlab.fail("GET", "^/api/v4/user$", 500, &[], 10).await;
    let body = expect_error(
        app.root().await.post("/api/platform-configs", json!({ "name": "G", "platformType": "hostA", "baseUrl": gitlab.base_url(), "accessToken": TOKEN })).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert!(
        body["error"]["details"]["fields"]["baseUrl"][0]
            .as_str()
            .unwrap()
            .contains("cannot reach")
    );
    let user_calls = gitlab
        .requests()
        .await
        .iter()
        .filter(|r| r.url.path() == "/api/v4/user")
        .count();
    assert_eq!(user_calls, 3, "three attempts, then give up");
}
