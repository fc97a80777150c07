use crate::helpers::{TestApp, create_host_a_config, expect_error, json};
use reqwest::StatusCode;
use reviewd_testkit::{FakeGithub, FakeGitlab};
use serde_json::{Value, json};
use wiremock::matchers::{body_string_contains, method, path};
use wiremock::{Mock, ResponseTemplate};

const TOKEN: &str = "glpat-secret-token-123";

#[tokio::test]
async fn a_host_a_config_is_checked_stored_encrypted_and_always_masked() {
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

#[tokio::test]
async fn exactly_one_default_per_type() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(TOKEN).await;
    let root = app.root().await;
    let first = create_host_a_config(&app, &gitlab).await;
    let second = json(
        root.post("/api/platform-configs", json!({ "name": "Second", "platformType": "hostA", "baseUrl": gitlab.base_url(), "accessToken": TOKEN, "isDefault": true })).await,
        StatusCode::OK,
    )
    .await["data"]["config"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let defaults = |items: &Value| {
        items
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["isDefault"] == true)
            .map(|c| c["id"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let listed = json(root.get("/api/platform-configs").await, StatusCode::OK).await;
    assert_eq!(defaults(&listed["data"]["items"]), vec![second.clone()]);

    expect_error(
        root.patch(
            &format!("/api/platform-configs/{second}"),
            json!({ "isDefault": false }),
        )
        .await,
        StatusCode::CONFLICT,
        "CONFLICT",
    )
    .await;
    let switched = json(
        root.post(&format!("/api/platform-configs/{first}/default"), json!({}))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(switched["data"]["config"]["isDefault"], true);
    let listed = json(root.get("/api/platform-configs").await, StatusCode::OK).await;
    assert_eq!(defaults(&listed["data"]["items"]), vec![first.clone()]);
    let default = json(
        root.get("/api/platform-configs/default").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(default["data"]["config"]["id"], first.as_str());

    // Deleting the default hands the role to the remaining config.
    json(
        root.delete(&format!("/api/platform-configs/{first}")).await,
        StatusCode::OK,
    )
    .await;
    let remaining = json(
        root.get(&format!("/api/platform-configs/{second}")).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(remaining["data"]["config"]["isDefault"], true);
}

#[tokio::test]
async fn patch_keeps_masked_secrets_and_rechecks_new_tokens() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(TOKEN).await;
    let root = app.root().await;
    let id = create_host_a_config(&app, &gitlab).await;
    let patched = json(
        root.patch(
            &format!("/api/platform-configs/{id}"),
            json!({ "name": "Renamed", "accessToken": "***", "webhookSecret": "***" }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(patched["data"]["config"]["name"], "Renamed");
    let raw = json(
        root.get(&format!("/api/platform-configs/{id}/access-token"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(raw["data"]["accessToken"], TOKEN, "*** means unchanged");

    expect_error(
        root.patch(
            &format!("/api/platform-configs/{id}"),
            json!({ "accessToken": "revoked-token" }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    let raw = json(
        root.get(&format!("/api/platform-configs/{id}/access-token"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        raw["data"]["accessToken"], TOKEN,
        "a refused patch changes nothing"
    );
    expect_error(
        root.patch(
            &format!("/api/platform-configs/{id}"),
            json!({ "platformType": "hostB" }),
        )
        .await,
        StatusCode::CONFLICT,
        "CONFLICT",
    )
    .await;
    expect_error(
        root.patch(
            &format!("/api/platform-configs/{id}"),
            json!({ "colour": "red" }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "INVALID_BODY",
    )
    .await;
    expect_error(
        root.patch(
            &format!("/api/platform-configs/{}", uuid::Uuid::new_v4()),
            json!({ "name": "x" }),
        )
        .await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
}

#[tokio::test]
async fn delete_needs_force_when_projects_are_linked() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(TOKEN).await;
    gitlab.with_projects(3, "svc").await;
    let root = app.root().await;
    let id = create_host_a_config(&app, &gitlab).await;
    json(
        root.post(
            "/api/projects/sync/platform",
            json!({ "platformConfigId": id }),
        )
        .await,
        StatusCode::OK,
    )
    .await;

    expect_error(
        root.delete(&format!("/api/platform-configs/{id}")).await,
        StatusCode::BAD_REQUEST,
        "PROJECTS_LINKED",
    )
    .await;
    assert_eq!(
        json(root.get("/api/projects").await, StatusCode::OK).await["data"]["items"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    let deleted = json(
        root.delete(&format!("/api/platform-configs/{id}?force=true"))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        deleted["data"],
        json!({ "success": true, "deletedProjects": 3 })
    );
    assert_eq!(
        json(root.get("/api/projects").await, StatusCode::OK).await["data"]["items"],
        json!([])
    );
    expect_error(
        root.delete(&format!("/api/platform-configs/{id}")).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
}

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
async fn permissions_on_config_writes() {
    let app = TestApp::spawn().await;
    let gitlab = FakeGitlab::start(TOKEN).await;
    let viewer = app.user_with_role("viewer").await;
    let body = json!({ "name": "G", "platformType": "hostA", "baseUrl": gitlab.base_url(), "accessToken": TOKEN });
    expect_error(
        viewer.post("/api/platform-configs", body.clone()).await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    expect_error(
        app.client()
            .post("/api/platform-configs", body.clone())
            .await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
    )
    .await;
    let maintainer = app.user_with_role("maintainer").await;
    let created = json(
        maintainer.post("/api/platform-configs", body).await,
        StatusCode::OK,
    )
    .await;
    let id = created["data"]["config"]["id"].as_str().unwrap();
    expect_error(
        viewer.delete(&format!("/api/platform-configs/{id}")).await,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
    )
    .await;
    assert!(
        gitlab
            .requests()
            .await
            .iter()
            .all(|r| r.url.path() != "/api/v4/projects"),
        "a refused call reaches no platform"
    );
}

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

#[tokio::test]
async fn host_a_user_search_pages_through_the_instance_and_refuses_host_b() {
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
    let id = create_host_a_config(&app, &gitlab).await;
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
    let gh = crate::helpers::create_host_b_config(&app, &github).await;
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
