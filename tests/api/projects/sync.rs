//! Syncing projects from hostA and hostB: all stored, resynced without duplicates,
//! platform failures reported.

use super::{GH_TOKEN, GL_TOKEN, ids};
use crate::helpers::{TestApp, create_github_config, create_gitlab_config, expect_error, json};
use reqwest::StatusCode;
use reviewd_testkit::{FakeGithub, FakeGitlab, gitlab_project};
use serde_json::json;
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, ResponseTemplate};

#[tokio::test]
async fn syncing_250_gitlab_and_120_github_projects_stores_all_and_resyncs_without_duplicates() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(GL_TOKEN).await;
    gitlab.with_projects(250, "svc").await;
    let github = FakeGithub::start(GH_TOKEN).await;
    github.with_repos(120, "repo").await;
    let root = app.root().await;
    let gl = create_gitlab_config(&app, &gitlab).await;
    let gh = create_github_config(&app, &github).await;

    let a = json(
        root.post(
            "/api/projects/sync/platform",
            json!({ "platformConfigId": gl }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        a["data"],
        json!({ "synced": 250, "total": 250, "errors": [] })
    );
    let b = json(
        root.post(
            "/api/projects/sync/platform",
            json!({ "platformConfigId": gh }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        b["data"],
        json!({ "synced": 120, "total": 120, "errors": [] })
    );
    let pages_read = gitlab
        .requests()
        .await
        .iter()
        .filter(|r| r.url.path() == "/api/v4/projects")
        .count();
    assert_eq!(pages_read, 3, "GitLab pages followed by X-Next-Page");
    assert_eq!(
        github
            .requests()
            .await
            .iter()
            .filter(|r| r.url.path() == "/api/v3/user/repos")
            .count(),
        2
    );

    let all = json(root.get("/api/projects").await, StatusCode::OK).await;
    assert_eq!(all["data"]["items"].as_array().unwrap().len(), 370);
    let before = ids(&all);

    // A second sync updates in place: same rows, a renamed project renamed.
    Mock::given(method("GET"))
        .and(path("/api/v4/projects"))
        .and(query_param("page", "1"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(
                    (1..=100)
                        .map(|i| {
                            if i == 1 {
                                gitlab_project(1, "group/renamed")
                            } else {
                                gitlab_project(i, &format!("group/svc-{i}"))
                            }
                        })
                        .collect::<Vec<_>>(),
                )
                .insert_header("x-next-page", "2")
                .insert_header("x-total", "250"),
        )
        .with_priority(1)
        .mount(&gitlab.server)
        .await;
    let again = json(
        root.post(
            "/api/projects/sync/platform",
            json!({ "platformConfigId": gl }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(again["data"]["synced"], 250);
    let all = json(root.get("/api/projects").await, StatusCode::OK).await;
    let mut after = ids(&all);
    let mut sorted_before = before.clone();
    after.sort();
    sorted_before.sort();
    assert_eq!(after, sorted_before, "no duplicates, same ids");
    assert!(
        all["data"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["fullPath"] == "group/renamed")
    );

    let stats = json(root.get("/api/projects/stats").await, StatusCode::OK).await;
    assert_eq!(stats["data"]["stats"]["total"], 370);
    assert_eq!(stats["data"]["stats"]["hostA"], 250);
    assert_eq!(stats["data"]["stats"]["webhookNotConfigured"], 370);
}

#[tokio::test]
async fn sync_survives_a_429_and_reports_a_platform_that_stays_down() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(GL_TOKEN).await;
    gitlab.with_projects(150, "svc").await;
    let root = app.root().await;
    let gl = create_gitlab_config(&app, &gitlab).await;

    gitlab
        .fail("GET", "^/api/v4/projects$", 429, &[("retry-after", "1")], 1)
        .await;
    let ok = json(
        root.post(
            "/api/projects/sync/platform",
            json!({ "platformConfigId": gl }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(ok["data"]["synced"], 150);

    gitlab
        .fail("GET", "^/api/v4/projects$", 500, &[], 100)
        .await;
    let down = expect_error(
        root.post(
            "/api/projects/sync/platform",
            json!({ "platformConfigId": gl }),
        )
        .await,
        StatusCode::SERVICE_UNAVAILABLE,
        "PLATFORM_UNAVAILABLE",
    )
    .await;
    assert!(!down.to_string().contains(GL_TOKEN));
    assert_eq!(
        json(root.get("/api/projects").await, StatusCode::OK).await["data"]["items"]
            .as_array()
            .unwrap()
            .len(),
        150
    );

    expect_error(
        root.post(
            "/api/projects/sync/platform",
            json!({ "platformConfigId": uuid::Uuid::new_v4() }),
        )
        .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    expect_error(
        root.post("/api/projects/sync/platform", json!({})).await,
        StatusCode::BAD_REQUEST,
        "INVALID_BODY",
    )
    .await;
    let viewer = app.user_with_role("viewer").await;
    expect_error(
        viewer
            .post(
                "/api/projects/sync/platform",
                json!({ "platformConfigId": gl }),
            )
            .await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
}

#[tokio::test]
async fn a_revoked_token_is_a_502_naming_the_config_problem() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(GL_TOKEN).await;
    let root = app.root().await;
    let gl = create_gitlab_config(&app, &gitlab).await;
    gitlab.fail("GET", "^/api/v4/projects$", 401, &[], 10).await;
    expect_error(
        root.post(
            "/api/projects/sync/platform",
            json!({ "platformConfigId": gl }),
        )
        .await,
        StatusCode::BAD_GATEWAY,
        "PLATFORM_UNAUTHORIZED",
    )
    .await;
}
