//! Talking to a config's platform: the connection test and the hostA user search.

use super::TOKEN;
use crate::helpers::{TestApp, create_gitlab_config, expect_error, json};
use reqwest::StatusCode;
use reviewd_testkit::{FakeGithub, FakeGitlab};
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

#[tokio::test]
async fn test_connection_reports_instead_of_failing() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(TOKEN).await;
    gitlab.with_projects(2, "svc").await;
    let root = app.root().await;
    let ok = json(
        root.post(
            "/api/platform-configs/test-connection",
            json!({ "platformType": "hostA", "baseUrl": gitlab.base_url(), "accessToken": TOKEN }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(ok["data"]["success"], true);
    assert_eq!(ok["data"]["details"]["projectCount"], 2);
    assert_eq!(ok["data"]["details"]["user"]["username"], "reviewer-bot");

    let bad = json(
        root.post(
            "/api/platform-configs/test-connection",
            json!({ "platformType": "hostA", "baseUrl": gitlab.base_url(), "accessToken": "nope" }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(bad["data"]["success"], false);
    assert!(
        bad["data"]["message"]
            .as_str()
            .unwrap()
            .contains("rejected")
    );

    let github = FakeGithub::start("ghp_token").await;
    let empty = json(
        root.post("/api/platform-configs/test-connection", json!({ "platformType": "hostB", "baseUrl": github.base_url(), "accessToken": "ghp_token" })).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        empty["data"]["success"], false,
        "no repository visible: {empty}"
    );
    assert_eq!(
        empty["data"]["details"]["scopes"],
        json!(["repo", "admin:repo_hook"])
    );

    let dev = app.user_with_role("developer").await;
    let r = dev
        .post(
            "/api/platform-configs/test-connection",
            json!({ "platformType": "hostA", "baseUrl": gitlab.base_url(), "accessToken": TOKEN }),
        )
        .await;
    expect_error(r, StatusCode::FORBIDDEN, "FORBIDDEN").await;
}

#[tokio::test]
async fn gitlab_user_search_pages_through_the_instance_and_refuses_github() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(TOKEN).await;
    Mock::given(method("GET"))
        .and(path("/api/v4/users"))
        .and(wiremock::matchers::query_param("search", "ali"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!([{ "id": 12, "username": "alice", "name": "Alice", "state": "active",
                                        "avatar_url": "https://gitlab.example.com/a.png", "web_url": "https://gitlab.example.com/alice" }]))
                .insert_header("x-total", "41")
                .insert_header("x-next-page", "3"),
        )
        .mount(&gitlab.server)
        .await;
    let root = app.root().await;
    let id = create_gitlab_config(&app, &gitlab).await;
    let found = json(
        root.get(&format!(
            "/api/platform-configs/{id}/hostA/users?search=ali&page=2&perPage=20"
        ))
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        found["data"]["users"][0],
        json!({ "id": "12", "username": "alice", "name": "Alice",
        "avatarUrl": "https://gitlab.example.com/a.png", "state": "active", "webUrl": "https://gitlab.example.com/alice" })
    );
    assert_eq!(
        found["data"]["pagination"],
        json!({ "page": 2, "perPage": 20, "total": 41, "hasNext": true })
    );
    let sent = gitlab
        .requests()
        .await
        .into_iter()
        .find(|r| r.url.path() == "/api/v4/users")
        .unwrap();
    assert!(
        sent.url.query().unwrap().contains("page=2")
            && sent.url.query().unwrap().contains("per_page=20")
    );

    let github = FakeGithub::start("ghp_users").await;
    let gh = crate::helpers::create_github_config(&app, &github).await;
    expect_error(
        root.get(&format!("/api/platform-configs/{gh}/hostA/users"))
            .await,
        StatusCode::CONFLICT,
        "UNSUPPORTED_PLATFORM",
    )
    .await;
    expect_error(
        root.get(&format!(
            "/api/platform-configs/{}/hostA/users",
            uuid::Uuid::new_v4()
        ))
        .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    expect_error(
        root.get(&format!("/api/platform-configs/{id}/hostA/users?perPage=0"))
            .await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUERY",
    )
    .await;
}
