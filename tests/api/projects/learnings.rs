//! A project's learnings through the API: listed, added, edited and deleted, by
//! whom the roles allow, with bad input refused and other projects' ids unknown.

use super::{GL_TOKEN, ids};
use crate::helpers::{TestApp, create_gitlab_config, expect_error, json};
use reqwest::StatusCode;
use reviewd_testkit::FakeGitlab;
use serde_json::json;

#[tokio::test]
async fn learnings_are_listed_added_edited_and_deleted() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(GL_TOKEN).await;
    gitlab.with_projects(2, "learn").await;
    let root = app.root().await;
    let gl = create_gitlab_config(&app, &gitlab).await;
    root.post(
        "/api/projects/sync/platform",
        json!({ "platformConfigId": gl }),
    )
    .await;
    let projects = ids(&json(root.get("/api/projects").await, StatusCode::OK).await);
    let (one, other) = (&projects[0], &projects[1]);
    let base = format!("/api/projects/{one}/learnings");
    let empty = json(root.get(&base).await, StatusCode::OK).await;
    assert_eq!(empty["data"], json!([]));

    let created = json(
        root.post(
            &base,
            json!({ "text": "  We validate ids in the router.  " }),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    let learning = &created["data"];
    assert_eq!(learning["text"], "We validate ids in the router.");
    assert_eq!(learning["source"], "api");
    assert_eq!(learning["projectId"], json!(one));
    let id = learning["id"].as_str().unwrap().to_owned();

    let edited = json(
        root.patch(
            &format!("{base}/{id}"),
            json!({ "text": "Ids are validated by the router." }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(edited["data"]["text"], "Ids are validated by the router.");
    let listed = json(root.get(&base).await, StatusCode::OK).await;
    assert_eq!(listed["data"].as_array().unwrap().len(), 1);

    // Bad input changes nothing.
    for body in [
        json!({ "text": "" }),
        json!({ "text": "   " }),
        json!({ "text": "x".repeat(2001) }),
        json!({ "text": 5 }),
        json!({ "text": "ok", "extra": true }),
    ] {
        let response = root.post(&base, body.clone()).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{body}");
    }
    // Another project's learning, an unknown project, an unknown learning.
    let ghost = uuid::Uuid::new_v4();
    for (path, body) in [
        (
            format!("/api/projects/{other}/learnings/{id}"),
            Some(json!({ "text": "x" })),
        ),
        (format!("/api/projects/{ghost}/learnings"), None),
        (format!("{base}/{ghost}"), Some(json!({ "text": "x" }))),
    ] {
        let response = match body {
            Some(body) => root.patch(&path, body).await,
            None => root.get(&path).await,
        };
        expect_error(response, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    }
    // A viewer reads, and may not write.
    let viewer = app.user_with_role("viewer").await;
    json(viewer.get(&base).await, StatusCode::OK).await;
    expect_error(
        viewer.post(&base, json!({ "text": "mine" })).await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    expect_error(
        viewer.delete(&format!("{base}/{id}")).await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;

    json(root.delete(&format!("{base}/{id}")).await, StatusCode::OK).await;
    expect_error(
        root.delete(&format!("{base}/{id}")).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    let conversations = json(
        root.get(&format!(
            "/api/projects/{one}/merge-requests/7/conversations"
        ))
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(conversations["data"]["conversations"], json!([]));
    assert_eq!(conversations["data"]["controls"]["paused"], false);
}
