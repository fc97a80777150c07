//! The paginated project list and its filters.

use super::{GH_TOKEN, GL_TOKEN, ids};
use crate::helpers::{TestApp, create_github_config, create_gitlab_config, json};
use reqwest::StatusCode;
use reviewd_testkit::{FakeGithub, FakeGitlab};
use serde_json::json;

#[tokio::test]
async fn paginated_list_filters() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(GL_TOKEN).await;
    gitlab.with_projects(30, "svc").await;
    let github = FakeGithub::start(GH_TOKEN).await;
    github.with_repos(5, "repo").await;
    let root = app.root().await;
    let gl = create_gitlab_config(&app, &gitlab).await;
    let gh = create_github_config(&app, &github).await;
    root.post(
        "/api/projects/sync/platform",
        json!({ "platformConfigId": gl }),
    )
    .await;
    root.post(
        "/api/projects/sync/platform",
        json!({ "platformConfigId": gh }),
    )
    .await;

    let page = json(
        root.get("/api/projects/paginated?page=2&pageSize=10").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        page["meta"]["pagination"],
        json!({ "page": 2, "pageSize": 10, "total": 35, "totalPages": 4 })
    );
    let search = json(
        root.get("/api/projects/paginated?search=SVC-1").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        search["meta"]["pagination"]["total"], 11,
        "svc-1 and svc-10..19, case-insensitive"
    );
    let by_type = json(
        root.get("/api/projects/paginated?platformType=hostB").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(by_type["meta"]["pagination"]["total"], 5);
    let by_config = json(
        root.get(&format!("/api/projects/paginated?platformConfigId={gl}"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(by_config["meta"]["pagination"]["total"], 30);

    let first = ids(&search)[0].clone();
    json(
        root.patch(
            &format!("/api/projects/{first}"),
            json!({ "enabled": false }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let disabled = json(
        root.get("/api/projects/paginated?enabled=false").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(ids(&disabled), vec![first]);
    let unconfigured = json(
        root.get("/api/projects/paginated?webhookStatus=not_configured&pageSize=500")
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(unconfigured["meta"]["pagination"]["total"], 35);
    assert_eq!(unconfigured["meta"]["pagination"]["pageSize"], 100);
    for bad in [
        "webhookStatus=broken",
        "platformType=hostC",
        "enabled=maybe",
        "pageSize=0",
        "platformConfigId=nope",
    ] {
        let r = root.get(&format!("/api/projects/paginated?{bad}")).await;
        assert_eq!(r.status(), StatusCode::BAD_REQUEST, "{bad}");
    }
}
