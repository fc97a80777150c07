use crate::helpers::{TestApp, create_host_a_config, create_host_b_config, expect_error, json};
use reqwest::StatusCode;
use reviewd_testkit::{FakeGithub, FakeGitlab, gitlab_project};
use serde_json::{Value, json};
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, ResponseTemplate};

const GL_TOKEN: &str = "glpat-projects";
const GH_TOKEN: &str = "ghp_projects";

fn ids(body: &Value) -> Vec<String> {
    body["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn syncing_250_gitlab_and_120_github_projects_stores_all_and_resyncs_without_duplicates() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(GL_TOKEN).await;
    gitlab.with_projects(250, "svc").await;
    let github = FakeGithub::start(GH_TOKEN).await;
    github.with_repos(120, "repo").await;
    let root = app.root().await;
    let gl = create_host_a_config(&app, &gitlab).await;
    let gh = create_host_b_config(&app, &github).await;

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
    let gl = create_host_a_config(&app, &gitlab).await;

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
    let gl = create_host_a_config(&app, &gitlab).await;
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

#[tokio::test]
async fn paginated_list_filters() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(GL_TOKEN).await;
    gitlab.with_projects(30, "svc").await;
    let github = FakeGithub::start(GH_TOKEN).await;
    github.with_repos(5, "repo").await;
    let root = app.root().await;
    let gl = create_host_a_config(&app, &gitlab).await;
    let gh = create_host_b_config(&app, &github).await;
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

#[tokio::test]
async fn settings_patch_and_resolved_config() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(GL_TOKEN).await;
    gitlab.with_projects(1, "svc").await;
    let root = app.root().await;
    let gl = create_host_a_config(&app, &gitlab).await;
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
    let gl = create_host_a_config(&app, &gitlab).await;
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

#[tokio::test]
async fn webhooks_are_created_verified_removed_and_cleared() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(GL_TOKEN).await;
    gitlab.with_projects(2, "svc").await;
    gitlab.with_hooks(1, json!([])).await;
    gitlab
        .with_hooks(
            2,
            json!([{ "id": 77, "url": "https://reviewd.example.com/api/webhook/hostA" }]),
        )
        .await;
    let root = app.root().await;
    let gl = create_host_a_config(&app, &gitlab).await;
    root.post(
        "/api/projects/sync/platform",
        json!({ "platformConfigId": gl }),
    )
    .await;
    let all = json(root.get("/api/projects").await, StatusCode::OK).await;
    let by_path = |p: &str| {
        all["data"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["fullPath"] == p)
            .unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (one, two) = (by_path("group/svc-1"), by_path("group/svc-2"));
    let unknown = uuid::Uuid::new_v4().to_string();

    let batch = json(
        root.post(
            "/api/projects/webhooks/batch",
            json!({ "projectIds": [one, two, unknown] }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        (
            batch["data"]["success"].clone(),
            batch["data"]["failed"].clone()
        ),
        (json!(2), json!(1))
    );
    let created = gitlab
        .requests()
        .await
        .into_iter()
        .filter(|r| r.method.as_str() == "POST" && r.url.path().ends_with("/hooks"))
        .collect::<Vec<_>>();
    assert_eq!(
        created.len(),
        1,
        "project 2 already had our hook: reused, not duplicated"
    );
    let hook: Value = serde_json::from_slice(&created[0].body).unwrap();
    assert_eq!(hook["url"], "https://reviewd.example.com/api/webhook/hostA");
    assert_eq!(
        hook["token"], "hook-secret-a",
        "the config's webhook secret authenticates deliveries"
    );
    assert_eq!(
        (
            hook["merge_requests_events"].clone(),
            hook["note_events"].clone()
        ),
        (json!(true), json!(true))
    );
    let results = batch["data"]["results"].as_array().unwrap();
    assert_eq!(
        results
            .iter()
            .find(|r| r["projectId"] == two.as_str())
            .unwrap()["webhookId"],
        "77"
    );
    assert!(
        results
            .iter()
            .find(|r| r["projectId"] == unknown.as_str())
            .unwrap()["error"]
            .as_str()
            .unwrap()
            .contains("not found")
    );

    let active = json(
        root.get("/api/projects/paginated?webhookStatus=active")
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(active["meta"]["pagination"]["total"], 2);

    let verified = json(
        root.post("/api/projects/webhooks/verify", json!({})).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(verified["data"]["checked"], 2);
    assert_eq!(
        verified["data"]["inactive"], 1,
        "project 1's hook 9001 is not listed by the fake: gone"
    );
    assert_eq!(verified["data"]["active"], 1);

    let removed = json(
        root.post("/api/projects/webhooks/remove", json!({ "projectId": two }))
            .await,
        StatusCode::OK,
    )
    .await;
    assert!(removed["data"]["project"]["webhookStatus"].is_null());
    assert!(gitlab.requests().await.iter().any(|r| r.method.as_str() == "DELETE" && r.url.path() == "/api/v4/projects/2/hooks/77"));
    expect_error(
        root.post("/api/projects/webhooks/remove", json!({ "projectId": two }))
            .await,
        StatusCode::CONFLICT,
        "NO_WEBHOOK",
    )
    .await;

    let cleared = json(
        root.post(&format!("/api/projects/{one}/webhook/clear"), json!({}))
            .await,
        StatusCode::OK,
    )
    .await;
    assert!(cleared["data"]["project"]["webhookId"].is_null());
    expect_error(
        root.post("/api/projects/webhooks/batch", json!({ "projectIds": [] }))
            .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    let dev = app.user_with_role("developer").await;
    expect_error(
        dev.post("/api/projects/webhooks/verify", json!({})).await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
}

#[tokio::test]
async fn deleting_projects_one_or_many() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(GL_TOKEN).await;
    gitlab.with_projects(4, "svc").await;
    let root = app.root().await;
    let gl = create_host_a_config(&app, &gitlab).await;
    root.post(
        "/api/projects/sync/platform",
        json!({ "platformConfigId": gl }),
    )
    .await;
    let all = ids(&json(root.get("/api/projects").await, StatusCode::OK).await);

    let dev = app.user_with_role("developer").await;
    expect_error(
        dev.delete(&format!("/api/projects/{}", all[0])).await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    json(
        root.delete(&format!("/api/projects/{}", all[0])).await,
        StatusCode::OK,
    )
    .await;
    expect_error(
        root.delete(&format!("/api/projects/{}", all[0])).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;

    let ghost = uuid::Uuid::new_v4().to_string();
    let batch = json(
        root.post(
            "/api/projects/delete/batch",
            json!({ "projectIds": [all[1], all[2], ghost] }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(batch["data"]["deleted"], 2);
    assert_eq!(batch["data"]["notFound"], json!([ghost]));
    assert_eq!(
        ids(&json(root.get("/api/projects").await, StatusCode::OK).await),
        vec![all[3].clone()]
    );
    expect_error(
        root.post("/api/projects/delete/batch", json!({ "projectIds": [] }))
            .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
}
