//! Live platform views of a project: its details, members and merge requests.

use super::{GL_TOKEN, ids};
use crate::helpers::{TestApp, create_gitlab_config, expect_error, json};
use reqwest::StatusCode;
use reviewd_testkit::FakeGitlab;
use serde_json::json;
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, ResponseTemplate};

#[tokio::test]
async fn live_platform_views() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(GL_TOKEN).await;
    gitlab.with_projects(1, "svc").await;
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/1/members/all"))
        .and(query_param("query", "ali"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!([{ "id": 12, "username": "alice", "name": "Alice", "state": "active", "avatar_url": "a", "web_url": "w", "access_level": 30 }]))
                .insert_header("x-total", "1")
                .insert_header("x-next-page", ""),
        )
        .mount(&gitlab.server)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/v4/projects/1/merge_requests"))
        .and(query_param("state", "merged"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!([{
            "id": 501, "iid": 5, "title": "Add cache", "description": "", "state": "merged",
            "web_url": "https://gitlab.example.com/group/svc-1/-/merge_requests/5", "source_branch": "cache", "target_branch": "main",
            "author": { "id": 12, "username": "alice", "name": "Alice" }, "sha": "abc123", "draft": false,
            "created_at": "2026-11-01T10:00:00.000Z", "updated_at": "2026-11-02T10:00:00.000Z" }])).insert_header("x-next-page", ""))
        .mount(&gitlab.server)
        .await;
    let root = app.root().await;
    let gl = create_gitlab_config(&app, &gitlab).await;
    root.post(
        "/api/projects/sync/platform",
        json!({ "platformConfigId": gl }),
    )
    .await;
    let id = ids(&json(root.get("/api/projects").await, StatusCode::OK).await)[0].clone();

    let platform = json(
        root.get(&format!("/api/projects/{id}/platform")).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(platform["data"]["project"]["fullPath"], "group/svc-1");
    assert_eq!(platform["data"]["project"]["platformType"], "hostA");
    let members = json(
        root.get(&format!("/api/projects/{id}/members?search=ali&pageSize=5"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(members["data"]["items"][0]["username"], "alice");
    assert_eq!(members["meta"]["pagination"]["total"], 1);
    let mrs = json(
        root.get(&format!("/api/projects/{id}/merge-requests?state=merged"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(mrs["data"]["items"][0]["iid"], 5);
    assert_eq!(mrs["data"]["items"][0]["authorUsername"], "alice");
    expect_error(
        root.get(&format!("/api/projects/{id}/merge-requests?state=weird"))
            .await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUERY",
    )
    .await;
    let request = gitlab
        .requests()
        .await
        .into_iter()
        .find(|r| r.url.path().ends_with("/members/all"))
        .unwrap();
    assert!(request.url.query().unwrap().contains("per_page=5"));
}
