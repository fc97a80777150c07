//! Per-project settings: patched, validated, and resolved into the effective config.

use super::{GL_TOKEN, ids};
use crate::helpers::{TestApp, create_gitlab_config, expect_error, json};
use reqwest::StatusCode;
use reviewd_testkit::FakeGitlab;
use serde_json::json;

#[tokio::test]
async fn settings_patch_and_resolved_config() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(GL_TOKEN).await;
    gitlab.with_projects(1, "svc").await;
    let root = app.root().await;
    let gl = create_gitlab_config(&app, &gitlab).await;
    root.post(
        "/api/projects/sync/platform",
        json!({ "platformConfigId": gl }),
    )
    .await;
    let id = ids(&json(root.get("/api/projects").await, StatusCode::OK).await)[0].clone();

    let inherited = json(
        root.get(&format!("/api/projects/{id}/config")).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(inherited["data"]["config"]["autoReviewInherited"], true);
    assert_eq!(
        inherited["data"]["config"]["reviewCommands"],
        json!(["/review"])
    );

    let patched = json(
        root.patch(&format!("/api/projects/{id}"), json!({ "autoReview": false, "fileIgnorePatterns": ["*.lock", "dist/**"],
                                                          "defaultReviewerIds": ["12", "13"], "autoAssignAuthor": true })).await,
        StatusCode::OK,
    )
    .await;
    let p = &patched["data"]["project"];
    assert_eq!(
        (p["autoReview"].clone(), p["autoAssignAuthor"].clone()),
        (json!(false), json!(true))
    );
    assert_eq!(p["defaultReviewerIds"], json!(["12", "13"]));
    let resolved = json(
        root.get(&format!("/api/projects/{id}/config")).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(resolved["data"]["config"]["autoReview"], false);
    assert_eq!(
        resolved["data"]["config"]["fileIgnorePatterns"],
        json!(["*.lock", "dist/**"])
    );
    assert_eq!(
        resolved["data"]["config"]["fileIgnorePatternsInherited"],
        false
    );

    // null returns to the global value; an absent field is left alone.
    let reset = json(
        root.patch(
            &format!("/api/projects/{id}"),
            json!({ "autoReview": null }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert!(reset["data"]["project"]["autoReview"].is_null());
    assert_eq!(
        reset["data"]["project"]["fileIgnorePatterns"],
        json!(["*.lock", "dist/**"])
    );

    expect_error(
        root.patch(
            &format!("/api/projects/{id}"),
            json!({ "aiConfigId": uuid::Uuid::new_v4() }),
        )
        .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    expect_error(
        root.patch(
            &format!("/api/projects/{id}"),
            json!({ "fileIgnorePatterns": [""] }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    expect_error(
        root.patch(&format!("/api/projects/{id}"), json!({ "enabled": "yes" }))
            .await,
        StatusCode::BAD_REQUEST,
        "INVALID_BODY",
    )
    .await;
    expect_error(
        root.patch(
            &format!("/api/projects/{}", uuid::Uuid::new_v4()),
            json!({ "enabled": true }),
        )
        .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    let dev = app.user_with_role("developer").await;
    expect_error(
        dev.patch(&format!("/api/projects/{id}"), json!({ "enabled": false }))
            .await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;

    let workspace = json(
        root.get(&format!("/api/projects/{id}/workspace")).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(workspace["data"]["workspace"]["recentReviews"], json!([]));
    let pipelines = json(
        root.get(&format!(
            "/api/projects/{id}/pipelines?status=completed&triggeredBy=manual"
        ))
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(pipelines["meta"]["pagination"]["total"], 0);
    expect_error(
        root.get(&format!("/api/projects/{id}/pipelines?status=weird"))
            .await,
        StatusCode::BAD_REQUEST,
        "INVALID_QUERY",
    )
    .await;
}
