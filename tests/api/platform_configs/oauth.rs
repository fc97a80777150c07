//! The OAuth flow: state and redirect checked, tokens stored masked.

use super::TOKEN;
use crate::helpers::{TestApp, expect_error, json};
use reqwest::StatusCode;
use reviewd_testkit::FakeGitlab;
use serde_json::json;
use wiremock::matchers::{body_string_contains, method, path};
use wiremock::{Mock, ResponseTemplate};

#[tokio::test]
async fn oauth_flow_checks_state_and_redirect_and_stores_tokens_masked() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(TOKEN).await;
    let root = app.root().await;
    let created = json(
        root.post("/api/platform-configs", json!({ "name": "OAuth GitLab", "platformType": "hostA", "baseUrl": gitlab.base_url(),
                                                    "authType": "oauth", "appId": "app-123", "appSecret": "app-secret-xyz" })).await,
        StatusCode::OK,
    )
    .await;
    let id = created["data"]["config"]["id"].as_str().unwrap().to_owned();
    assert_eq!(created["data"]["config"]["appSecret"], "***");
    assert!(created["data"]["config"]["accessToken"].is_null());

    expect_error(
        root.post(
            "/api/platform-configs/oauth/hostA/auth-url",
            json!({ "platformConfigId": id, "redirectUri": "https://evil.example/cb" }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    let redirect = "http://reviewd.test/oauth/callback";
    let started = json(
        root.post(
            "/api/platform-configs/oauth/hostA/auth-url",
            json!({ "platformConfigId": id, "redirectUri": redirect }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let url = started["data"]["url"].as_str().unwrap();
    let state = started["data"]["state"].as_str().unwrap().to_owned();
    assert!(url.starts_with(&format!("{}/oauth/authorize?", gitlab.base_url())));
    assert!(
        url.contains("client_id=app-123")
            && url.contains("response_type=code")
            && url.contains(&format!("state={state}"))
    );

    Mock::given(method("POST"))
        .and(path("/oauth/token"))
        .and(body_string_contains("grant_type=authorization_code"))
        .and(body_string_contains("code=the-code"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "access_token": "oauth-access-1", "token_type": "Bearer", "expires_in": 7200,
            "refresh_token": "oauth-refresh-1", "created_at": 1_800_000_000, "scope": "api read_user",
        })))
        .mount(&gitlab.server)
        .await;
    Mock::given(method("POST"))
        .and(path("/oauth/token"))
        .and(body_string_contains("grant_type=refresh_token"))
        .and(body_string_contains("refresh_token=oauth-refresh-1"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "access_token": "oauth-access-2", "token_type": "bearer", "expires_in": 7200,
            "refresh_token": "oauth-refresh-2", "created_at": 1_800_007_000, "scope": "api",
        })))
        .mount(&gitlab.server)
        .await;

    let cb = |redirect: &str, state: &str| json!({ "platformConfigId": id, "code": "the-code", "redirectUri": redirect, "state": state });
    expect_error(
        root.post(
            "/api/platform-configs/oauth/hostA/callback",
            cb("http://reviewd.test/other", &state),
        )
        .await,
        StatusCode::CONFLICT,
        "OAUTH_STATE_MISMATCH",
    )
    .await;
    expect_error(
        root.post(
            "/api/platform-configs/oauth/hostA/callback",
            cb(redirect, "forged"),
        )
        .await,
        StatusCode::CONFLICT,
        "OAUTH_STATE_MISMATCH",
    )
    .await;
    let done = json(
        root.post(
            "/api/platform-configs/oauth/hostA/callback",
            cb(redirect, &state),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(done["data"]["config"]["accessToken"], "***");
    assert_eq!(done["data"]["config"]["hasRefreshToken"], true);
    assert!(!done.to_string().contains("oauth-access-1"));
    // The state is single-use.
    expect_error(
        root.post(
            "/api/platform-configs/oauth/hostA/callback",
            cb(redirect, &state),
        )
        .await,
        StatusCode::CONFLICT,
        "OAUTH_STATE_MISMATCH",
    )
    .await;

    json(
        root.post(
            "/api/platform-configs/oauth/hostA/refresh",
            json!({ "platformConfigId": id }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let raw = json(
        root.get(&format!("/api/platform-configs/{id}/access-token"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(raw["data"]["accessToken"], "oauth-access-2");
}
