//! The manual trigger and the task records.

use crate::helpers::{TestApp, create_gitlab_config, expect_error, json};
use reqwest::StatusCode;
use reviewd_testkit::FakeGitlab;
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

#[tokio::test]
async fn a_manual_review_is_accepted_with_a_poll_location() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start("glpat-manual").await;
    gitlab.with_projects(1, "svc").await;
    Mock::given(method("GET")).and(path("/api/v4/projects/1/merge_requests/7")).respond_with(ResponseTemplate::new(200).set_body_json(json!({
        "iid": 7, "title": "Feature", "state": "opened", "web_url": "https://gitlab.example.com/group/svc-1/-/merge_requests/7",
        "source_branch": "f", "target_branch": "main", "sha": "abc", "diff_refs": { "base_sha": "b", "head_sha": "abc", "start_sha": "s" },
    }))).mount(&gitlab.server).await;
    let config = create_gitlab_config(&app, &gitlab).await;
    let root = app.root().await;
    json(
        root.post(
            "/api/projects/sync/platform",
            json!({ "platformConfigId": config }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let project =
        json(root.get("/api/projects").await, StatusCode::OK).await["data"]["items"][0]["id"]
            .as_str()
            .unwrap()
            .to_owned();

    let dev = app.user_with_role("developer").await;
    let r = dev
        .post(
            "/api/reviews/trigger-manual-review",
            json!({ "projectId": project, "mrIid": 7 }),
        )
        .await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let location = r.headers()["location"].to_str().unwrap().to_owned();
    let body: serde_json::Value = r.json().await.unwrap();
    assert_eq!(body["data"]["queued"], true);
    assert_eq!(body["data"]["task"]["status"], "queued");
    assert_eq!(body["data"]["task"]["sentToPlatform"], true);
    assert_eq!(body["data"]["task"]["location"], location.as_str());

    let polled = json(dev.get(&location).await, StatusCode::OK).await;
    assert_eq!(polled["data"]["task"]["status"], "queued");
    assert_eq!(polled["data"]["task"]["headSha"], "abc");
    assert!(polled["data"]["task"]["reviewId"].is_null());
    let recent = json(
        dev.get("/api/reviews/manual/tasks/recent").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(recent["data"]["items"].as_array().unwrap().len(), 1);

    let again = json(
        dev.post(
            "/api/reviews/trigger-manual-review",
            json!({ "projectId": project, "mrIid": 7, "sendToPlatform": false }),
        )
        .await,
        StatusCode::ACCEPTED,
    )
    .await;
    assert_eq!(
        again["data"]["task"]["id"], body["data"]["task"]["id"],
        "the active task of this head is returned"
    );

    let viewer = app.user_with_role("viewer").await;
    expect_error(
        viewer
            .post(
                "/api/reviews/trigger-manual-review",
                json!({ "projectId": project, "mrIid": 7 }),
            )
            .await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    expect_error(
        dev.post(
            "/api/reviews/trigger-manual-review",
            json!({ "projectId": project, "mrIid": 404 }),
        )
        .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    expect_error(
        dev.post(
            "/api/reviews/trigger-manual-review",
            json!({ "projectId": uuid::Uuid::new_v4(), "mrIid": 7 }),
        )
        .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    expect_error(
        dev.post(
            "/api/reviews/trigger-manual-review",
            json!({ "projectId": project, "mrIid": 0 }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    expect_error(
        dev.post(
            "/api/reviews/trigger-manual-review",
            json!({ "projectId": project }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "INVALID_BODY",
    )
    .await;
    json(
        root.patch(
            &format!("/api/projects/{project}"),
            json!({ "enabled": false }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    expect_error(
        dev.post(
            "/api/reviews/trigger-manual-review",
            json!({ "projectId": project, "mrIid": 7 }),
        )
        .await,
        StatusCode::CONFLICT,
        "PROJECT_DISABLED",
    )
    .await;

    expect_error(
        dev.get(&format!(
            "/api/reviews/manual/tasks/{}",
            uuid::Uuid::new_v4()
        ))
        .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    expect_error(
        dev.get("/api/reviews/tasks?status=exploded").await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUERY",
    )
    .await;
    let queued = json(
        dev.get("/api/reviews/tasks?status=queued").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(queued["meta"]["pagination"]["total"], 1);
}
